// RUN: tile-opt %s -split-input-file --tilegpu-insert-barriers | FileCheck %s

// Two reductions share the same scratch bytes: the second may not write
// its partials before every thread has read the first's.
// CHECK-LABEL: func.func @two_sums
// CHECK-NOT: tilegpu.barrier
// CHECK: tile.reduce
// CHECK: tilegpu.barrier
// CHECK-NEXT: tile.reduce
// CHECK-NOT: tilegpu.barrier
// CHECK: return
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16 : i64, tilegpu.target = "sm_90a"} {
  func.func @two_sums(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32>) attributes {tile.kernel} {
    %0 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
    %1 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %2 = tile.addptr %0, %1 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %3 = tile.load %2 : tensor<1024x!tile.ptr<f32>, #blocked>
    %4 = tile.reduce %3 axis = 0 {tilegpu.offset = 0 : i64} : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg2: f32, %arg3: f32):
      %7 = arith.addf %arg2, %arg3 : f32
      tile.reduce.return %7 : f32
    }
    %5 = tile.reduce %3 axis = 0 {tilegpu.offset = 0 : i64} : (tensor<1024xf32, #blocked>) -> f32 {
    ^bb0(%arg2: f32, %arg3: f32):
      %7 = arith.maxnumf %arg2, %arg3 : f32
      tile.reduce.return %7 : f32
    }
    %6 = arith.addf %4, %5 : f32
    tile.store %arg1, %6 : !tile.ptr<f32>
    return
  }
}


// -----

// In a loop, the next iteration's reduction overwrites what this one read:
// one barrier just before it covers the back edge.
// CHECK-LABEL: func.func @loop_sum
// CHECK: scf.for
// CHECK-NOT: tilegpu.barrier
// CHECK: tile.load
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.reduce
// CHECK-NOT: tilegpu.barrier
// CHECK: return
#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16 : i64, tilegpu.target = "sm_90a"} {
  func.func @loop_sum(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32>, %arg2: i32) attributes {tile.kernel} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant 0.000000e+00 : f32
    %0 = scf.for %arg3 = %c0_i32 to %arg2 step %c1_i32 iter_args(%arg4 = %cst) -> (f32)  : i32 {
      %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
      %2 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
      %3 = tile.addptr %1, %2 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
      %4 = tile.load %3 : tensor<1024x!tile.ptr<f32>, #blocked>
      %5 = tile.reduce %4 axis = 0 {tilegpu.offset = 0 : i64} : (tensor<1024xf32, #blocked>) -> f32 {
      ^bb0(%arg5: f32, %arg6: f32):
        %7 = arith.addf %arg5, %arg6 : f32
        tile.reduce.return %7 : f32
      }
      %6 = arith.addf %arg4, %5 : f32
      scf.yield %6 : f32
    }
    tile.store %arg1, %0 : !tile.ptr<f32>
    return
  }
}


// -----

