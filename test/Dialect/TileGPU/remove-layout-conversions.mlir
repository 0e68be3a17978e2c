// RUN: tile-opt %s --tilegpu-remove-layout-conversions | FileCheck %s

// The pointers are recomputed in the load's layout (backward), and the
// loaded value's conversion moves past the elementwise ops that use it
// twice (x * x) until it meets the store's conversion and both vanish.
// CHECK: #[[V:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @square
// CHECK-NOT: convert_layout
// CHECK: %[[X:.*]] = tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[V]]>
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : tensor<1024xf32, #[[V]]>
// CHECK: %[[Z:.*]] = math.exp %[[Y]] : tensor<1024xf32, #[[V]]>
// CHECK-NOT: convert_layout
// CHECK: tile.store %{{.*}}, %[[Z]] : tensor<1024x!tile.ptr<f32>, #[[V]]>
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @square(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %3 = tilegpu.convert_layout %2 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  %4 = tile.load %3 : tensor<1024x!tile.ptr<f32>, #blocked1>
  %5 = tilegpu.convert_layout %4 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
  %6 = arith.mulf %5, %5 : tensor<1024xf32, #blocked>
  %7 = math.exp %6 : tensor<1024xf32, #blocked>
  %8 = tilegpu.convert_layout %2 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  %9 = tilegpu.convert_layout %7 : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked1>
  tile.store %8, %9 : tensor<1024x!tile.ptr<f32>, #blocked1>
  return
}


// A reduction reads the loaded value in the load's own layout.
// CHECK-LABEL: func.func @rowsum
// CHECK-NOT: convert_layout
// CHECK: tile.reduce
func.func @rowsum(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %3 = tilegpu.convert_layout %2 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  %4 = tile.load %3 : tensor<1024x!tile.ptr<f32>, #blocked1>
  %5 = tilegpu.convert_layout %4 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
  %6 = "tile.reduce"(%5) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.reduce.return %t : f32
  }) : (tensor<1024xf32, #blocked>) -> f32
  tile.store %q, %6 : !tile.ptr<f32>
  return
}
