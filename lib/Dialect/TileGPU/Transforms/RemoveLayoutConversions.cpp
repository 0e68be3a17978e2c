//===- RemoveLayoutConversions.cpp - Recompute instead of converting ------===//
//
// Two rewrites, run to a fixed point with the convert_layout folds:
//  - forward: a conversion whose users are elementwise ops or reductions
//    hands them its source instead; each elementwise user is recomputed in
//    the source layout (its other operands converted) and converted after.
//    Conversions thereby sink towards stores, where they meet the store's
//    own conversion and fold away.
//  - backward: a conversion of a value computed from scalars alone (splats,
//    constants, ranges, elementwise ops, broadcasts and expand_dims on
//    them) gets that value recomputed in the target layout.
// The two never apply to the same conversion, so they cannot undo each
// other.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUREMOVELAYOUTCONVERSIONS
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// Pure, region-free ops whose tensor operands and results all share one
/// shape: recomputing them in another layout is per element.
bool isElementwise(Operation *op) {
  if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1 ||
      !isPure(op) || isa<ConvertLayoutOp>(op))
    return false;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType)
    return false;
  if (isa<SplatOp, MakeRangeOp>(op))
    return false;
  for (Type t : op->getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (tensor && tensor.getShape() != resultType.getShape())
      return false;
  }
  return op->getDialect()->getNamespace() == "arith" ||
         op->getDialect()->getNamespace() == "math" ||
         isa<AddPtrOp, FpToFpOp, BitcastOp, IntToPtrOp, PtrToIntOp, ClampFOp,
             PreciseSqrtOp, PreciseDivFOp, MulhiUIOp, ExternElementwiseOp>(op);
}

/// True when `value` can be recomputed in any layout from scalars alone:
/// a tree of splats, constants, ranges, elementwise ops, broadcasts and
/// expand_dims (index and pointer arithmetic, typically).
bool canRematerialize(Value value, int depth = 0) {
  Operation *op = value.getDefiningOp();
  if (!op || depth > 32)
    return false;
  if (isa<SplatOp, MakeRangeOp, arith::ConstantOp>(op))
    return true;
  if (!isElementwise(op) && !isa<BroadcastOp, ExpandDimsOp>(op))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return !isa<RankedTensorType>(operand.getType()) ||
           canRematerialize(operand, depth + 1);
  });
}

/// `op` recomputed with its tensor results in `encoding`. Operands follow
/// into the same layout, except that an expand_dims operand takes the
/// slice of it.
Operation *cloneInLayout(OpBuilder &b, Operation *op, Attribute encoding) {
  Attribute operandEncoding = encoding;
  if (auto expand = dyn_cast<ExpandDimsOp>(op))
    operandEncoding = SliceEncodingAttr::get(
        op->getContext(), expand.getAxis(),
        cast<DistributedEncoding>(encoding));
  SmallVector<Value> operands;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || type.getEncoding() == operandEncoding) {
      operands.push_back(operand);
      continue;
    }
    operands.push_back(ConvertLayoutOp::create(
        b, op->getLoc(), type.cloneWithEncoding(operandEncoding), operand));
  }
  SmallVector<Type> types;
  for (Type t : op->getResultTypes())
    types.push_back(cast<RankedTensorType>(t).cloneWithEncoding(encoding));
  NamedAttrList attrs(op->getAttrs());
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    attrs.set("value", cast<DenseElementsAttr>(constant.getValue())
                           .reshape(cast<ShapedType>(types[0])));
  OperationState state(op->getLoc(), op->getName(), operands, types, attrs);
  return b.create(state);
}

bool backward(ConvertLayoutOp convert) {
  Operation *def = convert.getSrc().getDefiningOp();
  if (!canRematerialize(convert.getSrc()))
    return false;
  OpBuilder b(convert);
  Operation *clone =
      cloneInLayout(b, def, cast<RankedTensorType>(convert.getType()).getEncoding());
  convert.replaceAllUsesWith(clone->getResult(0));
  convert.erase();
  return true;
}

