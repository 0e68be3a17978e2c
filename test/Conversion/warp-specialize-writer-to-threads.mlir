// A warp-specialised loop whose TMA reduction went to the writer warp, down
// to LLVM: warp 0 of the producer warpgroup runs the copies in, warp 1 the
// writer, whose thread ids count from thread 32 (its lane 0 issues the
// bulk reductions, one per 32-column swizzle atom, then waits until the
// TMA unit has read the buffer before every lane arrives on `drained`).
// The consumers wait for a drained buffer, fill it with no CTA or named
// barrier on the way (the mbarriers order it against the writer), fence
// it and arrive.
// RUN: tile-opt %s --tilegpu-warp-specialize --tilegpu-pipeline --canonicalize --tilegpu-lower-tma --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --tilegpu-ping-pong --convert-tilegpu-to-llvm --convert-scf-to-cf --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s

// CHECK-LABEL: llvm.func @split_k_partials
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[WRITER_TID:.*]] = llvm.sub %[[TID]], %[[C32]] : i32
// CHECK: "@$0 mbarrier.init.shared::cta.b64 [$1], 32;"
// CHECK: llvm.icmp "ult" %[[WARP:[0-9]+]]
// CHECK: "setmaxnreg.dec.sync.aligned.u32 24;"
// CHECK: llvm.icmp "eq" %[[WARP]]
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.icmp "eq" %[[WARP]], %[[ONE]] : i32
// CHECK: mbarrier.try_wait.parity
// CHECK: %[[LANE0:.*]] = llvm.icmp "eq" %[[WRITER_TID]], %{{.*}} : i32
// CHECK: "@$0 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [$1, {$2, $3}], [$4];", "b,l,r,r,r" %[[LANE0]]
// CHECK: "@$0 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [$1, {$2, $3}], [$4];", "b,l,r,r,r" %[[LANE0]]
// CHECK-NEXT: "@$0 cp.async.bulk.commit_group;", "b" %[[LANE0]]
// CHECK-NEXT: "cp.async.bulk.wait_group.read 0;"
// CHECK: "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];"
// CHECK: "setmaxnreg.inc.sync.aligned.u32 256;"
// CHECK: wgmma.mma_async
// CHECK: mbarrier.try_wait.parity
// CHECK-NOT: bar.sync
// CHECK: llvm.store %{{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: bar.sync
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: bar.sync
// CHECK: "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];"

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @split_k_partials(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                            %cd: !tile.tensordesc<tensor<64x64xf32>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %col = arith.addi %k, %c64 : i32
    tile.descriptor_reduce fadd, %cd[%m, %col], %d : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  return
}
}

