//===- RemoveLayoutConversions.cpp - Recompute instead of converting ------===//
//
// First, values computed from a dot's accumulator move into its mma layout
// (MmaLayoutPropagation below). Then two rewrites, run to a fixed point
// with the convert_layout folds:
//  - forward: a conversion whose users are elementwise ops or reductions
//    hands them its source instead; each elementwise user is recomputed in
//    the source layout (its other operands converted) and converted after.
//    Conversions thereby sink towards stores, where they meet the store's
//    own conversion and fold away.
//  - backward: a conversion of a value computed from scalars alone (splats,
//    constants, ranges, elementwise ops, broadcasts and expand_dims on
//    them) gets that value recomputed in the target layout; so does a
//    broadcast or expand_dims of anything (its operand is converted), and
//    an elementwise op that does not narrow its data when the target is a
//    dot operand's layout (the unpacking of a weight then runs in the
//    operand's registers). A conversion of a transposition moves before
//    it, in the untransposed layout.
// The two never apply to the same conversion, so they cannot undo each
// other. Loop-carried values and scf.if results move into the layout
// their conversions come from (carryInConvertedLayout, yieldInSourceLayout).
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

/// Side-effect-free, region-free ops whose tensor operands and results all
/// share one shape: recomputing them in another layout is per element.
/// Speculatability does not matter (integer division is not speculatable):
/// a recomputed op runs where the conversion ran, which its original
/// dominates.
bool isElementwise(Operation *op) {
  if (!op || op->getNumRegions() != 0 || op->getNumResults() != 1 ||
      !isMemoryEffectFree(op) || isa<ConvertLayoutOp>(op))
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
             PreciseSqrtOp, PreciseDivFOp, MulhiUIOp, ExternElementwiseOp,
             HintOp>(op);
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
    operandEncoding =
        SliceEncodingAttr::get(op->getContext(), expand.getAxis(),
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

/// True for an mma layout or a slice or permutation of one: what a dot's
/// accumulator (transposed, for a swapped product) and the row/column
/// reductions of it are held in.
bool isMmaLike(Attribute encoding) {
  if (auto slice = dyn_cast_or_null<SliceEncodingAttr>(encoding))
    return isMmaLike(slice.getParent());
  if (auto permuted = dyn_cast_or_null<PermutedEncodingAttr>(encoding))
    return isMmaLike(permuted.getParent());
  return isa_and_nonnull<MmaEncodingAttr>(encoding);
}

/// True for an mma operand's register layout, or a permutation of one (the
/// register operand of a swapped product, before its transposition).
bool isDotOperandLike(Attribute encoding) {
  if (auto permuted = dyn_cast_or_null<PermutedEncodingAttr>(encoding))
    return isDotOperandLike(permuted.getParent());
  return isa_and_nonnull<DotOperandEncodingAttr>(encoding);
}

SmallVector<int32_t> inversePermutation(ArrayRef<int32_t> order) {
  SmallVector<int32_t> inverse(order.size());
  for (auto [i, d] : llvm::enumerate(order))
    inverse[d] = i;
  return inverse;
}

/// The layout of a tensor whose transposition by `order` has `encoding`.
Attribute untransposed(Attribute encoding, ArrayRef<int32_t> order) {
  return PermutedEncodingAttr::getTransposed(
      cast<DistributedEncoding>(encoding), inversePermutation(order));
}

Attribute encodingOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? type.getEncoding() : Attribute();
}

/// Moves everything computed from a dot's accumulator into the
/// accumulator's layout (or slices of it), the way Triton's layout
/// propagation does from its anchors: starting at each conversion out of
/// an mma layout, the layout flows forward through elementwise ops,
/// reductions (to the slice), expand_dims of that slice, broadcasts and
/// loop-carried values (iter args, yields, results) until an op that
/// needs a layout of its own (a store, a dot operand, a conversion).
/// Values reached twice keep the first layout. Rewriting then changes the
/// reached values' types in place and converts where a reached value meets
/// one that was not: other operands (a splat or a loaded bias, which the
/// backward rewrite then recomputes or shrinks), and uses outside the
/// reached set. For attention this keeps the scores, the softmax
/// statistics and the output accumulator in the mma layout for the whole
/// key loop instead of moving each through shared memory.
class MmaLayoutPropagation {
public:
  bool run(ModuleOp module) {
    module.walk([&](ConvertLayoutOp convert) {
      Attribute source = encodingOf(convert.getSrc());
      if (isMmaLike(source) && !isMmaLike(encodingOf(convert.getResult())))
        assign(convert.getResult(), source);
    });
    while (!worklist.empty())
      propagate(worklist.pop_back_val());
    return rewrite();
  }

private:
  void assign(Value value, Attribute encoding) {
    if (!isa<RankedTensorType>(value.getType()) || layouts.count(value))
      return;
    layouts[value] = encoding;
    order.push_back(value);
    worklist.push_back(value);
  }

  void propagate(Value value) {
    Attribute encoding = layouts.lookup(value);
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isElementwise(user)) {
        assign(user->getResult(0), encoding);
      } else if (auto reduce = dyn_cast<ReduceOp>(user)) {
        if (reduce.getSrcs().size() != 1)
          continue;
        for (Value result : reduce.getResult())
          assign(result,
                 SliceEncodingAttr::get(user->getContext(), reduce.getAxis(),
                                        cast<DistributedEncoding>(encoding)));
      } else if (auto expand = dyn_cast<ExpandDimsOp>(user)) {
        auto slice = dyn_cast<SliceEncodingAttr>(encoding);
        if (slice && slice.getDim() == expand.getAxis())
          assign(expand.getResult(), slice.getParent());
      } else if (isa<BroadcastOp>(user)) {
        assign(user->getResult(0), encoding);
      } else if (auto trans = dyn_cast<TransOp>(user)) {
        // A swapped product's accumulator, transposed back for the code
        // after the dot: the transposition keeps each element in place.
        assign(trans.getResult(),
               PermutedEncodingAttr::getTransposed(
                   cast<DistributedEncoding>(encoding), trans.getOrder()));
      } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp())) {
          unsigned i = use.getOperandNumber();
          assign(loop.getRegionIterArg(i), encoding);
          assign(loop.getResult(i), encoding);
        }
      } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (use.getOperandNumber() < loop.getNumControlOperands())
          continue;
        unsigned i = use.getOperandNumber() - loop.getNumControlOperands();
        assign(loop.getRegionIterArg(i), encoding);
        assign(loop.getResult(i), encoding);
      }
    }
  }

  /// The layout operand `operand` of `user` must have once `user`'s
  /// results are in their new layouts, or null when it is free.
  Attribute requiredOperandLayout(Operation *user, OpOperand &operand) {
    if (isElementwise(user) || isa<BroadcastOp>(user))
      return layouts.lookup(user->getResult(0));
    if (auto expand = dyn_cast<ExpandDimsOp>(user))
      if (Attribute parent = layouts.lookup(expand.getResult()))
        return SliceEncodingAttr::get(user->getContext(), expand.getAxis(),
                                      cast<DistributedEncoding>(parent));
    if (auto trans = dyn_cast<TransOp>(user))
      if (Attribute result = layouts.lookup(trans.getResult()))
        return untransposed(result, trans.getOrder());
    if (auto yield = dyn_cast<scf::YieldOp>(user))
      return layouts.lookup(
          yield->getParentOp()->getResult(operand.getOperandNumber()));
    if (auto loop = dyn_cast<scf::ForOp>(user))
      if (operand.getOperandNumber() >= loop.getNumControlOperands())
        return layouts.lookup(loop.getResult(operand.getOperandNumber() -
                                             loop.getNumControlOperands()));
    return {};
  }

  bool rewrite() {
    if (order.empty())
      return false;
    // Old types, for uses that keep them.
    DenseMap<Value, Type> oldTypes;
    for (Value value : order) {
      auto type = cast<RankedTensorType>(value.getType());
      oldTypes[value] = type;
      value.setType(type.cloneWithEncoding(layouts[value]));
    }
    // Every use of a tensor now either matches what its user needs or
    // gets a conversion: operands of rewritten ops that are not in their
    // layout, and uses of rewritten values by ops that need the old one.
    SmallVector<Operation *> users;
    llvm::SmallPtrSet<Operation *, 32> seen;
    for (Value value : order) {
      if (Operation *def = value.getDefiningOp())
        if (seen.insert(def).second)
          users.push_back(def);
      for (Operation *user : value.getUsers())
        if (seen.insert(user).second)
          users.push_back(user);
      if (auto arg = dyn_cast<BlockArgument>(value))
        if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
          if (seen.insert(loop).second)
            users.push_back(loop);
    }
    for (Operation *user : users) {
      for (OpOperand &operand : user->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type)
          continue;
        // Conversions and buffer fills take any layout.
        if (isa<ConvertLayoutOp, LocalAllocOp>(user))
          continue;
        // A reduction whose results moved with its source is consistent.
        if (auto reduce = dyn_cast<ReduceOp>(user))
          if (llvm::all_of(reduce.getResult(),
                           [&](Value r) { return layouts.count(r); }))
            continue;
        Attribute required = requiredOperandLayout(user, operand);
        if (!required) {
          // The user keeps its operand types: give it the old one back.
          auto old = oldTypes.find(value);
          if (old == oldTypes.end() || old->second == type)
            continue;
          required = cast<RankedTensorType>(old->second).getEncoding();
        }
        if (type.getEncoding() == required)
          continue;
        OpBuilder b(user);
        operand.set(ConvertLayoutOp::create(
            b, user->getLoc(), type.cloneWithEncoding(required), value));
      }
    }
    return true;
  }

  DenseMap<Value, Attribute> layouts;
  SmallVector<Value> order, worklist;
};

