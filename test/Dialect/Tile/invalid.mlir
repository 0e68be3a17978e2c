// Every verifier error of the Tile dialect.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{pointee must be a scalar integer, float or pointer}}
func.func @ptr_to_tensor(%p: !tile.ptr<tensor<4xf32>>)

// -----

// expected-error @+1 {{address space must be non-negative}}
func.func @ptr_negative_space(%p: !tile.ptr<f32, -1>)

// -----

// expected-error @+1 {{unknown tile argument attribute 'tile.alignment'}}
func.func @unknown_arg_attr(%p: !tile.ptr<f32> {tile.alignment = 16 : i32}) {
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' must be an integer attribute}}
func.func @divisibility_not_int(%p: !tile.ptr<f32> {tile.divisibility = "16"}) {
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' must be a positive power of two, got 12}}
func.func @divisibility_not_pow2(%p: !tile.ptr<f32> {tile.divisibility = 12 : i32}) {
  return
}

// -----

// expected-error @+1 {{'tile.contiguity' applies to integer and pointer arguments, not 'f32'}}
func.func @contiguity_on_float(%x: f32 {tile.contiguity = 4 : i32}) {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute}}
func.func @kernel_not_unit() attributes {tile.kernel = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{a tile kernel must not return values}}
func.func @kernel_returns() -> i32 attributes {tile.kernel} {
  %0 = arith.constant 0 : i32
  return %0 : i32
}

// -----

// expected-error @+1 {{'tile.kernel' only applies to func.func}}
module attributes {tile.kernel} {
}

// -----

// expected-error @+1 {{unknown tile attribute 'tile.num_warps'}}
func.func @unknown_attr() attributes {tile.num_warps = 4 : i32} {
  return
}

// -----

func.func @range_rank() {
  // expected-error @+1 {{result must be a 1-D tensor}}
  %0 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<4x4xi32>
  return
}

// -----

func.func @range_negative() {
  // expected-error @+1 {{start must be non-negative, got -16}}
  %0 = tile.make_range {start = -16 : i32, end = 0 : i32} : tensor<16xi32>
  return
}

// -----

func.func @range_empty() {
  // expected-error @+1 {{end (16) must be greater than start (16)}}
  %0 = tile.make_range {start = 16 : i32, end = 16 : i32} : tensor<1xi32>
  return
}

// -----

func.func @range_length() {
  // expected-error @+1 {{result length 32 must equal end - start = 16}}
  %0 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<32xi32>
  return
}

// -----

func.func @range_not_pow2() {
  // expected-error @+1 {{range length must be a power of two, got 12}}
  %0 = tile.make_range {start = 0 : i32, end = 12 : i32} : tensor<12xi32>
  return
}

// -----

func.func @range_type(%x: i32) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer values}}
  %0 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi64>
  return
}

// -----

func.func @splat_type(%x: f16) {
  // expected-error @+1 {{result element type 'f32' must be the operand type 'f16'}}
  %0 = tile.splat %x : f16 -> tensor<16xf32>
  return
}

// -----

func.func @splat_of_tensor(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = tile.splat %x : tensor<4xf32> -> tensor<16xf32>
  return
}

// -----

func.func @broadcast_element(%x: tensor<1x16xf32>) {
  // expected-error @+1 {{result element type 'f16' must match the operand element type 'f32'}}
  %0 = tile.broadcast %x : tensor<1x16xf32> -> tensor<8x16xf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand rank 1 must equal result rank 2; use tile.expand_dims first}}
  %0 = tile.broadcast %x : tensor<16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{dimension 0 of size 2 cannot be broadcast to 8}}
  %0 = tile.broadcast %x : tensor<2x16xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @expand_dims_axis(%x: tensor<16xf32>) {
  // expected-error @+1 {{axis 2 is out of range for a rank-1 operand}}
  %0 = tile.expand_dims %x {axis = 2 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  return
}

// -----

func.func @expand_dims_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{result shape [16, 1] must be [1, 16]}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  return
}

// -----

func.func @reshape_size(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{cannot reshape 64 elements into 32}}
  %0 = tile.reshape %x : tensor<4x16xf32> -> tensor<32xf32>
  return
}

// -----

