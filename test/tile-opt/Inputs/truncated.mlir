func.func @f(%p: !tile.ptr<f32>) {
  %0 = tile.load %p