bool forward(ConvertLayoutOp convert) {
  Value src = convert.getSrc();
  // Values that can be recomputed go backward instead; moving their
  // conversions forward as well would undo that.
  if (canRematerialize(src))
    return false;
  Attribute encoding = cast<RankedTensorType>(src.getType()).getEncoding();
  bool changed = false;
  // One visit per user: a user may take the conversion more than once
  // (x * x), and rewriting it replaces all of its uses at once.
  SetVector<Operation *> users;
  for (Operation *user : convert->getUsers())
    users.insert(user);
  for (Operation *user : users) {
    if (auto reduce = dyn_cast<ReduceOp>(user)) {
      if (reduce.getSrcs().size() != 1)
        continue;
      // Reduce the source directly; convert the (smaller) result if needed.
      OpBuilder b(reduce);
      Type oldType = reduce.getResult()[0].getType();
      Type newType = oldType;
      if (auto tensor = dyn_cast<RankedTensorType>(oldType))
        newType = tensor.cloneWithEncoding(SliceEncodingAttr::get(
            convert.getContext(), reduce.getAxis(),
            cast<DistributedEncoding>(encoding)));
      reduce->replaceUsesOfWith(convert.getResult(), src);
      if (newType != oldType) {
        reduce.getResult()[0].setType(newType);
        b.setInsertionPointAfter(reduce);
        auto back = ConvertLayoutOp::create(b, reduce.getLoc(), oldType,
                                            reduce.getResult()[0]);
        reduce.getResult()[0].replaceAllUsesExcept(back, back);
      }
      changed = true;
      continue;
    }
    if (!isElementwise(user))
      continue;
    OpBuilder b(user);
    Operation *clone = cloneInLayout(b, user, encoding);
    auto back = ConvertLayoutOp::create(b, user->getLoc(),
                                        user->getResult(0).getType(),
                                        clone->getResult(0));
    user->getResult(0).replaceAllUsesWith(back);
    user->erase();
    changed = true;
  }
  return changed;
}

/// A loop-carried value that the body converts to one layout L (for a
/// coalesced load, an mma) and otherwise only feeds elementwise updates is
/// carried in L instead: the body converts back where the old layout is
/// still used and the yield converts into L, and the forward/backward
/// rewrites then move the updates into L. One conversion before the loop
/// and one after remain, none inside. This keeps an mma accumulator in
/// registers across a K loop and pointer tensors in their load layout.
bool carryInConvertedLayout(scf::ForOp loop) {
  bool changed = false;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    BlockArgument arg = loop.getRegionIterArgs()[i];
    auto original = dyn_cast<RankedTensorType>(arg.getType());
    if (!original || arg.use_empty())
      continue;
    RankedTensorType carried;
    bool eligible = true;
    for (Operation *user : arg.getUsers()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
        auto target = cast<RankedTensorType>(convert.getType());
        eligible &= !carried || carried == target;
        carried = target;
        continue;
      }
      eligible &= isElementwise(user) || user == yield.getOperation();
    }
    // The yielded value must end up in L cheaply: converted from L, or an
    // elementwise update the rewrites can move.
    Value next = yield.getOperand(i);
    auto fromCarried = next.getDefiningOp<ConvertLayoutOp>();
    bool nextMoves = (fromCarried && fromCarried.getSrc().getType() == carried) ||
                     isElementwise(next.getDefiningOp());
    if (!eligible || !carried || !nextMoves)
      continue;
    OpBuilder b(loop);
    OpOperand &init = loop.getInitArgsMutable()[i];
    init.set(ConvertLayoutOp::create(b, loop.getLoc(), carried, init.get()));
    arg.setType(carried);
    b.setInsertionPointToStart(loop.getBody());
    auto asBefore = ConvertLayoutOp::create(b, loop.getLoc(), original, arg);
    arg.replaceAllUsesExcept(asBefore, asBefore);
    b.setInsertionPoint(yield);
    yield.setOperand(i, ConvertLayoutOp::create(b, loop.getLoc(), carried,
                                                yield.getOperand(i)));
    Value result = loop.getResult(i);
    result.setType(carried);
    b.setInsertionPointAfter(loop);
    auto back = ConvertLayoutOp::create(b, loop.getLoc(), original, result);
    result.replaceAllUsesExcept(back, back);
    changed = true;
  }
  return changed;
}

struct RemoveLayoutConversionsPass
    : tilegpu::impl::TileGPURemoveLayoutConversionsBase<
          RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, context);
    LocalAllocOp::getCanonicalizationPatterns(patterns, context);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Each round moves conversions; the bound keeps a cycle between the two
    // directions from running away (the result stays correct either way).
    for (int round = 0; round < 16; ++round) {
      if (failed(applyPatternsGreedily(module, frozen)))
        break;
      SmallVector<ConvertLayoutOp> converts;
      module.walk([&](ConvertLayoutOp op) { converts.push_back(op); });
      bool changed = false;
      for (ConvertLayoutOp convert : converts) {
        if (convert->getBlock() == nullptr)
          continue;
        if (backward(convert)) {
          changed = true;
          continue;
        }
        changed |= forward(convert);
      }
      module.walk([&](scf::ForOp loop) {
        changed |= carryInConvertedLayout(loop);
      });
      if (!changed)
        break;
    }
    (void)applyPatternsGreedily(module, frozen);
  }
};

} // namespace
