// Round trip of every Tile op, in the custom and in the generic form.
// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func @program_ids
func.func @program_ids() -> (i32, i32, i32) {
  // CHECK: tile.get_program_id x
  // CHECK: tile.get_program_id z
  // CHECK: tile.get_num_programs y
  %0 = tile.get_program_id x
  %1 = tile.get_program_id z
  %2 = tile.get_num_programs y
  return %0, %1, %2 : i32, i32, i32
}

// CHECK-LABEL: func @shapes
func.func @shapes(%x: f32, %t: tensor<32xf32>, %m: tensor<4x16xf32>) {
  // CHECK: tile.make_range {end = 160 : i32, start = 32 : i32} : tensor<128xi32>
  %r = tile.make_range {start = 32 : i32, end = 160 : i32} : tensor<128xi32>
  // CHECK: tile.splat %{{.*}} : f32 -> tensor<8x32xf32>
  %s = tile.splat %x : f32 -> tensor<8x32xf32>
  // CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  %e = tile.expand_dims %t {axis = 0 : i32} : tensor<32xf32> -> tensor<1x32xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<1x32xf32> -> tensor<8x32xf32>
  %b = tile.broadcast %e : tensor<1x32xf32> -> tensor<8x32xf32>
  // CHECK: tile.reshape %{{.*}} : tensor<4x16xf32> -> tensor<64xf32>
  %r1 = tile.reshape %m : tensor<4x16xf32> -> tensor<64xf32>
  // CHECK: tile.reshape %{{.*}} allow_reorder : tensor<4x16xf32> -> tensor<8x8xf32>
  %r2 = tile.reshape %m allow_reorder : tensor<4x16xf32> -> tensor<8x8xf32>
  // CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
  %tr = tile.trans %m {order = array<i32: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
  // CHECK: tile.cat %{{.*}}, %{{.*}} : tensor<32xf32> -> tensor<64xf32>
  %c = tile.cat %t, %t : tensor<32xf32> -> tensor<64xf32>
  // CHECK: tile.join %{{.*}}, %{{.*}} : tensor<32xf32> -> tensor<32x2xf32>
  %j = tile.join %t, %t : tensor<32xf32> -> tensor<32x2xf32>
  // CHECK: tile.split %{{.*}} : tensor<32x2xf32> -> tensor<32xf32>
  %lo, %hi = tile.split %j : tensor<32x2xf32> -> tensor<32xf32>
  return
}

// CHECK-LABEL: func @pointers
func.func @pointers(%p: !tile.ptr<f16>, %s: !tile.ptr<f32, 3>, %i: i64) {
  %off = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<f16>, i64
  %q = tile.addptr %p, %i : !tile.ptr<f16>, i64
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  %pt = tile.addptr %ps, %off : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  // CHECK: tile.ptr_to_int %{{.*}} : !tile.ptr<f32, 3> -> i64
  %a = tile.ptr_to_int %s : !tile.ptr<f32, 3> -> i64
  // CHECK: tile.int_to_ptr %{{.*}} : i64 -> !tile.ptr<!tile.ptr<i8>>
  %pp = tile.int_to_ptr %a : i64 -> !tile.ptr<!tile.ptr<i8>>
  // CHECK: tile.bitcast %{{.*}} : !tile.ptr<f16> -> !tile.ptr<i16>
  %bc = tile.bitcast %p : !tile.ptr<f16> -> !tile.ptr<i16>
  return
}

// CHECK-LABEL: func @memory
func.func @memory(%p: tensor<64x!tile.ptr<f32>>, %m: tensor<64xi1>, %o: tensor<64xf32>,
                  %sp: !tile.ptr<i32>, %si: i32) {
  // CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<f32>>
  %a = tile.load %p : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}}, %{{.*}} cache = ca evict = evict_last : tensor<64x!tile.ptr<f32>>
  %b = tile.load %p, %m cache = ca evict = evict_last : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} cache = cg volatile : tensor<64x!tile.ptr<f32>>
  %c = tile.load %p, %m, %o cache = cg volatile : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.load %{{.*}} evict = evict_first : !tile.ptr<i32>
  %d = tile.load %sp evict = evict_first : !tile.ptr<i32>
  // CHECK: tile.store %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  tile.store %p, %a : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} cache = wt evict = evict_first : tensor<64x!tile.ptr<f32>>
  tile.store %p, %b, %m cache = wt evict = evict_first : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.store %{{.*}}, %{{.*}} cache = cs : !tile.ptr<i32>
  tile.store %sp, %d cache = cs : !tile.ptr<i32>
  return
}

