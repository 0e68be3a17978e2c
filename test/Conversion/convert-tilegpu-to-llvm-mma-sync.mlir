// RUN: tile-opt %s --convert-tilegpu-to-llvm | FileCheck %s

// tile.dot on mma.sync (version-2 mma layouts): one instruction per
// 16x8xK block. A's four registers and B's two each pack kWidth = 32 / bits
// consecutive K elements; the accumulator is four registers, or two f16
// pairs.

#mma16 = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8, 16]}>
#mma8 = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8, 8]}>
#mma32 = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8, 32]}>
#a16 = #tilegpu.dot_op<{opIdx = 0, parent = #mma16, kWidth = 2}>
#b16 = #tilegpu.dot_op<{opIdx = 1, parent = #mma16, kWidth = 2}>
#a8 = #tilegpu.dot_op<{opIdx = 0, parent = #mma8, kWidth = 1}>
#b8 = #tilegpu.dot_op<{opIdx = 1, parent = #mma8, kWidth = 1}>
#a32 = #tilegpu.dot_op<{opIdx = 0, parent = #mma32, kWidth = 4}>
#b32 = #tilegpu.dot_op<{opIdx = 1, parent = #mma32, kWidth = 4}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.shared = 0 : i64, tilegpu.target = "sm_90a"} {
  // tf32: each f32 is its own register (bitcast to b32); K = 16 is two
  // m16n8k8 steps chained through the accumulator.
  // CHECK-LABEL: func.func @tf32
  // CHECK: llvm.bitcast %{{.*}} : f32 to i32
  // CHECK: %[[R:.*]] = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {$0,$1,$2,$3}, {$8,$9,$10,$11}, {$12,$13}, {$4,$5,$6,$7};", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"
  // CHECK: llvm.extractvalue %[[R]][3]
  // CHECK: llvm.inline_asm {{.*}}m16n8k8
  // CHECK-NOT: mma.sync
  func.func @tf32(%p: !tile.ptr<f32>, %v: f32) attributes {tile.kernel} {
    %a = tile.splat %v : f32 -> tensor<16x16xf32, #a8>
    %b = tile.splat %v : f32 -> tensor<16x8xf32, #b8>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma8>
    %d = tile.dot %a, %b, %c inputPrecision = tf32 : tensor<16x16xf32, #a8> * tensor<16x8xf32, #b8> -> tensor<16x8xf32, #mma8>
    %s = tile.splat %p : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>, #mma8>
    tile.store %s, %d : tensor<16x8x!tile.ptr<f32>, #mma8>
    return
  }

  // int8 into int32: four bytes a register, satfinite as Triton emits it.
  // CHECK-LABEL: func.func @int8
  // CHECK: llvm.bitcast %{{.*}} : vector<4xi8> to i32
  // CHECK: llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {$0,$1,$2,$3}, {$8,$9,$10,$11}, {$12,$13}, {$4,$5,$6,$7};", "=r,=r,=r,=r,0,1,2,3,r,r,r,r,r,r"
  // CHECK-NOT: mma.sync
  func.func @int8(%p: !tile.ptr<i32>, %v: i8) attributes {tile.kernel} {
    %a = tile.splat %v : i8 -> tensor<16x32xi8, #a32>
    %b = tile.splat %v : i8 -> tensor<32x8xi8, #b32>
    %c = arith.constant dense<0> : tensor<16x8xi32, #mma32>
    %d = tile.dot %a, %b, %c : tensor<16x32xi8, #a32> * tensor<32x8xi8, #b32> -> tensor<16x8xi32, #mma32>
    %s = tile.splat %p : !tile.ptr<i32> -> tensor<16x8x!tile.ptr<i32>, #mma32>
    tile.store %s, %d : tensor<16x8x!tile.ptr<i32>, #mma32>
    return
  }

  // f16 into f16: the accumulator travels as two f16x2 registers, packed
  // before the instruction and split after it.
  // CHECK-LABEL: func.func @f16_acc
  // CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
  // CHECK: %[[H:.*]] = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {$0,$1}, {$4,$5,$6,$7}, {$8,$9}, {$2,$3};", "=r,=r,0,1,r,r,r,r,r,r"
  // CHECK: %[[W:.*]] = llvm.extractvalue %[[H]][0]
  // CHECK: llvm.bitcast %[[W]] : i32 to vector<2xf16>
  func.func @f16_acc(%p: !tile.ptr<f16>, %v: f16) attributes {tile.kernel} {
    %a = tile.splat %v : f16 -> tensor<16x16xf16, #a16>
    %b = tile.splat %v : f16 -> tensor<16x8xf16, #b16>
    %c = arith.constant dense<0.0> : tensor<16x8xf16, #mma16>
    %d = tile.dot %a, %b, %c : tensor<16x16xf16, #a16> * tensor<16x8xf16, #b16> -> tensor<16x8xf16, #mma16>
    %s = tile.splat %p : !tile.ptr<f16> -> tensor<16x8x!tile.ptr<f16>, #mma16>
    tile.store %s, %d : tensor<16x8x!tile.ptr<f16>, #mma16>
    return
  }
}
