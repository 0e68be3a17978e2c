// RUN: tile-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s
// RUN: tile-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm --convert-scf-to-cf --convert-tile-to-llvm | FileCheck %s --check-prefix=LLVM

// Each thread holds 8 contiguous, 16-byte aligned fp16 pointers (the
// divisibility and contiguity attributes say so): one 16-byte cp.async.cg
// per run, its source ignored (zeros written) where the mask is off: the
// negated mask is the ignore-src predicate. Into the 128-byte swizzled
// buffer (the n-th of three, 8192 bytes each); then the group is committed
// and waited for.
// CHECK-LABEL: func.func @stage
// CHECK: %[[SKIP:.*]] = arith.muli %arg1, %{{.*}} : i32
// CHECK: llvm.getelementptr %{{.*}}[%[[SKIP]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[IGNORE:.*]] = arith.xori %{{.*}}, %true : i1
// CHECK: %[[DST:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,b" %[[DST]], %{{.*}}, %[[IGNORE]] : (i32, i64, i1) -> ()
// CHECK-COUNT-3: "cp.async.cg.shared.global [$0], [$1], 16, $2;"
// CHECK-NOT: cp.async.cg
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// LLVM: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.cg.shared.global
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @stage(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
    %rows = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #blocked}>>
    %cols = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #blocked}>>
    %r = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %c = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #blocked}>> -> tensor<1x64xi32, #blocked>
    %c64 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %rs = arith.muli %r, %c64 : tensor<64x1xi32, #blocked>
    %rb = tile.broadcast %rs : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %cb = tile.broadcast %c : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %off = arith.addi %rb, %cb : tensor<64x64xi32, #blocked>
    %ps = tile.splat %base : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %p = tile.addptr %ps, %off : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %ns = tile.splat %n : i32 -> tensor<64x1xi32, #blocked>
    %m1 = arith.cmpi slt, %r, %ns : tensor<64x1xi32, #blocked>
    %m = tile.broadcast %m1 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %bufs = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
    %buf = tilegpu.memdesc_index %bufs[%n] : !tilegpu.memdesc<3x64x64xf16, #nvmma> -> !tilegpu.memdesc<64x64xf16, #nvmma>
    tilegpu.async_copy_global_to_local %p, %buf mask %m : tensor<64x64xi1, #blocked> : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #nvmma>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    return
  }
}
