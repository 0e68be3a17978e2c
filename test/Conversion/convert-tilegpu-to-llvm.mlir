// RUN: tile-opt %s --convert-tilegpu-to-llvm | FileCheck %s

// device_print: one vprintf per owned element, the format naming the
// program and the element; device_assert: __assertfail with the message,
// the file and the line.
// CHECK-DAG: llvm.mlir.global internal constant @[[FMT:tile_str_[0-9]+]]("pid (%d, %d, %d) idx (%d) x: %d\0A\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{tile_str_[0-9]+}}("x >= 0\00")
// CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)

// The histogram: zero the bins, barrier, shared-memory atomics, barrier,
// read the bins back.
// CHECK-LABEL: func.func @hist
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: llvm.atomicrmw add {{.*}} monotonic : !llvm.ptr<3>, i32
// CHECK: nvvm.barrier0
// CHECK: llvm.load

// The gather: the source written row-major, one barrier, then each result
// register read at its own coordinates with the axis coordinate replaced by
// its (truncated, wrapped) index.
// CHECK-LABEL: func.func @gather
// CHECK: llvm.store
// CHECK: nvvm.barrier0
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: arith.andi %{{.*}}, %{{.*}} : i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK: return

// map_elementwise: the region is cloned once per pack of registers (4
// registers a thread, pack 2: two copies, each with its own scf.if); the
// block argument order is the pack of each operand in turn.
// CHECK-LABEL: func.func @map_pairs
// CHECK-COUNT-2: scf.if
// CHECK-NOT: scf.if
// CHECK-NOT: tile.map_elementwise
// CHECK: return

// CHECK-LABEL: func.func @debug
// CHECK: llvm.mlir.addressof @[[FMT]]
// CHECK: llvm.call @vprintf
// CHECK: scf.if
// CHECK: llvm.call @__assertfail
// CHECK: nvvm.barrier0
// CHECK-NOT: tile.debug_barrier

// Releasing a lock publishes every thread's stores: the CTA synchronises
// before thread 0's atomic, and after it (acquire) too.
// CHECK-LABEL: func.func @unlock
// CHECK: st.global
// CHECK: nvvm.barrier0
// CHECK: arith.cmpi eq
// CHECK: atom.global.gpu.acq_rel.exch.b32

// Back-to-back barriers (the barrier pass's, a user's debug_barrier, a
// releasing atomic's) are one: nothing between them touches memory.
// CHECK-LABEL: func.func @barrier_pairs
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: st.global
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: atom.global.gpu.acq_rel.exch.b32
// CHECK: nvvm.barrier0

// f16 values an scf.if yields cross it two to an i32 word (three halves:
// one word and one half); after the if they are unpacked.
// CHECK-LABEL: func.func @half_branch
// CHECK: scf.if %{{.*}} -> (f16, i32)
// CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: scf.yield %{{.*}}, %{{.*}} : f16, i32
// CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: scf.yield %{{.*}}, %{{.*}} : f16, i32
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK-COUNT-2: llvm.extractelement

// A load is a side-effecting asm: a pure one would let LLVM hoist it out
// of a loop that stores to the same address.
// CHECK-LABEL: func.func @load_store_loop
// CHECK: scf.for
// CHECK: llvm.inline_asm has_side_effects {{.*}}ld.global.b32
// CHECK: st.global.b32

// A tensor atomic with two elements a thread, no mask and no copies to
// silence: its atoms run under a constant-true guard (no guard at all once
// crashed the conversion).
// CHECK-LABEL: func.func @cas_two_per_thread
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: atom.global.acq_rel.gpu.cas.b32 {{.*}} "=r,b,l,r,r" %[[TRUE]],
// CHECK: %[[TRUE2:.*]] = arith.constant true
// CHECK: atom.global.acq_rel.gpu.cas.b32 {{.*}} "=r,b,l,r,r" %[[TRUE2]],

