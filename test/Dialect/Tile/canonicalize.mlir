// Folds and canonicalization patterns of the Tile dialect.
// RUN: tile-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<64xf32>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_constant() -> tensor<64xf32> {
  %c = arith.constant 2.5 : f32
  %s = tile.splat %c : f32 -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A splat of a pointer has no constant form and stays.
// CHECK-LABEL: func @splat_of_pointer
// CHECK: tile.splat
func.func @splat_of_pointer(%p: !tile.ptr<f32>) -> tensor<64x!tile.ptr<f32>> {
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  return %s : tensor<64x!tile.ptr<f32>>
}

// -----

// CHECK-LABEL: func @broadcast_chain
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x1xf32> -> tensor<8x16xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_chain(%x: tensor<1x1xf32>) -> tensor<8x16xf32> {
  %a = tile.broadcast %x : tensor<1x1xf32> -> tensor<1x16xf32>
  %b = tile.broadcast %a : tensor<1x16xf32> -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func @broadcast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_identity(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %b = tile.broadcast %x : tensor<8x16xf32> -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func @broadcast_of_splat
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : i32 -> tensor<8x16xi32>
// CHECK-NEXT: return %[[S]]
func.func @broadcast_of_splat(%x: i32) -> tensor<8x16xi32> {
  %s = tile.splat %x : i32 -> tensor<1x16xi32>
  %b = tile.broadcast %s : tensor<1x16xi32> -> tensor<8x16xi32>
  return %b : tensor<8x16xi32>
}

// -----

// CHECK-LABEL: func @broadcast_of_constant
// CHECK-NEXT: arith.constant dense<7> : tensor<8x16xi32>
func.func @broadcast_of_constant() -> tensor<8x16xi32> {
  %c = arith.constant dense<7> : tensor<1x16xi32>
  %b = tile.broadcast %c : tensor<1x16xi32> -> tensor<8x16xi32>
  return %b : tensor<8x16xi32>
}

// -----

// expand_dims of a splat is a splat; expand_dims then broadcast of that is
// one splat.
// CHECK-LABEL: func @expand_dims_of_splat
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<32x64xf32>
// CHECK-NEXT: return %[[S]]
func.func @expand_dims_of_splat(%x: f32) -> tensor<32x64xf32> {
  %s = tile.splat %x : f32 -> tensor<64xf32>
  %e = tile.expand_dims %s {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
  %b = tile.broadcast %e : tensor<1x64xf32> -> tensor<32x64xf32>
  return %b : tensor<32x64xf32>
}

// -----

// The broadcast moves after the expand_dims, where it can merge with the
// next broadcast.
// CHECK-LABEL: func @expand_dims_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x64xf32>)
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[X]] {axis = 2 : i32} : tensor<1x64xf32> -> tensor<1x64x1xf32>
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[E]] : tensor<1x64x1xf32> -> tensor<16x64x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @expand_dims_of_broadcast(%x: tensor<1x64xf32>) -> tensor<16x64x8xf32> {
  %b = tile.broadcast %x : tensor<1x64xf32> -> tensor<16x64xf32>
  %e = tile.expand_dims %b {axis = 2 : i32} : tensor<16x64xf32> -> tensor<16x64x1xf32>
  %c = tile.broadcast %e : tensor<16x64x1xf32> -> tensor<16x64x8xf32>
  return %c : tensor<16x64x8xf32>
}

// -----

// CHECK-LABEL: func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<4x16xf32>) -> tensor<8x8xf32> {
  %a = tile.reshape %x allow_reorder : tensor<4x16xf32> -> tensor<64xf32>
  %b = tile.reshape %a : tensor<64xf32> -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func @reshape_identity_and_splat
// CHECK-SAME: (%[[X:.*]]: tensor<64xf32>, %[[Y:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[Y]] : f32 -> tensor<8x8xf32>
// CHECK-NEXT: return %[[X]], %[[S]]
func.func @reshape_identity_and_splat(%x: tensor<64xf32>, %y: f32) -> (tensor<64xf32>, tensor<8x8xf32>) {
  %a = tile.reshape %x : tensor<64xf32> -> tensor<64xf32>
  %s = tile.splat %y : f32 -> tensor<64xf32>
  %b = tile.reshape %s : tensor<64xf32> -> tensor<8x8xf32>
  return %a, %b : tensor<64xf32>, tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func @trans_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]] {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
// CHECK-NEXT: return %[[T]]
func.func @trans_chain(%x: tensor<2x4x8xf32>) -> tensor<8x2x4xf32> {
  %a = tile.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %b = tile.trans %a {order = array<i32: 1, 2, 0>} : tensor<4x8x2xf32> -> tensor<8x2x4xf32>
  return %b : tensor<8x2x4xf32>
}

// -----

// CHECK-LABEL: func @trans_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @trans_inverse(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %b = tile.trans %a {order = array<i32: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

// A square transposition keeps its type but must not fold away.
// CHECK-LABEL: func @trans_square
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]]
// CHECK-NEXT: return %[[T]]
func.func @trans_square(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a = tile.trans %x {order = array<i32: 1, 0>} : tensor<8x8xf32> -> tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func @addptr_zero
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[Q:.*]]: !tile.ptr<f16>)
// CHECK-NEXT: return %[[P]], %[[Q]]
func.func @addptr_zero(%p: tensor<64x!tile.ptr<f32>>, %q: !tile.ptr<f16>) -> (tensor<64x!tile.ptr<f32>>, !tile.ptr<f16>) {
  %z = arith.constant dense<0> : tensor<64xi32>
  %a = tile.addptr %p, %z : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %zero = arith.constant 0 : i64
  %b = tile.addptr %q, %zero : !tile.ptr<f16>, i64
  return %a, %b : tensor<64x!tile.ptr<f32>>, !tile.ptr<f16>
}