func.func @trans_order_size(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{order has 3 entries for a rank-2 operand}}
  %0 = tile.trans %x {order = array<i32: 0, 1, 2>} : tensor<4x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @trans_not_permutation(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{order must be a permutation of [0, 2)}}
  %0 = tile.trans %x {order = array<i32: 1, 1>} : tensor<4x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{result shape [4, 16] must be [16, 4]}}
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x16xf32> -> tensor<4x16xf32>
  return
}

// -----

func.func @cat_shape(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{result shape [4, 32] must be [8, 16]}}
  %0 = tile.cat %x, %x : tensor<4x16xf32> -> tensor<4x32xf32>
  return
}

// -----

func.func @cat_operands(%x: tensor<16xf32>, %y: tensor<16xf16>) {
  // expected-error @+1 {{all of {lhs, rhs} have same type}}
  %0 = "tile.cat"(%x, %y) : (tensor<16xf32>, tensor<16xf16>) -> tensor<32xf32>
  return
}

// -----

func.func @join_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{result shape [2, 16] must be [16, 2]}}
  %0 = tile.join %x, %x : tensor<16xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @split_minor(%x: tensor<16x4xf32>) {
  // expected-error @+1 {{the last dimension of the operand must be 2}}
  %0, %1 = tile.split %x : tensor<16x4xf32> -> tensor<16xf32>
  return
}

// -----

func.func @split_shape(%x: tensor<16x2xf32>) {
  // expected-error @+1 {{result shape [8] must be [16]}}
  %0, %1 = tile.split %x : tensor<16x2xf32> -> tensor<8xf32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<16x!tile.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error @+1 {{offset type 'tensor<32xi32>' must have the shape of pointer type 'tensor<16x!tile.ptr<f32>>'}}
  %0 = tile.addptr %p, %o : tensor<16x!tile.ptr<f32>>, tensor<32xi32>
  return
}

// -----

func.func @addptr_scalar_tensor(%p: !tile.ptr<f32>, %o: tensor<32xi32>) {
  // expected-error @+1 {{must have the shape of pointer type}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, tensor<32xi32>
  return
}

// -----

func.func @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{operand #1 must be}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return
}

// -----

func.func @load_other_without_mask(%p: tensor<16x!tile.ptr<f32>>, %o: tensor<16xf32>) {
  // expected-error @+1 {{'other' requires a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @load_result(%p: tensor<16x!tile.ptr<f32>>) {
  // expected-error @+1 {{result is the pointee of ptr}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<16x!tile.ptr<f32>>) -> tensor<16xf16>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{mask is i1 of ptr's shape}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<16x!tile.ptr<f32>>, tensor<8xi1>) -> tensor<16xf32>
  return
}

// -----

func.func @load_other_type(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<16xi1>, %o: tensor<16xf16>) {
  // expected-error @+1 {{other has the result type}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<16x!tile.ptr<f32>>, tensor<16xi1>, tensor<16xf16>) -> tensor<16xf32>
  return
}

// -----

func.func @load_not_pointer(%p: tensor<16xi64>) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<16xi64>) -> tensor<16xf32>
  return
}

// -----

func.func @store_value(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<16xf16>) {
  // expected-error @+1 {{value is the pointee of ptr}}
  "tile.store"(%p, %v) : (tensor<16x!tile.ptr<f32>>, tensor<16xf16>) -> ()
  return
}

// -----

func.func @store_mask(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<16xf32>, %m: tensor<16xi8>) {
  // expected-error @+1 {{operand #2 must be}}
  "tile.store"(%p, %v, %m) : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>, tensor<16xi8>) -> ()
  return
}

// -----

func.func @fadd_on_int(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{fadd needs a floating-point pointee, got 'i32'}}
  %0 = tile.atomic_rmw fadd, relaxed, gpu, %p, %v : !tile.ptr<i32>
  return
}

// -----

func.func @fadd_on_fp8(%p: !tile.ptr<f8E5M2>, %v: f8E5M2) {
  // expected-error @+1 {{fadd supports f16, bf16, f32 and f64}}
  %0 = tile.atomic_rmw fadd, relaxed, gpu, %p, %v : !tile.ptr<f8E5M2>
  return
}

// -----

func.func @xchg_narrow(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{xchg needs a pointee of at least 16 bits}}
  %0 = tile.atomic_rmw xchg, relaxed, gpu, %p, %v : !tile.ptr<i8>
  return
}

