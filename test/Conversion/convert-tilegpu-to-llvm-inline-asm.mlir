// RUN: tile-opt %s --convert-tilegpu-to-llvm | FileCheck %s

// tile.elementwise_inline_asm: one llvm.inline_asm per packed_element
// registers of a thread; operands under 32 bits share 32-bit carriers.

#b4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 0 : i64, tilegpu.target = "sm_90a"} {
  // Four i8 registers, one instance, each operand one i32.
  // CHECK-LABEL: func.func @bytes
  // CHECK: %[[IN:.*]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
  // CHECK: %[[OUT:.*]] = llvm.inline_asm asm_dialect = att "prmt.b32 $0, $1, 0, 0x0123;", "=r,r" %[[IN]] : (i32) -> i32
  // CHECK-NOT: prmt
  // CHECK: llvm.bitcast %[[OUT]] : i32 to vector<4xi8>
  func.func @bytes(%p: !tile.ptr<i8>, %v: i8) attributes {tile.kernel} {
    %x = tile.splat %v : i8 -> tensor<512xi8, #b4>
    %0 = tile.elementwise_inline_asm "prmt.b32 $0, $1, 0, 0x0123;" {constraints = "=r,r", pure = true, packed_element = 4 : i32} %x : (tensor<512xi8, #b4>) -> tensor<512xi8, #b4>
    %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b4>
    %s = tile.splat %p : !tile.ptr<i8> -> tensor<512x!tile.ptr<i8>, #b4>
    %a = tile.addptr %s, %r : tensor<512x!tile.ptr<i8>, #b4>, tensor<512xi32, #b4>
    tile.store %a, %0 : tensor<512x!tile.ptr<i8>, #b4>
    return
  }

  // f16 with pack 4: two f16 per carrier, so two carriers per f16 value;
  // the f32 argument takes four. The result comes back as a struct.
  // CHECK-LABEL: func.func @halves
  // CHECK: %[[R:.*]] = llvm.inline_asm asm_dialect = att "add.f16x2 $0, $2, $2; add.f16x2 $1, $3, $3;", "=r,=r,r,r,f,f,f,f" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, f32, f32, f32, f32) -> !llvm.struct<(i32, i32)>
  // CHECK: llvm.extractvalue %[[R]][0]
  // CHECK: llvm.extractvalue %[[R]][1]
  // CHECK-NOT: add.f16x2
  func.func @halves(%p: !tile.ptr<f16>, %v: f16, %w: f32) attributes {tile.kernel} {
    %x = tile.splat %v : f16 -> tensor<512xf16, #b4>
    %y = tile.splat %w : f32 -> tensor<512xf32, #b4>
    %0 = tile.elementwise_inline_asm "add.f16x2 $0, $2, $2; add.f16x2 $1, $3, $3;" {constraints = "=r,=r,r,r,f,f,f,f", pure = true, packed_element = 4 : i32} %x, %y : (tensor<512xf16, #b4>, tensor<512xf32, #b4>) -> tensor<512xf16, #b4>
    %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b4>
    %s = tile.splat %p : !tile.ptr<f16> -> tensor<512x!tile.ptr<f16>, #b4>
    %a = tile.addptr %s, %r : tensor<512x!tile.ptr<f16>, #b4>, tensor<512xi32, #b4>
    tile.store %a, %0 : tensor<512x!tile.ptr<f16>, #b4>
    return
  }

  // Two results of different types, not pure: the asm has side effects.
  // CHECK-LABEL: func.func @two_results
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $2; mov.b32 $1, $2;", "=f,=r,f" %{{.*}} : (f32) -> !llvm.struct<(f32, i32)>
  func.func @two_results(%p: !tile.ptr<i32>, %w: f32) attributes {tile.kernel} {
    %x = tile.splat %w : f32 -> tensor<128xf32, #b1>
    %0:2 = tile.elementwise_inline_asm "mov.b32 $0, $2; mov.b32 $1, $2;" {constraints = "=f,=r,f", pure = false, packed_element = 1 : i32} %x : (tensor<128xf32, #b1>) -> (tensor<128xf32, #b1>, tensor<128xi32, #b1>)
    %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
    %s = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #b1>
    %a = tile.addptr %s, %r : tensor<128x!tile.ptr<i32>, #b1>, tensor<128xi32, #b1>
    tile.store %a, %0#1 : tensor<128x!tile.ptr<i32>, #b1>
    return
  }

  // One register per thread and pack 4: the other three lanes are undef
  // and their results unused.
  // CHECK-LABEL: func.func @padded
  // CHECK-COUNT-3: llvm.mlir.undef : i32
  // CHECK: llvm.inline_asm asm_dialect = att "mov.b32 $0, $4;", "=r,=r,=r,=r,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK-NOT: mov.b32
  func.func @padded(%p: !tile.ptr<i32>) attributes {tile.kernel} {
    %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b1>
    %0 = tile.elementwise_inline_asm "mov.b32 $0, $4;" {constraints = "=r,=r,=r,=r,r,r,r,r", pure = true, packed_element = 4 : i32} %r : (tensor<128xi32, #b1>) -> tensor<128xi32, #b1>
    %s = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #b1>
    %a = tile.addptr %s, %r : tensor<128x!tile.ptr<i32>, #b1>, tensor<128xi32, #b1>
    tile.store %a, %0 : tensor<128x!tile.ptr<i32>, #b1>
    return
  }

  // A scalar: one instance.
  // CHECK-LABEL: func.func @scalar
  // CHECK: llvm.inline_asm asm_dialect = att "add.s32 $0, $1, 1;", "=r,r" %{{.*}} : (i32) -> i32
  func.func @scalar(%p: !tile.ptr<i32>, %v: i32) attributes {tile.kernel} {
    %0 = tile.elementwise_inline_asm "add.s32 $0, $1, 1;" {constraints = "=r,r", pure = true, packed_element = 1 : i32} %v : (i32) -> i32
    tile.store %p, %0 : !tile.ptr<i32>
    return
  }

  // A pointer operand reaches the asm as its 64-bit address.
  // CHECK-LABEL: func.func @pointer_operand
  // CHECK: %[[A:.*]] = tile.ptr_to_int %{{.*}} : !tile.ptr<i8> -> i64
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "ld.global.b8 $0, [$1];", "=r,l" %[[A]] : (i64) -> i8
  func.func @pointer_operand(%p: !tile.ptr<i8>) attributes {tile.kernel} {
    %0 = tile.elementwise_inline_asm "ld.global.b8 $0, [$1];" {constraints = "=r,l", pure = false, packed_element = 1 : i32} %p : (!tile.ptr<i8>) -> i8
    tile.store %p, %0 : !tile.ptr<i8>
    return
  }
}
