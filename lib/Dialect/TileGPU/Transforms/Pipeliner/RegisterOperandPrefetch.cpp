//===- RegisterOperandPrefetch.cpp - Register A operands one step ahead ---===//
//
// A chain of async dots that reads its A operand from registers the body
// computes (a swapped int4 product: weights unpacked from their cp.async
// buffer) must retire before the body makes the next iteration's operands,
// or they would overwrite registers an MMA still reads. Left in place, the
// unpacking of step i+1 waits for step i's MMAs, and the tensor cores idle
// while it runs.
//
// With the copies at least two iterations ahead, step i+1's data has landed
// before step i's MMAs are issued, so the body computes the operands one
// iteration early instead:
//
//   prologue: async_wait until step 0 has landed; A_0 = f(step 0)
//   body (A_i carried):
//     async_wait one group later than before (step i+1 landed)
//     dots on A_i                      (async)
//     A_{i+1} = f(step i+1)             (overlaps the MMAs)
//     warpgroup_dot_wait(..., A_i, A_{i+1})  (A_i untouched until here)
//     yield A_{i+1} (as the wait returns it)
//
// f is the slice of the body that computes the A operands (local_loads of
// the staged buffers, unpacking, scaling), cloned with the iteration's
// values advanced: the induction variable by one step, each iter arg to
// the value the body yields for it. A global load in that slice (a group
// scale too small to copy ahead) is masked off past the loop's end.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// The narrowest product (columns of the MMA's result) whose MMAs take long
/// enough to hide making the next operands behind them.
constexpr int64_t kMinPrefetchColumns = 64;

