func.func @f(%p: !tile.vec<4>)
