// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 16}}
func.func @f(%a: tensor<16xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [1], order = [0]}>>) { return }

// -----

// expected-error @+1 {{order must be a permutation of [0, 2)}}
func.func @f(%a: tensor<16x16xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 1]}>>) { return }

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%a: tensor<128xf32>) {
  // expected-error @+1 {{source must have a distributed layout}}
  %0 = tilegpu.convert_layout %a : tensor<128xf32> -> tensor<128xf32, #b>
  return
}

// -----

// expected-error @+1 {{slice parent must have rank >= 2}}
func.func @f(%a: tensor<16xf32, #tilegpu.slice<{dim = 0, parent = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>}>>) { return }

// -----

// expected-error @+1 {{'tilegpu.num_warps' must be a power-of-two integer in [1, 32] on a module}}
module attributes {tilegpu.num_warps = 3 : i32} {}


// -----

// Factors whose product wraps around 32 bits (once a SIGFPE in a dot's
// verifier) are refused one at a time.
// expected-error @+1 {{mma warpsPerCTA must multiply to at most 32 warps}}
func.func @f(%a: tensor<64x64xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [2147483648, 1], instrShape = [16, 64, 16]}>>) { return }

// -----

// expected-error @+1 {{mma warpsPerCTA must multiply to at most 32 warps}}
func.func @f(%a: tensor<64x64xf32, #tilegpu.mma<{version = 2, warpsPerCTA = [64, 65536], instrShape = [16, 8, 16]}>>) { return }

// -----

// adjacentRows is a bool.
// expected-error @+2 {{integer value too large}}
// expected-error @+1 {{failed to parse TileGPU_MmaEncodingAttr parameter 'adjacentRows' which is to be a `bool`}}
func.func @f(%a: tensor<64x16xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], adjacentRows = 3}>>) { return }

// -----

// expected-error @+1 {{wgmma needs warpsPerCTA[0] to be a multiple of 4 (whole warpgroups along M)}}
func.func @f(%a: tensor<64x64xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 64, 16]}>>) { return }

// -----

