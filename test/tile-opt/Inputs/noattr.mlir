func.func @f() {
  %0 = "tile.make_range"() : () -> tensor<16xi32>
  return
}