// CHECK-LABEL: func @atomics
func.func @atomics(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %m: tensor<64xi1>,
                   %ip: !tile.ptr<i32>, %i: i32, %lp: !tile.ptr<i64>, %l: i64) {
  // CHECK: tile.atomic_rmw fadd, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  %0 = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.atomic_rmw max, relaxed, cta, %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
  %1 = tile.atomic_rmw max, relaxed, cta, %p, %v : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.atomic_rmw add, acquire, sys
  %2 = tile.atomic_rmw add, acquire, sys, %ip, %i : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw min, release, gpu
  %3 = tile.atomic_rmw min, release, gpu, %ip, %i : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw umax, relaxed, gpu
  %4 = tile.atomic_rmw umax, relaxed, gpu, %ip, %i : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw umin, relaxed, gpu
  %5 = tile.atomic_rmw umin, relaxed, gpu, %lp, %l : !tile.ptr<i64>
  // CHECK: tile.atomic_rmw and, relaxed, gpu
  %6 = tile.atomic_rmw and, relaxed, gpu, %ip, %i : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw or, relaxed, gpu
  %7 = tile.atomic_rmw or, relaxed, gpu, %ip, %i : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw xor, relaxed, gpu
  %8 = tile.atomic_rmw xor, relaxed, gpu, %lp, %l : !tile.ptr<i64>
  // CHECK: tile.atomic_rmw xchg, acq_rel, gpu
  %9 = tile.atomic_rmw xchg, acq_rel, gpu, %p, %v : tensor<64x!tile.ptr<f32>>
  // CHECK: tile.atomic_cas acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %10 = tile.atomic_cas acq_rel, gpu, %ip, %i, %i : !tile.ptr<i32>
  return
}

