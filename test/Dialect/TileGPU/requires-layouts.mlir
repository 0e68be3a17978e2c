// Passes after convert-tile-to-tilegpu refuse tensors without a layout
// instead of crashing.
// RUN: not tile-opt %s --convert-tilegpu-to-llvm 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tilegpu-allocate-shared-memory 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tilegpu-insert-barriers 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tilegpu-coalesce 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tilegpu-pipeline 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tilegpu-warp-specialize 2>&1 | FileCheck %s
// CHECK: tensor without a TileGPU layout; run convert-tile-to-tilegpu first
func.func @needs_layouts() {
  %r = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  return
}
