// RUN: tile-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=PLAIN
// RUN: tile-opt %s --tilegpu-allocate-shared-memory "--convert-tilegpu-to-llvm=fresh-carried-operands=true" | FileCheck %s --check-prefix=FRESH

// A register A operand carried into the loop from the last iteration (as
// the register-operand prefetch leaves it): with fresh-carried-operands,
// each of its 32-bit words (4 per m64n64k16 wgmma here, 16 for the 64x64
// tile) is copied by an identity prmt before the fence, so ptxas cannot
// merge the back edge's copy into the op that made the word while earlier
// wgmmas read it. An operand made in the body gets no copy.
// PLAIN-LABEL: func.func @carried
// PLAIN-NOT: prmt.b32
// PLAIN: wgmma.mma_async
// FRESH-LABEL: func.func @carried
// FRESH-COUNT-16: "prmt.b32 $0, $1, 0, 0x3210;", "=r,r"
// FRESH: nvvm.wgmma.fence.aligned
// FRESH: wgmma.mma_async
// FRESH-LABEL: func.func @made_in_the_body
// FRESH-NOT: prmt.b32
// FRESH: wgmma.mma_async
#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#opa = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @carried(%n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a0 = arith.constant dense<1.000000e+00> : tensor<64x64xf16, #opa>
    %two = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #opa>
    %bt = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #b>
    %c = arith.constant dense<3.000000e+00> : tensor<64x64xf32, #mma>
    %bs = tilegpu.local_alloc %bt : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c, %a = %a0) -> (tensor<64x64xf32, #mma>, tensor<64x64xf16, #opa>) : i32 {
      %d = tilegpu.warpgroup_dot %a, %bs, %acc async : tensor<64x64xf16, #opa> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      %next = arith.mulf %a, %two : tensor<64x64xf16, #opa>
      %w:2 = tilegpu.warpgroup_dot_wait %d, %a {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf16, #opa>
      scf.yield %w#0, %next : tensor<64x64xf32, #mma>, tensor<64x64xf16, #opa>
    }
    return
  }
  func.func @made_in_the_body(%n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %two = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #opa>
    %bt = arith.constant dense<2.000000e+00> : tensor<64x64xf16, #b>
    %c = arith.constant dense<3.000000e+00> : tensor<64x64xf32, #mma>
    %bs = tilegpu.local_alloc %bt : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #mma>) : i32 {
      %f = arith.sitofp %i : i32 to f16
      %s = tile.splat %f : f16 -> tensor<64x64xf16, #opa>
      %a = arith.mulf %s, %two : tensor<64x64xf16, #opa>
      %d = tilegpu.warpgroup_dot %a, %bs, %acc async : tensor<64x64xf16, #opa> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      %w:2 = tilegpu.warpgroup_dot_wait %d, %a {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf16, #opa>
      scf.yield %w#0 : tensor<64x64xf32, #mma>
    }
    return
  }
}
