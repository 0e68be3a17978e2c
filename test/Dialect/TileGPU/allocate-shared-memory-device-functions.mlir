// RUN: tile-opt %s --tilegpu-allocate-shared-memory | FileCheck %s

// A device function (a `noinline` @jit function, called, not inlined) runs
// while its caller's buffers may be live: its own start where the caller's
// end. The kernel's reduction takes bytes [0, 16) (4 warps x 4 bytes), so
// the function's starts at 16, and the kernel needs 32.
// CHECK: module attributes {{{.*}}tilegpu.shared = 32 : i64
// CHECK-LABEL: func.func private @row_max_0
// CHECK: tile.reduce {{.*}} {tilegpu.offset = 16 : i64}
// CHECK-LABEL: func.func @calls_row_max
// CHECK: tile.reduce {{.*}} {tilegpu.offset = 0 : i64}
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @row_max_0(%arg0: !tile.ptr<f32>) -> f32 attributes {no_inline} {
    %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %3 = tile.load %2 : tensor<1024x!tile.ptr<f32>, #blocked>
    %4 = tile.reduce %3 axis = 0 : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg1: f32, %arg2: f32):
      %5 = arith.maxnumf %arg1, %arg2 : f32
      tile.reduce.return %5 : f32
    }
    return %4 : f32
  }
  func.func @calls_row_max(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f32>) attributes {tile.kernel} {
    %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %3 = tile.load %2 : tensor<1024x!tile.ptr<f32>, #blocked>
    %4 = tile.reduce %3 axis = 0 : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg2: f32, %arg3: f32):
      %9 = arith.addf %arg2, %arg3 : f32
      tile.reduce.return %9 : f32
    }
    %5 = call @row_max_0(%arg0) : (!tile.ptr<f32>) -> f32
    %6 = arith.addf %4, %5 : f32
    %7 = call @row_max_0(%arg1) : (!tile.ptr<f32>) -> f32
    %8 = arith.addf %6, %7 : f32
    tile.store %arg1, %8 : !tile.ptr<f32>
    return
  }
}
