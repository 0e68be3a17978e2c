//===- PackedByteShifts.h - Shifts of byte pairs as one 32-bit shift -*- C++
//-*-===//
//
// NVPTX has no shift of two 16-bit lanes in one register, so the SLP
// vectorizer (whose cost model knows that) leaves the shifts of a pair of
// bytes scalar and packs their results: for the high nibbles of int4
// weights, two shifts and a byte permute per pair, where the pair itself,
// zero-extended into the two halves of a 32-bit register, is already there
// for the low nibbles. This rewrites
//
//   zext <2 x i8> <lshr x0, C; lshr x1, C> to <2 x i16>
//
// into one 32-bit shift of zext <x0, x1> and a mask that clears what
// crossed from the high half into the low one (which ptxas folds into the
// logic op that follows).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_PACKEDBYTESHIFTS_H
#define TILE_TARGET_PACKEDBYTESHIFTS_H

#include "llvm/IR/PassManager.h"

namespace mlir {
namespace tile {

struct PackedByteShiftsPass : llvm::PassInfoMixin<PackedByteShiftsPass> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &);
};

} // namespace tile
} // namespace mlir

#endif // TILE_TARGET_PACKEDBYTESHIFTS_H