// -----

// CHECK-LABEL: func @addptr_nonzero
// CHECK: tile.addptr
func.func @addptr_nonzero(%q: !tile.ptr<f16>) -> !tile.ptr<f16> {
  %one = arith.constant 1 : i64
  %b = tile.addptr %q, %one : !tile.ptr<f16>, i64
  return %b : !tile.ptr<f16>
}

// -----

// CHECK-LABEL: func @dot_then_add
// CHECK-SAME: (%[[A:.*]]: tensor<32x16xf16>, %[[B:.*]]: tensor<16x32xf16>, %[[C:.*]]: tensor<32x32xf32>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[C]] :
// CHECK-NEXT: return %[[D]]
func.func @dot_then_add(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<32x32xf32>
  %d = tile.dot %a, %b, %z : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %e = arith.addf %c, %d : tensor<32x32xf32>
  return %e : tensor<32x32xf32>
}

// -----

// CHECK-LABEL: func @int_dot_then_add
// CHECK-SAME: (%[[A:.*]]: tensor<32x16xi8>, %[[C:.*]]: tensor<32x32xi32>)
// CHECK-NEXT: tile.trans
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %{{.*}}, %[[C]] :
// CHECK-NEXT: return %[[D]]
func.func @int_dot_then_add(%a: tensor<32x16xi8>, %c: tensor<32x32xi32>) -> tensor<32x32xi32> {
  %b = tile.trans %a {order = array<i32: 1, 0>} : tensor<32x16xi8> -> tensor<16x32xi8>
  %z = arith.constant dense<0> : tensor<32x32xi32>
  %d = tile.dot %a, %b, %z : tensor<32x16xi8> * tensor<16x32xi8> -> tensor<32x32xi32>
  %e = arith.addi %d, %c : tensor<32x32xi32>
  return %e : tensor<32x32xi32>
}

// -----

// The dot already accumulates into something else, or its result has other
// users: the addition must stay.
// CHECK-LABEL: func @dot_then_add_kept
// CHECK: tile.dot
// CHECK: arith.addf
// CHECK: tile.dot
// CHECK: arith.addf
func.func @dot_then_add_kept(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %c: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
  %d = tile.dot %a, %b, %c : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %e = arith.addf %d, %c : tensor<32x32xf32>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %f = tile.dot %a, %b, %z : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %g = arith.addf %f, %c : tensor<32x32xf32>
  return %e, %g, %f : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}

// -----

