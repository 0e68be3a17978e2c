func.func @f(%p: !tile.ptr<f32>) {
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!tile.ptr<f32>) -> f32
  return
}