#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 512 : i64, tilegpu.target = "sm_90a"} {
  func.func @hist(%arg0: !tile.ptr<i32>, %arg1: !tile.ptr<i32>) attributes {tile.kernel} {
    %0 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<i32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tile.load %2 : tensor<128x!tile.ptr<i32>, #blocked>
    %4 = tile.histogram %3 {tilegpu.offset = 0 : i64} : tensor<128xi32, #blocked> -> tensor<16xi32, #blocked>
    %5 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #blocked>
    %6 = tile.splat %arg1 : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>, #blocked>
    %7 = tile.addptr %6, %5 : tensor<16x!tile.ptr<i32>, #blocked>, tensor<16xi32, #blocked>
    tile.store %7, %4 : tensor<16x!tile.ptr<i32>, #blocked>
    return
  }
  func.func @gather(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<i64>) attributes {tile.kernel} {
    %0 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tile.load %2 : tensor<128x!tile.ptr<f32>, #blocked>
    %4 = tile.splat %arg1 : !tile.ptr<i64> -> tensor<128x!tile.ptr<i64>, #blocked>
    %5 = tile.addptr %4, %0 : tensor<128x!tile.ptr<i64>, #blocked>, tensor<128xi32, #blocked>
    %6 = tile.load %5 : tensor<128x!tile.ptr<i64>, #blocked>
    %7 = tile.gather %3[%6] axis = 0 {tilegpu.offset = 0 : i64} : (tensor<128xf32, #blocked>, tensor<128xi64, #blocked>) -> tensor<128xf32, #blocked>
    tile.store %2, %7 : tensor<128x!tile.ptr<f32>, #blocked>
    return
  }
  func.func @map_pairs(%arg0: !tile.ptr<i32>) attributes {tile.kernel} {
    %0 = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %1 = tile.map_elementwise %0, %0 pack = 2 : (tensor<512xi32, #blocked>, tensor<512xi32, #blocked>) -> tensor<512xi32, #blocked> {
    ^bb0(%a0: i32, %a1: i32, %b0: i32, %b1: i32):
      %c = arith.cmpi slt, %a0, %b1 : i32
      %r = scf.if %c -> (i32) {
        scf.yield %a1 : i32
      } else {
        scf.yield %b0 : i32
      }
      tile.map_elementwise.return %r, %a0 : i32, i32
    }
    %2 = tile.splat %arg0 : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>, #blocked>
    %3 = tile.addptr %2, %0 : tensor<512x!tile.ptr<i32>, #blocked>, tensor<512xi32, #blocked>
    tile.store %3, %1 : tensor<512x!tile.ptr<i32>, #blocked>
    return
  }
  func.func @debug(%arg0: !tile.ptr<i32>) attributes {tile.kernel} {
    %cst = arith.constant dense<0> : tensor<128xi32, #blocked>
    %0 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<i32>, #blocked>, tensor<128xi32, #blocked>
    %3 = tile.load %2 : tensor<128x!tile.ptr<i32>, #blocked>
    tile.print " x: " {hex = false, isSigned = array<i32: 1>} %3 : tensor<128xi32, #blocked>
    %4 = arith.cmpi sge, %3, %cst : tensor<128xi32, #blocked>
    tile.assert %4, "x >= 0" : tensor<128xi1, #blocked>
    tile.debug_barrier
    return
  }
  func.func @unlock(%arg0: !tile.ptr<i32>, %arg1: !tile.ptr<f32>) attributes {tile.kernel} {
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant dense<1.000000e+00> : tensor<128xf32, #blocked>
    %0 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %1 = tile.splat %arg1 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    tile.store %2, %cst : tensor<128x!tile.ptr<f32>, #blocked>
    %3 = tile.atomic_rmw xchg, acq_rel, gpu, %arg0, %c0_i32 : !tile.ptr<i32>
    return
  }
  func.func @barrier_pairs(%arg0: !tile.ptr<i32>, %arg1: !tile.ptr<f32>) attributes {tile.kernel} {
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant 1.000000e+00 : f32
    tilegpu.barrier
    tile.debug_barrier
    tile.store %arg1, %cst : !tile.ptr<f32>
    tile.debug_barrier
    %0 = tile.atomic_rmw xchg, acq_rel, gpu, %arg0, %c0_i32 : !tile.ptr<i32>
    return
  }
  func.func @half_branch(%arg0: !tile.ptr<f16>, %c: i1) attributes {tile.kernel} {
    %cst = arith.constant dense<1.000000e+00> : tensor<128xf16, #blocked>
    %0 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %1 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<128x!tile.ptr<f16>, #blocked>, tensor<128xi32, #blocked>
    %3:3 = scf.if %c -> (tensor<128xf16, #blocked>, tensor<128xf16, #blocked>, tensor<128xf16, #blocked>) {
      scf.yield %cst, %cst, %cst : tensor<128xf16, #blocked>, tensor<128xf16, #blocked>, tensor<128xf16, #blocked>
    } else {
      %4 = tile.load %2 : tensor<128x!tile.ptr<f16>, #blocked>
      %5 = arith.addf %4, %cst : tensor<128xf16, #blocked>
      scf.yield %4, %5, %cst : tensor<128xf16, #blocked>, tensor<128xf16, #blocked>, tensor<128xf16, #blocked>
    }
    %6 = arith.addf %3#0, %3#1 : tensor<128xf16, #blocked>
    %7 = arith.addf %6, %3#2 : tensor<128xf16, #blocked>
    tile.store %2, %7 : tensor<128x!tile.ptr<f16>, #blocked>
    return
  }
  func.func @load_store_loop(%arg0: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %one = arith.constant 1.000000e+00 : f32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %x = tile.load %arg0 : !tile.ptr<f32>
      %y = arith.addf %x, %one : f32
      tile.store %arg0, %y : !tile.ptr<f32>
    }
    return
  }
  func.func @cas_two_per_thread(%arg0: !tile.ptr<i32>) attributes {tile.kernel} {
    %cmp = arith.constant dense<0> : tensor<256xi32, #blocked>
    %val = arith.constant dense<2> : tensor<256xi32, #blocked>
    %0 = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %1 = tile.splat %arg0 : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>, #blocked>
    %2 = tile.addptr %1, %0 : tensor<256x!tile.ptr<i32>, #blocked>, tensor<256xi32, #blocked>
    %3 = tile.atomic_cas acq_rel, gpu, %2, %cmp, %val : tensor<256x!tile.ptr<i32>, #blocked>
    return
  }
}


