//===- CrossWarpExchange.h - Partials handed between warps ------*- C++ -*-===//
//
// Reductions and scans finish across warps the same way: each warp's
// writers store their partials into the op's shared-memory scratch, a CTA
// barrier publishes them, and every thread reads back the ones it needs.
// This is that exchange, for ops with several operands (one array of
// slots per operand, back to back from the scratch offset the allocation
// pass gave the op).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILEGPUTOLLVM_CROSSWARPEXCHANGE_H
#define TILE_LIB_CONVERSION_TILEGPUTOLLVM_CROSSWARPEXCHANGE_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace tile {

class CrossWarpExchange {
public:
  /// Slots for `elementTypes.size()` operands, `slotsPerOperand` of each
  /// operand's element type, starting `scratchOffset` bytes into shared
  /// memory (getScratchOffset). Creates the base pointers.
  CrossWarpExchange(OpBuilder &b, Location loc, Operation *op,
                    int64_t scratchOffset, TypeRange elementTypes,
                    int64_t slotsPerOperand);

  /// The address of operand `k`'s slot `index` (i32).
  Value slot(OpBuilder &b, unsigned k, Value index) const;
  /// Stores `value` there where `predicate` holds (null: always).
  void write(OpBuilder &b, unsigned k, Value index, Value value,
             Value predicate) const;
  /// Loads operand `k`'s slot `index`.
  Value read(OpBuilder &b, unsigned k, Value index) const;
  /// Makes the writes so far visible to every thread of the CTA (or of the
  /// consumer partition the builder is in).
  void publish(OpBuilder &b) const;

  Type getElementType(unsigned k) const { return elementTypes[k]; }

private:
  Location loc;
  SmallVector<Type> elementTypes;
  SmallVector<Value> bases;
};

/// The number formed by bits `bits` of `index` (bit k of the result is bit
/// bits[k] of `index`): a thread's position along an axis from the lane or
/// warp bits that move along it.
Value gatherBits(OpBuilder &b, Location loc, Value index,
                 ArrayRef<unsigned> bits);
/// The same for a compile-time index (a register number).
int64_t gatherBits(int64_t index, ArrayRef<unsigned> bits);

/// The combiner region of a reduce or scan applied to (lhs..., rhs...).
SmallVector<Value> applyCombiner(OpBuilder &b, Region &combiner, ValueRange lhs,
                                 ValueRange rhs);

} // namespace tile
} // namespace mlir

#endif // TILE_LIB_CONVERSION_TILEGPUTOLLVM_CROSSWARPEXCHANGE_H
