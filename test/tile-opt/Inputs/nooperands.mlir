func.func @f() {
  %0 = "tile.dot"() : () -> tensor<16x16xf32>
  return
}
