// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-allocate-shared-memory --tilegpu-insert-barriers | FileCheck %s --check-prefix=ALLOC
// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --tilegpu-distribute-to-threads | FileCheck %s

// 256 elements over 4 warps: 2 registers, 5 lane shuffles, 4 warp partials.
// ALLOC: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16 : i64
// ALLOC: tile.reduce {{.*}} {tilegpu.offset = 0 : i64}
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier0
// CHECK-NOT: tile.reduce
func.func @sum(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %a = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %a : tensor<256x!tile.ptr<f32>>
  %s = tile.reduce %x axis = 0 : (tensor<256xf32>) -> f32 {
  ^bb0(%l: f32, %rr: f32):
    %t = arith.addf %l, %rr : f32
    tile.reduce.return %t : f32
  }
  tile.store %p, %s : !tile.ptr<f32>
  return
}
