//===- RemoveLayoutConversions.cpp - Recompute instead of converting ------===//
//
// First, values computed from a dot's accumulator move into its mma layout
// (MmaLayoutPropagation.cpp). Then two rewrites, run to a fixed point
// with the convert_layout folds:
//  - forward: a conversion whose users are elementwise ops or reductions
//    hands them its source instead; each elementwise user is recomputed in
//    the source layout (its other operands converted) and converted after.
//    Conversions thereby sink towards stores, where they meet the store's
//    own conversion and fold away.
//  - backward: a conversion of a value computed from scalars alone (splats,
//    constants, ranges, elementwise ops, broadcasts and expand_dims on
//    them) gets that value recomputed in the target layout; so do
//    elementwise ops over broadcasts (outer products: only the vectors
//    under the broadcasts are converted), a broadcast or expand_dims of
//    anything (its operand is converted), and
//    an elementwise op that does not narrow its data when the target is a
//    dot operand's layout (the unpacking of a weight then runs in the
//    operand's registers). A conversion of a transposition moves before
//    it, in the untransposed layout.
// The two never apply to the same conversion, so they cannot undo each
// other. Loop-carried values and scf.if results move into the layout
// their conversions come from (LoopCarriedLayouts.cpp).
// Three rules serve reductions into memory and warp-specialised loops: a
// 1-D load converted to a slice layout inside such a loop (or outside
// loops, when it has no more elements than the CTA has threads) is loaded
// again in that layout; an atomic whose result is unused runs in its
// value's layout; and conversions of values defined before a loop leave it.
//
//===----------------------------------------------------------------------===//

#include "LoopCarriedLayouts.h"
#include "MmaLayoutPropagation.h"

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
using namespace mlir::tilegpu::layouts;

/// `op` recomputed with its tensor results in `encoding`. Operands follow
/// into the same layout, except that an expand_dims operand takes the
/// slice of it.
Operation *layouts::cloneInLayout(OpBuilder &b, Operation *op,
                                  Attribute encoding) {
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

namespace {

/// The layout forward() last moved an elementwise op out of (removed when
/// the pass ends).
constexpr StringLiteral kMovedFrom = "tilegpu.moved_from";

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

/// True when `value` is elementwise arithmetic whose tensor leaves are all
/// broadcasts, expand_dims or values `canRematerialize` accepts: an outer
/// product such as `b[None, :] * dt[:, None]`, scaled by more broadcast vectors
/// (a state-space update's dB * x). Recomputing it in another layout converts
/// only the vectors under the broadcasts; converting it moves the whole tile
/// through shared memory.
bool isBroadcastTree(Value value, int depth = 0) {
  Operation *op = value.getDefiningOp();
  if (!op || depth > 16)
    return false;
  if (isa<BroadcastOp, ExpandDimsOp>(op) || canRematerialize(value))
    return true;
  if (!isElementwise(op) || op->getNumResults() != 1)
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return !isa<RankedTensorType>(operand.getType()) ||
           isBroadcastTree(operand, depth + 1);
  });
}

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

/// Whether `convert` takes a vector that is cheaper to load again in the
/// slice layout it converts to than to move through shared memory (each
/// thread reading the elements it holds, replicated across warps: a few
/// hundred bytes from L1, and no barrier):
///  - in a warp-specialised loop, any such vector (a row statistic such as
///    attention's log-sum-exp): there the conversion is a barrier across
///    the consumer warpgroups every iteration, which keeps one's softmax
///    from running under the other's dots;
///  - outside loops, a vector with no more elements than the CTA has
///    threads (a state-space update's per-row dt, x and D, or its B and C
///    over the state): a conversion costs a barrier or two for a handful
///    of elements. Inside other loops the pipeliner stages such loads and
///    reads them in the slice layout already.
bool isReloadable(Value value, RankedTensorType type) {
  auto load = value.getDefiningOp<LoadOp>();
  if (!load || type.getRank() != 1 ||
      !isa<SliceEncodingAttr>(type.getEncoding()) ||
      !load.getResult().hasOneUse())
    return false;
  auto loop = load->getParentOfType<scf::ForOp>();
  if (loop) {
    if (!TileDialect::asksForWarpSpecialization(loop))
      return false;
  } else {
    auto module = load->getParentOfType<ModuleOp>();
    int64_t threads = int64_t(TileGPUDialect::getNumWarps(module)) * 32;
    if (load->getParentOfType<scf::WhileOp>() ||
        type.getNumElements() > threads)
      return false;
  }
  return llvm::all_of(load->getOperands(), [](Value operand) {
    return !isa<RankedTensorType>(operand.getType()) ||
           canRematerialize(operand);
  });
}

bool isReloadable(ConvertLayoutOp convert) {
  return isReloadable(convert.getSrc(),
                      cast<RankedTensorType>(convert.getType()));
}

/// Elementwise ops (a widening cast, a softplus) over loads that
/// isReloadable would load again in the target layout, and over values
/// computed from scalars: recomputed in that layout, the loads follow.
bool overReloadableLoads(Operation *def, RankedTensorType target,
                         int depth = 0) {
  if (!def || !isElementwise(def) || def->getNumResults() != 1 || depth > 16)
    return false;
  bool anyLoad = false;
  bool all = llvm::all_of(def->getOperands(), [&](Value operand) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || canRematerialize(operand))
      return true;
    anyLoad = true;
    return isReloadable(operand,
                        type.cloneWithEncoding(target.getEncoding())) ||
           overReloadableLoads(operand.getDefiningOp(), target, depth + 1);
  });
  return all && anyLoad;
}

