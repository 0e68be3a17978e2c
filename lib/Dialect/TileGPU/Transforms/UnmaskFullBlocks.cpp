//===- UnmaskFullBlocks.cpp - Masks skipped where a block is full ---------===//
//
// A loop over blocks masks the elements past the end of its range in every
// iteration, though only the last block can be partial:
//
//   for start_n in range(0, seq_len, BLOCK_N):
//       qk = tl.where(start_n + tl.arange(0, BLOCK_N) < seq_len, qk, -inf)
//
// In attention's forward that is, per thread and iteration, 32 integer
// additions, 32 compares and 64 selects beside some 360 instructions of
// softmax, all on the path between two matrix products. Each such select
// becomes a branch on one scalar condition that implies the mask is true
// everywhere (here start_n + BLOCK_N - 1 < seq_len): the full blocks take
// the value unmasked, the partial one computes the mask and the select in
// the other branch.
//
// The condition comes from bounds of the compared integer tensors, as
// scalars at the select: a splat is its scalar, make_range its ends,
// constants themselves, and sums, differences and multiples by constants
// combine their operands' bounds; broadcasts, expand_dims and layout
// conversions keep them. It is computed in 64 bits and includes that no
// 32-bit sum, difference or product on the way wraps, so it implies the
// mask exactly. Masks are compares (signed: <, <=, >, >=) of such tensors
// and their and/or. Only selects in a loop body whose mask depends on the
// loop (an iteration's boundary mask) are rewritten: a mask fixed for the
// whole loop is cheaper left as it is. And only where the selected values
// come from outside the block or from non-elementwise ops (a product, a
// load): a select in the middle of elementwise work is left to ptxas,
// which interleaves it with the rest of the chain.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <limits>

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUUNMASKFULLBLOCKS
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// Ops that pass a tensor's elements on unchanged (each element of the
/// result is one of the operand's).
bool keepsElements(Operation *op) {
  return isa<BroadcastOp, ExpandDimsOp, ReshapeOp, ConvertLayoutOp>(op);
}

