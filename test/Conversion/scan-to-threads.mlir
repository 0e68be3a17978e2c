// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --convert-tilegpu-to-llvm | FileCheck %s

// 256 elements over 4 warps in the default layout (one element per thread,
// wrapping around twice): for each of the two chunks the lanes scan in 5
// Hillis-Steele steps (shfl.sync idx) and read the lane before and the
// warp's last lane; the warps' totals of both chunks go through shared
// memory behind one barrier; the second chunk then takes the first's total.
// CHECK-LABEL: func.func @cumsum
// The warp index first: lane 0's, broadcast to the warp.
// CHECK: %[[W:.*]] = arith.shrui
// CHECK: nvvm.shfl.sync idx %{{.*}}, %[[W]], %c0_i32
// CHECK-COUNT-14: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: scf.for
// CHECK: return
func.func @cumsum(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %ptrs : tensor<256x!tile.ptr<f32>>
  %c = tile.scan %x axis = 0 : (tensor<256xf32>) -> tensor<256xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.scan.return %t : f32
  }
  tile.store %ptrs, %c : tensor<256x!tile.ptr<f32>>
  return
}
