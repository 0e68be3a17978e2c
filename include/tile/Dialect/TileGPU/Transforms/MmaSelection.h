//===- MmaSelection.h - Which tensor-core instruction a dot gets -*- C++ -*-===//
//
// Shared by the passes that decide dots' shapes before AccelerateMatmul
// rewrites them (SwapDotOperands asks whether the transposed product would
// get wgmma) and by AccelerateMatmul itself.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILEGPU_TRANSFORMS_MMASELECTION_H
#define TILE_DIALECT_TILEGPU_TRANSFORMS_MMASELECTION_H

#include "tile/Dialect/TileGPU/IR/Dialect.h"

namespace mlir {
namespace tilegpu {

/// True for "sm_90a" (and later "a" targets with wgmma, none yet).
bool hasWgmma(StringRef target);

/// True for sm_80 and later: mma.sync.
bool hasMmaSync(StringRef target);

/// The wgmma accumulator layout for an MxN dot over `numWarps`, if any:
/// warpgroups stacked along M as far as M allows (64 rows each), then N.
MmaEncodingAttr pickWgmmaLayout(MLIRContext *context, int64_t M, int64_t N,
                                int64_t K, Type operand, Type acc,
                                tile::InputPrecision precision, int numWarps);

/// A dot operand as it arrives: a layout conversion's source, which a
/// buffer fill (or the register conversion) takes directly.
Value arrivingOperand(Value operand);

} // namespace tilegpu
} // namespace mlir

#endif // TILE_DIALECT_TILEGPU_TRANSFORMS_MMASELECTION_H