// expected-error @+1 {{mma version must be 2 (mma.sync) or 3 (wgmma)}}
func.func @f(%a: tensor<64x64xf32, #tilegpu.mma<{version = 1, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>) { return }

// -----

// expected-error @+2 {{nvmma_shared swizzle must be 32, 64 or 128 bytes}}
// expected-error @+1 {{failed to parse TileGPU_MemDescType parameter 'encoding'}}
func.func @f(%a: !tilegpu.memdesc<64x64xf16, #tilegpu.nvmma_shared<{swizzle = 16, order = [1, 0]}>>) { return }

// -----

// expected-error @+1 {{nvmma_shared rows of 32 bytes are not a multiple of the 128-byte swizzle}}
func.func @f(%a: !tilegpu.memdesc<64x16xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>) { return }

// -----

// expected-error @+1 {{dot_op opIdx must be 0 (A) or 1 (B)}}
func.func @f(%a: tensor<16x16xf16, #tilegpu.dot_op<{opIdx = 2, parent = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8, 16]}>, kWidth = 2}>>) { return }

// -----

// Only fp8 products are summed at reduced precision: the bound is an fp8
// option.
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#ka = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#kb = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @f(%a: !tilegpu.memdesc<64x32xf16, #ka>, %b: !tilegpu.memdesc<32x64xf16, #kb>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @+1 {{maxNumImpreciseAcc applies only to fp8 operands}}
    %d = tilegpu.warpgroup_dot %a, %b, %c maxNumImpreciseAcc = 16 : !tilegpu.memdesc<64x32xf16, #ka> * !tilegpu.memdesc<32x64xf16, #kb> -> tensor<64x64xf32, #mma>
    return
  }
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#ka = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#kb = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @f(%a: !tilegpu.memdesc<64x32xf32, #ka>, %b: !tilegpu.memdesc<32x64xf32, #kb>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @+1 {{wgmma does not take 'f32' operands with a 'f32' accumulator (fp32 needs tf32 precision)}}
    %d = tilegpu.warpgroup_dot %a, %b, %c : !tilegpu.memdesc<64x32xf32, #ka> * !tilegpu.memdesc<32x64xf32, #kb> -> tensor<64x64xf32, #mma>
    return
  }
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#ka = #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>
#mn = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @f(%a: !tilegpu.memdesc<64x32xf8E4M3FN, #ka>, %b: !tilegpu.memdesc<32x64xf8E4M3FN, #mn>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @+1 {{an N-major B (order [1, 0]) needs 16-bit elements; wgmma reads other types K-major only}}
    %d = tilegpu.warpgroup_dot %a, %b, %c : !tilegpu.memdesc<64x32xf8E4M3FN, #ka> * !tilegpu.memdesc<32x64xf8E4M3FN, #mn> -> tensor<64x64xf32, #mma>
    return
  }
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma8 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 32]}>
#mk = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
#kb = #tilegpu.nvmma_shared<{swizzle = 32, order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @f(%a: !tilegpu.memdesc<64x32xf8E4M3FN, #mk>, %b: !tilegpu.memdesc<32x64xf8E4M3FN, #kb>, %c: tensor<64x64xf32, #mma8>) {
    // expected-error @+1 {{an M-major A (order [0, 1]) needs 16-bit elements; wgmma reads other types K-major only}}
    %d = tilegpu.warpgroup_dot %a, %b, %c : !tilegpu.memdesc<64x32xf8E4M3FN, #mk> * !tilegpu.memdesc<32x64xf8E4M3FN, #kb> -> tensor<64x64xf32, #mma8>
    return
  }
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#ka = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#kb = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32} {
  func.func @f(%a: !tilegpu.memdesc<64x32xf16, #ka>, %b: !tilegpu.memdesc<32x64xf16, #kb>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @+1 {{a 64x64 accumulator does not cover the warps' 128x64 tile}}
    %d = tilegpu.warpgroup_dot %a, %b, %c : !tilegpu.memdesc<64x32xf16, #ka> * !tilegpu.memdesc<32x64xf16, #kb> -> tensor<64x64xf32, #mma>
    return
  }
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%p: tensor<64x64x!tile.ptr<f32>, #b>, %buf: !tilegpu.memdesc<64x64xf16, #s>) {
  // expected-error @+1 {{source 'tensor<64x64x!tile.ptr<f32>, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>' must be pointers to the elements of '!tilegpu.memdesc<64x64xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>'}}
  tilegpu.async_copy_global_to_local %p, %buf : tensor<64x64x!tile.ptr<f32>, #b> -> !tilegpu.memdesc<64x64xf16, #s>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tilegpu.async_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tilegpu.async_wait {pending = -1 : i32}
  return
}

// -----

#s = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%buf: !tilegpu.memdesc<3x64x64xf16, #s>, %i: i32) {
  // expected-error @+1 {{result '!tilegpu.memdesc<32x64xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>' must be one buffer of '!tilegpu.memdesc<3x64x64xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>'}}
  %0 = tilegpu.memdesc_index %buf[%i] : !tilegpu.memdesc<3x64x64xf16, #s> -> !tilegpu.memdesc<32x64xf16, #s>
  return
}

// -----

// A transpose keeps the layout's contiguous dimension: the order swaps too.
#s = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%buf: !tilegpu.memdesc<64x128xf16, #s>) {
  // expected-error @+1 {{with its dimensions and order swapped}}
  %0 = tilegpu.memdesc_trans %buf : !tilegpu.memdesc<64x128xf16, #s> -> !tilegpu.memdesc<128x64xf16, #s>
  return
}

// -----

#s = #tilegpu.shared<{order = [1, 0]}>
func.func @f(%buf: !tilegpu.memdesc<64x128xf16, #s>) {
  // expected-error @+1 {{transposes rank-2 buffers in an NVMMA layout}}
  %0 = tilegpu.memdesc_trans %buf : !tilegpu.memdesc<64x128xf16, #s> -> !tilegpu.memdesc<128x64xf16, #s>
  return
}

// -----

// Buffers of 8 bytes would put the second one off the 16-byte alignment
// vector accesses need.
#s = #tilegpu.shared<{order = [1, 0]}>
func.func @f(%buf: !tilegpu.memdesc<2x1x4xf16, #s>, %i: i32) {
  // expected-error @+1 {{buffers of 8 bytes break the layout's 16-byte alignment}}
  %0 = tilegpu.memdesc_index %buf[%i] : !tilegpu.memdesc<2x1x4xf16, #s> -> !tilegpu.memdesc<1x4xf16, #s>
  return
}

// -----

