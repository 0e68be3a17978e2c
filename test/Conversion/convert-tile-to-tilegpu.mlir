// RUN: tile-opt %s --convert-tile-to-tilegpu=num-warps=8 | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-tilegpu=num-warps=3 -verify-diagnostics

// Default layouts from num_warps (32 threads per warp): a 2-D tensor puts
// the warp's lanes along the minor dimension and spreads warps over both;
// a 1-D tensor is sliced out of its 2-D user's layout at expand_dims. Loop
// iteration arguments take the layout of their init value.
// CHECK-DAG: #[[B2:.*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]}>
// CHECK-DAG: #[[B1:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// CHECK-DAG: #[[S:.*]] = #tilegpu.slice<{dim = 0, parent = #[[B2]]}>
// CHECK: module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"}
// CHECK: tile.make_range {{.*}} : tensor<128xi32, #[[B1]]>
// CHECK: tilegpu.convert_layout {{.*}} : tensor<128xi32, #[[B1]]> -> tensor<128xi32, #[[S]]>
// CHECK: tile.expand_dims {{.*}} -> tensor<1x128xi32, #[[B2]]>
// CHECK: scf.for {{.*}} -> (tensor<64x128xf32, #[[B2]]>)
// CHECK: arith.addf {{.*}} : tensor<64x128xf32, #[[B2]]>
// CHECK: scf.yield {{.*}} : tensor<64x128xf32, #[[B2]]>

// expected-error @+1 {{num-warps must be a power of two in [1, 32], got 3}}
module {
func.func @layouts(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %r2 = tile.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %rb = tile.broadcast %r2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %rb : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xi32>
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<64x128xf32>) : i32 {
    %x = tile.load %ptrs : tensor<64x128x!tile.ptr<f32>>
    %b = arith.addf %a, %x : tensor<64x128xf32>
    scf.yield %b : tensor<64x128xf32>
  }
  tile.store %ptrs, %acc : tensor<64x128x!tile.ptr<f32>>
  return
}
}
