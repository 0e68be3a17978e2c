// The mbarrier and TMA ops as inline PTX on the electing thread, and the
// descriptor parameter as the 128-byte by-value CUtensorMap.
// RUN: tile-opt %s --tilegpu-lower-tma --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --convert-tilegpu-to-llvm --convert-scf-to-cf --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s

// One thread arms the barrier and issues two box copies (64-column swizzle
// atoms, the second 8 KiB further on, at column + 64), coordinates
// innermost first; everyone polls the phase.
// CHECK-LABEL: llvm.func @copy
// CHECK-SAME: %arg0: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK: "@$0 mbarrier.init.shared::cta.b64 [$1], 1;"
// CHECK: "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 16384;"
// CHECK: llvm.getelementptr %{{.*}}[8192]
// CHECK: "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r"
// CHECK: "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r"
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: "@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$2, $3}], [$4];"
// CHECK: "@$0 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$1, {$2, $3}], [$4];"
// CHECK: "@$0 cp.async.bulk.commit_group;"
// CHECK: "cp.async.bulk.wait_group.read 0;"
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @copy(%in: !tile.tensordesc<tensor<64x128xf16>>, %out: !tile.tensordesc<tensor<64x128xf16>>, %i: i32) attributes {tile.kernel} {
  %v = tile.descriptor_load %in[%i, %i] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #blocked>
  %w = arith.addf %v, %v : tensor<64x128xf16, #blocked>
  tile.descriptor_store %out[%i, %i], %w : !tile.tensordesc<tensor<64x128xf16>>, tensor<64x128xf16, #blocked>
  return
}

// A reduction is the store's copy with the bulk reduction instruction;
// the element type is the tensor map's.
// CHECK-LABEL: llvm.func @reduce
// CHECK: "@$0 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [$1, {$2, $3}], [$4];"
// CHECK: "@$0 cp.async.bulk.commit_group;"
// CHECK: "cp.async.bulk.wait_group.read 0;"
func.func @reduce(%out: !tile.tensordesc<tensor<64x32xf32>>, %i: i32, %v: tensor<64x32xf32, #blocked>) attributes {tile.kernel} {
  tile.descriptor_reduce fadd, %out[%i, %i], %v : !tile.tensordesc<tensor<64x32xf32>>, tensor<64x32xf32, #blocked>
  return
}
}