#s = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// expected-error @+1 {{memdesc of rank 1 has a shared layout of rank 2}}
func.func @f(%buf: !tilegpu.memdesc<64xf16, #s>) {
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @f(%acc: tensor<64x64xf32, #b>) {
  // expected-error @+1 {{accumulator 'tensor<64x64xf32, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>' must have a version-3 #tilegpu.mma layout (or a permutation of one), or be a 16-bit or f32 register A operand of one}}
  %0 = tilegpu.warpgroup_dot_wait %acc {pendings = 0 : i32} : tensor<64x64xf32, #b>
  return
}

// -----

// A B operand is never in registers for wgmma: it cannot be waited on.
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
func.func @f(%acc: tensor<64x64xf32, #mma>, %b: tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>) {
  // expected-error @+1 {{must have a version-3 #tilegpu.mma layout (or a permutation of one), or be a 16-bit or f32 register A operand of one}}
  %0:2 = tilegpu.warpgroup_dot_wait %acc, %b {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
  return
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#s = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @f(%a: tensor<64x64xf16, #b>, %bs: !tilegpu.memdesc<64x64xf16, #s>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @+1 {{A in registers must be 16-bit with a #tilegpu.dot_op layout (opIdx 0, kWidth 2), or f32 with kWidth 1, of the accumulator's mma}}
    %d = tilegpu.warpgroup_dot %a, %bs, %c : tensor<64x64xf16, #b> * !tilegpu.memdesc<64x64xf16, #s> -> tensor<64x64xf32, #mma>
    return
  }
}

// -----

// An f32 (tf32) A in registers takes one element per register: kWidth 1.
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#s = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @f(%a: tensor<64x32xf32, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %bs: !tilegpu.memdesc<32x64xf32, #s>, %c: tensor<64x64xf32, #mma>) {
    // expected-error @+1 {{A in registers must be 16-bit with a #tilegpu.dot_op layout (opIdx 0, kWidth 2), or f32 with kWidth 1, of the accumulator's mma}}
    %d = tilegpu.warpgroup_dot %a, %bs, %c inputPrecision = tf32 : tensor<64x32xf32, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !tilegpu.memdesc<32x64xf32, #s> -> tensor<64x64xf32, #mma>
    return
  }
}

// -----

#s = #tilegpu.shared<{order = [0]}>
func.func @bad_barrier(%b: !tilegpu.memdesc<2xi64, #s>, %phase: i32) {
  // expected-error @+1 {{barrier must be a memdesc<1xi64>, got '!tilegpu.memdesc<2xi64, #tilegpu.shared<{order = [0]}>>'}}
  tilegpu.wait_barrier %b, %phase : !tilegpu.memdesc<2xi64, #s>
  return
}

// -----

#s = #tilegpu.shared<{order = [0]}>
func.func @bad_barrier_array(%b: !tilegpu.memdesc<2x2xi64, #s>) {
  // expected-error @+1 {{barrier must be a memdesc<1xi64> or memdesc<Nx1xi64>}}
  tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<2x2xi64, #s>
  return
}

// -----

// The TMA copy writes the descriptor's swizzle (128 bytes for 64 f16
// columns), row-major.
#s = #tilegpu.shared<{order = [0]}>
#n = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
func.func @tma_wrong_layout(%d: !tile.tensordesc<tensor<64x64xf16>>, %buf: !tilegpu.memdesc<64x64xf16, #n>,
                            %bar: !tilegpu.memdesc<1xi64, #s>, %i: i32, %p: i1) {
  // expected-error @+1 {{buffer layout must be #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}> for TMA copies of this descriptor}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<64x64xf16>>, !tilegpu.memdesc<64x64xf16, #n>, !tilegpu.memdesc<1xi64, #s>
  return
}

// -----

#n = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @tma_wrong_shape(%d: !tile.tensordesc<tensor<64x64xf16>>, %buf: !tilegpu.memdesc<64x128xf16, #n>, %i: i32) {
  // expected-error @+1 {{buffer '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>' does not hold a block of '!tile.tensordesc<tensor<64x64xf16>>'}}
  tilegpu.async_tma_copy_local_to_global %d[%i, %i] %buf : !tile.tensordesc<tensor<64x64xf16>>, !tilegpu.memdesc<64x128xf16, #n>
  return
}

// -----

