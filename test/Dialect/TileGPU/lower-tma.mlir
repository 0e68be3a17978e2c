// RUN: tile-opt %s -split-input-file --tilegpu-lower-tma | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-lower-tma --tilegpu-allocate-shared-memory --tilegpu-insert-barriers | FileCheck %s --check-prefix=SYNC
// RUN: tile-opt %s -split-input-file --tilegpu-lower-tma=max-shared=16384 | FileCheck %s --check-prefix=TIGHT

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// A descriptor load copied in place: buffer in the descriptor's NVMMA
// layout, one mbarrier armed with the block's bytes, every thread waits on
// phase 0, then the value is read out in the result's layout. A store
// fills such a buffer from the registers, fences it for the async proxy
// and copies it out, waiting before the buffer is freed.
// CHECK-LABEL: func.func @copy
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #nvmma>
// CHECK: %[[BAR:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared>
// CHECK: tilegpu.init_barrier %[[BAR]], 1
// CHECK: tilegpu.barrier_expect %[[BAR]], 16384, %true
// CHECK: tilegpu.async_tma_copy_global_to_local %arg0[%arg2, %arg2] %[[BUF]], %[[BAR]], %true
// CHECK: tilegpu.wait_barrier %[[BAR]], %c0_i32
// CHECK: tilegpu.inval_barrier %[[BAR]]
// CHECK: %[[V:.*]] = tilegpu.local_load %[[BUF]] : <64x128xf16, #nvmma> -> tensor<64x128xf16, #blocked>
// CHECK: %[[W:.*]] = arith.addf %[[V]], %[[V]]
// CHECK: %[[OUT:.*]] = tilegpu.local_alloc %[[W]] : (tensor<64x128xf16, #blocked>) -> !tilegpu.memdesc<64x128xf16, #nvmma>
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %arg1[%arg2, %arg2] %[[OUT]]
// CHECK-NEXT: tilegpu.async_tma_store_wait {pending = 0 : i32}
// CHECK-NOT: tile.descriptor
//
// Barriers: after the init (the others read the mbarrier), before the
// inval (others may still be waiting), and between the fill and the store
// (after the fence), but none between the copy and the read-out.
// SYNC-LABEL: func.func @copy
// SYNC: tilegpu.init_barrier
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.barrier_expect
// SYNC-NEXT: tilegpu.async_tma_copy_global_to_local
// SYNC: tilegpu.wait_barrier
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.inval_barrier
// SYNC-NEXT: tilegpu.local_dealloc
// SYNC-NEXT: tilegpu.local_load
// SYNC: tilegpu.fence_async_shared
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.async_tma_copy_local_to_global
func.func @copy(%in: !tile.tensordesc<tensor<64x128xf16>>, %out: !tile.tensordesc<tensor<64x128xf16>>, %i: i32) attributes {tile.kernel} {
  %v = tile.descriptor_load %in[%i, %i] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #blocked>
  %w = arith.addf %v, %v : tensor<64x128xf16, #blocked>
  tile.descriptor_store %out[%i, %i], %w : !tile.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16, #blocked>
  return
}
}

// -----

// A descriptor reduction is a store whose copy combines: the same buffer,
// fence and wait, with the reduction on the copy.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[R:.*]] = tilegpu.local_alloc %arg2 : (tensor<64x32xf32, #blocked>) -> !tilegpu.memdesc<64x32xf32, #nvmma>
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %arg0[%arg1, %arg1] %[[R]] reduce fadd
// CHECK-NEXT: tilegpu.async_tma_store_wait {pending = 0 : i32}
// CHECK-NOT: tile.descriptor
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @reduce(%out: !tile.tensordesc<tensor<64x32xf32>>, %i: i32, %v: tensor<64x32xf32, #blocked>) attributes {tile.kernel} {
  tile.descriptor_reduce fadd, %out[%i, %i], %v : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32, #blocked>
  return
}
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// A dot operand staged in the descriptor's layout: the copy fills the
// dot's buffer and the value never visits registers.
// CHECK-LABEL: func.func @dot_operand
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma>
// CHECK: tilegpu.async_tma_copy_global_to_local %arg0[%arg3, %arg3] %[[A]]
// CHECK: tilegpu.wait_barrier
// CHECK-NOT: tilegpu.local_load
// CHECK: tilegpu.warpgroup_dot %[[A]], %arg1, %arg2
func.func @dot_operand(%d: !tile.tensordesc<tensor<64x64xf16>>, %b: !tilegpu.memdesc<64x64xf16, #nvmma>,
                       %c: tensor<64x64xf32, #mma>, %i: i32) -> tensor<64x64xf32, #mma> {
  %a = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
  %s = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %r = tilegpu.warpgroup_dot %s, %b, %c : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  return %r : tensor<64x64xf32, #mma>
}
}