// A pipelined loop: copies land at the async_wait, so the copy after it
// (which overwrites the buffer last iteration's reader used) needs a
// barrier, the reader after the copy does not, and neither does the loop
// top. After the loop the final wait's data must be visible before the
// same bytes are reused as scratch.
// CHECK-LABEL: func.func @pipelined
// CHECK: scf.for
// CHECK-NEXT: tilegpu.async_wait
// CHECK-NEXT: tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.async_copy_global_to_local
// CHECK-NOT: tilegpu.barrier
// CHECK: tilegpu.local_load
// CHECK-NOT: tilegpu.barrier
// CHECK: scf.yield
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.local_dealloc
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tile.reduce
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #tilegpu.shared<{order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16384 : i64, tilegpu.target = "sm_90a"} {
  func.func @pipelined(%ptrs: tensor<64x64x!tile.ptr<f16>, #blocked>, %x: tensor<1024xf32, #blocked1>, %n: i32, %out: !tile.ptr<f32>) attributes {tile.kernel} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %buf = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.memdesc<2x64x64xf16, #shared>
    %first = tilegpu.memdesc_index %buf[%c0_i32] : !tilegpu.memdesc<2x64x64xf16, #shared> -> !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.async_copy_global_to_local %ptrs, %first : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.async_commit_group
    %r:2 = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%fill = %c1_i32, %read = %c0_i32) -> (i32, i32) : i32 {
      tilegpu.async_wait {pending = 0 : i32}
      %next = tilegpu.memdesc_index %buf[%fill] : !tilegpu.memdesc<2x64x64xf16, #shared> -> !tilegpu.memdesc<64x64xf16, #shared>
      tilegpu.async_copy_global_to_local %ptrs, %next : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared>
      tilegpu.async_commit_group
      %cur = tilegpu.memdesc_index %buf[%read] : !tilegpu.memdesc<2x64x64xf16, #shared> -> !tilegpu.memdesc<64x64xf16, #shared>
      %t = tilegpu.local_load %cur : !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
      scf.yield %read, %fill : i32, i32
    }
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<2x64x64xf16, #shared>
    %s = tile.reduce %x axis = 0 {tilegpu.offset = 0 : i64} : (tensor<1024xf32, #blocked1>) -> f32 {
    ^bb0(%a: f32, %b: f32):
      %sum = arith.addf %a, %b : f32
      tile.reduce.return %sum : f32
    }
    tile.store %out, %s : !tile.ptr<f32>
    return
  }
}

// -----

// warp_specialize: one CTA barrier before it publishes the mbarriers'
// initialisation to both sides. The producer's copies and waits need no
// barrier (the mbarriers order them against the consumers); inside the
// consumers a store then a load of one buffer gets a barrier of its own
// (lowered to the consumers' named barrier), and no region starts with one.
// CHECK-LABEL: func.func @specialized
// CHECK: tilegpu.init_barrier
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.warp_specialize
// CHECK-NEXT: tilegpu.wait_barrier
// CHECK-NEXT: tilegpu.barrier_expect
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local
// CHECK-NEXT: } consumers
// CHECK-NEXT: tilegpu.local_store
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_load
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #tilegpu.shared<{order = [0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @specialized(%d: !tile.tensordesc<tensor<64x64xf16>>, %v: tensor<128xf32, #blocked>, %i: i32, %p: i1) {
  %bars = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.memdesc<1xi64, #s>
  %buf = tilegpu.local_alloc {tilegpu.offset = 1024 : i64} : () -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %x = tilegpu.local_alloc {tilegpu.offset = 16 : i64} : () -> !tilegpu.memdesc<128xf32, #s>
  tilegpu.init_barrier %bars, 1 : !tilegpu.memdesc<1xi64, #s>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
    tilegpu.wait_barrier %bars, %i : !tilegpu.memdesc<1xi64, #s>
    tilegpu.barrier_expect %bars, 8192, %p : !tilegpu.memdesc<1xi64, #s>
    tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bars, %p : !tile.tensordesc<tensor<64x64xf16>>, !tilegpu.memdesc<64x64xf16, #nvmma>, !tilegpu.memdesc<1xi64, #s>
  } consumers(232 registers) {
    tilegpu.local_store %v, %x : tensor<128xf32, #blocked> -> !tilegpu.memdesc<128xf32, #s>
    %y = tilegpu.local_load %x : !tilegpu.memdesc<128xf32, #s> -> tensor<128xf32, #blocked>
    tilegpu.arrive_barrier %bars, %p : !tilegpu.memdesc<1xi64, #s>
  }
  return
}
}

// -----