// Rows of 16 bytes have no NVMMA swizzle.
#n = #tilegpu.shared<{order = [1, 0]}>
func.func @tma_narrow(%d: !tile.tensordesc<tensor<64x8xf16>>, %buf: !tilegpu.memdesc<64x8xf16, #n>, %i: i32) {
  // expected-error @+1 {{TMA copies of 'tensor<64x8xf16>' blocks are not supported}}
  tilegpu.async_tma_copy_local_to_global %d[%i, %i] %buf : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<64x8xf16, #n>
  return
}

// -----

func.func @producer_warps_not_warpgroups() {
  // expected-error @+1 {{producer_warps must be a multiple of 4}}
  tilegpu.warp_specialize producer(2 warps, 40 registers) {
  } consumers(232 registers) {
  }
  return
}

// -----

func.func @bad_register_budget() {
  // expected-error @+1 {{register budgets must be multiples of 8 in [24, 256], got 20}}
  tilegpu.warp_specialize producer(4 warps, 20 registers) {
  } consumers(232 registers) {
  }
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @tensor_in_producer() {
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
    // expected-error @+1 {{cannot run in the producer of a warp_specialize}}
    %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
  } consumers(232 registers) {
  }
  return
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @tensor_in_writer() {
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
  } writer {
    // expected-error @+1 {{cannot run in the writer of a warp_specialize}}
    %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
  }
  return
}

// -----

func.func @cta_barrier_in_writer() {
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
  } writer {
    // expected-error @+1 {{cannot run in the writer of a warp_specialize: it holds scalars, mbarriers and asynchronous copies only}}
    tilegpu.barrier
  }
  return
}

// -----

func.func @turn_outside_consumers() {
  // expected-error @+1 {{must be inside the consumers of a warp_specialize}}
  tilegpu.turn_wait warpgroups(2) barrier(2)
  return
}

// -----

module attributes {tilegpu.num_warps = 8 : i32} {
func.func @turn_past_barriers() {
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
    // expected-error @+1 {{needs named barriers 15..16, past the 16 a CTA has}}
    tilegpu.turn_pass warpgroups(2) barrier(15)
  }
  return
}
}

// -----

module attributes {tilegpu.num_warps = 4 : i32} {
func.func @turns_need_warpgroups() {
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
    // expected-error @+1 {{takes turns among 2 warpgroups, but the consumers have 4 warps}}
    tilegpu.turn_init warpgroups(2) barrier(2)
  }
  return
}
}

// -----

func.func @not_in_kernel_body() {
  scf.execute_region {
    // expected-error @+1 {{must be directly inside a kernel function}}
    tilegpu.warp_specialize producer(4 warps, 40 registers) {
    } consumers(232 registers) {
    }
    scf.yield
  }
  return
}

// -----

module attributes {tilegpu.extra_warps = 3 : i32} {
}
// expected-error @-2 {{'tilegpu.extra_warps' must be a positive multiple of 4 on a module}}

// -----

module attributes {tilegpu.staged_register_loads = 1 : i32} {
}
// expected-error @-2 {{'tilegpu.staged_register_loads' must be a unit attribute on a module}}

// -----

#row = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @gather_layout(%x: tensor<16x32xf32, #row>, %i: tensor<16x32xi32, #col>) {
  // The lowering reads index register i for result register i.
  // expected-error @+1 {{the result must have the layout of the indices}}
  %0 = tile.gather %x[%i] axis = 1 : (tensor<16x32xf32, #row>, tensor<16x32xi32, #col>) -> tensor<16x32xf32, #row>
  return
}

// -----

// expected-error @+1 {{permuted order must be a permutation of [0, 2)}}
func.func @f(%a: tensor<16x16xf32, #tilegpu.permuted<{order = [0, 0], parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}>>) { return }

// -----

// expected-error @+1 {{permuted order must not be the identity (use the parent)}}
func.func @f(%a: tensor<16x16xf32, #tilegpu.permuted<{order = [0, 1], parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}>>) { return }

// -----

// expected-error @+1 {{permuted order has 3 entries for a rank-2 parent}}
func.func @f(%a: tensor<16x16xf32, #tilegpu.permuted<{order = [2, 1, 0], parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}>>) { return }

// -----

// expected-error @+1 {{permuted parent must not be permuted itself (compose the orders)}}
func.func @f(%a: tensor<16x16xf32, #tilegpu.permuted<{order = [1, 0], parent = #tilegpu.permuted<{order = [1, 0], parent = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}>}>>) { return }
