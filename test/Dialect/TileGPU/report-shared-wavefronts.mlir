// RUN: tile-opt %s --tilegpu-report-shared-wavefronts -verify-diagnostics -o /dev/null

// One warp moves a 32x32 f32 tile. Rows of words (lanes along a row) take
// one wavefront per register; lanes down a column of a plain row-major
// buffer read their rows' 32 floats as 8 vectors of 16 bytes, 8 lanes per
// phase all in one bank group: 8 wavefronts a phase where 1 would do. Rows
// XOR-swizzled by their index spread a column over the 32 banks.
#rows = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#cols = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>
#plain = #tilegpu.shared<{order = [1, 0]}>
#swizzled = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 32, order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  func.func @columns(%x: tensor<32x32xf32, #rows>) -> (tensor<32x32xf32, #cols>, tensor<32x32xf32, #cols>) {
    // expected-remark @+1 {{tilegpu.local_alloc store: shared wavefronts per warp 32 (32 without bank conflicts)}}
    %plain = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #plain>
    // expected-remark @+1 {{tilegpu.local_load load: shared wavefronts per warp 256 (32 without bank conflicts)}}
    %a = tilegpu.local_load %plain : !tilegpu.memdesc<32x32xf32, #plain> -> tensor<32x32xf32, #cols>
    // expected-remark @+1 {{tilegpu.local_alloc store: shared wavefronts per warp 32 (32 without bank conflicts)}}
    %swizzled = tilegpu.local_alloc %x : (tensor<32x32xf32, #rows>) -> !tilegpu.memdesc<32x32xf32, #swizzled>
    // expected-remark @+1 {{tilegpu.local_load load: shared wavefronts per warp 32 (32 without bank conflicts)}}
    %b = tilegpu.local_load %swizzled : !tilegpu.memdesc<32x32xf32, #swizzled> -> tensor<32x32xf32, #cols>
    return %a, %b : tensor<32x32xf32, #cols>, tensor<32x32xf32, #cols>
  }

  // A conversion that moves data between threads goes through its scratch
  // (the lowering's layout, swizzled for the writes): both halves counted.
  // One that stays in each thread's registers, or a buffer made with no
  // value, is not shared-memory traffic and gets no remark.
  func.func @conversions(%x: tensor<32x32xf32, #rows>) -> (tensor<32x32xf32, #cols>, tensor<32x32xf32, #rows>) {
    // expected-remark @+2 {{tilegpu.convert_layout store: shared wavefronts per warp}}
    // expected-remark @+1 {{tilegpu.convert_layout load: shared wavefronts per warp}}
    %a = tilegpu.convert_layout %x : tensor<32x32xf32, #rows> -> tensor<32x32xf32, #cols>
    %b = tilegpu.convert_layout %x : tensor<32x32xf32, #rows> -> tensor<32x32xf32, #rows>
    %empty = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf32, #plain>
    return %a, %b : tensor<32x32xf32, #cols>, tensor<32x32xf32, #rows>
  }
}

// Packed int4 weights read into a swapped dot's adjacentRows operand: the
// lowering takes them with ldmatrix, 8 rows of 16 bytes a phase, two
// instructions of four matrices. Plain 64-byte rows put rows k and k + 2 in
// one bank group (4 wavefronts a matrix); 16-byte chunks XORed by row pair
// spread them.
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], adjacentRows = true}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#weights = #tilegpu.permuted<{order = [1, 0], parent = #dot_op}>
#bytes = #tilegpu.shared<{order = [1, 0]}>
#byte_pairs = #tilegpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @packed_weights() -> (tensor<64x64xi8, #weights>, tensor<64x64xi8, #weights>) {
    %plain = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #bytes>
    // expected-remark @+1 {{tilegpu.local_load load: shared wavefronts per warp 32 (8 without bank conflicts)}}
    %a = tilegpu.local_load %plain : !tilegpu.memdesc<64x64xi8, #bytes> -> tensor<64x64xi8, #weights>
    %swizzled = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #byte_pairs>
    // expected-remark @+1 {{tilegpu.local_load load: shared wavefronts per warp 8 (8 without bank conflicts)}}
    %b = tilegpu.local_load %swizzled : !tilegpu.memdesc<64x64xi8, #byte_pairs> -> tensor<64x64xi8, #weights>
    return %a, %b : tensor<64x64xi8, #weights>, tensor<64x64xi8, #weights>
  }
}