// An `if` is straight-line code on each path: a branch that reads what was
// written before it gets the barrier, just before its read; a branch that
// touches no shared memory gets none, and none goes before the `if`. After
// it, what either path left pending (the written buffer) still orders the
// next access.
// CHECK-LABEL: func.func @branches
// CHECK: tilegpu.local_store
// CHECK-NEXT: scf.if
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_load
// CHECK: } else {
// CHECK-NOT: tilegpu.barrier
// CHECK: }
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #tilegpu.shared<{order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
func.func @branches(%v: tensor<128xf32, #blocked>, %p: i1) attributes {tile.kernel} {
  %x = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.memdesc<128xf32, #s>
  tilegpu.local_store %v, %x : tensor<128xf32, #blocked> -> !tilegpu.memdesc<128xf32, #s>
  %r = scf.if %p -> (tensor<128xf32, #blocked>) {
    %y = tilegpu.local_load %x : !tilegpu.memdesc<128xf32, #s> -> tensor<128xf32, #blocked>
    scf.yield %y : tensor<128xf32, #blocked>
  } else {
    %z = arith.addf %v, %v : tensor<128xf32, #blocked>
    scf.yield %z : tensor<128xf32, #blocked>
  }
  tilegpu.local_store %r, %x : tensor<128xf32, #blocked> -> !tilegpu.memdesc<128xf32, #s>
  return
}
}

// -----

// A local_store writing again what only it wrote (its loop's next
// iteration, here into the other buffer of two) needs no barrier: each
// thread rewrites bytes it wrote itself. A second store of the same buffer
// from another op (another layout) still waits for the first. In the
// writer of a warp_specialize the mbarriers order everything: no barrier.
// CHECK-LABEL: func.func @rewrites
// CHECK: } consumers
// CHECK-NEXT: scf.for
// CHECK-NEXT: tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.local_store
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.arrive_barrier
// CHECK-NEXT: }
// CHECK-NEXT: scf.for
// CHECK-NEXT: tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store
// CHECK: } writer {
// CHECK-NOT: tilegpu.barrier
// CHECK: return
#blocked = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#s = #tilegpu.shared<{order = [0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @rewrites(%d: !tile.tensordesc<tensor<8x32xf32>>, %v: tensor<8x32xf32, #blocked>, %w: tensor<8x32xf32, #blocked1>, %n: i32, %i: i32, %p: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %bars = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.memdesc<1xi64, #s>
  %x = tilegpu.local_alloc {tilegpu.offset = 1024 : i64} : () -> !tilegpu.memdesc<2x8x32xf32, #nvmma>
  tilegpu.init_barrier %bars, 1 : !tilegpu.memdesc<1xi64, #s>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %b = tilegpu.memdesc_index %x[%k] : !tilegpu.memdesc<2x8x32xf32, #nvmma> -> !tilegpu.memdesc<8x32xf32, #nvmma>
      tilegpu.local_store %v, %b : tensor<8x32xf32, #blocked> -> !tilegpu.memdesc<8x32xf32, #nvmma>
      tilegpu.fence_async_shared
      tilegpu.arrive_barrier %bars, %p : !tilegpu.memdesc<1xi64, #s>
    }
    scf.for %k = %c0 to %n step %c1 : i32 {
      %b = tilegpu.memdesc_index %x[%k] : !tilegpu.memdesc<2x8x32xf32, #nvmma> -> !tilegpu.memdesc<8x32xf32, #nvmma>
      tilegpu.local_store %v, %b : tensor<8x32xf32, #blocked> -> !tilegpu.memdesc<8x32xf32, #nvmma>
      tilegpu.local_store %w, %b : tensor<8x32xf32, #blocked1> -> !tilegpu.memdesc<8x32xf32, #nvmma>
    }
  } writer {
    %b = tilegpu.memdesc_index %x[%i] : !tilegpu.memdesc<2x8x32xf32, #nvmma> -> !tilegpu.memdesc<8x32xf32, #nvmma>
    tilegpu.wait_barrier %bars, %i : !tilegpu.memdesc<1xi64, #s>
    tilegpu.async_tma_copy_local_to_global %d[%i, %i] %b : !tile.tensordesc<tensor<8x32xf32>>, !tilegpu.memdesc<8x32xf32, #nvmma>
    tilegpu.async_tma_store_wait {pending = 0 : i32}
    tilegpu.arrive_barrier %bars, %p : !tilegpu.memdesc<1xi64, #s>
  }
  return
}
}
