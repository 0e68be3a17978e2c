// A warp-specialised K loop down to LLVM: the launch gets the producer's 4
// warps (reqntid 256 for 4 consumer warps); warps 0-3 lower their register
// budget and warp 0 runs the copies (the warp index is lane 0's,
// broadcast, so ptxas sees warp-uniform branches), the others raise
// theirs and count thread ids from thread 128; the consumers' barriers are named barrier 1
// for their 128 threads, and each consumer thread releases a buffer with
// an mbarrier arrival.
// RUN: tile-opt %s --tilegpu-warp-specialize --tilegpu-pipeline --canonicalize --tilegpu-lower-tma --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --tilegpu-ping-pong --convert-tilegpu-to-llvm --convert-scf-to-cf --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s

// CHECK-LABEL: llvm.func @ws_mm
// CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK: llvm.sub %[[TID]], %[[C128]] : i32
// CHECK: %[[WTID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[W:.*]] = llvm.lshr %[[WTID]]
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[W]]
// CHECK: "@$0 mbarrier.init.shared::cta.b64 [$1], 128;"
// CHECK: nvvm.barrier0
// CHECK: llvm.icmp "ult" %[[WARP]]
// CHECK: "setmaxnreg.dec.sync.aligned.u32 24;"
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK: "setmaxnreg.inc.sync.aligned.u32 256;"
// CHECK: mbarrier.try_wait.parity
// CHECK: wgmma.mma_async
// CHECK: "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];"
// CHECK: "bar.sync 1, 128;"
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK-NOT: partition_thread_offset
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
