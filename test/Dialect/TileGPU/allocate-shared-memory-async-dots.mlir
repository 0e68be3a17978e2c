// RUN: tile-opt %s --tilegpu-allocate-shared-memory | FileCheck %s

// An async warpgroup_dot reads its shared operands until a wait retires it,
// so a buffer it reads is live until then, not just until the dot. Here the
// first dot's B is still being read when the second B is stored (its wait
// comes after), so the two need different offsets. The second dot is only
// waited for at the top of the next iteration, so its B lives through the
// whole loop. After the loop's final wait both are free again.
// CHECK-LABEL: func.func @register_operands
// CHECK: scf.for
// CHECK: tilegpu.local_alloc %arg1 {tilegpu.offset = 0 : i64}
// CHECK: tilegpu.warpgroup_dot {{.*}} async
// CHECK: tilegpu.local_alloc %arg1 {tilegpu.offset = 8192 : i64}
// CHECK: scf.yield
// CHECK: tilegpu.warpgroup_dot_wait
// CHECK: tilegpu.local_alloc %arg1 {tilegpu.offset = 0 : i64}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @register_operands(%a: !tilegpu.memdesc<64x64xf16, #nvmma>, %b: tensor<64x64xf16, #blocked>, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %b0 = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %w0 = tilegpu.warpgroup_dot_wait %acc {pendings = 0 : i32} : tensor<64x64xf32, #mma>
      %d0 = tilegpu.warpgroup_dot %a, %b0, %w0 async : !tilegpu.memdesc<64x64xf16, #nvmma> * <64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      %b1 = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %w1 = tilegpu.warpgroup_dot_wait %d0 {pendings = 0 : i32} : tensor<64x64xf32, #mma>
      %d1 = tilegpu.warpgroup_dot %a, %b1, %w1 async : !tilegpu.memdesc<64x64xf16, #nvmma> * <64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %d1 : tensor<64x64xf32, #mma>
    }
    %done = tilegpu.warpgroup_dot_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #mma>
    %b2 = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d2 = tilegpu.warpgroup_dot %a, %b2, %done : !tilegpu.memdesc<64x64xf16, #nvmma> * <64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    return %d2 : tensor<64x64xf32, #mma>
  }
}
