//===- LoopCarriedLayouts.cpp - Carried values in their converted layouts -===//
//
// RemoveLayoutConversions' rewrites place a conversion where a value is
// used; a value a loop carries (an accumulator, a pointer tensor, an
// offsets vector) or an scf.if yields would then go through shared memory
// in every iteration or branch. These rules change what is carried or
// yielded instead, so that the rewrites can move the remaining
// conversions out of the loop or the branch.
//
//===----------------------------------------------------------------------===//

#include "LoopCarriedLayouts.h"
#include "MmaLayoutPropagation.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::layouts;

/// The op that makes the value `loop` yields for iter arg `i` from that arg
/// by a step from before the loop (`off += BLOCK`, `ptr -= BLOCK`): an
/// elementwise op of the body whose other operands are loop-invariant.
/// Null for any other yielded value.
static Operation *stepOf(scf::ForOp loop, unsigned i) {
  BlockArgument arg = loop.getRegionIterArgs()[i];
  Operation *update = loop.getYieldedValues()[i].getDefiningOp();
  if (!update || update->getBlock() != loop.getBody() ||
      !isElementwise(update) || !llvm::is_contained(update->getOperands(), arg))
    return nullptr;
  bool invariant = llvm::all_of(update->getOperands(), [&](Value operand) {
    return operand == arg || loop.isDefinedOutsideOfLoop(operand);
  });
  return invariant ? update : nullptr;
}

/// A loop-carried value that the body converts to one layout L (for a
/// coalesced load, an mma) and otherwise only feeds elementwise updates is
/// carried in L instead: the body converts back where the old layout is
/// still used and the yield converts into L, and the forward/backward
/// rewrites then move the updates into L. One conversion before the loop
/// and one after remain, none inside. This keeps an mma accumulator in
/// registers across a K loop and pointer tensors in their load layout.
bool layouts::carryInConvertedLayout(scf::ForOp loop) {
  bool changed = false;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    BlockArgument arg = loop.getRegionIterArgs()[i];
    auto original = dyn_cast<RankedTensorType>(arg.getType());
    if (!original || arg.use_empty())
      continue;
    RankedTensorType carried;
    bool eligible = true;
    auto takeTarget = [&](ConvertLayoutOp convert) {
      auto target = cast<RankedTensorType>(convert.getType());
      eligible &= !carried || carried == target;
      carried = target;
    };
    for (Operation *user : arg.getUsers()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
        takeTarget(convert);
        continue;
      }
      eligible &= isElementwise(user) || user == yield.getOperation();
    }
    // A value advanced before it is used (`ptr -= BLOCK` at the top of the
    // body, then loaded through) is converted after the update. When the
    // update is all the body does with the value, its other operands come
    // from before the loop (a step), and the yield carries it on, those
    // conversions choose the layout. (A value also used as it is, or
    // updated with values the body computes, keeps its layout: carrying
    // it converted would only move the conversion to those values.)
    if (Operation *update = stepOf(loop, i); update && arg.hasOneUse())
      for (Operation *user : update->getResult(0).getUsers()) {
        if (auto convert = dyn_cast<ConvertLayoutOp>(user))
          takeTarget(convert);
        else
          eligible &= user == yield.getOperation();
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

/// A loop-carried tensor that the body converts to two or more layouts and
/// otherwise only advances by one elementwise op with loop-invariant
/// operands (an offsets vector `off += BLOCK`, read as rows of one tile and
/// columns of another) is also carried in each of those layouts, advanced
/// there by the same op: each conversion was a trip through shared memory
/// with its barriers in every iteration (Lightning Attention's forward: three
/// of them), where a copy costs a register or two. The conversions may take
/// the value before the update or after it (`off -= BLOCK` at the top of
/// the body, as Lightning's backward walks its blocks down). Replaces the
/// loop.
bool layouts::carryInEachConvertedLayout(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    BlockArgument arg = loop.getRegionIterArgs()[i];
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    Operation *update = stepOf(loop, i);
    if (!update)
      continue;
    llvm::SetVector<Type> targets;
    bool eligible = true;
    for (Operation *user : arg.getUsers()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(user))
        targets.insert(convert.getType());
      else
        eligible &= user == update;
    }
    for (Operation *user : update->getUsers()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(user))
        targets.insert(convert.getType());
      else
        eligible &= user == yield.getOperation();
    }
    if (!eligible || targets.size() < 2)
      continue;
    OpBuilder b(loop);
    SmallVector<Value> inits;
    for (Type target : targets)
      inits.push_back(ConvertLayoutOp::create(b, loop.getLoc(), target,
                                              loop.getInitArgs()[i]));
    IRRewriter rewriter(loop->getContext());
    rewriter.setInsertionPoint(loop);
    unsigned first = loop.getNumRegionIterArgs();
    auto advance = [&](OpBuilder &b, Location loc,
                       ArrayRef<BlockArgument> carried) {
      // Where the body advances the value, so that conversions after the
      // update can read the copies.
      b.setInsertionPointAfter(update);
      SmallVector<Value> next;
      for (auto [target, value] : llvm::zip(targets, carried)) {
        Attribute encoding = cast<RankedTensorType>(target).getEncoding();
        Operation *copy = cloneInLayout(b, update, encoding);
        for (OpOperand &operand : copy->getOpOperands())
          if (auto convert = operand.get().getDefiningOp<ConvertLayoutOp>();
              convert && convert.getSrc() == arg) {
            operand.set(value);
            convert->erase();
          }
        next.push_back(copy->getResult(0));
      }
      return next;
    };
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(rewriter, inits,
                                         /*replaceInitOperandUsesInLoop=*/false,
                                         advance);
    if (failed(replaced))
      return false;
    loop = cast<scf::ForOp>(replaced->getOperation());
    BlockArgument moved = loop.getRegionIterArgs()[i];
    for (Operation *user : llvm::make_early_inc_range(moved.getUsers()))
      if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
        unsigned index =
            first + (llvm::find(targets, convert.getType()) - targets.begin());
        convert.getResult().replaceAllUsesWith(loop.getRegionIterArg(index));
        convert->erase();
      }
    auto newYield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (Operation *user : llvm::make_early_inc_range(update->getUsers()))
      if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
        unsigned index =
            first + (llvm::find(targets, convert.getType()) - targets.begin());
        convert.getResult().replaceAllUsesWith(newYield.getOperand(index));
        convert->erase();
      }
    // Unused after the loop, the value in its old layout now only advances
    // itself: it yields itself instead, which canonicalization folds away.
    if (loop.getResult(i).use_empty()) {
      Operation *oldUpdate = newYield.getOperand(i).getDefiningOp();
      newYield.setOperand(i, moved);
      if (oldUpdate && oldUpdate->use_empty())
        oldUpdate->erase();
    }
    return true;
  }
  return false;
}

/// An scf.if result that both branches yield as conversions out of one
/// layout L is yielded in L instead, and converted back once after the
/// if, where the forward rewrite and the folds can then remove it. A
/// value updated under a condition (`if first: acc = v else: acc += v`,
/// a lock's critical section) otherwise moves through shared memory
/// inside the branch and again after it.
bool layouts::yieldInSourceLayout(scf::IfOp ifOp) {
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
