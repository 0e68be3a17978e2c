// RUN: tile-opt %s -split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// Packed int4 weights (64 rows of k pairs x 64 weight columns, bytes) read
// as the transposed register operand of a swapped product in the
// adjacentRows layout: each lane's bytes are 2x2 blocks (two rows' k pair)
// of 16-byte rows, so two ldmatrix.x4.trans.b16 read the 32 bytes a thread
// holds, where the byte-wise path takes 32 one-byte loads.
// CHECK-LABEL: func.func @adjacent_rows
// CHECK-COUNT-2: nvvm.ldmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: nvvm.ldmatrix
// CHECK-NOT: llvm.load {{.*}} -> i8
// CHECK: llvm.store
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], adjacentRows = true}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#permuted = #tilegpu.permuted<{order = [1, 0], parent = #dot_op}>
#shared = #tilegpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @adjacent_rows() {
    %buffer = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #shared>
    %bytes = tilegpu.local_load %buffer : <64x64xi8, #shared> -> tensor<64x64xi8, #permuted>
    %out = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #shared>
    tilegpu.local_store %bytes, %out : tensor<64x64xi8, #permuted> -> !tilegpu.memdesc<64x64xi8, #shared>
    return
  }
}

// -----

// In the plain row order a lane's two rows are 8 bytes apart: no 2x2
// blocks, one-byte loads.
// CHECK-LABEL: func.func @plain_rows
// CHECK-NOT: nvvm.ldmatrix
// CHECK-COUNT-32: llvm.load {{.*}} -> i8
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#permuted = #tilegpu.permuted<{order = [1, 0], parent = #dot_op}>
#shared = #tilegpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @plain_rows() {
    %buffer = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #shared>
    %bytes = tilegpu.local_load %buffer : <64x64xi8, #shared> -> tensor<64x64xi8, #permuted>
    %out = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #shared>
    tilegpu.local_store %bytes, %out : tensor<64x64xi8, #permuted> -> !tilegpu.memdesc<64x64xi8, #shared>
    return
  }
}
