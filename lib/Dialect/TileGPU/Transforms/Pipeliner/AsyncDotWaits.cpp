//===- AsyncDotWaits.cpp - Where each async dot of a pipelined loop waits -===//
//
// A warpgroup_dot made async is waited for (tilegpu.warpgroup_dot_wait)
// just before its result is first read, with the async dots issued in
// between left pending: wgmma groups retire in order. A K loop's chain of
// dots on one accumulator (usually a single dot) keeps one iteration's
// MMAs in flight behind the next; a dot whose result
// is only carried is waited for where the next iteration first reads it,
// and once more after the loop.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/CastInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// Where the body makes the registers that the next iteration's `dot`
/// reads as its A operand: the start of the chain of layout conversions
/// and narrowing casts that ends in the yielded value (an fp32 tile cast
/// to fp16, say). The in-flight dot still reads the current ones, so
/// retiring it there keeps the two sets from being live together (32
/// registers per thread for a 64x128 fp16 operand).
Operation *nextOperandBirth(WarpGroupDotOp dot, scf::ForOp loop) {
  BlockArgument carried = carriedRegisterOperand(dot, loop);
  if (!carried)
    return nullptr;
  Value next =
      loop.getBody()->getTerminator()->getOperand(carried.getArgNumber() - 1);
  Operation *birth = nullptr;
  while (Operation *def = next.getDefiningOp()) {
    if (def->getBlock() != loop.getBody() || def->getNumOperands() != 1)
      break;
    auto from = dyn_cast<RankedTensorType>(def->getOperand(0).getType());
    auto to = dyn_cast<RankedTensorType>(next.getType());
    bool narrowing =
        isa<CastOpInterface>(def) && from && to &&
        to.getElementTypeBitWidth() < from.getElementTypeBitWidth();
    if (!isa<ConvertLayoutOp>(def) && !narrowing)
      break;
    birth = def;
    next = def->getOperand(0);
  }
  return birth;
}

/// The waits of one loop's async dots.
class DotWaits {
public:
  DotWaits(scf::ForOp loop, const LoopPlan &plan, RewriterBase &rewriter)
      : loop(loop), plan(plan), rewriter(rewriter) {}

  /// Waits for each async dot where needed.
  void waitForAsyncDots() {
    Location loc = loop.getLoc();
    if (plan.chained) {
      // Keep one iteration's MMAs in flight: the previous iteration's have
      // finished reading their buffers once this one's are issued and
      // waited down to their number.
      WarpGroupDotOp dot = plan.asyncDots.back().dot;
      rewriter.setInsertionPointAfter(dot);
      SmallVector<Value> inputs{dot.getD()};
      int32_t pendings = plan.asyncDots.size();
      if (plan.chainReadsRegisters) {
        // Everything retires here; the register operands pass through so
        // that nothing overwrites them while an MMA still reads them.
        pendings = 0;
        for (const AsyncDot &async : plan.asyncDots) {
          WarpGroupDotOp chained = async.dot;
          if (isa<RankedTensorType>(chained.getA().getType()))
            inputs.push_back(chained.getA());
        }
      }
      auto wait = WarpGroupDotWaitOp::create(rewriter, loc, inputs, pendings);
      dot.getD().replaceAllUsesExcept(wait.getResult(0), wait);
    } else {
      for (size_t k = 0; k < plan.asyncDots.size(); ++k)
        waitBeforeFirstRead(k);
    }
  }

  /// The carried results of the async dots are complete after a wait,
  /// with the loop inside `if (lower < upper)` and the wait behind it: the
  /// path that skips the loop then never reaches the wait.
  /// A wait that path also reached (it carries the initial accumulator,
  /// set by ordinary moves) would put those moves inside the deferred
  /// MMA's pipeline stage for ptxas, which then serialises every wgmma.
  void waitAfterGuardedLoop() {
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    Value ran =
        isBefore(rewriter, loop, loop.getLowerBound(), loop.getUpperBound());
    auto guard = scf::IfOp::create(rewriter, loc, loop.getResultTypes(), ran,
                                   /*withElse=*/true);
    loop->replaceAllUsesWith(guard.getResults());
    rewriter.setInsertionPointToStart(guard.elseBlock());
    // The skipping path passes the initial accumulators through a wait of
    // its own (nothing is in flight there, so it retires at once): LLVM
    // then cannot see constants merge with the loop's results, which it
    // would answer by splitting the epilogue into both paths (scalar
    // conversions where the one path had paired them).
    yieldAfterWait(loop.getInitArgs());
    rewriter.setInsertionPointToStart(guard.thenBlock());
    loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
    rewriter.setInsertionPointAfter(loop);
    yieldAfterWait(loop.getResults());
    rewriter.setInsertionPointAfter(guard);
  }

