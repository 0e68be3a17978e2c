// RUN: tile-opt %s -split-input-file --tilegpu-warp-specialize --tilegpu-pipeline --canonicalize | FileCheck %s

// tl.range(..., warp_specialize=True) on a loop whose dot operands all
// arrive by TMA: the kernel body becomes the consumers of a
// warp_specialize and a producer warpgroup runs the copies. The buffers and
// both mbarrier arrays (full: one TMA arrival + bytes; empty: one arrival
// per consumer thread) are made before it. The producer waits for an empty
// buffer (parity 1 first: its first round passes), arms the full barrier
// and copies, with its own stage and phase. The consumers wait for the
// full barrier where the loads were, release the previous iteration's
// buffer once the wait after the dot retired it (not in iteration 0), and
// free the buffers after the loop.
// CHECK: module attributes {tilegpu.extra_warps = 4 : i32
// CHECK-LABEL: func.func @ws_mm
// CHECK-DAG: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
// CHECK-DAG: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
// CHECK: %[[FULL:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x1xi64, #shared>
// CHECK-NEXT: tilegpu.init_barrier %[[FULL]], 1
// CHECK-NEXT: %[[EMPTY:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x1xi64, #shared>
// CHECK-NEXT: tilegpu.init_barrier %[[EMPTY]], 128
// CHECK-NEXT: tilegpu.warp_specialize producer(4 warps, 24 registers) {
// CHECK: %[[PID:.*]] = tile.get_program_id x
// CHECK: scf.for %[[PIV:.*]] = %c0_i32 to %arg3 step %c1_i32 iter_args(%[[PS:.*]] = %c0_i32, %[[PP:.*]] = %c0_i32)
// CHECK:   %[[EP:.*]] = arith.xori %[[PP]], %c1_i32
// CHECK:   %[[E:.*]] = tilegpu.memdesc_index %[[EMPTY]][%[[PS]]]
// CHECK:   tilegpu.wait_barrier %[[E]], %[[EP]]
// CHECK:   %[[F:.*]] = tilegpu.memdesc_index %[[FULL]][%[[PS]]]
// CHECK:   tilegpu.barrier_expect %[[F]], 16384, %true
// CHECK:   tilegpu.async_tma_copy_global_to_local %arg0
// CHECK:   tilegpu.async_tma_copy_global_to_local %arg1
// CHECK-NOT: warpgroup_dot
// CHECK: } consumers(256 registers) {
// CHECK: scf.for %[[IV:.*]] = %c0_i32 to %arg3 step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[READ:.*]] = %c0_i32, %[[PHASE:.*]] = %c0_i32)
// CHECK:   %[[RF:.*]] = tilegpu.memdesc_index %[[FULL]][%[[READ]]]
// CHECK-NEXT: tilegpu.wait_barrier %[[RF]], %[[PHASE]]
// CHECK-NOT: tilegpu.async_tma_copy_global_to_local
// CHECK:   %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %[[ACC]] async
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK:   %[[NOTFIRST:.*]] = arith.cmpi ne, %[[IV]], %c0_i32
// CHECK:   %[[PREV:.*]] = tilegpu.memdesc_index %[[EMPTY]]
// CHECK-NEXT: tilegpu.arrive_barrier %[[PREV]], %[[NOTFIRST]]
// CHECK: } {tile.warp_specialize}
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK: tilegpu.local_dealloc %[[A]]
// CHECK: tilegpu.local_dealloc %[[B]]
// CHECK: tile.descriptor_store
// CHECK: }
// CHECK: tilegpu.local_dealloc %[[EMPTY]]
// CHECK: tilegpu.local_dealloc %[[FULL]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @ws_mm(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                 %cd: !tile.tensordesc<tensor<64x64xf32>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %c64 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  tile.descriptor_store %cd[%m, %m], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  return
}
}

// -----

// A loop below the top of the kernel keeps the ordinary pipeline (the
// consumers' region takes the whole body, so the producer could not
// follow the control flow around the loop).
// CHECK-LABEL: func.func @ws_nested
// CHECK-NOT: tilegpu.warp_specialize
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: scf.for
// CHECK-NOT: tilegpu.arrive_barrier
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @ws_nested(%ad: !tile.tensordesc<tensor<64x64xf16>>, %cd: !tile.tensordesc<tensor<64x64xf32>>, %n: i32, %run: i1) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.if %run {
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %a = tile.descriptor_load %ad[%c0, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %d = tilegpu.warpgroup_dot %as, %as, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    } {tile.warp_specialize}
    tile.descriptor_store %cd[%c0, %c0], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  }
  return
}
}
