// RUN: tile-opt %s --tilegpu-allocate-shared-memory | FileCheck %s
// RUN: tile-opt %s --tilegpu-allocate-shared-memory=max-shared=8 -verify-diagnostics

// Each reduction's scratch lives only while it runs: both get offset 0, and
// the kernel needs 16 bytes (4 warps x 4 bytes).
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16 : i64
// CHECK: tile.reduce {{.*}} {tilegpu.offset = 0 : i64}
// CHECK: tile.reduce {{.*}} {tilegpu.offset = 0 : i64}
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // expected-error @+1 {{kernel 'two_sums' needs 16 bytes of shared memory, more than the 8 a block may have}}
  func.func @two_sums(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32>) attributes {tile.kernel} {
    %0 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
    %1 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %2 = tile.addptr %0, %1 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %3 = tile.load %2 : tensor<1024x!tile.ptr<f32>, #blocked>
    %4 = tile.reduce %3 axis = 0 : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg2: f32, %arg3: f32):
      %7 = arith.addf %arg2, %arg3 : f32
      tile.reduce.return %7 : f32
    }
    %5 = tile.reduce %3 axis = 0 : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg2: f32, %arg3: f32):
      %7 = arith.maxnumf %arg2, %arg3 : f32
      tile.reduce.return %7 : f32
    }
    %6 = arith.addf %4, %5 : f32
    tile.store %arg1, %6 : !tile.ptr<f32>
    return
  }
}