// -----

func.func @max_on_bool(%p: !tile.ptr<i1>, %v: i1) {
  // expected-error @+1 {{max/min need an integer or float pointee}}
  %0 = tile.atomic_rmw max, relaxed, gpu, %p, %v : !tile.ptr<i1>
  return
}

// -----

func.func @and_on_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'and' needs an integer pointee, got 'f32'}}
  %0 = tile.atomic_rmw and, relaxed, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

func.func @add_on_i16(%p: !tile.ptr<i16>, %v: i16) {
  // expected-error @+1 {{'add' needs a 32- or 64-bit integer pointee, got 'i16'}}
  %0 = tile.atomic_rmw add, relaxed, gpu, %p, %v : !tile.ptr<i16>
  return
}

// -----

func.func @rmw_mask(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<16xf32>, %m: tensor<16xi32>) {
  // expected-error @+1 {{operand #2 must be}}
  %0 = "tile.atomic_rmw"(%p, %v, %m) <{rmw_op = 4 : i32, sem = 0 : i32, scope = 0 : i32}> : (tensor<16x!tile.ptr<f32>>, tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @cas_width(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{compare-and-swap needs a 16-, 32- or 64-bit pointee, got 'i8'}}
  %0 = tile.atomic_cas acq_rel, gpu, %p, %v, %v : !tile.ptr<i8>
  return
}

// -----

func.func @dot_rank(%a: tensor<32xf16>, %c: tensor<32xf32>) {
  // expected-error @+1 {{operands must be 2-D (or 3-D with a batch dimension)}}
  %0 = tile.dot %a, %a, %c : tensor<32xf16> * tensor<32xf16> -> tensor<32xf32>
  return
}

// -----

func.func @dot_rank_mismatch(%a: tensor<16x16xf16>, %b: tensor<2x16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{a, b and c must have the same rank}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<2x16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_batch(%a: tensor<2x16x16xf16>, %b: tensor<4x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{batch dimensions differ: 2, 4, 2}}
  %0 = tile.dot %a, %b, %c : tensor<2x16x16xf16> * tensor<4x16x16xf16> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{reduction dimensions differ: a is [16, 32] and b is [16, 16]}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf16>, %b: tensor<32x64xf16>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{accumulator shape [16, 32] must be [16, 64]}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x32xf32>
  return
}

// -----

func.func @dot_small_k(%a: tensor<16x8xf16>, %b: tensor<8x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{the reduction dimension must be at least 16, got 8}}
  %0 = tile.dot %a, %b, %c : tensor<16x8xf16> * tensor<8x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_mixed(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operand element types differ: 'f16' and 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_int(%a: tensor<16x16xi32>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{an integer dot takes i8 operands and an i32 accumulator}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xi32> * tensor<16x16xi32> -> tensor<16x16xi32>
  return
}

// -----

func.func @dot_float_int_acc(%a: tensor<16x16xf16>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{a floating-point dot needs a floating-point accumulator}}
  %0 = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xi32>
  return
}

// -----

func.func @dot_tf32_f16(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{input precision 'tf32' applies only to f32 operands, got 'f16'}}
  %0 = tile.dot %a, %a, %c inputPrecision = tf32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_imprecise_negative(%a: tensor<16x16xf8E4M3FN>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{maxNumImpreciseAcc must be non-negative}}
  %0 = tile.dot %a, %a, %c {maxNumImpreciseAcc = -1 : i32} : tensor<16x16xf8E4M3FN> * tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_imprecise_f16(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{maxNumImpreciseAcc applies only to fp8 operands}}
  %0 = tile.dot %a, %a, %c {maxNumImpreciseAcc = 32 : i32} : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_type(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{all of {c, d} have same type}}
  %0 = "tile.dot"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf16>
  return
}

// -----

func.func @reduce_no_operands() {
  // expected-error @+1 {{needs at least one operand}}
  "tile.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    tile.reduce.return
  }) : () -> ()
  return
}

// -----

func.func @reduce_shapes(%x: tensor<16xf32>, %y: tensor<32xi32>) {
  // expected-error @+1 {{all operands must have the same shape}}
  %0:2 = tile.reduce %x, %y axis = 0 : (tensor<16xf32>, tensor<32xi32>) -> (f32, i32) {
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    tile.reduce.return %a, %b : f32, i32
  }
  return
}