// CHECK-LABEL: func @select_of_masked_load
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[M:.*]]: tensor<64xi1>, %[[O:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: return %[[L]]
func.func @select_of_masked_load(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %l = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %s = arith.select %m, %l, %o : tensor<64xi1>, tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// Another mask, or a replacement defined after the load: no fold.
// CHECK-LABEL: func @select_of_masked_load_kept
// CHECK: tile.load
// CHECK: arith.select
// CHECK: tile.load
// CHECK: arith.addf
// CHECK: arith.select
func.func @select_of_masked_load_kept(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %n: tensor<64xi1>, %o: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %l = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %s = arith.select %n, %l, %o : tensor<64xi1>, tensor<64xf32>
  %l2 = tile.load %p, %m : tensor<64x!tile.ptr<f32>>
  %late = arith.addf %o, %o : tensor<64xf32>
  %s2 = arith.select %m, %l2, %late : tensor<64xi1>, tensor<64xf32>
  return %s, %s2 : tensor<64xf32>, tensor<64xf32>
}

// -----

// CHECK-LABEL: func @constant_masks
// CHECK-SAME: (%[[P:.*]]: tensor<64x!tile.ptr<f32>>, %[[O:.*]]: tensor<64xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[P]], %[[L]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: return %[[O]]
func.func @constant_masks(%p: tensor<64x!tile.ptr<f32>>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %t = arith.constant dense<true> : tensor<64xi1>
  %true = arith.constant true
  %f = tile.splat %true : i1 -> tensor<64xi1>
  %none = arith.constant dense<false> : tensor<64xi1>
  %a = tile.load %p, %t, %o : tensor<64x!tile.ptr<f32>>
  %b = tile.load %p, %none, %o : tensor<64x!tile.ptr<f32>>
  tile.store %p, %a, %f : tensor<64x!tile.ptr<f32>>
  tile.store %p, %a, %none : tensor<64x!tile.ptr<f32>>
  return %b : tensor<64xf32>
}

// -----

// A volatile load is kept even when its mask is all false.
// CHECK-LABEL: func @volatile_false_mask
// CHECK: tile.load {{.*}} volatile
func.func @volatile_false_mask(%p: tensor<64x!tile.ptr<f32>>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %none = arith.constant dense<false> : tensor<64xi1>
  %b = tile.load %p, %none, %o volatile : tensor<64x!tile.ptr<f32>>
  return %b : tensor<64xf32>
}

// -----

// Unused loads are dead; unused volatile loads, stores, atomics, prints and
// asserts are not.
// CHECK-LABEL: func @side_effects
// CHECK-NOT: tile.load %{{.*}} :
// CHECK: tile.load %{{.*}} volatile
// CHECK: tile.atomic_rmw
// CHECK: tile.print
// CHECK: tile.assert
// CHECK: tile.extern_elementwise
// CHECK-NOT: tile.extern_elementwise
func.func @side_effects(%p: !tile.ptr<f32>, %c: i1, %x: f32) {
  %a = tile.load %p : !tile.ptr<f32>
  %b = tile.load %p volatile : !tile.ptr<f32>
  %c1 = arith.constant 1.0 : f32
  %o = tile.atomic_rmw fadd, relaxed, gpu, %p, %c1 : !tile.ptr<f32>
  tile.print "x" {hex = false, isSigned = array<i32>}
  tile.assert %c, "boom" : i1
  %e = tile.extern_elementwise %x {libname = "libdevice", libpath = "", symbol = "__nv_impure", pure = false} : (f32) -> f32
  %f = tile.extern_elementwise %x {libname = "libdevice", libpath = "", symbol = "__nv_expf", pure = true} : (f32) -> f32
  return
}

// -----

// CHECK-LABEL: func @cast_folds
// CHECK-SAME: (%[[X:.*]]: tensor<64xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @cast_folds(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = tile.bitcast %x : tensor<64xf32> -> tensor<64xi32>
  %b = tile.bitcast %a : tensor<64xi32> -> tensor<64xf32>
  %c = tile.fp_to_fp %x : tensor<64xf32> -> tensor<64xf32>
  return %b, %c : tensor<64xf32>, tensor<64xf32>
}