// CHECK-LABEL: func @dots
func.func @dots(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x128xf32>,
                %fa: tensor<64x32xf32>, %fb: tensor<32x128xf32>,
                %ea: tensor<64x32xf8E4M3FN>, %eb: tensor<32x128xf8E5M2>,
                %ia: tensor<64x32xi8>, %ib: tensor<32x128xi8>, %ic: tensor<64x128xi32>,
                %ba: tensor<2x16x16xbf16>, %bc: tensor<2x16x16xf32>) {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} inputPrecision = tf32 : tensor<64x32xf32>
  %1 = tile.dot %fa, %fb, %c inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x128xf32> -> tensor<64x128xf32>
  // CHECK: inputPrecision = tf32x3
  %2 = tile.dot %fa, %fb, %c inputPrecision = tf32x3 : tensor<64x32xf32> * tensor<32x128xf32> -> tensor<64x128xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf8E4M3FN> * tensor<32x128xf8E5M2>
  %3 = tile.dot %ea, %eb, %c {maxNumImpreciseAcc = 32 : i32} : tensor<64x32xf8E4M3FN> * tensor<32x128xf8E5M2> -> tensor<64x128xf32>
  // CHECK: tile.dot %{{.*}} : tensor<64x32xi8> * tensor<32x128xi8> -> tensor<64x128xi32>
  %4 = tile.dot %ia, %ib, %ic : tensor<64x32xi8> * tensor<32x128xi8> -> tensor<64x128xi32>
  // CHECK: tile.dot %{{.*}} : tensor<2x16x16xbf16> * tensor<2x16x16xbf16> -> tensor<2x16x16xf32>
  %5 = tile.dot %ba, %ba, %bc : tensor<2x16x16xbf16> * tensor<2x16x16xbf16> -> tensor<2x16x16xf32>
  return
}

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<8x128xf32>, %idx: tensor<8x128xi32>, %v: tensor<128xf32>) {
  // CHECK: tile.reduce %{{.*}} axis = 1 : (tensor<8x128xf32>) -> tensor<8xf32> {
  // CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
  // CHECK: tile.reduce.return %{{.*}} : f32
  %s = tile.reduce %x axis = 1 : (tensor<8x128xf32>) -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    tile.reduce.return %r : f32
  }
  // Argmax carries the indices alongside the values.
  // CHECK: tile.reduce %{{.*}}, %{{.*}} axis = 0 : (tensor<8x128xf32>, tensor<8x128xi32>) -> (tensor<128xf32>, tensor<128xi32>)
  %m:2 = tile.reduce %x, %idx axis = 0 : (tensor<8x128xf32>, tensor<8x128xi32>) -> (tensor<128xf32>, tensor<128xi32>) {
  ^bb0(%va: f32, %ia: i32, %vb: f32, %ib: i32):
    %gt = arith.cmpf ogt, %vb, %va : f32
    %v0 = arith.select %gt, %vb, %va : f32
    %i0 = arith.select %gt, %ib, %ia : i32
    tile.reduce.return %v0, %i0 : f32, i32
  }
  // CHECK: tile.reduce %{{.*}} axis = 0 : (tensor<128xf32>) -> f32
  %t = tile.reduce %v axis = 0 : (tensor<128xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    tile.reduce.return %r : f32
  }
  // CHECK: tile.scan %{{.*}} axis = 1 reverse : (tensor<8x128xi32>) -> tensor<8x128xi32> {
  // CHECK: tile.scan.return %{{.*}} : i32
  %c = tile.scan %idx axis = 1 reverse : (tensor<8x128xi32>) -> tensor<8x128xi32> {
  ^bb0(%a: i32, %b: i32):
    %r = arith.addi %a, %b : i32
    tile.scan.return %r : i32
  }
  // CHECK: tile.scan %{{.*}} axis = 0 : (tensor<128xf32>) -> tensor<128xf32>
  %p = tile.scan %v axis = 0 : (tensor<128xf32>) -> tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %r = arith.mulf %a, %b : f32
    tile.scan.return %r : f32
  }
  return
}