/// Whether recomputing elementwise op `def` in a dot operand's layout,
/// with its operands converted instead of its result, moves no more bytes
/// through the conversion: its tensor operands are no wider than its
/// result (an unpack, a widening cast, a scale), never a narrowing cast.
bool narrowsOrKeepsWidth(Operation *def) {
  unsigned resultBits = getElementBitWidth(
      cast<RankedTensorType>(def->getResult(0).getType()).getElementType());
  return llvm::all_of(def->getOperandTypes(), [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return !tensor || getElementBitWidth(tensor.getElementType()) <= resultBits;
  });
}

/// convert(trans(x)) -> trans(convert(x)) in the untransposed layout: the
/// transposition is then a register renaming, and the conversion can keep
/// moving towards x's producers (a swapped product's register operand).
bool throughTrans(ConvertLayoutOp convert) {
  auto trans = convert.getSrc().getDefiningOp<TransOp>();
  if (!trans)
    return false;
  auto target = cast<RankedTensorType>(convert.getType());
  auto srcType = cast<RankedTensorType>(trans.getSrc().getType());
  Attribute wanted = untransposed(target.getEncoding(), trans.getOrder());
  OpBuilder b(convert);
  Value moved = trans.getSrc();
  if (srcType.getEncoding() != wanted)
    moved = ConvertLayoutOp::create(b, convert.getLoc(),
                                    srcType.cloneWithEncoding(wanted), moved);
  auto renamed =
      TransOp::create(b, convert.getLoc(), target, moved, trans.getOrder());
  convert.replaceAllUsesWith(renamed.getResult());
  convert.erase();
  return true;
}

