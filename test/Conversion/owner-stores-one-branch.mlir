// RUN: tile-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// Operands an FMA dot stages in shared memory, in a layout that repeats
// them in two warps: only the owning threads store, all of a thread's
// stores under one branch on the owner predicate (a branch per element
// left thousands in one block for large repeated tensors, which scf-to-cf
// then split one by one until memory ran out).
// CHECK-LABEL: func.func @replicated_operands
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NOT: llvm.store
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier0
#wide = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @replicated_operands(%a: tensor<16x16xf32, #wide>, %b: tensor<16x16xf32, #wide>, %c: tensor<16x16xf32, #wide>) -> tensor<16x16xf32, #wide> {
    %d = tile.dot %a, %b, %c : tensor<16x16xf32, #wide> * tensor<16x16xf32, #wide> -> tensor<16x16xf32, #wide>
    return %d : tensor<16x16xf32, #wide>
  }
}
