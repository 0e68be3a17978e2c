//===- WarpShuffleConversion.cpp - Layout conversions by shfl.sync --------===//
//
// Follows a WarpShufflePlan: one shfl.sync.idx per result register, the
// register each lane sends and the one it fills picked by selects on bits
// of its lane id. Nothing touches shared memory, so no barrier is needed.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// i1: whether `lane & mask` has an odd number of bits set.
Value laneParity(OpBuilder &b, Location loc, Value lane, uint64_t mask) {
  Value parity;
  for (unsigned bit = 0; bit < 32; ++bit) {
    if (!((mask >> bit) & 1))
      continue;
    Value shifted =
        bit ? arith::ShRUIOp::create(b, loc, lane, i32Constant(b, loc, bit))
            : lane;
    parity = parity ? arith::XOrIOp::create(b, loc, parity, shifted).getResult()
                    : shifted;
  }
  Value low = arith::AndIOp::create(b, loc, parity, i32Constant(b, loc, 1));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, low,
                               i32Constant(b, loc, 0));
}

/// The lane-dependent bits of a register index: each with its condition.
struct SelectBits {
  SmallVector<int64_t> bits;
  SmallVector<Value> conditions;
};

SelectBits selectBits(OpBuilder &b, Location loc, Value lane,
                      ArrayRef<uint64_t> masks) {
  SelectBits select;
  for (auto [bit, mask] : llvm::enumerate(masks))
    if (mask) {
      select.bits.push_back(int64_t(1) << bit);
      select.conditions.push_back(laneParity(b, loc, lane, mask));
    }
  return select;
}

/// values[base ^ the set bits of `select` this lane has], as a tree of
/// selects over the candidates.
Value selectRegister(OpBuilder &b, Location loc, ValueRange values,
                     int64_t base, const SelectBits &select,
                     unsigned level = 0) {
  if (level == select.bits.size())
    return values[base];
  Value unset = selectRegister(b, loc, values, base, select, level + 1);
  Value set = selectRegister(b, loc, values, base ^ select.bits[level], select,
                             level + 1);
  return arith::SelectOp::create(b, loc, select.conditions[level], set, unset);
}

} // namespace

SmallVector<Value>
mlir::tile::emitWarpShuffleConversion(OpBuilder &b, Location loc, Operation *op,
                                      ValueRange src,
                                      const WarpShufflePlan &plan) {
  Value lane = getThreadId(b, op).lane;
  // The lane this one reads in round 0, before each round's constant.
  Value from = i32Constant(b, loc, 0);
  for (auto [bit, mask] : llvm::enumerate(plan.sourceLaneMasks)) {
    if (!mask)
      continue;
    Value set = arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                       laneParity(b, loc, lane, mask));
    from = arith::OrIOp::create(
        b, loc, from,
        arith::ShLIOp::create(b, loc, set, i32Constant(b, loc, bit)));
  }
  SelectBits send = selectBits(b, loc, lane, plan.sendMasks);
  SelectBits receive = selectBits(b, loc, lane, plan.receiveMasks);
  SmallVector<Value> received;
  for (int64_t k = 0; k < plan.getNumRounds(); ++k) {
    Value value = selectRegister(b, loc, src, plan.sendBase[k], send);
    Value source =
        plan.sourceLaneXor[k]
            ? arith::XOrIOp::create(b, loc, from,
                                    i32Constant(b, loc, plan.sourceLaneXor[k]))
                  .getResult()
            : from;
    received.push_back(shuffleIdx(b, loc, value, source));
  }
  SmallVector<Value> result;
  for (int64_t reg = 0; reg < plan.getNumRounds(); ++reg)
    result.push_back(selectRegister(b, loc, received, reg, receive));
  return result;
}