// -----

func.func @reduce_axis(%x: tensor<16xf32>) {
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %0 = tile.reduce %x axis = 1 : (tensor<16xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_result_count(%x: tensor<16xf32>) {
  // expected-error @+1 {{must have one result per operand}}
  %0:2 = tile.reduce %x axis = 0 : (tensor<16xf32>) -> (f32, f32) {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_result_type(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{result type 'tensor<16xf32>' must be 'tensor<8xf32>'}}
  %0 = tile.reduce %x axis = 1 : (tensor<8x16xf32>) -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_combiner_arity(%x: tensor<16xf32>) {
  // expected-error @+1 {{combiner must take 2 arguments, got 3}}
  %0 = tile.reduce %x axis = 0 : (tensor<16xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_combiner_types(%x: tensor<16xf32>) {
  // expected-error @+1 {{combiner arguments 0 and 1 must have type 'f32'}}
  %0 = tile.reduce %x axis = 0 : (tensor<16xf32>) -> f32 {
  ^bb0(%a: f32, %b: f16):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_combiner_results(%x: tensor<16xf32>) {
  // expected-error @+1 {{combiner must return 1 values, got 2}}
  %0 = tile.reduce %x axis = 0 : (tensor<16xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a, %b : f32, f32
  }
  return
}

// -----

func.func @reduce_combiner_result_type(%x: tensor<16xf32>) {
  // expected-error @+1 {{combiner result 0 must have type 'f32'}}
  %0 = tile.reduce %x axis = 0 : (tensor<16xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.truncf %a : f32 to f16
    tile.reduce.return %c : f16
  }
  return
}

// -----

func.func @reduce_return_outside(%x: f32) {
  // expected-error @+1 {{expects parent op 'tile.reduce'}}
  tile.reduce.return %x : f32
}

// -----

func.func @scan_result_types(%x: tensor<16xf32>) {
  // expected-error @+1 {{result types must equal the operand types}}
  %0 = tile.scan %x axis = 0 : (tensor<16xf32>) -> tensor<16xf16> {
  ^bb0(%a: f32, %b: f32):
    tile.scan.return %a : f32
  }
  return
}

// -----

func.func @scan_combiner(%x: tensor<16xi32>) {
  // expected-error @+1 {{combiner arguments 0 and 1 must have type 'i32'}}
  %0 = tile.scan %x axis = 0 : (tensor<16xi32>) -> tensor<16xi32> {
  ^bb0(%a: i64, %b: i64):
    tile.scan.return %a : i64
  }
  return
}

// -----

func.func @scan_return_outside(%x: f32) {
  // expected-error @+1 {{expects parent op 'tile.scan'}}
  tile.scan.return %x : f32
}

// -----

func.func @histogram_rank(%x: tensor<4x16xi32>) {
  // expected-error @+1 {{operand and result must be 1-D}}
  %0 = tile.histogram %x : tensor<4x16xi32> -> tensor<16xi32>
  return
}

// -----

func.func @histogram_bins_type(%x: tensor<16xi32>) {
  // expected-error @+1 {{bins must be i32, got 'i64'}}
  %0 = tile.histogram %x : tensor<16xi32> -> tensor<16xi64>
  return
}

// -----

func.func @histogram_bins_pow2(%x: tensor<16xi32>) {
  // expected-error @+1 {{tensor dimensions must be powers of two}}
  %0 = tile.histogram %x : tensor<16xi32> -> tensor<12xi32>
  return
}

// -----

func.func @gather_rank(%x: tensor<4x16xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{indices must have the rank of the source (2), got 'tensor<16xi32>'}}
  %0 = tile.gather %x[%i] axis = 1 : (tensor<4x16xf32>, tensor<16xi32>) -> tensor<16xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x16xf32>, %i: tensor<4x16xi32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = tile.gather %x[%i] axis = 2 : (tensor<4x16xf32>, tensor<4x16xi32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @gather_other_dim(%x: tensor<4x16xf32>, %i: tensor<8x16xi32>) {
  // expected-error @+1 {{indices and source differ in dimension 0, which is not the gather axis}}
  %0 = tile.gather %x[%i] axis = 1 : (tensor<4x16xf32>, tensor<8x16xi32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @gather_result_shape(%x: tensor<4x16xf32>, %i: tensor<4x8xi32>) {
  // expected-error @+1 {{result shape [4, 16] must be [4, 8]}}
  %0 = tile.gather %x[%i] axis = 1 : (tensor<4x16xf32>, tensor<4x8xi32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @gather_element_type(%x: tensor<16xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{result element type 'f16' must match the operand element type 'f32'}}
  %0 = tile.gather %x[%i] axis = 0 : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf16>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<16xf32>, %i: tensor<16xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of}}
  %0 = tile.gather %x[%i] axis = 0 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @map_pack(%x: tensor<16xf32>) {
  // expected-error @+1 {{pack must be at least 1, got 0}}
  %0 = tile.map_elementwise %x pack = 0 : (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%a: f32):
    tile.map_elementwise.return %a : f32
  }
  return
}

// -----

func.func @map_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{operands and results must share one shape and layout}}
  %0 = tile.map_elementwise %x pack = 1 : (tensor<16xf32>) -> tensor<32xf32> {
  ^bb0(%a: f32):
    tile.map_elementwise.return %a : f32
  }
  return
}

// -----

func.func @map_arguments(%x: tensor<16xf32>) {
  // expected-error @+1 {{the region must take 2 scalars (1 x pack 2), got 1}}
  %0 = tile.map_elementwise %x pack = 2 : (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%a: f32):
    tile.map_elementwise.return %a, %a : f32, f32
  }
  return
}

// -----

func.func @map_argument_type(%x: tensor<16xf32>) {
  // expected-error @+1 {{region take scalar 0 must be 'f32', got 'i32'}}
  %0 = tile.map_elementwise %x pack = 1 : (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%a: i32):
    %f = arith.sitofp %a : i32 to f32
    tile.map_elementwise.return %f : f32
  }
  return
}

// -----

func.func @map_yield_count(%x: tensor<16xf32>) {
  // expected-error @+1 {{the region must yield 2 scalars (2 x pack 1), got 1}}
  %0:2 = tile.map_elementwise %x pack = 1 : (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  ^bb0(%a: f32):
    tile.map_elementwise.return %a : f32
  }
  return
}

// -----

func.func @map_return_outside(%x: f32) {
  // expected-error @+1 {{expects parent op 'tile.map_elementwise'}}
  tile.map_elementwise.return %x : f32
}

// -----

func.func @fp_to_fp_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand and result shapes differ}}
  %0 = tile.fp_to_fp %x, rounding = rtne : tensor<16xf32> -> tensor<8xf16>
  return
}

// -----

func.func @fp_to_fp_no_rounding(%x: tensor<16xf32>) {
  // expected-error @+1 {{converting 'f32' to 'f8E5M2' needs a rounding mode}}
  %0 = tile.fp_to_fp %x : tensor<16xf32> -> tensor<16xf8E5M2>
  return
}

// -----

func.func @fp_to_fp_same_width(%x: tensor<16xf16>) {
  // expected-error @+1 {{converting 'f16' to 'bf16' needs a rounding mode}}
  %0 = tile.fp_to_fp %x : tensor<16xf16> -> tensor<16xbf16>
  return
}

// -----

func.func @fp_to_fp_exact(%x: tensor<16xf16>) {
  // expected-error @+1 {{converting 'f16' to 'f32' is exact; drop the rounding mode}}
  %0 = tile.fp_to_fp %x, rounding = rtz : tensor<16xf16> -> tensor<16xf32>
  return
}

// -----

func.func @bitcast_width(%x: tensor<16xf32>) {
  // expected-error @+1 {{cannot bitcast 32-bit elements to 16-bit elements}}
  %0 = tile.bitcast %x : tensor<16xf32> -> tensor<16xi16>
  return
}

// -----

func.func @bitcast_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{operand and result shapes differ}}
  %0 = tile.bitcast %x : tensor<16xf32> -> i32
  return
}

// -----

func.func @int_to_ptr_shape(%x: tensor<16xi64>) {
  // expected-error @+1 {{operand and result shapes differ}}
  %0 = tile.int_to_ptr %x : tensor<16xi64> -> !tile.ptr<f32>
  return
}

// -----

func.func @int_to_ptr_i32(%x: i32) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = tile.int_to_ptr %x : i32 -> !tile.ptr<f32>
  return
}

