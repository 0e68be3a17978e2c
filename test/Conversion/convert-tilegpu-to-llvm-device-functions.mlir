// RUN: tile-opt %s --convert-tilegpu-to-llvm | FileCheck %s

// A device function (`noinline`) that passes tensors takes and returns each
// thread's registers of them: 256 floats over 128 threads are two values
// per thread, in the call, the signature and the return.
// CHECK-LABEL: func.func private @twice(
// CHECK-SAME: %{{.*}}: f32, %{{.*}}: f32) -> (f32, f32) attributes {no_inline}
// CHECK: return %{{.*}}, %{{.*}} : f32, f32
// CHECK-LABEL: func.func @caller(
// CHECK: %[[R:.*]]:2 = call @twice(%{{.*}}, %{{.*}}) : (f32, f32) -> (f32, f32)
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @twice(%x: tensor<256xf32, #blocked>) -> tensor<256xf32, #blocked> attributes {no_inline} {
    %y = arith.addf %x, %x : tensor<256xf32, #blocked>
    return %y : tensor<256xf32, #blocked>
  }
  func.func @caller(%p: !tile.ptr<f32>) attributes {tile.kernel} {
    %offsets = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %base = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #blocked>
    %ptrs = tile.addptr %base, %offsets : tensor<256x!tile.ptr<f32>, #blocked>, tensor<256xi32, #blocked>
    %x = tile.load %ptrs : tensor<256x!tile.ptr<f32>, #blocked>
    %y = func.call @twice(%x) : (tensor<256xf32, #blocked>) -> tensor<256xf32, #blocked>
    tile.store %ptrs, %y : tensor<256x!tile.ptr<f32>, #blocked>
    return
  }
}
