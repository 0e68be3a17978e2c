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

namespace mlir {
namespace tile {

/// Where each register of a tensor lives in a buffer, in elements.
struct SharedAccessMap {
  SmallVector<int64_t> registerOffsets;          // per register
  SmallVector<int64_t> laneOffsets, warpOffsets; // per index bit
  unsigned vec = 1;                              // registers per vector access
};

/// The access map of `tensorType`'s registers into a `bufferType` buffer;
/// fails when the buffer's layout is not a bijection.
FailureOr<SharedAccessMap> composeAccessMap(RankedTensorType tensorType,
                                            tilegpu::MemDescType bufferType);

} // namespace tile
} // namespace mlir

#endif // TILE_ANALYSIS_SHAREDACCESS_H
