// RUN: tile-opt %s -split-input-file --tilegpu-insert-barriers | FileCheck %s

// Two reductions share the same scratch bytes: the second may not write
// its partials before every thread has read the first's.
// CHECK-LABEL: func.func @two_sums
// CHECK-NOT: tilegpu.barrier
// CHECK: tile.reduce
// CHECK: tilegpu.barrier
// CHECK-NEXT: tile.reduce
// CHECK-NOT: tilegpu.barrier
// CHECK: return
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16 : i64, tilegpu.target = "sm_90a"} {
  func.func @two_sums(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32>) attributes {tile.kernel} {
    %0 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
    %1 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %2 = tile.addptr %0, %1 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %3 = tile.load %2 : tensor<1024x!tile.ptr<f32>, #blocked>
    %4 = tile.reduce %3 axis = 0 {tilegpu.offset = 0 : i64} : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg2: f32, %arg3: f32):
      %7 = arith.addf %arg2, %arg3 : f32
      tile.reduce.return %7 : f32
    }
    %5 = tile.reduce %3 axis = 0 {tilegpu.offset = 0 : i64} : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg2: f32, %arg3: f32):
      %7 = arith.maxnumf %arg2, %arg3 : f32
      tile.reduce.return %7 : f32
    }
    %6 = arith.addf %4, %5 : f32
    tile.store %arg1, %6 : !tile.ptr<f32>
    return
  }
}


// -----

// In a loop, the next iteration's reduction overwrites what this one read.
// CHECK-LABEL: func.func @loop_sum
// CHECK: scf.for
// CHECK-NEXT: tilegpu.barrier
// CHECK: tile.reduce
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16 : i64, tilegpu.target = "sm_90a"} {
  func.func @loop_sum(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32>, %arg2: i32) attributes {tile.kernel} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant 0.000000e+00 : f32
    %0 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %cst) -> (f32)  : i32 {
      %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
      %2 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
      %3 = tile.addptr %1, %2 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
      %4 = tile.load %3 : tensor<1024x!tile.ptr<f32>, #blocked>
      %5 = tile.reduce %4 axis = 0 {tilegpu.offset = 0 : i64} : (tensor<1024xf32, #blocked>) -> f32 {
      ^bb0(%arg5: f32, %arg6: f32):
        %7 = arith.addf %arg5, %arg6 : f32
        tile.reduce.return %7 : f32
      }
      %6 = arith.addf %arg4, %5 : f32
      scf.yield %6 : f32
    }
    tile.store %arg1, %0 : !tile.ptr<f32>
    return
  }
}