/// Scalar i64 bounds of a tensor's elements, emitted before a select.
class FullMaskCondition {
public:
  FullMaskCondition(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// An i1 that holds only when every element of `mask` is true, or null
  /// when the mask is not of a form we bound.
  Value allTrue(Value mask) {
    Operation *def = mask.getDefiningOp();
    if (!def)
      return {};
    if (keepsElements(def))
      return allTrue(def->getOperand(0));
    if (matchPattern(mask, m_One()))
      return constant(1, b.getI1Type());
    if (auto both = dyn_cast<arith::AndIOp>(def)) {
      Value lhs = allTrue(both.getLhs()), rhs = allTrue(both.getRhs());
      if (!lhs || !rhs)
        return {};
      return b.createOrFold<arith::AndIOp>(loc, lhs, rhs);
    }
    if (auto either = dyn_cast<arith::OrIOp>(def)) {
      Value lhs = allTrue(either.getLhs()), rhs = allTrue(either.getRhs());
      if (lhs && rhs)
        return b.createOrFold<arith::OrIOp>(loc, lhs, rhs);
      return lhs ? lhs : rhs;
    }
    auto compare = dyn_cast<arith::CmpIOp>(def);
    if (!compare)
      return {};
    std::optional<Bounds> lhs = boundsOf(compare.getLhs());
    std::optional<Bounds> rhs = boundsOf(compare.getRhs());
    if (!lhs || !rhs)
      return {};
    using P = arith::CmpIPredicate;
    switch (compare.getPredicate()) {
    case P::slt:
      return cmp(P::slt, lhs->max, rhs->min);
    case P::sle:
      return cmp(P::sle, lhs->max, rhs->min);
    case P::sgt:
      return cmp(P::sgt, lhs->min, rhs->max);
    case P::sge:
      return cmp(P::sge, lhs->min, rhs->max);
    default:
      return {};
    }
  }

  /// That no 32-bit operation the bounds went through wraps.
  Value noWrap() {
    Value all = constant(1, b.getI1Type());
    for (Value check : wrapChecks)
      all = b.createOrFold<arith::AndIOp>(loc, all, check);
    return all;
  }

private:
  struct Bounds {
    Value min, max; // i64
  };

  Value constant(int64_t value, Type type) {
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, value));
  }
  Value cmp(arith::CmpIPredicate predicate, Value lhs, Value rhs) {
    return b.createOrFold<arith::CmpIOp>(loc, predicate, lhs, rhs);
  }

  /// Bounds of a 32-bit result from exact 64-bit ones: it must not wrap.
  Bounds checked(Value min, Value max) {
    using P = arith::CmpIPredicate;
    Type i64 = b.getI64Type();
    wrapChecks.push_back(
        cmp(P::sge, min, constant(std::numeric_limits<int32_t>::min(), i64)));
    wrapChecks.push_back(
        cmp(P::sle, max, constant(std::numeric_limits<int32_t>::max(), i64)));
    return {min, max};
  }

  std::optional<Bounds> boundsOf(Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.getElementType().isInteger(32))
      return std::nullopt;
    auto known = cache.find(value);
    if (known != cache.end())
      return known->second;
    std::optional<Bounds> bounds = computeBounds(value);
    if (bounds)
      cache[value] = *bounds;
    return bounds;
  }

  std::optional<Bounds> computeBounds(Value value) {
    Type i64 = b.getI64Type();
    APInt splat;
    if (matchPattern(value, m_ConstantInt(&splat))) {
      Value c = constant(splat.getSExtValue(), i64);
      return Bounds{c, c};
    }
    Operation *def = value.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (keepsElements(def))
      return boundsOf(def->getOperand(0));
    if (auto scalar = dyn_cast<SplatOp>(def)) {
      if (!scalar.getSrc().getType().isInteger(32))
        return std::nullopt;
      Value wide = b.createOrFold<arith::ExtSIOp>(loc, i64, scalar.getSrc());
      return Bounds{wide, wide};
    }
    if (auto range = dyn_cast<MakeRangeOp>(def))
      return Bounds{constant(range.getStart(), i64),
                    constant(int64_t(range.getEnd()) - 1, i64)};
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      std::optional<Bounds> x = boundsOf(def->getOperand(0));
      std::optional<Bounds> y = boundsOf(def->getOperand(1));
      if (!x || !y)
        return std::nullopt;
      if (isa<arith::AddIOp>(def))
        return checked(b.createOrFold<arith::AddIOp>(loc, x->min, y->min),
                       b.createOrFold<arith::AddIOp>(loc, x->max, y->max));
      return checked(b.createOrFold<arith::SubIOp>(loc, x->min, y->max),
                     b.createOrFold<arith::SubIOp>(loc, x->max, y->min));
    }
    if (auto product = dyn_cast<arith::MulIOp>(def)) {
      APInt factor;
      Value other = product.getLhs();
      if (!matchPattern(product.getRhs(), m_ConstantInt(&factor))) {
        if (!matchPattern(product.getLhs(), m_ConstantInt(&factor)))
          return std::nullopt;
        other = product.getRhs();
      }
      std::optional<Bounds> x = boundsOf(other);
      if (!x)
        return std::nullopt;
      int64_t k = factor.getSExtValue();
      Value c = constant(k, i64);
      Value lo = b.createOrFold<arith::MulIOp>(loc, x->min, c);
      Value hi = b.createOrFold<arith::MulIOp>(loc, x->max, c);
      return k >= 0 ? checked(lo, hi) : checked(hi, lo);
    }
    return std::nullopt;
  }

  OpBuilder &b;
  Location loc;
  DenseMap<Value, Bounds> cache;
  SmallVector<Value> wrapChecks;
};

/// Whether `value` depends on `loop`'s induction variable or iter args
/// (inside its body).
bool variesWith(Value value, scf::ForOp loop) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = false;
  options.filter = [&](Operation *op) { return loop->isProperAncestor(op); };
  auto dependsOnLoop = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == loop.getBody();
  };
  if (dependsOnLoop(value))
    return true;
  if (Operation *def = value.getDefiningOp();
      !def || failed(getBackwardSlice(def, &slice, options)))
    return false;
  for (Operation *op : slice)
    if (llvm::any_of(op->getOperands(), dependsOnLoop))
      return true;
  return false;
}

