// RUN: tile-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// maxNumImpreciseAcc = 32 over K = 64 of e5m2 (k32 instructions): each
// 32-deep slice goes into a fresh partial accumulator (scale-d zero), is
// waited for with its registers tied, and added to the f32 accumulator in
// f32: two slices, two waits, 32 adds per slice for a 64x64 tile over a
// warpgroup (32 accumulator registers a thread).
// CHECK-LABEL: func.func @two_slices
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <zero>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: "wgmma.wait_group.sync.aligned 0;", "{{(=f,){32}[0-9]}}
// CHECK-COUNT-32: llvm.fadd
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}} <zero>
// CHECK: "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-32: llvm.fadd
// CHECK-NOT: nvvm.wgmma.mma_async
#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
#ka = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#kb = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @two_slices(%at: tensor<64x64xf8E5M2, #b>, %bt: tensor<64x64xf8E5M2, #b>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %as = tilegpu.local_alloc %at : (tensor<64x64xf8E5M2, #b>) -> !tilegpu.memdesc<64x64xf8E5M2, #ka>
    %bs = tilegpu.local_alloc %bt : (tensor<64x64xf8E5M2, #b>) -> !tilegpu.memdesc<64x64xf8E5M2, #kb>
    %d = tilegpu.warpgroup_dot %as, %bs, %c maxNumImpreciseAcc = 32 : !tilegpu.memdesc<64x64xf8E5M2, #ka> * !tilegpu.memdesc<64x64xf8E5M2, #kb> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }
}