bool backward(ConvertLayoutOp convert) {
  Operation *def = convert.getSrc().getDefiningOp();
  Attribute target = cast<RankedTensorType>(convert.getType()).getEncoding();
  // Into a dot operand's registers, the elementwise producers (an unpack,
  // a cast, a scale) are recomputed in that layout, so that only the
  // narrowest tile (the packed weights) moves between threads.
  bool intoOperand =
      isDotOperandLike(target) && isElementwise(def) && narrowsOrKeepsWidth(def);
  // Broadcasts and expand_dims cost nothing to redo in another layout, and
  // converting their (smaller or equal) operand instead never costs more.
  if (!intoOperand && !canRematerialize(convert.getSrc()) &&
      !isa_and_nonnull<BroadcastOp, ExpandDimsOp>(def))
    return false;
  OpBuilder b(convert);
  Operation *clone = cloneInLayout(b, def, target);
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
  // Layout propagation put the mma users where they are; moving a
  // conversion into an mma layout forward would take them out again.
  if (isMmaLike(encodingOf(convert.getResult())))
    return false;
  // The same for a dot operand's layout, which backward() moves towards
  // the producers.
  if (isDotOperandLike(encodingOf(convert.getResult())))
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
        newType = tensor.cloneWithEncoding(
            SliceEncodingAttr::get(convert.getContext(), reduce.getAxis(),
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
    auto back = ConvertLayoutOp::create(
        b, user->getLoc(), user->getResult(0).getType(), clone->getResult(0));
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
    // The yielded value must end up in L cheaply: already converted (its
    // conversion then targets L instead, the one in the body goes), or an
    // elementwise update the rewrites can move.
    Value next = yield.getOperand(i);
    bool nextMoves = next.getDefiningOp<ConvertLayoutOp>() ||
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

/// An scf.if result that both branches yield as conversions out of one
/// layout L is yielded in L instead, and converted back once after the
/// if, where the forward rewrite and the folds can then remove it. A
/// value updated under a condition (`if first: acc = v else: acc += v`,
/// a lock's critical section) otherwise moves through shared memory
/// inside the branch and again after it.
bool yieldInSourceLayout(scf::IfOp ifOp) {
  if (ifOp.getNumResults() == 0)
    return false;
  bool changed = false;
  scf::YieldOp yields[] = {ifOp.thenYield(), ifOp.elseYield()};
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
    Value result = ifOp.getResult(i);
    auto original = dyn_cast<RankedTensorType>(result.getType());
    if (!original)
      continue;
    RankedTensorType source;
    bool eligible = true;
    for (scf::YieldOp yield : yields) {
      auto convert = yield.getOperand(i).getDefiningOp<ConvertLayoutOp>();
      auto type = convert ? cast<RankedTensorType>(convert.getSrc().getType())
                          : RankedTensorType();
      eligible &= type && (!source || source == type);
      source = type;
    }
    if (!eligible || source == original)
      continue;
    for (scf::YieldOp yield : yields)
      yield.setOperand(
          i, yield.getOperand(i).getDefiningOp<ConvertLayoutOp>().getSrc());
    result.setType(source);
    OpBuilder b(ifOp->getContext());
    b.setInsertionPointAfter(ifOp);
    auto back = ConvertLayoutOp::create(b, ifOp.getLoc(), original, result);
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
    MmaLayoutPropagation().run(module);
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
        if (throughTrans(convert) || backward(convert)) {
          changed = true;
          continue;
        }
        changed |= forward(convert);
      }
      module.walk(
          [&](scf::ForOp loop) { changed |= carryInConvertedLayout(loop); });
      module.walk([&](scf::IfOp ifOp) { changed |= yieldInSourceLayout(ifOp); });
      if (!changed)
        break;
    }
    (void)applyPatternsGreedily(module, frozen);
  }
};

} // namespace