// An atomic whose old values nobody reads is a `red`: fp32 additions of
// four consecutive, 16-byte aligned elements a thread go as one red.v4
// (sm_90, PTX 8.1); an integer addition goes one element at a time. One
// that acquires, or whose result is read, stays an atom.
// CHECK-LABEL: func.func @reductions
// CHECK: "@$0 red.global.gpu.relaxed.add.v4.f32 [ $1 + 0 ], { $2, $3, $4, $5 };", "b,l,f,f,f,f"
// CHECK-COUNT-4: "@$0 red.global.gpu.relaxed.add.u32 [ $1 + 0 ], $2;"
// CHECK-COUNT-4: atom.global.gpu.acq_rel.add.f32
// CHECK-COUNT-4: atom.global.gpu.relaxed.add.f32
// CHECK-NOT: red.global
#vec4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @reductions(%sum: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %count: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #vec4>
    %one = arith.constant dense<1.0> : tensor<512xf32, #vec4>
    %ione = arith.constant dense<1> : tensor<512xi32, #vec4>
    %s = tile.splat %sum : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #vec4>
    %sp = tile.addptr %s, %r : tensor<512x!tile.ptr<f32>, #vec4>, tensor<512xi32, #vec4>
    %c = tile.splat %count : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>, #vec4>
    %cp = tile.addptr %c, %r : tensor<512x!tile.ptr<i32>, #vec4>, tensor<512xi32, #vec4>
    %0 = tile.atomic_rmw fadd, relaxed, gpu, %sp, %one : tensor<512x!tile.ptr<f32>, #vec4>
    %1 = tile.atomic_rmw add, relaxed, gpu, %cp, %ione : tensor<512x!tile.ptr<i32>, #vec4>
    %2 = tile.atomic_rmw fadd, acq_rel, gpu, %sp, %one : tensor<512x!tile.ptr<f32>, #vec4>
    %3 = tile.atomic_rmw fadd, relaxed, gpu, %sp, %one : tensor<512x!tile.ptr<f32>, #vec4>
    %o = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #vec4>
    %op = tile.addptr %o, %r : tensor<512x!tile.ptr<f32>, #vec4>, tensor<512xi32, #vec4>
    tile.store %op, %3 : tensor<512x!tile.ptr<f32>, #vec4>
    return
  }
}