// -----

func.func @ptr_to_int_shape(%x: tensor<16x!tile.ptr<f32>>) {
  // expected-error @+1 {{operand and result shapes differ}}
  %0 = tile.ptr_to_int %x : tensor<16x!tile.ptr<f32>> -> tensor<8xi64>
  return
}

// -----

func.func @clampf_int(%x: i32) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = tile.clampf %x, %x, %x, propagateNan = none : i32
  return
}

// -----

func.func @precise_sqrt_int(%x: i32) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = tile.precise_sqrt %x : i32
  return
}

// -----

func.func @precise_divf_types(%x: f32, %y: f16) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "tile.precise_divf"(%x, %y) : (f32, f16) -> f32
  return
}

// -----

func.func @mulhiui_width(%x: i16) {
  // expected-error @+1 {{needs 32- or 64-bit integers, got 'i16'}}
  %0 = tile.mulhiui %x, %x : i16
  return
}

// -----

func.func @extern_symbol(%x: f32) {
  // expected-error @+1 {{needs a symbol name}}
  %0 = tile.extern_elementwise %x {libname = "libdevice", libpath = "", symbol = "", pure = true} : (f32) -> f32
  return
}

// -----

func.func @extern_shapes(%x: tensor<16xf32>, %y: f32) {
  // expected-error @+1 {{all operands and results must have the same shape, got 'tensor<16xf32>' and 'f32'}}
  %0 = tile.extern_elementwise %x, %y {libname = "libdevice", libpath = "", symbol = "__nv_powf", pure = true} : (tensor<16xf32>, f32) -> tensor<16xf32>
  return
}

