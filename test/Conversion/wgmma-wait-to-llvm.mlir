// RUN: tile-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// The wait that retires an MMA reading A from registers takes those
// registers too, as the packed 32-bit words the MMA read ("=r" outputs
// tied to them), so nothing may overwrite them before it; the
// accumulator's registers pass through as "=f".
// CHECK-LABEL: func.func @wait_keeps_operand
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: "wgmma.wait_group.sync.aligned 0;", "{{(=f,){32}(=r,){16}[0-9]}}
#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#opa = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @wait_keeps_operand() attributes {tile.kernel} {
    %a = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #opa>
    %bt = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #b>
    %c = arith.constant dense<3.000000e+00> : tensor<64x64xf32, #mma>
    %bs = tilegpu.local_alloc %bt : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %a, %bs, %c async : tensor<64x64xf16, #opa> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %r:2 = tilegpu.warpgroup_dot_wait %d, %a {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf16, #opa>
    return
  }
}