// CHECK-LABEL: func @casts_and_math
func.func @casts_and_math(%x: tensor<64xf32>, %h: tensor<64xf16>, %i: tensor<64xi32>,
                          %u: i64, %f: f32) {
  // CHECK: tile.fp_to_fp %{{.*}}, rounding = rtne : tensor<64xf32> -> tensor<64xf8E4M3FN>
  %0 = tile.fp_to_fp %x, rounding = rtne : tensor<64xf32> -> tensor<64xf8E4M3FN>
  // CHECK: tile.fp_to_fp %{{.*}}, rounding = rtz : tensor<64xf32> -> tensor<64xbf16>
  %1 = tile.fp_to_fp %x, rounding = rtz : tensor<64xf32> -> tensor<64xbf16>
  // CHECK: tile.fp_to_fp %{{.*}} : tensor<64xf16> -> tensor<64xf32>
  %2 = tile.fp_to_fp %h : tensor<64xf16> -> tensor<64xf32>
  // CHECK: tile.bitcast %{{.*}} : tensor<64xf32> -> tensor<64xi32>
  %3 = tile.bitcast %x : tensor<64xf32> -> tensor<64xi32>
  // CHECK: tile.assume %{{.*}}
  %ok = arith.cmpi sgt, %u, %u : i64
  tile.assume %ok
  // CHECK: tile.hint %{{.*}} {contiguity = array<i64: 64>, divisibility = array<i64: 16>} : tensor<64xi32>
  %hinted = tile.hint %i {divisibility = array<i64: 16>, contiguity = array<i64: 64>} : tensor<64xi32>
  // CHECK: tile.clampf %{{.*}}, %{{.*}}, %{{.*}}, propagateNan = all : tensor<64xf32>
  %4 = tile.clampf %x, %x, %x, propagateNan = all : tensor<64xf32>
  // CHECK: tile.clampf %{{.*}}, propagateNan = none : f32
  %5 = tile.clampf %f, %f, %f, propagateNan = none : f32
  // CHECK: tile.precise_sqrt %{{.*}} : tensor<64xf32>
  %6 = tile.precise_sqrt %x : tensor<64xf32>
  // CHECK: tile.precise_divf %{{.*}}, %{{.*}} : tensor<64xf32>
  %7 = tile.precise_divf %x, %x : tensor<64xf32>
  // CHECK: tile.mulhiui %{{.*}}, %{{.*}} : tensor<64xi32>
  %8 = tile.mulhiui %i, %i : tensor<64xi32>
  // CHECK: tile.mulhiui %{{.*}}, %{{.*}} : i64
  %9 = tile.mulhiui %u, %u : i64
  // CHECK: tile.histogram %{{.*}} : tensor<64xi32> -> tensor<16xi32>
  %10 = tile.histogram %i : tensor<64xi32> -> tensor<16xi32>
  // CHECK: tile.gather %{{.*}}[%{{.*}}] axis = 0 : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32>
  %g = tile.gather %x[%i] axis = 0 : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32>
  // CHECK: tile.map_elementwise %{{.*}}, %{{.*}} pack = 2 : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32> {
  // CHECK: tile.map_elementwise.return %{{.*}}, %{{.*}} : f32, f32
  %m = tile.map_elementwise %x, %i pack = 2 : (tensor<64xf32>, tensor<64xi32>) -> tensor<64xf32> {
  ^bb0(%x0: f32, %x1: f32, %i0: i32, %i1: i32):
    %c = arith.cmpi sgt, %i0, %i1 : i32
    %r = scf.if %c -> (f32) {
      scf.yield %x0 : f32
    } else {
      scf.yield %x1 : f32
    }
    tile.map_elementwise.return %r, %x1 : f32, f32
  }
  // CHECK: tile.extern_elementwise %{{.*}} {libname = "libdevice", libpath = "", pure = true, symbol = "__nv_erff"} : (tensor<64xf32>) -> tensor<64xf32>
  %11 = tile.extern_elementwise %x {libname = "libdevice", libpath = "", symbol = "__nv_erff", pure = true} : (tensor<64xf32>) -> tensor<64xf32>
  // CHECK: tile.extern_elementwise %{{.*}}, %{{.*}} {{.*}}symbol = "__nv_powf"} : (f32, f32) -> f32
  %12 = tile.extern_elementwise %f, %f {libname = "libdevice", libpath = "", symbol = "__nv_powf", pure = false} : (f32, f32) -> f32
  // CHECK: tile.elementwise_inline_asm "cvt.rn.f16.f32 $0, $1;" {constraints = "=h,r", packed_element = 1 : i32, pure = true} %{{.*}} : (tensor<64xf32>) -> tensor<64xf16>
  %13 = tile.elementwise_inline_asm "cvt.rn.f16.f32 $0, $1;" {constraints = "=h,r", pure = true, packed_element = 1 : i32} %x : (tensor<64xf32>) -> tensor<64xf16>
  // CHECK: tile.elementwise_inline_asm "mov.b32 $0, $4; mov.b32 $1, $5; mov.b32 $2, $4; mov.b32 $3, $5;" {{.*}} : (tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>)
  %14:2 = tile.elementwise_inline_asm "mov.b32 $0, $4; mov.b32 $1, $5; mov.b32 $2, $4; mov.b32 $3, $5;" {constraints = "=r,=r,=r,=r,r,r,~{memory}", pure = false, packed_element = 2 : i32} %i : (tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>)
  return
}

