//===- TileCanonicalize.cpp - Canonicalization patterns of Tile ops -------===//
//
// Rewrites that need more than a single-op fold: they look through chains of
// shape ops, or fuse an op into a neighbour from another dialect.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Rewrites a shape op (broadcast, expand_dims, reshape) of a splat into a
/// splat of the final shape: a splat has no layout to preserve.
template <typename ShapeOp> struct ShapeOpOfSplat : OpRewritePattern<ShapeOp> {
  using OpRewritePattern<ShapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// broadcast(broadcast(x)) -> broadcast(x).
struct BroadcastOfBroadcast : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getSrcMutable().assign(inner.getSrc()); });
    return success();
  }
};

/// expand_dims(broadcast(x)) -> broadcast(expand_dims(x)). Moving broadcasts
/// towards their users lets them merge into one broadcast and keeps the
/// expanded tensor small.
struct ExpandDimsOfBroadcast : OpRewritePattern<ExpandDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandDimsOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!broadcast)
      return failure();
    auto innerType = cast<RankedTensorType>(broadcast.getSrc().getType());
    SmallVector<int64_t> shape(innerType.getShape());
    shape.insert(shape.begin() + op.getAxis(), 1);
    auto expanded = ExpandDimsOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(shape, innerType.getElementType()),
        broadcast.getSrc(), op.getAxis());
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), expanded);
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x); the result may reorder elements when
/// either step may.
struct ReshapeOfReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    bool reorder = op.getAllowReorder() || inner.getAllowReorder();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getSrc(),
                                           reorder);
    return success();
  }
};

/// True when `mask` is a constant whose every lane equals `value`.
static bool isConstantMask(Value mask, bool value) {
  if (!mask)
    return false;
  if (auto splat = mask.getDefiningOp<SplatOp>())
    return isConstantMask(splat.getSrc(), value);
  return value ? matchPattern(mask, m_One()) : matchPattern(mask, m_Zero());
}

/// A load whose mask is all true needs neither mask nor `other`.
struct LoadWithTrueMask : OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantMask(op.getMask(), true))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getMaskMutable().clear();
      op.getOtherMutable().clear();
    });
    return success();
  }
};

/// A non-volatile load whose mask is all false reads nothing: it is `other`.
struct LoadWithFalseMask : OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getOther() || op.getIsVolatile() ||
        !isConstantMask(op.getMask(), false))
      return failure();
    rewriter.replaceOp(op, op.getOther());
    return success();
  }
};

/// True when `value` is available at `op`: defined earlier in its block, or
/// in a region enclosing it.
static bool isAvailableAt(Value value, Operation *op) {
  Block *block = value.getParentBlock();
  if (Operation *def = value.getDefiningOp()) {
    if (def->getBlock() == op->getBlock())
      return def->isBeforeInBlock(op);
  } else if (block == op->getBlock()) {
    return true;
  }
  return block->getParent()->isProperAncestor(op->getParentRegion());
}

/// select(m, load(p, m[, o]), y) -> load(p, m, y). The masked-off lanes of
/// the load are exactly the lanes the select replaces.
struct SelectOfMaskedLoad : OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp select,
                                PatternRewriter &rewriter) const override {
    auto load = select.getTrueValue().getDefiningOp<LoadOp>();
    if (!load || !load.getMask() || load.getMask() != select.getCondition() ||
        !load->hasOneUse())
      return failure();
    Value replacement = select.getFalseValue();
    if (!isAvailableAt(replacement, load))
      return failure();
    rewriter.modifyOpInPlace(
        load, [&] { load.getOtherMutable().assign(replacement); });
    rewriter.replaceOp(select, load.getResult());
    return success();
  }
};

/// A store whose mask is all false writes nothing.
struct StoreWithFalseMask : OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantMask(op.getMask(), false))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// A store whose mask is all true needs no mask.
struct StoreWithTrueMask : OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantMask(op.getMask(), true))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
    return success();
  }
};

/// add(dot(a, b, 0), x) -> dot(a, b, x): the tensor cores accumulate for
/// free, so the addition disappears.
template <typename AddOp> struct DotPlusAddend : OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).template getDefiningOp<DotOp>();
      Value addend = add->getOperand(1 - i);
      if (!dot || !dot->hasOneUse() || !isZeroConstant(dot.getC()) ||
          addend.getType() != dot.getType() || !isAvailableAt(addend, dot))
        continue;
      rewriter.modifyOpInPlace(dot, [&] { dot.getCMutable().assign(addend); });
      rewriter.replaceOp(add, dot.getResult());
      return success();
    }
    return failure();
  }
};

} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ShapeOpOfSplat<BroadcastOp>, BroadcastOfBroadcast>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ShapeOpOfSplat<ExpandDimsOp>, ExpandDimsOfBroadcast>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ShapeOpOfSplat<ReshapeOp>, ReshapeOfReshape>(context);
}

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<LoadWithTrueMask, LoadWithFalseMask, SelectOfMaskedLoad>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<StoreWithFalseMask, StoreWithTrueMask>(context);
}

void DotOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<DotPlusAddend<arith::AddFOp>, DotPlusAddend<arith::AddIOp>>(
      context);
}
