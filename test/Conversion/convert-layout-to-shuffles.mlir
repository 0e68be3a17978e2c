// RUN: tile-opt %s --tilegpu-allocate-shared-memory --tilegpu-insert-barriers -split-input-file | FileCheck %s --check-prefix=ALLOC
// RUN: tile-opt %s --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --convert-tilegpu-to-llvm -split-input-file | FileCheck %s

// A tf32 accumulator as the A operand of the next wgmma (Lightning
// Attention's q k^T): both layouts keep each element in its warp, so the
// conversion takes one shuffle per register (32) and no shared memory,
// hence no scratch and no barrier. Each lane's two adjacent accumulator
// columns go to two different lanes: one select on the sending side and
// one on the receiving side.
// ALLOC-LABEL: func.func @accumulator_to_tf32_operand
// ALLOC-NOT: tilegpu.offset
// ALLOC-NOT: tilegpu.barrier
// ALLOC: tilegpu.convert_layout
// ALLOC-NOT: tilegpu.barrier
// ALLOC: return
// (The one shuffle from a constant lane makes the warp id uniform.)
// CHECK-LABEL: func.func @accumulator_to_tf32_operand
// CHECK-NOT: nvvm.barrier
// CHECK-NOT: llvm.store
// CHECK-COUNT-32: nvvm.shfl.sync idx %{{[^,]*}}, %{{[^,]*}}, %{{[0-9]+}},
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.barrier
// CHECK: return
// CHECK-LABEL: func.func @half_precision_stays_in_shared
// CHECK: nvvm.barrier
// CHECK: llvm.store
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 8]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma1, kWidth = 1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @accumulator_to_tf32_operand(%acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #dot_op> {
    %a = tilegpu.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #dot_op>
    return %a : tensor<64x64xf32, #dot_op>
  }
}

// -----

// The same fragments in bf16 still go through shared memory: a shuffle
// would move one 16-bit element where a shared access moves 16 bytes.
// ALLOC-LABEL: func.func @half_precision_stays_in_shared
// ALLOC: tilegpu.convert_layout {{.*}} {tilegpu.offset = 0 : i64}
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 8]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma1, kWidth = 1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @half_precision_stays_in_shared(%acc: tensor<64x64xbf16, #mma>) -> tensor<64x64xbf16, #dot_op> {
    %a = tilegpu.convert_layout %acc : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #dot_op>
    return %a : tensor<64x64xbf16, #dot_op>
  }
}
