// RUN: tile-opt %s -split-input-file --tilegpu-int-to-float-by-bits | FileCheck %s

// A signed nibble (the low half of a packed int4 byte) to bf16: the range
// analysis bounds it to [-8, 7], so it is 128 + (v + 8) by bits, minus 136;
// the or of 128's bits and the flip of the nibble's sign bit are one xor
// with 0x4308.
// CHECK-LABEL: func.func @signed_nibble
// CHECK-NOT: arith.sitofp
// CHECK: %[[WIDE:.*]] = arith.extui %{{.*}} : tensor<32x64xi8> to tensor<32x64xi16>
// CHECK: %[[C15:.*]] = arith.constant dense<15> : tensor<32x64xi16>
// CHECK: %[[LOW:.*]] = arith.andi %[[WIDE]], %[[C15]] : tensor<32x64xi16>
// CHECK: %[[MAGIC:.*]] = arith.constant dense<17160> : tensor<32x64xi16>
// CHECK: %[[BITS:.*]] = arith.xori %[[LOW]], %[[MAGIC]] : tensor<32x64xi16>
// CHECK: %[[F:.*]] = arith.bitcast %[[BITS]] : tensor<32x64xi16> to tensor<32x64xbf16>
// CHECK: %[[OFF:.*]] = arith.constant dense<1.360000e+02> : tensor<32x64xbf16>
// CHECK: arith.subf %[[F]], %[[OFF]] : tensor<32x64xbf16>
func.func @signed_nibble(%x: tensor<32x64xi8>) -> tensor<32x64xbf16> {
  %c4 = arith.constant dense<4> : tensor<32x64xi8>
  %l = arith.shli %x, %c4 : tensor<32x64xi8>
  %v = arith.shrsi %l, %c4 : tensor<32x64xi8>
  %f = arith.sitofp %v : tensor<32x64xi8> to tensor<32x64xbf16>
  return %f : tensor<32x64xbf16>
}

// -----

// An unsigned field to f16 (10 mantissa bits: up to 1024 values), and a
// shifted range to f32: no xor form, a subtraction (2^23 - 10 is the
// offset).
// CHECK-LABEL: func.func @unsigned_and_offset
// CHECK-NOT: arith.uitofp
// CHECK-NOT: arith.sitofp
// CHECK: arith.constant 25600 : i16
// CHECK: arith.constant 1.024000e+03 : f16
// CHECK: arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: arith.andi
// CHECK: arith.constant 1258291200 : i32
// CHECK: arith.constant 0x4AFFFFEC : f32
func.func @unsigned_and_offset(%x: i32) -> (f16, f32) {
  %c1023 = arith.constant 1023 : i32
  %c10 = arith.constant 10 : i32
  %u = arith.andi %x, %c1023 : i32
  %h = arith.uitofp %u : i32 to f16
  %v = arith.addi %u, %c10 : i32
  %s = arith.sitofp %v : i32 to f32
  return %h, %s : f16, f32
}

// -----

// What the bits cannot hold exactly stays a conversion: an unbounded byte
// to bf16 (256 values, 7 mantissa bits), 2048 values to f16, any f64.
// CHECK-LABEL: func.func @left_alone
// CHECK: arith.sitofp %{{.*}} : tensor<16xi8> to tensor<16xbf16>
// CHECK: arith.uitofp %{{.*}} : i32 to f16
// CHECK: arith.sitofp %{{.*}} : i8 to f64
func.func @left_alone(%x: tensor<16xi8>, %y: i32, %z: i8) -> (tensor<16xbf16>, f16, f64) {
  %c2047 = arith.constant 2047 : i32
  %f = arith.sitofp %x : tensor<16xi8> to tensor<16xbf16>
  %u = arith.andi %y, %c2047 : i32
  %h = arith.uitofp %u : i32 to f16
  %d = arith.sitofp %z : i8 to f64
  return %f, %h, %d : tensor<16xbf16>, f16, f64
}

// -----

// Booleans: sitofp gives -1 or 0, uitofp 1 or 0 (129 - 129 and 128 - 129
// for the signed bf16 case). Vectors are not tile's and are left alone.
// CHECK-LABEL: func.func @booleans_and_vectors
// CHECK: arith.sitofp %{{.*}} : vector<4xi8> to vector<4xbf16>
// CHECK: arith.constant 17153 : i16
// CHECK: arith.constant 1.290000e+02 : bf16
// CHECK: arith.constant 1258291200 : i32
// CHECK-NOT: arith.sitofp
// CHECK-NOT: arith.uitofp
func.func @booleans_and_vectors(%x: vector<4xi8>, %b: i1) -> (vector<4xbf16>, bf16, f32) {
  %c4 = arith.constant dense<4> : vector<4xi8>
  %v = arith.shrsi %x, %c4 : vector<4xi8>
  %f = arith.sitofp %v : vector<4xi8> to vector<4xbf16>
  %s = arith.sitofp %b : i1 to bf16
  %u = arith.uitofp %b : i1 to f32
  return %f, %s, %u : vector<4xbf16>, bf16, f32
}
