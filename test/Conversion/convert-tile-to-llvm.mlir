// RUN: tile-opt %s --split-input-file --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s

// Scalar Tile IR after distribution. The kernel gets NVVM's kernel marker
// and its block size; program ids read ctaid; `/` on f32 is div.full (as
// in Triton) while div_rn keeps IEEE division; exp on f32 is
// ex2.approx of x * log2(e) (as in Triton), and libdevice serves the rest
// of math (exp on f64: __nv_exp).
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>}
// CHECK: nvvm.read.ptx.sreg.ctaid.y
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"({{.*}}) : (f32, f32) -> f32
// CHECK: llvm.fdiv {{.*}} : f32
// CHECK: llvm.fdiv {{.*}} : f64
// CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK: %[[SCALED:.*]] = llvm.fmul %{{.*}}, %[[LOG2E]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[SCALED]]) : (f32) -> f32
// CHECK-NOT: __nv_expf
// CHECK: llvm.call @__nv_exp(
// CHECK: llvm.getelementptr {{.*}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
module attributes {tilegpu.num_warps = 8 : i32} {
  func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %x: f32, %y: f32, %a: f64, %b: f64) attributes {tile.kernel} {
    %pid = tile.get_program_id y
    %q = arith.divf %x, %y : f32
    %r = tile.precise_divf %x, %y : f32
    %d = arith.divf %a, %b : f64
    %e = math.exp %q : f32
    %s = arith.addf %e, %r : f32
    %e64 = math.exp %d : f64
    %pp = tile.addptr %p, %pid : !tile.ptr<f32>, i32
    return
  }
}

// -----

// umulhi is one mul.hi through NVVM's intrinsics, never a widened 64-bit
// multiply (which ptxas 13.0 -O3 miscompiled in a loop, issue 27).
// CHECK-LABEL: llvm.func @high_halves(
// CHECK: llvm.call_intrinsic "llvm.nvvm.mulhi.ui"(%{{.*}}, %{{.*}}) : (i32, i32) -> i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.mulhi.ull"(%{{.*}}, %{{.*}}) : (i64, i64) -> i64
// CHECK-NOT: llvm.zext
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @high_halves(%p: !tile.ptr<i32>, %q: !tile.ptr<i64>, %x: i32, %y: i64) attributes {tile.kernel} {
    %h = tile.mulhiui %x, %x : i32
    %g = tile.mulhiui %y, %y : i64
    tile.store %p, %h : !tile.ptr<i32>
    tile.store %q, %g : !tile.ptr<i64>
    return
  }
}

// -----

// fp8 widens through f16 (cvt.rn.f16x2.e4m3x2); to bf16, which has f16's
// width but not its range, it goes on through f32, never an f16 -> bf16
// fptrunc (which LLVM's verifier rejects).
// CHECK-LABEL: llvm.func @fp8_to_bf16(
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
// CHECK-NOT: llvm.fptrunc %{{.*}} : f16 to bf16
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @fp8_to_bf16(%p: !tile.ptr<bf16>, %x: f8E4M3FN) attributes {tile.kernel} {
    %y = tile.fp_to_fp %x : f8E4M3FN -> bf16
    tile.store %p, %y : !tile.ptr<bf16>
    return
  }
}

// -----

// A loop's llvm.loop_annotation (tl.range's loop_unroll_factor and
// disable_licm), which scf-to-cf leaves on the back edge as a discardable
// attribute, becomes the llvm.br's own loop_annotation: the one the LLVM IR
// translation turns into !llvm.loop metadata.
// CHECK-LABEL: llvm.func @annotated_loop
// CHECK: llvm.br ^bb1(%{{.*}} : i32) {loop_annotation = #loop_annotation}
// CHECK-NOT: llvm.loop_annotation =
#ann = #llvm.loop_annotation<unroll = <count = 2 : i32>, licm = <disable = true>>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @annotated_loop(%n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cf.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %c = arith.cmpi slt, %i, %n : i32
    cf.cond_br %c, ^bb2, ^bb3
  ^bb2:
    %j = arith.addi %i, %c1 : i32
    cf.br ^bb1(%j : i32) {llvm.loop_annotation = #ann}
  ^bb3:
    return
  }
}

// -----

// tl.assume: the promise reaches LLVM as llvm.intr.assume.
// CHECK-LABEL: llvm.func @assumed(
// CHECK: %[[C:.*]] = llvm.icmp "sgt" %arg0, %{{.*}} : i32
// CHECK: llvm.intr.assume %[[C]] : i1
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @assumed(%n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %ok = arith.cmpi sgt, %n, %c0 : i32
    tile.assume %ok
    return
  }
}

// -----

// A `noinline` @jit function stays a device function: the marker reaches
// the LLVM function, so LLVM's inliner leaves the call too. An ordinary
// function (inlined earlier in the pipeline when it is called) gets none.
// CHECK-LABEL: llvm.func @device_fn(
// CHECK-SAME: no_inline
// CHECK-LABEL: llvm.func @plain_fn(
// CHECK-NOT: no_inline
// CHECK-LABEL: llvm.func @calls_device_fn(
// CHECK: llvm.call @device_fn(%arg0) : (i32) -> i32
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func private @device_fn(%x: i32) -> i32 attributes {no_inline} {
    %y = arith.addi %x, %x : i32
    return %y : i32
  }
  func.func private @plain_fn(%x: i32) -> i32 {
    return %x : i32
  }
  func.func @calls_device_fn(%n: i32) attributes {tile.kernel} {
    %r = func.call @device_fn(%n) : (i32) -> i32
    return
  }
}
