// RUN: tile-opt %s --tilegpu-allocate-shared-memory | FileCheck %s
// RUN: tile-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LLVM

// A two-operand reduction across warps (an argmax of int8 values with int32
// indices): each operand's slots (4 warps x 1 output) round up to 16
// bytes, so the indices start at byte 16, not at byte 4 after the values
// (a misaligned 4-byte access there traps).
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 32 : i64
// CHECK: tile.reduce {{.*}} {tilegpu.offset = 0 : i64}
// LLVM-LABEL: func.func @argmax_i8
// LLVM: %[[S0:.*]] = llvm.mlir.addressof @tile_shared
// LLVM-NEXT: %[[VALUES:.*]] = llvm.getelementptr %[[S0]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// LLVM-NEXT: %[[C16:.*]] = arith.constant 16 : i32
// LLVM-NEXT: %[[S1:.*]] = llvm.mlir.addressof @tile_shared
// LLVM-NEXT: %[[INDICES:.*]] = llvm.getelementptr %[[S1]][%[[C16]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// LLVM: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<3>
// LLVM: llvm.getelementptr %[[INDICES]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @argmax_i8(%p: !tile.ptr<i8>, %out: !tile.ptr<i32>) attributes {tile.kernel} {
    %i = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %s = tile.splat %p : !tile.ptr<i8> -> tensor<128x!tile.ptr<i8>, #blocked>
    %ptrs = tile.addptr %s, %i : tensor<128x!tile.ptr<i8>, #blocked>, tensor<128xi32, #blocked>
    %v = tile.load %ptrs : tensor<128x!tile.ptr<i8>, #blocked>
    %r:2 = tile.reduce %v, %i axis = 0 : (tensor<128xi8, #blocked>, tensor<128xi32, #blocked>) -> (i8, i32) {
    ^bb0(%a: i8, %ai: i32, %b: i8, %bi: i32):
      %gt = arith.cmpi sge, %a, %b : i8
      %m = arith.select %gt, %a, %b : i8
      %mi = arith.select %gt, %ai, %bi : i32
      tile.reduce.return %m, %mi : i8, i32
    }
    tile.store %out, %r#1 : !tile.ptr<i32>
    return
  }
}