// -----

func.func @inline_asm_no_result(%x: f32) {
  // expected-error @+1 {{needs at least one result}}
  tile.elementwise_inline_asm "nop;" {constraints = "r", pure = false, packed_element = 1 : i32} %x : (f32) -> ()
  return
}

// -----

func.func @inline_asm_pack(%x: f32) {
  // expected-error @+1 {{packed_element must be a positive power of two, got 3}}
  %0 = tile.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", pure = true, packed_element = 3 : i32} %x : (f32) -> f32
  return
}

// -----

func.func @inline_asm_constraint_count(%x: tensor<16xi8>) {
  // Four i8 per instance travel in one 32-bit register: one output, one input.
  // expected-error @+1 {{constraints name 5 operands (4 outputs), but the results and arguments need 1 outputs and 1 inputs (packed_element 4)}}
  %0 = tile.elementwise_inline_asm "mov.b32 $0, $4;" {constraints = "=r,=r,=r,=r,r", pure = true, packed_element = 4 : i32} %x : (tensor<16xi8>) -> tensor<16xi8>
  return
}

// -----

func.func @inline_asm_output_first(%x: f32) {
  // expected-error @+1 {{constraint 0 ('f') must be an output ('=...')}}
  %0 = tile.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "f,=f", pure = true, packed_element = 1 : i32} %x : (f32) -> f32
  return
}

// -----

func.func @inline_asm_bool(%x: i1) {
  // expected-error @+1 {{operands must be pointers, integers or floats of at least 8 bits, and results integers or floats of at least 8 bits, got 'i1'}}
  %0 = tile.elementwise_inline_asm "mov.pred $0, $1;" {constraints = "=b,b", pure = true, packed_element = 1 : i32} %x : (i1) -> i1
  return
}

// -----

func.func @inline_asm_pointer_result(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{results integers or floats of at least 8 bits, got '!tile.ptr<f32>'}}
  %0 = tile.elementwise_inline_asm "mov.b64 $0, $1;" {constraints = "=l,l", pure = true, packed_element = 1 : i32} %p : (!tile.ptr<f32>) -> !tile.ptr<f32>
  return
}

// -----

func.func @inline_asm_shapes(%x: tensor<16xf32>) {
  // expected-error @+1 {{all operands and results must have the same shape}}
  %0 = tile.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", pure = true, packed_element = 1 : i32} %x : (tensor<16xf32>) -> tensor<32xf32>
  return
}

// -----

func.func @print_signedness(%x: i32) {
  // expected-error @+1 {{isSigned has 2 entries for 1 operands}}
  tile.print "x" {hex = false, isSigned = array<i32: 1, 1>} %x : i32
  return
}

// -----

