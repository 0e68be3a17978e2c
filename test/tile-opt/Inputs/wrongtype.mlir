func.func @f(%x: f32) {
  %0 = tile.splat %x : i32 -> tensor<4xi32>
  return
}
