//===- SharedAccess.h - Registers to shared-memory offsets ------*- C++ -*-===//
//
// A buffer's shared layout maps element offsets to coordinates and a
// tensor's distributed layout maps (register, lane, warp) to coordinates;
// both are linear over GF(2), so composing the first's inverse with the
// second gives each thread's offsets as (thread base) XOR (register
// constant). Swizzles cost nothing extra, and runs of registers at
// consecutive offsets become one vector access.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_SHAREDACCESS_H
#define TILE_ANALYSIS_SHAREDACCESS_H

#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include <array>
#include <optional>

namespace mlir {
namespace tile {

/// Where each register of a tensor lives in a buffer, in elements.
struct SharedAccessMap {
  SmallVector<int64_t> registerOffsets;          // per register
  SmallVector<int64_t> laneOffsets, warpOffsets; // per index bit
  unsigned vec = 1;                              // registers per vector access
};

/// The offset of `index` under per-bit offsets (`laneOffsets`,
/// `warpOffsets`): the XOR of `offsets[bit]` over the set bits of `index`.
int64_t xorOfBits(ArrayRef<int64_t> offsets, int64_t index);

/// The access map of `tensorType`'s registers into a `bufferType` buffer;
/// fails when the buffer's layout is not a bijection.
FailureOr<SharedAccessMap> composeAccessMap(RankedTensorType tensorType,
                                            tilegpu::MemDescType bufferType);

/// How `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16` delivers a warp's
/// 8-bit registers: each 8x8 b16 matrix is 8 rows of 16 bytes, and lane t
/// receives, as one word, bytes 2(t/4) and 2(t/4)+1 of rows 2(t%4) and
/// 2(t%4)+1 -- a 2x2 block of bytes, when the register layout puts one
/// register bit at offset 1, lane bits 2-4 at offsets 2, 4, 8 and every
/// other lane, warp and register bit at a multiple of 16 (the row step).
/// Offsets are XOR-linear (SharedAccessMap), so so is every row address.
struct TransposedByteMatrices {
  /// Per lane bit: the offset of the row address that lane supplies
  /// (lane t gives row t%8 of matrix t/8).
  SmallVector<int64_t> laneOffsets;
  /// Per instruction, the register whose offset it starts at.
  SmallVector<int64_t> firstRegisters;
  /// Word j's byte b is register firstRegisters[i] | wordRegisters[j] |
  /// byteRegisters[b].
  std::array<int64_t, 4> wordRegisters{}, byteRegisters{};
};

/// The ldmatrix.x4.trans reads of a map of 1-byte elements, if its
/// registers have that form; std::nullopt otherwise.
std::optional<TransposedByteMatrices>
matchTransposedByteMatrices(const SharedAccessMap &map);

/// The scratch buffer a 2-D layout conversion from `srcType` to `dstType`
/// goes through when its data moves between threads in one round: row-major
/// along the result's contiguous dimension, in chunks of the result's
/// vector width, XOR-swizzled across 128 bytes of rows so that the source's
/// column-wise writes spread over the banks. std::nullopt for elements
/// below a byte, pointers and other ranks (element-wise shuffles instead).
std::optional<tilegpu::MemDescType>
getConversionScratchLayout(RankedTensorType srcType, RankedTensorType dstType);

/// One warp's shared-memory wavefronts for the accesses of an access map:
/// as made, and as they would be without bank conflicts (each phase's
/// distinct words spread over the 32 banks).
struct SharedWavefronts {
  int64_t actual = 0;
  int64_t conflictFree = 0;
};

/// Shared-memory wavefronts one warp takes to make every access of `map`
/// (one per run of `vec` registers; 0 means `map.vec`) to elements of
/// `elementBytes`: per access, its lanes split into phases of 128 bytes
/// (all 32 lanes up to 4-byte accesses, 16 for 8-byte and 8 for 16-byte
/// ones), and a phase takes as many wavefronts as the most distinct 4-byte
/// words any one of the 32 banks serves in it (lanes reading the same word
/// share it): `actual`, the count bank conflicts multiply.
SharedWavefronts measureSharedWavefronts(const SharedAccessMap &map,
                                         unsigned elementBytes,
                                         unsigned vec = 0);

/// One warp's shared-memory wavefronts for the `ldmatrix` reads of `plan`:
/// each 8x8 matrix is a phase of 8 rows of 16 bytes, one wavefront when
/// its rows fall in distinct banks.
SharedWavefronts
measureTransposedByteMatricesWavefronts(const SharedAccessMap &map,
                                        const TransposedByteMatrices &plan);

/// The ldmatrix reads a load of `map`'s registers, elements of
/// `elementType`, takes (8-bit elements in 2x2 blocks); std::nullopt where
/// it loads each run of registers itself. What the lowering (loadTensor)
/// does, and what the wavefront models below count.
std::optional<TransposedByteMatrices>
matchMatrixLoads(const SharedAccessMap &map, Type elementType);

/// How `stmatrix.sync.aligned.m8n8.x4[.trans].shared.b16` writes a warp's
/// 16-bit registers. One instruction stores four 8x8 matrices, each 8 rows
/// of 16 bytes whose addresses lanes 8m..8m+7 supply (lane s: row s % 8 of
/// matrix s / 8). Lane t's word m holds two elements of matrix m: without
/// .trans they go to row t/4, columns 2(t%4) and 2(t%4)+1; with .trans to
/// rows 2(t%4) and 2(t%4)+1, column t/4. An accumulator fragment stored
/// row-major is the first case, stored column-major (a transposed operand
/// staged for wgmma) the second.
struct MatrixStores {
  bool transposed = false;
  /// Per lane bit: the offset of the row address that lane supplies.
  SmallVector<int64_t> laneOffsets;
  /// Per instruction, the register whose offset it starts at.
  SmallVector<int64_t> firstRegisters;
  /// Word m of an instruction packs register first | wordRegisters[m] (low
  /// half) with first | wordRegisters[m] | pairRegister (high half).
  std::array<int64_t, 4> wordRegisters{};
  int64_t pairRegister = 0;
};

/// The stmatrix stores of `map`'s registers, elements of `elementType`
/// (16-bit elements whose registers form such matrices); std::nullopt where
/// a store writes each run of registers itself.
std::optional<MatrixStores> matchMatrixStores(const SharedAccessMap &map,
                                              Type elementType);

/// Wavefronts of loading `map`'s registers as the lowering does: ldmatrix
/// rows where matchMatrixLoads finds them, accesses of runs otherwise.
SharedWavefronts measureLoadWavefronts(const SharedAccessMap &map,
                                       Type elementType);

} // namespace tile
} // namespace mlir

#endif // TILE_ANALYSIS_SHAREDACCESS_H