// -----

// In a loop the buffer lives across the iterations: allocated once, the
// previous copy's read waited for just before the next fill, and after the
// loop. The barriers: one after the wait (the issuing thread's wait must
// precede every thread's fill), one after the fence; none after the copy.
// CHECK-LABEL: func.func @reduce_in_loop
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf32, #nvmma>
// CHECK-NEXT: scf.for
// CHECK-NEXT: tilegpu.async_tma_store_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.local_store %arg2, %[[BUF]]
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %arg0[%{{.*}}, %arg1] %[[BUF]] reduce fadd
// CHECK-NEXT: tilegpu.local_alloc %arg3
// CHECK-NEXT: tilegpu.local_dealloc
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.async_tma_store_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
//
// Where that buffer would not fit beside the others (here 8 KiB next to a
// 16 KiB one the loop uses, 16 KiB allowed), the write gets its own buffer in the loop
// and waits at once, as outside loops.
// TIGHT-LABEL: func.func @reduce_in_loop
// TIGHT-NOT: tilegpu.async_tma_store_wait
// TIGHT: scf.for
// TIGHT-NEXT: %[[OWN:.*]] = tilegpu.local_alloc %arg2 : (tensor<64x32xf32, #blocked>) -> !tilegpu.memdesc<64x32xf32, #nvmma>
// TIGHT-NEXT: tilegpu.fence_async_shared
// TIGHT-NEXT: tilegpu.async_tma_copy_local_to_global %arg0[%{{.*}}, %arg1] %[[OWN]] reduce fadd
// TIGHT-NEXT: tilegpu.async_tma_store_wait {pending = 0 : i32}
// TIGHT-NEXT: tilegpu.local_dealloc %[[OWN]]
// TIGHT-NEXT: tilegpu.local_alloc %arg3
// TIGHT-NEXT: tilegpu.local_dealloc
// TIGHT-NEXT: }
// TIGHT-NEXT: return
// SYNC-LABEL: func.func @reduce_in_loop
// SYNC: scf.for
// SYNC-NEXT: tilegpu.async_tma_store_wait
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.local_store
// SYNC-NEXT: tilegpu.fence_async_shared
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.async_tma_copy_local_to_global
// SYNC-NEXT: tilegpu.local_alloc
// SYNC-NEXT: tilegpu.local_dealloc
// SYNC-NEXT: }
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#scratch = #tilegpu.shared<{order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @reduce_in_loop(%out: !tile.tensordesc<tensor<64x32xf32>>, %i: i32, %v: tensor<64x32xf32, #blocked>, %w: tensor<128x32xf32, #blocked>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  scf.for %row = %c0 to %i step %c64 : i32 {
    tile.descriptor_reduce fadd, %out[%row, %i], %v : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32, #blocked>
    %other = tilegpu.local_alloc %w : (tensor<128x32xf32, #blocked>) -> !tilegpu.memdesc<128x32xf32, #scratch>
    tilegpu.local_dealloc %other : !tilegpu.memdesc<128x32xf32, #scratch>
  }
  return
}
}

// -----

// A barrier between a store and the wait does not end the store's read
// (here the one between the scratch write and its read-out): the fill
// after the next wait still gets one of its own. A store in a branch of
// the loop hoists its buffer to the loop too.
// SYNC-LABEL: func.func @store_in_branch
// SYNC: scf.for
// SYNC-NEXT: scf.if
// SYNC-NEXT: tilegpu.async_tma_store_wait
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.local_store
// SYNC-NEXT: tilegpu.fence_async_shared
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.async_tma_copy_local_to_global
// SYNC-NEXT: tilegpu.local_store
// SYNC-NEXT: tilegpu.barrier
// SYNC-NEXT: tilegpu.local_load
// SYNC-NEXT: }
// SYNC-NEXT: }
// SYNC-NEXT: tilegpu.async_tma_store_wait
// SYNC-NEXT: tilegpu.local_dealloc
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.shared<{order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @store_in_branch(%out: !tile.tensordesc<tensor<64x32xf32>>, %i: i32, %v: tensor<64x32xf32, #blocked>, %c: i1) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %scratch = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf32, #shared>
  scf.for %row = %c0 to %i step %c64 : i32 {
    scf.if %c {
      tile.descriptor_store %out[%row, %i], %v : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32, #blocked>
      tilegpu.local_store %v, %scratch : tensor<64x32xf32, #blocked> -> !tilegpu.memdesc<64x32xf32, #shared>
      %x = tilegpu.local_load %scratch : !tilegpu.memdesc<64x32xf32, #shared> -> tensor<64x32xf32, #blocked>
    }
  }
  tilegpu.local_dealloc %scratch : !tilegpu.memdesc<64x32xf32, #shared>
  return
}
}