/// Whether the body writes global memory, which a load hoisted one
/// iteration earlier could then read before the write.
bool writesGlobalMemory(Block *body) {
  WalkResult result = body->walk([](Operation *op) {
    if (isa<StoreOp, AtomicRMWOp, AtomicCASOp, DescriptorStoreOp,
            DescriptorReduceOp>(op) ||
        isa<CallOpInterface>(op))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

class RegisterOperandPrefetcher {
public:
  RegisterOperandPrefetcher(scf::ForOp loop, const LoopPlan &plan,
                            RewriterBase &rewriter)
      : loop(loop), body(loop.getBody()), plan(plan), rewriter(rewriter) {}

  /// The slice and the operands, or false when they cannot move.
  bool match() {
    for (const AsyncDot &async : plan.asyncDots) {
      WarpGroupDotOp dot = async.dot;
      if (isa<RankedTensorType>(dot.getA().getType()) &&
          !llvm::is_contained(operands, dot.getA()))
        operands.push_back(dot.getA());
    }
    WarpGroupDotOp lastDot = plan.asyncDots.back().dot;
    if (operands.empty() || !lastDot.getD().hasOneUse())
      return false;
    wait = dyn_cast<WarpGroupDotWaitOp>(lastDot.getD().use_begin()->getOwner());
    if (!wait)
      return false;
    topWait = nullptr;
    for (Operation &op : *body)
      if ((topWait = dyn_cast<AsyncWaitOp>(&op)))
        break;
    if (!topWait)
      return false;

    SmallVector<Value> worklist(operands.begin(), operands.end());
    llvm::SmallPtrSet<Operation *, 32> ops;
    bool hasGlobalLoad = false;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      Operation *def = value.getDefiningOp();
      if (!def) {
        auto arg = cast<BlockArgument>(value);
        if (arg.getOwner() == body && arg != loop.getInductionVar() &&
            !llvm::is_contained(args, arg))
          args.push_back(arg);
        continue;
      }
      if (def->getBlock() != body || !ops.insert(def).second)
        continue;
      if (def->getNumRegions() != 0)
        return false;
      if (auto load = dyn_cast<LoadOp>(def)) {
        if (load.getIsVolatile())
          return false;
        hasGlobalLoad = true;
      } else if (!isa<LocalLoadOp>(def) && !isMemoryEffectFree(def)) {
        return false;
      }
      llvm::append_range(worklist, def->getOperands());
    }
    if (hasGlobalLoad && writesGlobalMemory(body))
      return false;
    for (Operation &op : *body)
      if (ops.contains(&op))
        slice.push_back(&op);
    // The accumulator is not part of it (a dot result would be).
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    for (BlockArgument arg : args)
      if (!isMovable(yield.getOperand(arg.getArgNumber() - 1)))
        return false;
    return true;
  }

  /// Rewrites the loop; returns the new one.
  scf::ForOp rewrite() {
    Location loc = loop.getLoc();
    // The body reads step i+1's copies: it waits for one group more.
    int32_t pending = topWait.getPending();
    topWait.setPending(pending - 1);

    // Prologue: step 0's operands, once its copies have landed.
    rewriter.setInsertionPoint(loop);
    AsyncWaitOp::create(rewriter, loc, pending);
    IRMapping first;
    first.map(loop.getInductionVar(), loop.getLowerBound());
    for (BlockArgument arg : args)
      first.map(arg, loop.getInitArgs()[arg.getArgNumber() - 1]);
    SmallVector<Value> inits =
        cloneSlice(first, inRange(loop.getLowerBound()));

    // In the body, between the dots and their wait: step i+1's operands.
    rewriter.setInsertionPoint(wait);
    IRMapping next;
    Value nextIv =
        arith::AddIOp::create(rewriter, loc, loop.getInductionVar(),
                              loop.getStep());
    next.map(loop.getInductionVar(), nextIv);
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    for (BlockArgument arg : args)
      next.map(arg, materialize(yield.getOperand(arg.getArgNumber() - 1)));
    SmallVector<Value> nexts = cloneSlice(next, inRange(nextIv));
    // The next operands go through the wait too. Carried straight from
    // their last op, LLVM would fold the phi of (prologue op, body op)
    // into one op after the phi (instcombine), moving the unpacking back
    // in front of the MMAs.
    SmallVector<Value> inputs(wait.getInputs());
    llvm::append_range(inputs, nexts);
    auto tied = WarpGroupDotWaitOp::create(rewriter, loc, inputs,
                                           wait.getPendings());
    rewriter.replaceOp(wait, tied.getResults().take_front(
                                 wait.getNumResults()));
    wait = tied;
    nexts.assign(tied.getResults().take_back(nexts.size()).begin(),
                 tied.getResults().take_back(nexts.size()).end());

    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                  return nexts;
                });
    scf::ForOp newLoop = cast<scf::ForOp>(replaced->getOperation());
    ValueRange carried = newLoop.getRegionIterArgs().take_back(nexts.size());
    for (auto [operand, arg] : llvm::zip(operands, carried))
      operand.replaceAllUsesWith(arg);
    for (Operation *op : llvm::reverse(slice))
      if (op->use_empty())
        rewriter.eraseOp(op);
    return newLoop;
  }

private:
  /// Whether `value` can be computed before the chain's wait from the
  /// iteration's own values: defined before it, or by pure ops that are.
  bool isMovable(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body || def->isBeforeInBlock(wait))
      return true;
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return false;
    return llvm::all_of(def->getOperands(),
                        [&](Value v) { return isMovable(v); });
  }

  /// `value` at the insertion point, cloning the pure ops after it that
  /// compute it (a stage index's wrap-around, computed after the wait).
  Value materialize(Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body || def->isBeforeInBlock(wait))
      return value;
    IRMapping mapping;
    for (Value operand : def->getOperands())
      mapping.map(operand, materialize(operand));
    return rewriter.clone(*def, mapping)
        ->getResult(cast<OpResult>(value).getResultNumber());
  }

  /// Whether the iteration at `iv` runs.
  Value inRange(Value iv) {
    return isBefore(rewriter, loop, iv, loop.getUpperBound());
  }

  /// Clones the slice with `mapping`, masking its global loads by `valid`;
  /// returns the operands' clones.
  SmallVector<Value> cloneSlice(IRMapping &mapping, Value valid) {
    for (Operation *op : slice) {
      auto load = dyn_cast<LoadOp>(op);
      if (!load) {
        rewriter.clone(*op, mapping);
        continue;
      }
      Value mask = valid;
      if (auto tensor = dyn_cast<RankedTensorType>(load.getPtr().getType()))
        mask = SplatOp::create(rewriter, load.getLoc(),
                               tensor.clone(rewriter.getI1Type()), valid);
      if (Value old = load.getMask())
        mask = arith::AndIOp::create(rewriter, load.getLoc(),
                                     mapping.lookupOrDefault(old), mask);
      auto clone = cast<LoadOp>(rewriter.clone(*op, mapping));
      rewriter.modifyOpInPlace(clone,
                               [&] { clone.getMaskMutable().assign(mask); });
    }
    SmallVector<Value> values;
    for (Value operand : operands)
      values.push_back(mapping.lookup(operand));
    return values;
  }

  scf::ForOp loop;
  Block *body;
  const LoopPlan &plan;
  RewriterBase &rewriter;
  WarpGroupDotWaitOp wait;
  AsyncWaitOp topWait;
  /// The dots' register A operands, and the body ops computing them.
  SmallVector<Value> operands;
  SmallVector<Operation *> slice;
  /// The iter args the slice reads.
  SmallVector<BlockArgument> args;
};

} // namespace

scf::ForOp pipeliner::prefetchRegisterOperands(scf::ForOp loop,
                                               const LoopPlan &plan,
                                               int distance,
                                               RewriterBase &rewriter) {
  if (!plan.chained || !plan.chainReadsRegisters || distance < 2 ||
      plan.hasTMA())
    return loop;
  // A product narrower than a wgmma of 64 columns (decode: 16 activation
  // rows become the MMA's N) spends far less time in MMAs than in making
  // its operands: there is nothing to overlap, and moving the operands
  // early only shortens the copies' lead (measured on the H100: the M=16
  // int4 kernels lost 10-20%).
  WarpGroupDotOp last = plan.asyncDots.back().dot;
  auto result = cast<RankedTensorType>(last.getType());
  if (result.getShape().back() < kMinPrefetchColumns)
    return loop;
  RegisterOperandPrefetcher prefetcher(loop, plan, rewriter);
  if (!prefetcher.match())
    return loop;
  return prefetcher.rewrite();
}
