//===- MmaLayoutPropagation.cpp - Values follow a dot's accumulator -------===//
//
// Before RemoveLayoutConversions moves conversions one at a time, the
// values computed from a dot's accumulator take its layout wholesale (the
// way Triton's layout propagation starts from its anchors), so attention's
// scores and statistics never leave the mma layout inside the key loop.
//
//===----------------------------------------------------------------------===//

#include "MmaLayoutPropagation.h"

#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace mlir::tilegpu::layouts {

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

static SmallVector<int32_t> inversePermutation(ArrayRef<int32_t> order) {
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

} // namespace mlir::tilegpu::layouts

namespace {

using namespace mlir::tilegpu::layouts;

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
/// reached set. A yield into an scf.if moves the if's result as well, and
/// every branch's yield then converts into that layout (scores masked only
/// on some blocks). For attention this keeps the scores, the softmax
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
        unsigned i = use.getOperandNumber();
        if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp())) {
          assign(loop.getRegionIterArg(i), encoding);
          assign(loop.getResult(i), encoding);
        } else if (auto ifOp = dyn_cast<scf::IfOp>(yield->getParentOp())) {
          // Scores masked only on some blocks (`if diagonal: s = where(..)`):
          // the other branch's yield then converts into this layout.
          assign(ifOp.getResult(i), encoding);
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
      // A region op's result that moved needs every yield feeding it to
      // follow, also one whose value was not reached (an if's other branch
      // yielding a constant or an argument).
      Operation *regionOp = value.getDefiningOp();
      if (auto arg = dyn_cast<BlockArgument>(value))
        regionOp = arg.getOwner()->getParentOp();
      if (isa_and_nonnull<scf::IfOp, scf::ForOp>(regionOp))
        for (Region &region : regionOp->getRegions())
          for (Block &block : region)
            if (auto yield = dyn_cast<scf::YieldOp>(block.getTerminator()))
              if (seen.insert(yield).second)
                users.push_back(yield);
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

} // namespace

bool mlir::tilegpu::layouts::propagateMmaLayouts(ModuleOp module) {
  return MmaLayoutPropagation().run(module);
}
