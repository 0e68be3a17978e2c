// A wgmma in a loop on buffers the loop does not change: by default its
// shared-memory descriptors are plain arithmetic on a base made before the
// loop, which LLVM hoists (every K step's 64-bit descriptor then lives
// through the loop). With descriptors-at-use (the compile driver's retry
// for a kernel that spills) the base goes through an opaque `mov.b64`
// where the wgmma issues, so the steps' descriptors are made there.
// RUN: tile-opt %s --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=HOISTABLE
// RUN: tile-opt %s --convert-tilegpu-to-llvm=descriptors-at-use=true | FileCheck %s --check-prefix=AT-USE

// HOISTABLE-LABEL: func.func @invariant_operands
// HOISTABLE-NOT: mov.b64
// HOISTABLE: nvvm.wgmma.mma_async
// AT-USE-LABEL: func.func @invariant_operands
// AT-USE: scf.for
// AT-USE: llvm.inline_asm has_side_effects asm_dialect = att "mov.b64 $0, $1;", "=l,l"
// AT-USE: llvm.inline_asm has_side_effects asm_dialect = att "mov.b64 $0, $1;", "=l,l"
// AT-USE: nvvm.wgmma.mma_async
// AT-USE: scf.yield
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a", tilegpu.shared = 16384 : i64} {
  func.func @invariant_operands(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %b = tilegpu.local_alloc {tilegpu.offset = 8192 : i64} : () -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %d = tilegpu.warpgroup_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    %out = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.memdesc<64x64xf32, #nvmma>
    tilegpu.local_store %r, %out : tensor<64x64xf32, #mma> -> !tilegpu.memdesc<64x64xf32, #nvmma>
    return
  }
}