bool backward(ConvertLayoutOp convert) {
  Operation *def = convert.getSrc().getDefiningOp();
  Attribute target = cast<RankedTensorType>(convert.getType()).getEncoding();
  if (isReloadable(convert)) {
    // At the load, not the conversion: a store between the two may write
    // what the load read.
    OpBuilder b(def);
    Operation *clone = cloneInLayout(b, def, target);
    convert.replaceAllUsesWith(clone->getResult(0));
    convert.erase();
    def->erase();
    return true;
  }
  // Into a dot operand's registers, the elementwise producers (an unpack,
  // a cast, a scale) are recomputed in that layout, so that only the
  // narrowest tile (the packed weights) moves between threads.
  bool intoOperand =
      isDotOperandLike(target) && isElementwise(def) && narrowsOrKeepsWidth(def);
  // Broadcasts and expand_dims cost nothing to redo in another layout, and
  // converting their (smaller or equal) operand instead never costs more.
  if (!intoOperand && !isBroadcastTree(convert.getSrc()) &&
      !isa_and_nonnull<BroadcastOp, ExpandDimsOp>(def) &&
      !overReloadableLoads(def, cast<RankedTensorType>(convert.getType())))
    return false;
  OpBuilder b(convert);
  Operation *clone = cloneInLayout(b, def, target);
  convert.replaceAllUsesWith(clone->getResult(0));
  convert.erase();
  return true;
}

/// An atomic whose result nobody reads (a reduction into global memory,
/// attention's dQ accumulated over key blocks) runs in the layout its value
/// is computed in: its pointers and mask follow (the backward rewrite
/// recomputes them), and the value does not move through shared memory to
/// the coalesced layout a store would want. The L2 applies the additions
/// by 32-byte sector; a dot's accumulator holds pairs of columns, so four
/// threads still fill one.
bool reduceInSourceLayout(AtomicRMWOp atomic, ConvertLayoutOp convert) {
  if (!atomic.getResult().use_empty() || atomic.getVal() != convert.getResult() ||
      atomic.getPtr() == convert.getResult() ||
      atomic.getMask() == convert.getResult())
    return false;
  Attribute encoding = encodingOf(convert.getSrc());
  OpBuilder b(atomic);
  for (OpOperand &operand : atomic->getOpOperands()) {
    if (operand.get() == convert.getResult()) {
      operand.set(convert.getSrc());
      continue;
    }
    auto type = cast<RankedTensorType>(operand.get().getType());
    operand.set(ConvertLayoutOp::create(b, atomic.getLoc(),
                                        type.cloneWithEncoding(encoding),
                                        operand.get()));
  }
  atomic.getResult().setType(
      cast<RankedTensorType>(atomic.getType()).cloneWithEncoding(encoding));
  return true;
}

bool forward(ConvertLayoutOp convert) {
  Value src = convert.getSrc();
  // Values that can be recomputed go backward instead; moving their
  // conversions forward as well would undo that.
  if (isBroadcastTree(src))
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
    if (auto atomic = dyn_cast<AtomicRMWOp>(user)) {
      changed |= reduceInSourceLayout(atomic, convert);
      continue;
    }
    if (!isElementwise(user))
      continue;
    // An op this rule moved out of `encoding` does not move back: between
    // two elementwise ops in a row whose other operands sit in the two
    // layouts (mamba's `out += x * D; out *= g`), the conversion would
    // otherwise pass back and forth every round.
    if (user->getAttr(kMovedFrom) == encoding)
      continue;
    OpBuilder b(user);
    Operation *clone = cloneInLayout(b, user, encoding);
    clone->setAttr(kMovedFrom, encodingOf(user->getResult(0)));
    auto back = ConvertLayoutOp::create(
        b, user->getLoc(), user->getResult(0).getType(), clone->getResult(0));
    user->getResult(0).replaceAllUsesWith(back);
    user->erase();
    changed = true;
  }
  return changed;
}

/// Conversions of values defined before a loop move out of it. The
/// rewrites above place a conversion at the use they serve, so a row
/// statistic loaded once before a key loop (attention's log-sum-exp in the
/// dQ kernel) would otherwise go through shared memory, with its barriers,
/// every iteration.
bool hoistInvariantConversions(ModuleOp module) {
  bool changed = false;
  module.walk([&](ConvertLayoutOp convert) {
    auto loop = dyn_cast<scf::ForOp>(convert->getParentOp());
    if (loop && loop.isDefinedOutsideOfLoop(convert.getSrc())) {
      convert->moveBefore(loop);
      changed = true;
    }
  });
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
    propagateMmaLayouts(module);
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
      SmallVector<scf::ForOp> loops;
      module.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        changed |= carryInEachConvertedLayout(loop);
      module.walk([&](scf::IfOp ifOp) { changed |= yieldInSourceLayout(ifOp); });
      if (!changed)
        break;
    }
    module.walk([](Operation *op) { op->removeAttr(kMovedFrom); });
    // Outermost last: a conversion leaves one loop per round.
    while (hoistInvariantConversions(module)) {
    }
    (void)applyPatternsGreedily(module, frozen);
  }
};

} // namespace