  /// Yields `values` (the loop's results or initial values) with the
  /// async dots' carried accumulators among them passed through one wait.
  void yieldAfterWait(ValueRange values) {
    SmallVector<Value> yielded(values);
    SmallVector<unsigned> indices;
    SmallVector<Value> carried;
    for (const AsyncDot &async : plan.asyncDots)
      if (async.carriedIndex) {
        indices.push_back(*async.carriedIndex);
        carried.push_back(yielded[*async.carriedIndex]);
      }
    auto wait = WarpGroupDotWaitOp::create(rewriter, loop.getLoc(), carried,
                                           /*pendings=*/0);
    for (auto [index, done] : llvm::zip(indices, wait.getResults()))
      yielded[index] = done;
    scf::YieldOp::create(rewriter, loop.getLoc(), yielded);
  }

  /// Waits for async dot `k` just before its result is first read: in
  /// this iteration, or in the next for a carried result (the extra buffer
  /// keeps its operands intact until then). wgmma groups complete in
  /// order, so the async dots issued between the two may stay pending.
  void waitBeforeFirstRead(size_t k) {
    Block *body = loop.getBody();
    const AsyncDot &async = plan.asyncDots[k];
    WarpGroupDotOp dot = async.dot;
    Value read = async.carriedIndex
                     ? Value(loop.getRegionIterArg(*async.carriedIndex))
                     : dot.getD();
    Operation *first = firstReaderIn(body, read);
    if (!first)
      return;
    if (Operation *birth = nextOperandBirth(dot, loop))
      if (!async.carriedIndex && dot->isBeforeInBlock(birth) &&
          birth->isBeforeInBlock(first))
        first = birth;
    // A carried dot is still reading when the next iteration rewrites the
    // buffers it takes from registers (matchAsyncDots keeps such rewrites
    // before the dot).
    if (Operation *write = firstOperandWriteIn(body, dot))
      if (async.carriedIndex && write->isBeforeInBlock(first))
        first = write;
    int64_t pendings = 0;
    for (auto [i, other] : llvm::enumerate(plan.asyncDots)) {
      bool issuedAfter = i > k;
      bool issuedBeforeRead = other.dot->isBeforeInBlock(first);
      pendings += async.carriedIndex ? issuedAfter + issuedBeforeRead
                                     : issuedAfter && issuedBeforeRead;
    }
    rewriter.setInsertionPoint(first);
    auto wait = WarpGroupDotWaitOp::create(rewriter, loop.getLoc(),
                                           ValueRange{read}, pendings);
    read.replaceAllUsesExcept(wait.getResult(0), wait);
  }

private:
  scf::ForOp loop;
  const LoopPlan &plan;
  RewriterBase &rewriter;
};

} // namespace

void pipeliner::waitForAsyncDots(scf::ForOp loop, LoopPlan &plan,
                                 RewriterBase &rewriter) {
  for (AsyncDot &async : plan.asyncDots)
    async.dot.setIsAsync(true);
  DotWaits(loop, plan, rewriter).waitForAsyncDots();
}

void pipeliner::waitForCarriedDotsAfterLoop(scf::ForOp loop,
                                            const LoopPlan &plan,
                                            RewriterBase &rewriter) {
  rewriter.setInsertionPointAfter(loop);
  if (!plan.hasCarriedDot())
    return;
  DotWaits(loop, plan, rewriter).waitAfterGuardedLoop();
}

/// The first op of the body after which no dot of the previous iteration
/// is in flight: a synchronous dot (it waits for all), or a wait that
/// leaves pending no more dots than this iteration has issued.
Operation *pipeliner::previousDotsRetired(scf::ForOp loop) {
  int64_t issued = 0;
  for (Operation &op : *loop.getBody()) {
    if (auto dot = dyn_cast<WarpGroupDotOp>(op)) {
      if (!dot.getIsAsync())
        return dot;
      ++issued;
    } else if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op)) {
      if (wait.getPendings() <= issued)
        return wait;
    }
  }
  // Each carried dot has its wait in the body (matchAsyncDots).
  llvm_unreachable("no wait retires the previous iteration's dots");
}
