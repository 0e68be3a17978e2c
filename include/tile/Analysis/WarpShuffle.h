//===- WarpShuffle.h - Layout conversions inside a warp ---------*- C++ -*-===//
//
// A conversion between two layouts that place the same elements in the same
// warp needs no shared memory: each thread can fetch what it lacks from the
// lane that holds it with shfl.sync, one shuffle per result register, and no
// CTA barrier. The difficulty is that one shuffle moves one register index
// per lane: the register a lane sends and the register it fills may only
// depend on its lane in ways a few selects can express. Both layouts are
// linear over GF(2), so the conversion is a linear map from the result's
// (register, lane) bits to the operand's, and the rounds can be chosen so
// that each lane's source lane is an invertible function of its own lane.
// This header computes those rounds; the lowering only follows them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_WARPSHUFFLE_H
#define TILE_ANALYSIS_WARPSHUFFLE_H

#include "tile/Dialect/TileGPU/IR/LinearLayout.h"

#include "mlir/IR/BuiltinTypes.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace tile {

/// How to convert between two layouts by shuffles within each warp. Round
/// k (one per result register) runs in every lane l:
///   - the lane sends operand register `sendBase[k] ^ flip(sendMasks, l)`,
///   - reads lane `flip(sourceLaneMasks, l) ^ sourceLaneXor[k]`,
///   - and what it reads is result register `k ^ flip(receiveMasks, l)`,
/// where flip(masks, l) sets bit i when l & masks[i] has odd parity.
struct WarpShufflePlan {
  llvm::SmallVector<int64_t> sendBase;
  llvm::SmallVector<int64_t> sourceLaneXor;
  llvm::SmallVector<uint64_t> sendMasks;       // per operand register bit
  llvm::SmallVector<uint64_t> receiveMasks;    // per result register bit
  llvm::SmallVector<uint64_t> sourceLaneMasks; // per lane bit

  int64_t getNumRounds() const { return sendBase.size(); }
  /// Operand register bits whose value depends on the sending lane: the
  /// send side selects among 2^n registers.
  unsigned getNumSendSelectBits() const;
  /// The same for the result registers a round fills.
  unsigned getNumReceiveSelectBits() const;
};

/// flip(masks, lane) of WarpShufflePlan.
int64_t flipBits(llvm::ArrayRef<uint64_t> masks, int64_t lane);

/// The rounds converting `src` to `dst`, when both hold every element once
/// (no broadcast), with the same warp bases (no element changes warp).
std::optional<WarpShufflePlan>
planWarpShuffle(const tilegpu::LinearLayout &src,
                const tilegpu::LinearLayout &dst);

/// The plan for a conversion that shuffles are worth taking for: 32-bit or
/// wider elements (narrower ones would move one element per shuffle, where
/// shared memory moves 16 bytes an access) and at most `maxSelectBits`
/// select bits on both sides together.
std::optional<WarpShufflePlan>
planCheapWarpShuffle(const tilegpu::LinearLayout &src,
                     const tilegpu::LinearLayout &dst, unsigned elementBits,
                     unsigned maxSelectBits = 2);

/// The plan for converting a tensor of `srcType` to `dstType` when the
/// conversion takes shuffles rather than shared memory (the allocation gives
/// it no scratch, the lowering follows the plan).
std::optional<WarpShufflePlan>
getConversionShufflePlan(RankedTensorType srcType, RankedTensorType dstType);

} // namespace tile
} // namespace mlir

#endif // TILE_ANALYSIS_WARPSHUFFLE_H
