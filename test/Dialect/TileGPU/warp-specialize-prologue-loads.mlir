// RUN: tile-opt %s -split-input-file --tilegpu-warp-specialize --canonicalize | FileCheck %s

// The overlap schedule (FlashAttention-3's): the first key block is loaded
// before the loop, iteration i loads block i + 1. The load before the loop
// reads what the loop's load reads at i = 0 - 64, so the producer copies it
// into buffer 0 first (a barrier expecting its 8 KiB only) and its own loop
// starts at buffer 1; the consumers wait for buffer 0's first phase where
// the load was, the loop reads from buffer 1 on and releases the previous
// buffer in every iteration, iteration 0 included (buffer 0's dot finished
// before the loop). Q, of another descriptor, keeps its own load.
// CHECK-LABEL: func.func @first_block_before_loop
// CHECK: %[[K:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
// CHECK: %[[FULL:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x1xi64, #shared>
// CHECK: %[[EMPTY:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x1xi64, #shared>
// CHECK: tilegpu.warp_specialize producer
// CHECK: %[[M:.*]] = arith.muli
// CHECK: %[[F0:.*]] = tilegpu.memdesc_index %[[FULL]][%c0_i32]
// CHECK-NEXT: tilegpu.barrier_expect %[[F0]], 8192, %true
// CHECK-NEXT: %[[K0:.*]] = tilegpu.memdesc_index %[[K]][%c0_i32]
// CHECK: tilegpu.async_tma_copy_global_to_local %arg1[%[[M]], %c0_i32] %[[K0]]
// CHECK: scf.for %{{.*}} = %c0_i32 to %arg2 step %c64_i32 iter_args(%[[PS:.*]] = %c1_i32, %{{.*}} = %c0_i32)
// CHECK:   tilegpu.barrier_expect %{{.*}}, 8192, %true
// CHECK: } consumers
// CHECK-NOT: tile.descriptor_load %arg1
// CHECK: tile.descriptor_load %arg0
// CHECK: %[[W0:.*]] = tilegpu.memdesc_index %[[FULL]][%c0_i32]
// CHECK-NEXT: tilegpu.wait_barrier %[[W0]], %c0_i32
// CHECK-NEXT: %[[B0:.*]] = tilegpu.memdesc_index %[[K]][%c0_i32]
// CHECK-NEXT: tilegpu.warpgroup_dot %{{.*}}, %[[B0]]
// CHECK: scf.for %{{.*}} = %c0_i32 to %arg2 step %c64_i32 iter_args(%{{.*}} = %{{.*}}, %[[READ:.*]] = %c1_i32, %[[PHASE:.*]] = %c0_i32)
// CHECK-NOT: tile.descriptor_load
// CHECK:   %[[PREV:.*]] = tilegpu.memdesc_index %[[EMPTY]]
// CHECK-NEXT: tilegpu.arrive_barrier %[[PREV]], %true
// CHECK: } {tile.warp_specialize}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @first_block_before_loop(%qd: !tile.tensordesc<tensor<64x64xf16>>, %kd: !tile.tensordesc<tensor<64x64xf16>>,
                                   %n: i32, %cd: !tile.tensordesc<tensor<64x64xf32>>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %n : i32
  %q = tile.descriptor_load %qd[%m, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %k0 = tile.descriptor_load %kd[%m, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %k0s = tilegpu.local_alloc %k0 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %s0 = tilegpu.warpgroup_dot %qs, %k0s, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %s0) -> (tensor<64x64xf32, #mma>) : i32 {
    %row0 = arith.addi %m, %i : i32
    %row = arith.addi %row0, %c64 : i32
    %k = tile.descriptor_load %kd[%row, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %ks = tilegpu.local_alloc %k : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %qs, %ks, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  tile.descriptor_store %cd[%m, %c0], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  return
}
}

// -----

// The same coordinates through a product and a subtraction: i * 2 - 64 at
// i = 0 - 32 (the step) is -128, the block loaded before the loop.
// CHECK-LABEL: func.func @scaled_coordinates
// CHECK: tilegpu.warp_specialize producer
// CHECK: tilegpu.barrier_expect %{{.*}}, 8192, %true
// CHECK: scf.for
// CHECK: } consumers
// CHECK-NOT: tile.descriptor_load %arg1
// CHECK: } {tile.warp_specialize}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @scaled_coordinates(%qd: !tile.tensordesc<tensor<64x64xf16>>, %kd: !tile.tensordesc<tensor<64x64xf16>>,
                              %n: i32, %cd: !tile.tensordesc<tensor<64x64xf32>>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %cm128 = arith.constant -128 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %q = tile.descriptor_load %qd[%c0, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %k0 = tile.descriptor_load %kd[%cm128, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %k0s = tilegpu.local_alloc %k0 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %s0 = tilegpu.warpgroup_dot %qs, %k0s, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %s0) -> (tensor<64x64xf32, #mma>) : i32 {
    %twice = arith.muli %i, %c2 : i32
    %row = arith.subi %twice, %c64 : i32
    %k = tile.descriptor_load %kd[%row, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %ks = tilegpu.local_alloc %k : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %qs, %ks, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  tile.descriptor_store %cd[%c0, %c0], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  return
}
}

// -----

// Left alone: the block before the loop is the loop's first (i = 0), not
// the one before it; a global store before the load (a copy at the
// kernel's start could read what it replaces); the buffer read again after
// the loop (buffer 0 is refilled meanwhile). Each keeps its own load, and
// the loop's first iteration releases nothing.
// CHECK-LABEL: func.func @not_iteration_minus_one
// CHECK: } consumers
// CHECK: tile.descriptor_load %arg1
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %c0_i32, %{{.*}} = %c0_i32)
// CHECK: arith.cmpi ne
// CHECK-LABEL: func.func @store_before
// CHECK: } consumers
// CHECK: tile.descriptor_load %arg1
// CHECK-LABEL: func.func @read_after_loop
// CHECK: } consumers
// CHECK: tile.descriptor_load %arg1
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @not_iteration_minus_one(%qd: !tile.tensordesc<tensor<64x64xf16>>, %kd: !tile.tensordesc<tensor<64x64xf16>>,
                                   %n: i32, %cd: !tile.tensordesc<tensor<64x64xf32>>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %q = tile.descriptor_load %qd[%c0, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %k0 = tile.descriptor_load %kd[%c64, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %k0s = tilegpu.local_alloc %k0 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %s0 = tilegpu.warpgroup_dot %qs, %k0s, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %s0) -> (tensor<64x64xf32, #mma>) : i32 {
    %row = arith.addi %i, %c64 : i32
    %k = tile.descriptor_load %kd[%row, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %ks = tilegpu.local_alloc %k : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %qs, %ks, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  tile.descriptor_store %cd[%c0, %c0], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  return
}
func.func @store_before(%qd: !tile.tensordesc<tensor<64x64xf16>>, %kd: !tile.tensordesc<tensor<64x64xf16>>,
                        %n: i32, %cd: !tile.tensordesc<tensor<64x64xf32>>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  tile.descriptor_store %cd[%c0, %c0], %zero : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  %q = tile.descriptor_load %qd[%c0, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %k0 = tile.descriptor_load %kd[%c0, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %k0s = tilegpu.local_alloc %k0 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %s0 = tilegpu.warpgroup_dot %qs, %k0s, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %s0) -> (tensor<64x64xf32, #mma>) : i32 {
    %row = arith.addi %i, %c64 : i32
    %k = tile.descriptor_load %kd[%row, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %ks = tilegpu.local_alloc %k : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %qs, %ks, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  tile.descriptor_store %cd[%c0, %c0], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  return
}
func.func @read_after_loop(%qd: !tile.tensordesc<tensor<64x64xf16>>, %kd: !tile.tensordesc<tensor<64x64xf16>>,
                           %n: i32, %cd: !tile.tensordesc<tensor<64x64xf32>>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %q = tile.descriptor_load %qd[%c0, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %k0 = tile.descriptor_load %kd[%c0, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %k0s = tilegpu.local_alloc %k0 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %s0 = tilegpu.warpgroup_dot %qs, %k0s, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %s0) -> (tensor<64x64xf32, #mma>) : i32 {
    %row = arith.addi %i, %c64 : i32
    %k = tile.descriptor_load %kd[%row, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %ks = tilegpu.local_alloc %k : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %qs, %ks, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  %last = tilegpu.warpgroup_dot %qs, %k0s, %r : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  tile.descriptor_store %cd[%c0, %c0], %last : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  return
}
}