// CHECK-LABEL: func @debugging
func.func @debugging(%x: tensor<64xi32>, %c: tensor<64xi1>, %s: f32) {
  // CHECK: tile.print " x: " {hex = false, isSigned = array<i32: 1, 0>} %{{.*}}, %{{.*}} : tensor<64xi32>, f32
  tile.print " x: " {hex = false, isSigned = array<i32: 1, 0>} %x, %s : tensor<64xi32>, f32
  // CHECK: tile.print "tick" {hex = true, isSigned = array<i32>}
  tile.print "tick" {hex = true, isSigned = array<i32>}
  // CHECK: tile.assert %{{.*}}, "out of range" : tensor<64xi1>
  tile.assert %c, "out of range" : tensor<64xi1>
  // CHECK: tile.debug_barrier
  tile.debug_barrier
  return
}

// Kernel and argument attributes.
// CHECK-LABEL: func @kernel
// CHECK-SAME: %{{.*}}: !tile.ptr<f32> {tile.contiguity = 4 : i32, tile.divisibility = 16 : i32}
// CHECK-SAME: %{{.*}}: i32 {tile.divisibility = 16 : i32}
// CHECK-SAME: attributes {tile.kernel}
func.func @kernel(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.contiguity = 4 : i32},
                  %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  return
}

// CHECK-LABEL: func @pipelined_loop
// CHECK: scf.for
// CHECK: } {tile.num_stages = 3 : i32}
func.func @pipelined_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
  } {tile.num_stages = 3 : i32}
  return
}

// CHECK-LABEL: func @descriptors
// CHECK: %[[V:.*]] = tile.descriptor_load %arg0[%arg2, %arg3] : !tile.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
// CHECK: tile.descriptor_store %arg1[%arg3, %arg2], %[[V]] : !tile.tensordesc<tensor<64x32xf16>>, tensor<64x32xf16>
func.func @descriptors(%in: !tile.tensordesc<tensor<64x32xf16>>,
                       %out: !tile.tensordesc<tensor<64x32xf16>>,
                       %i: i32, %j: i32) {
  %v = tile.descriptor_load %in[%i, %j] : !tile.tensordesc<tensor<64x32xf16>> -> tensor<64x32xf16>
  tile.descriptor_store %out[%j, %i], %v : !tile.tensordesc<tensor<64x32xf16>>, tensor<64x32xf16>
  return
}

// CHECK-LABEL: func @descriptor_reductions
// CHECK: tile.descriptor_reduce fadd, %arg0[%arg3, %arg3], %arg4 : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32>
// CHECK: tile.descriptor_reduce umax, %arg1[%arg3, %arg3], %arg5 : !tile.tensordesc<tensor<64x32xi32>>, tensor<64x32xi32>
// CHECK: tile.descriptor_reduce xor, %arg2[%arg3, %arg3], %arg6 : !tile.tensordesc<tensor<8x32xi64>>, tensor<8x32xi64>
func.func @descriptor_reductions(%f: !tile.tensordesc<tensor<64x32xf32>>,
                                 %u: !tile.tensordesc<tensor<64x32xi32>>,
                                 %x: !tile.tensordesc<tensor<8x32xi64>>, %i: i32,
                                 %a: tensor<64x32xf32>, %b: tensor<64x32xi32>,
                                 %c: tensor<8x32xi64>) {
  tile.descriptor_reduce fadd, %f[%i, %i], %a : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32>
  tile.descriptor_reduce umax, %u[%i, %i], %b : !tile.tensordesc<tensor<64x32xi32>>, tensor<64x32xi32>
  tile.descriptor_reduce xor, %x[%i, %i], %c : !tile.tensordesc<tensor<8x32xi64>>, tensor<8x32xi64>
  return
}
