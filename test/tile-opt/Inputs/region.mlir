func.func @f(%x: tensor<16xf32>) {
  %0 = tile.reduce %x axis = 0 : (tensor<16xf32>) -> f32
  return
}
