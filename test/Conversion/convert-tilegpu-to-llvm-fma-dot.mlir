// RUN: tile-opt %s --convert-tilegpu-to-llvm | FileCheck %s

// A dot on the CUDA cores (too small for an m16n8 mma block): the operands
// go through shared memory as their storage type, and fp8 elements widen
// to the f32 accumulator through tile.fp_to_fp (arith.extf has no LLVM
// lowering from fp8; addresses typed f8 crashed the LLVM translation).

#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.shared = 256 : i64, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func.func @fma_dot_fp8
  // CHECK-NOT: !llvm.ptr<3>, f8E5M2
  // CHECK: scf.for
  // CHECK: llvm.getelementptr {{.*}} -> !llvm.ptr<3>, i8
  // CHECK: tile.fp_to_fp {{.*}} : f8E5M2 -> f32
  // CHECK: llvm.getelementptr {{.*}} -> !llvm.ptr<3>, i8
  // CHECK: tile.fp_to_fp {{.*}} : f8E5M2 -> f32
  // CHECK: llvm.intr.fma
  // CHECK-NOT: arith.extf
  func.func @fma_dot_fp8(%a: tensor<1x32xf8E5M2, #blocked2>, %b: tensor<32x2xf8E5M2, #blocked1>) -> tensor<1x2xf32, #blocked1> {
    %zero = arith.constant dense<0.000000e+00> : tensor<1x2xf32, #blocked1>
    %c = tile.dot %a, %b, %zero {tilegpu.offset = 0 : i64} : tensor<1x32xf8E5M2, #blocked2> * tensor<32x2xf8E5M2, #blocked1> -> tensor<1x2xf32, #blocked1>
    return %c : tensor<1x2xf32, #blocked1>
  }
}
