//===- Allocation.h - Shared-memory needs and offsets -----------*- C++ -*-===//
//
// Some ops need shared memory for the duration of the op only (scratch): a
// layout conversion that moves data between threads, a reduction across
// warps, an FMA dot, a scalar atomic whose result every thread needs.
// Buffers from tilegpu.local_alloc live from the alloc to their last use,
// or, when an async warpgroup_dot reads them, until a wait retires it.
// The allocation gives each a byte offset so that buffers live at the same
// time never overlap, and reports the total.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_ALLOCATION_H
#define TILE_ANALYSIS_ALLOCATION_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace tile {

/// Bytes one element of `type` takes in shared memory (i1 takes a byte).
unsigned getSharedElementBytes(Type elementType);

/// Bytes of one operand's slots in a reduction's or scan's cross-warp
/// scratch: `slots` elements, rounded up to 16 bytes so that the next
/// operand's slots start aligned (an argmax's int32 indices after its
/// uint8 values once sat at byte 2: a misaligned-address trap).
int64_t getExchangeSlotBytes(int64_t slots, Type elementType);

/// For a layout or shape op (convert_layout, broadcast, expand_dims, trans):
/// for each result register, the operand register holding the same element
/// in the same thread; std::nullopt when data must move between threads.
std::optional<SmallVector<int64_t>> getRegisterMapping(Operation *op);

/// The most scratch one layout conversion takes at a time. A larger one
/// moves its data in rounds through a buffer of this size
/// (tilegpu::rankConversionRoundBits), so that shared memory never bounds
/// the size of a tensor that changes layout.
constexpr int64_t kConversionScratchLimit = 64 * 1024;

/// The index bits whose values number the rounds of a conversion from
/// `srcType` to `dstType` that moves data between threads: the fewest of the
/// cheapest that bring its scratch within kConversionScratchLimit, most
/// significant first; none when it fits in one round.
SmallVector<unsigned> getConversionRoundBits(RankedTensorType srcType,
                                             RankedTensorType dstType);

/// Scratch bytes `op` needs while it runs; 0 for none.
int64_t getScratchBytes(Operation *op);

class SharedMemoryAllocation {
public:
  /// Allocates every scratch and buffer in `function`.
  explicit SharedMemoryAllocation(Operation *function);

  /// The offset given to `op`'s scratch or buffer, if it has one.
  std::optional<int64_t> getOffset(Operation *op) const;
  int64_t getTotalBytes() const { return totalBytes; }

  /// Bytes of the buffers (local_allocs; not scratch) that `op` runs
  /// beside at once, at the point inside `op` where most are live, leaving
  /// out those `exclude` accepts: the least shared memory that must sit
  /// beside anything else live across all of `op`.
  int64_t
  peakBufferBytesDuring(Operation *op,
                        llvm::function_ref<bool(Operation *)> exclude) const;

private:
  /// The index, in program order, of the last op inside `op`.
  int64_t lastIndexInside(Operation *op) const;

  llvm::DenseMap<Operation *, int64_t> offsets;
  /// Each op numbered in program order (pre-order), and each buffer's live
  /// range in those numbers (inclusive).
  llvm::DenseMap<Operation *, int64_t> index;
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> liveRanges;
  int64_t totalBytes = 0;
};

} // namespace tile
} // namespace mlir

#endif // TILE_ANALYSIS_ALLOCATION_H
