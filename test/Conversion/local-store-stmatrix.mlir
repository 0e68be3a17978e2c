// RUN: tile-opt %s -split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// A matmul epilogue's accumulator (128 x 128 f16, two warpgroups) written
// into the 128-byte swizzled rows a TMA store reads: each lane's pairs of
// consecutive columns make 8x8 matrices, so eight stmatrix.x4 write the 64
// registers a thread holds, where the run-wise path takes 32 4-byte stores.
// CHECK-LABEL: func.func @accumulator_rows
// CHECK-COUNT-8: nvvm.stmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
// CHECK: nvvm.fence.proxy
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @accumulator_rows(%acc: tensor<128x128xf16, #mma>) {
    %buffer = tilegpu.local_alloc %acc : (tensor<128x128xf16, #mma>) -> !tilegpu.memdesc<128x128xf16, #nvmma>
    return
  }
}

// -----

// Attention's dS^T staged M-major for wgmma: the transposed fragment's
// pairs are still adjacent in the buffer (plain matrices).
// CHECK-LABEL: func.func @transposed_tile
// CHECK-COUNT-4: nvvm.stmatrix {{.*}}layout = #nvvm.mma_layout<row>
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#permuted = #tilegpu.permuted<{order = [1, 0], parent = #mma}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @transposed_tile(%ds: tensor<64x128xbf16, #permuted>) {
    %buffer = tilegpu.local_alloc %ds : (tensor<64x128xbf16, #permuted>) -> !tilegpu.memdesc<64x128xbf16, #nvmma>
    return
  }
}

// -----

// The accumulator stored column-major: a lane's pair lies in two rows of
// the buffer, which stmatrix.trans writes.
// CHECK-LABEL: func.func @column_major
// CHECK-COUNT-8: nvvm.stmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [16, 64, 16]}>
#shared = #tilegpu.shared<{order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90"} {
  func.func @column_major(%acc: tensor<128x128xf16, #mma>) {
    %buffer = tilegpu.local_alloc %acc : (tensor<128x128xf16, #mma>) -> !tilegpu.memdesc<128x128xf16, #shared>
    return
  }
}

// -----

// stmatrix is sm_90's: before it, the pairs are 4-byte stores.
// CHECK-LABEL: func.func @before_sm90
// CHECK-NOT: nvvm.stmatrix
// CHECK-COUNT-32: llvm.store {{.*}} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>
#shared = #tilegpu.shared<{order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @before_sm90(%acc: tensor<64x128xf16, #mma>) {
    %buffer = tilegpu.local_alloc %acc : (tensor<64x128xf16, #mma>) -> !tilegpu.memdesc<64x128xf16, #shared>
    return
  }
}

// -----

// A store the IR fences right after (a TMA write's buffer) is fenced once.
// CHECK-LABEL: func.func @fenced_by_the_ir
// CHECK-COUNT-8: nvvm.stmatrix
// CHECK: nvvm.fence.proxy
// CHECK-NOT: nvvm.fence.proxy
// CHECK: return
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @fenced_by_the_ir(%acc: tensor<128x128xf16, #mma>, %buffer: !tilegpu.memdesc<128x128xf16, #nvmma>) {
    tilegpu.local_store %acc, %buffer : tensor<128x128xf16, #mma> -> !tilegpu.memdesc<128x128xf16, #nvmma>
    tilegpu.fence_async_shared
    return
  }
}
