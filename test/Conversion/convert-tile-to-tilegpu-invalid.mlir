// Tensor descriptors need TMA (sm_90): on an older target they are refused
// at the op, before LLVM would abort on the copy instructions.
// RUN: tile-opt %s --convert-tile-to-tilegpu=target=sm_80 -verify-diagnostics
// RUN: tile-opt %s --convert-tile-to-tilegpu=target=sm_90a | FileCheck %s

// CHECK-LABEL: func @descriptors
func.func @descriptors(%in: !tile.tensordesc<tensor<64x32xf16>>,
                       %out: !tile.tensordesc<tensor<64x32xf16>>,
                       %i: i32, %j: i32) {
  // expected-error @+1 {{tensor descriptors are copied by TMA, which needs sm_90 or later; this kernel is compiled for 'sm_80'}}
  %v = tile.descriptor_load %in[%i, %j] : !tile.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
  tile.descriptor_store %out[%j, %i], %v : !tile.tensordesc<tensor<64x32xf16>>, tensor<64x32xf16>
  return
}
