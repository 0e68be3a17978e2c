//===- CrossWarpExchange.cpp - Partials handed between warps --------------===//

#include "CrossWarpExchange.h"
#include "Utility.h"

#include "tile/Analysis/Allocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

CrossWarpExchange::CrossWarpExchange(OpBuilder &b, Location loc, Operation *op,
                                     int64_t scratchOffset,
                                     TypeRange elementTypes,
                                     int64_t slotsPerOperand)
    : loc(loc), elementTypes(elementTypes) {
  int64_t offset = scratchOffset;
  for (Type element : elementTypes) {
    bases.push_back(getSharedPointer(b, loc, op, i32Constant(b, loc, offset)));
    offset += getExchangeSlotBytes(slotsPerOperand, element);
  }
}

Value CrossWarpExchange::slot(OpBuilder &b, unsigned k, Value index) const {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, loc, ptrType, storageType(elementTypes[k]),
                             bases[k], ValueRange{index});
}

void CrossWarpExchange::write(OpBuilder &b, unsigned k, Value index,
                              Value value, Value predicate) const {
  storeShared(b, loc, slot(b, k, index), value, predicate);
}

Value CrossWarpExchange::read(OpBuilder &b, unsigned k, Value index) const {
  return loadShared(b, loc, slot(b, k, index), elementTypes[k]);
}

void CrossWarpExchange::publish(OpBuilder &b) const { emitBarrier(b, loc); }

int64_t mlir::tile::gatherBits(int64_t index, ArrayRef<unsigned> bits) {
  int64_t out = 0;
  for (auto [k, bit] : llvm::enumerate(bits))
    out |= ((index >> bit) & 1) << k;
  return out;
}

Value mlir::tile::gatherBits(OpBuilder &b, Location loc, Value index,
                             ArrayRef<unsigned> bits) {
  Value out = i32Constant(b, loc, 0);
  for (auto [k, bit] : llvm::enumerate(bits)) {
    Value set = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, index, i32Constant(b, loc, bit)),
        i32Constant(b, loc, 1));
    out = arith::OrIOp::create(
        b, loc, out,
        arith::ShLIOp::create(b, loc, set, i32Constant(b, loc, k)));
  }
  return out;
}

SmallVector<Value> mlir::tile::applyCombiner(OpBuilder &b, Region &combiner,
                                             ValueRange lhs, ValueRange rhs) {
  Block &block = combiner.front();
  IRMapping mapping;
  unsigned n = lhs.size();
  for (unsigned i = 0; i < n; ++i) {
    mapping.map(block.getArgument(i), lhs[i]);
    mapping.map(block.getArgument(n + i), rhs[i]);
  }
  for (Operation &op : block.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}
