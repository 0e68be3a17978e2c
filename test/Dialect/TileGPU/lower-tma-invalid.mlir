// Blocks the TMA lowering cannot copy are a diagnostic, not a crash.
// RUN: tile-opt %s --tilegpu-lower-tma -verify-diagnostics


#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
func.func @narrow(%d: !tile.tensordesc<tensor<64x8xf16>>, %i: i32) -> tensor<64x8xf16, #blocked> {
  // expected-error @+1 {{TMA copies of 'tensor<64x8xf16>' blocks are not supported: blocks must have rank 2, a multiple of 8 rows and rows of a multiple of 32 bytes}}
  %v = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x8xf16>> -> tensor<64x8xf16, #blocked>
  return %v : tensor<64x8xf16, #blocked>
}
}