// expected-error @+1 {{must be inside a kernel function}}
tile.debug_barrier

// -----

func.func @assert_condition(%x: tensor<16xi32>) {
  // expected-error @+1 {{operand #0 must be}}
  tile.assert %x, "bad" : tensor<16xi32>
  return
}

// -----

func.func @program_id_axis() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]}}
  %0 = tile.get_program_id w
  return
}

// -----

func.func @load_cache_modifier(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{enum values for attribute 'cache' [none, ca, cg, wb, cs, wt, cv]}}
  %0 = tile.load %p cache = l2 : !tile.ptr<f32>
  return
}

// -----

func.func @num_stages_zero(%n: i32) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.num_stages' must be an integer attribute in [1, 1024]}}
  scf.for %i = %c0 to %n step %n : i32 {
  } {tile.num_stages = 0 : i32}
  return
}

// -----

// A bound, so that a pipeliner does not allocate 2^30 buffers.
func.func @num_stages_huge(%n: i32) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{'tile.num_stages' must be an integer attribute in [1, 1024]}}
  scf.for %i = %c0 to %n step %n : i32 {
  } {tile.num_stages = 1073741824 : i32}
  return
}

// -----

// expected-error @+1 {{'tile.num_stages' only applies to scf.for}}
func.func @num_stages_on_func() attributes {tile.num_stages = 2 : i32} {
  return
}

// -----

// expected-error @+1 {{descriptor block dimensions must be powers of two, got 48}}
func.func @desc_not_pow2(%d: !tile.tensordesc<tensor<48x64xf16>>)

// -----

// expected-error @+1 {{descriptor block dimension 0 is 512, more than the 256 a TMA box allows}}
func.func @desc_box_too_tall(%d: !tile.tensordesc<tensor<512x64xf16>>)

// -----

// expected-error @+1 {{descriptor elements must be integers or floats}}
func.func @desc_of_pointers(%d: !tile.tensordesc<tensor<64x!tile.ptr<f16>>>)

// -----

func.func @desc_load_indices(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{needs 2 indices for a rank-2 descriptor, got 1}}
  %v = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  return
}

// -----

func.func @desc_store_type(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{tensor type 'tensor<64x64xf32>' does not match the descriptor's block 'tensor<64x64xf16>'}}
  tile.descriptor_store %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf32>
  return
}

// -----

func.func @desc_reduce_fmin(%d: !tile.tensordesc<tensor<64x64xf32>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{the TMA unit has no 'min' reduction of 'f32'}}
  tile.descriptor_reduce min, %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
  return
}

// -----

func.func @desc_reduce_exchange(%d: !tile.tensordesc<tensor<64x64xi32>>, %i: i32, %v: tensor<64x64xi32>) {
  // expected-error @+1 {{the TMA unit has no 'xchg' reduction of 'i32'}}
  tile.descriptor_reduce xchg, %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xi32>>, tensor<64x64xi32>
  return
}

// -----

func.func @desc_reduce_type(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{tensor type 'tensor<64x64xf32>' does not match the descriptor's block 'tensor<64x64xf16>'}}
  tile.descriptor_reduce fadd, %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf32>
  return
}

// -----

func.func @hint_without_facts(%x: tensor<64xi32>) {
  // expected-error @+1 {{needs at least one of divisibility, contiguity and constancy}}
  %0 = tile.hint %x : tensor<64xi32>
  return
}

// -----

func.func @hint_rank(%x: tensor<8x8xi32>) {
  // expected-error @+1 {{contiguity has 1 entries for a value of rank 2}}
  %0 = tile.hint %x {contiguity = array<i64: 8>} : tensor<8x8xi32>
  return
}

// -----

func.func @hint_positive(%x: i32) {
  // expected-error @+1 {{divisibility entries must be positive, got 0}}
  %0 = tile.hint %x {divisibility = array<i64: 0>} : i32
  return
}

// -----

func.func @hint_float(%x: tensor<64xf32>) {
  // expected-error @+1 {{operand #0 must be}}
  %0 = tile.hint %x {divisibility = array<i64: 16>} : tensor<64xf32>
  return
}

// -----

func.func @assume_int(%x: i32) {
  // expected-error @+1 {{operand #0 must be 1-bit signless integer}}
  "tile.assume"(%x) : (i32) -> ()
  return
}