/// The pure, region-free ops of `select`'s block that its mask is computed
/// from, in block order. Ops with shared-memory scratch (a layout
/// conversion through shared memory) stay where they are: the pass runs
/// after the allocation and the barriers, which placed them there.
SmallVector<Operation *> maskComputation(arith::SelectOp select) {
  Block *block = select->getBlock();
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) {
    return op->getBlock() == block && op->getNumRegions() == 0 && isPure(op) &&
           !op->hasAttr(TileGPUDialect::getOffsetAttrName());
  };
  if (Operation *def = select.getCondition().getDefiningOp())
    if (options.filter(def)) {
      (void)getBackwardSlice(def, &slice, options);
      slice.insert(def);
    }
  SmallVector<Operation *> ops(slice.begin(), slice.end());
  llvm::sort(ops,
             [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
  return ops;
}

/// Remembers the ops a builder creates.
struct Recorder : OpBuilder::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    ops.push_back(op);
  }
  SmallVector<Operation *> ops;
};

/// select(mask, x, y) -> if (mask is all true) x else select(mask, x, y),
/// the mask computed in the second branch only.
bool unmask(arith::SelectOp select) {
  auto type = dyn_cast<RankedTensorType>(select.getType());
  if (!type || !isa<RankedTensorType>(select.getCondition().getType()))
    return false;
  auto loop = select->getParentOfType<scf::ForOp>();
  if (!loop || !variesWith(select.getCondition(), loop))
    return false;
  // The branch must start a chain of elementwise work, not cut one:
  // ptxas schedules each block alone, and a branch between exp2s and the
  // conversions of their results runs the MUFU ops back to back instead
  // of between the others (an attention backward masking P = exp2(...):
  // 1.59 -> 1.67 ms).
  auto computedHere = [&](Value value) {
    Operation *def = value.getDefiningOp();
    return def && def->getBlock() == select->getBlock() &&
           def->hasTrait<OpTrait::Elementwise>();
  };
  if (computedHere(select.getTrueValue()) ||
      computedHere(select.getFalseValue()))
    return false;
  Location loc = select.getLoc();
  // The condition's ops go before the select; a mask we cannot bound
  // takes them out again.
  Recorder created;
  OpBuilder b(select, &created);
  FullMaskCondition condition(b, loc);
  Value full = condition.allTrue(select.getCondition());
  if (!full) {
    for (Operation *op : llvm::reverse(created.ops))
      op->erase();
    return false;
  }
  full = b.createOrFold<arith::AndIOp>(loc, full, condition.noWrap());
  b.setListener(nullptr);

  SmallVector<Operation *> computation = maskComputation(select);
  auto branch = scf::IfOp::create(b, loc, TypeRange{type}, full,
                                  /*withElseRegion=*/true);
  OpBuilder thenBuilder = branch.getThenBodyBuilder();
  scf::YieldOp::create(thenBuilder, loc, select.getTrueValue());
  OpBuilder elseBuilder = branch.getElseBodyBuilder();
  IRMapping mapping;
  for (Operation *op : computation)
    elseBuilder.clone(*op, mapping);
  Operation *masked = elseBuilder.clone(*select, mapping);
  scf::YieldOp::create(elseBuilder, loc, masked->getResult(0));
  select.replaceAllUsesWith(branch.getResult(0));
  select.erase();
  // The mask's own ops, and constants that folding left unused.
  for (Operation *op : llvm::reverse(computation))
    if (op->use_empty())
      op->erase();
  for (Operation *op : llvm::reverse(created.ops))
    if (op->use_empty() && isPure(op))
      op->erase();
  return true;
}

struct UnmaskFullBlocksPass
    : tilegpu::impl::TileGPUUnmaskFullBlocksBase<UnmaskFullBlocksPass> {
  void runOnOperation() override {
    SmallVector<arith::SelectOp> selects;
    getOperation().walk([&](arith::SelectOp op) { selects.push_back(op); });
    for (arith::SelectOp select : selects)
      unmask(select);
  }
};

} // namespace
