//===- Pipeline.cpp - Dot operands loaded several iterations ahead -------===//
//
// A loop whose body loads a tile from global memory only to stage it in
// shared memory for a warpgroup_dot spends most of each iteration waiting
// on that load. With S stages, the loads run S-1 iterations ahead instead:
//
//   buffers: one allocation of S copies per staged operand
//   prologue: cp.async for iterations 0 .. S-2 into copies 0 .. S-2,
//             one commit group per iteration
//   body (iteration i):
//     async_wait until iteration i's group has landed (S-2 still pending)
//     cp.async for iteration i+S-1 into the copy iteration i-1 used; commit
//     warpgroup_dot on copy i % S
//   after: async_wait 0, free the buffers
//
// The addresses of iteration i+S-1 come from the loop-carried values they
// depend on (typically the pointer tensors), which are shifted to run S-1
// iterations ahead: their initial values are advanced in the prologue and
// the body computes the next ones from the shifted values. That needs the
// carried values to be used by nothing but address arithmetic, and their
// final values to be unused. Copies past the loop's end are masked off
// (cp.async writes zeros there, as the masked load's zero `other` would).
// Barriers are left to tilegpu-insert-barriers.
//
// Tiles the same loop loads to use in registers (a packed weight it
// unpacks, a scale) are copied ahead the same way, into a row-major buffer
// that a local_load reads where the load was (stageRegisterLoads): left as
// plain loads, their latency stays in every iteration.
//
// Dots run async where something can overlap them (see
// LoopPlan::asyncDots, and AsyncDotWaits.cpp for their waits). How many
// buffers a loop gets is PipelineSchedule.h's policy; with late copies the
// body's copies start only once the previous iteration's dots are retired
// (after a barrier) instead of at the top of the body.
//
// This file is the tilegpu-pipeline pass and the in-loop rewrite; see
// Pipeliner.h for where the other pieces live. Loops that
// tilegpu-warp-specialize gave a producer have no staged loads left and are
// not matched again.
//

#include "Pipeliner.h"

#include "tile/Dialect/TileGPU/Transforms/Passes.h"
#include "tile/Dialect/TileGPU/Transforms/PipelineSchedule.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// The buffer schedule of `plan` at `numStages`.
PipelineSchedule scheduleFor(scf::ForOp loop, const LoopPlan &plan,
                             int numStages, int64_t maxShared,
                             int64_t sharedPerSM) {
  PipelineBudget budget;
  budget.numStages = numStages;
  budget.hasCarriedDot = plan.hasCarriedDotOnStagedBuffers();
  budget.maxShared = maxShared;
  budget.sharedPerSM = sharedPerSM;
  if (budget.hasCarriedDot) {
    budget.bytesPerStage = stageBytes(plan);
    budget.otherBytes = otherBufferBytes(loop, plan);
  }
  return choosePipelineSchedule(budget);
}

/// Copies run `distance` iterations ahead inside the loop: a prologue
/// starts the first ones, each iteration waits for its own and starts the
/// one `distance` iterations on.
class LoopPipeliner : public MultiBufferRewriter {
public:
  LoopPipeliner(scf::ForOp loop, LoopPlan plan, int numStages,
                const PipelineSchedule &schedule)
      : MultiBufferRewriter(loop, std::move(plan), schedule.numBuffers,
                            numStages - 1),
        lateCopies(schedule.lateCopies) {
    if (schedule.syncCarriedDots)
      this->plan.dropCarriedDots();
  }

  void run() {
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    createBuffers();
    if (plan.hasTMA()) {
      // One mbarrier per buffer, armed by each copy into it.
      barriers = createBarrierArray();
      InitBarrierOp::create(rewriter, loc, barriers, 1);
    }
    emitPrologue();
    addStageIndices(/*fills=*/true);
    rewriteBody();
    loop = prefetchRegisterOperands(loop, plan, distance, rewriter);
    waitForCarriedDotsAfterLoop(loop, plan, rewriter);
    if (plan.hasCpAsync())
      AsyncWaitOp::create(rewriter, loc, 0);
    if (plan.hasTMA()) {
      // Copies past the loop's end were never issued, so none is in
      // flight here.
      InvalBarrierOp::create(rewriter, loc, barriers);
      LocalDeallocOp::create(rewriter, loc, barriers);
    }
    for (Value buffer : buffers)
      LocalDeallocOp::create(rewriter, loc, buffer);
  }

private:
  /// The induction variable `iterations` steps after `iv`.
  Value ivAhead(Value iv, int64_t iterations) {
    Value offset =
        arith::MulIOp::create(rewriter, loop.getLoc(), loop.getStep(),
                              constant(iterations, loop.getStep().getType()));
    return arith::AddIOp::create(rewriter, loop.getLoc(), iv, offset);
  }

  void emitPrologue() {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<Value> current;
    for (unsigned index : plan.shiftedArgs)
      current.push_back(loop.getInitArgs()[index]);
    Type i32 = rewriter.getI32Type();
    for (int stage = 0; stage < distance; ++stage) {
      IRMapping mapping;
      Value iv = ivAhead(loop.getLowerBound(), stage);
      mapping.map(loop.getInductionVar(), iv);
      for (auto [index, value] : llvm::zip(plan.shiftedArgs, current))
        mapping.map(loop.getRegionIterArg(index), value);
      emitCopies(mapping, iv, constant(stage, i32));
      for (size_t i = 0; i < current.size(); ++i)
        current[i] =
            mapping.lookupOrDefault(yield.getOperand(plan.shiftedArgs[i]));
    }
    // With LoopPlan::duplicateArgs the loop keeps its own values; the body
    // recomputes the ones its copies need (rewriteBody).
    if (plan.duplicateArgs)
      return;
    for (size_t i = 0; i < current.size(); ++i)
      loop.getInitArgsMutable()[plan.shiftedArgs[i]].assign(current[i]);
  }

  /// Maps the shifted args (LoopPlan::duplicateArgs) to their values
  /// `distance` iterations on, computed in the body from this iteration's
  /// by stepping their next-value arithmetic that many times. Carrying
  /// run-ahead copies instead costs a second set of registers for every
  /// element of a tensor of pointers across the whole body (Lightning
  /// Attention's backward spilled 15% more), for one pointer add less.
  void mapValuesAhead(IRMapping &mapping) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    SmallVector<Value> current;
    for (unsigned index : plan.shiftedArgs)
      current.push_back(loop.getRegionIterArg(index));
    for (int step = 0; step < distance; ++step) {
      IRMapping next;
      next.map(loop.getInductionVar(), ivAhead(loop.getInductionVar(), step));
      for (auto [index, value] : llvm::zip(plan.shiftedArgs, current))
        next.map(loop.getRegionIterArg(index), value);
      for (Operation *op : plan.addressOps)
        rewriter.clone(*op, next);
      for (auto [i, index] : llvm::enumerate(plan.shiftedArgs))
        current[i] = next.lookupOrDefault(yield.getOperand(index));
    }
    for (auto [index, value] : llvm::zip(plan.shiftedArgs, current))
      mapping.map(loop.getRegionIterArg(index), value);
  }

  void rewriteBody() {
    Block *body = loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    Location loc = loop.getLoc();
    rewriter.setInsertionPointToStart(body);
    // This iteration's copies have landed (the barrier that follows makes
    // them every thread's). No proxy fence: cp.async data is read by wgmma
    // without one, as in Triton's fence insertion and CUTLASS's cp.async
    // GMMA mainloops; a fence here (MEMBAR.ALL.CTA in SASS) also waits for
    // the copies still in flight, which undoes the prefetch (64x64 attention
    // blocks: 405 -> 441 TFLOPS without it, H200).
    if (plan.hasCpAsync())
      AsyncWaitOp::create(rewriter, loc, distance - 1);
    if (plan.hasTMA())
      WaitBarrierOp::create(rewriter, loc, barrierOf(readStage), phase);
    // The top of the body now ends with a wait; the copies follow it.
    Operation *lastWait = &*std::prev(rewriter.getInsertionPoint());
    IRMapping mapping;
    Value iv = ivAhead(loop.getInductionVar(), distance);
    mapping.map(loop.getInductionVar(), iv);
    if (plan.duplicateArgs)
      mapValuesAhead(mapping);
    emitCopies(mapping, iv, fillStage);
    if (!plan.duplicateArgs)
      for (unsigned index : plan.shiftedArgs)
        yield->setOperand(index,
                          mapping.lookupOrDefault(yield.getOperand(index)));
    SmallVector<Operation *> copyOps;
    for (Operation *op = lastWait->getNextNode();
         op != &*rewriter.getInsertionPoint(); op = op->getNextNode())
      copyOps.push_back(op);

    replaceStagedLoads();
    waitForAsyncDots(loop, plan, rewriter);
    if (lateCopies) {
      // The buffer the copies fill was read by the previous iteration's
      // carried dots: start them once every warpgroup has waited for those.
      // (Right there or at the end of the body, as Triton does, measured
      // the same on attention.)
      rewriter.setInsertionPointAfter(previousDotsRetired(loop));
      Operation *barrier = BarrierOp::create(rewriter, loc);
      for (Operation *op : llvm::reverse(copyOps))
        op->moveAfter(barrier);
    }

    eraseDeadAddressOps();
  }

  /// Copies start where the previous iteration's dots have finished, not
  /// at the top of the body (S buffers for async dots that would need S+1).
  bool lateCopies;
};

struct PipelinePass : tilegpu::impl::TileGPUPipelineBase<PipelinePass> {
  using Base::Base;

  /// The loop's plan; without registerLoadsAhead, a loop with dot operands
  /// stages only those and one whose dots read only computed operands is
  /// left alone (a loop with none, pipelined because it asked, keeps its
  /// register loads: they are all it has to stage).
  std::optional<LoopPlan> planFor(scf::ForOp loop, int stages,
                                  const AxisInfoAnalysis &axisInfo) {
    std::optional<LoopPlan> plan =
        planLoop(loop, axisInfo, /*withRegisterLoads=*/true);
    if (!plan || plan->registerLoads.empty())
      return plan;
    if (plan->loads.empty()) {
      if (loop->hasAttr(TileDialect::getNumStagesAttrName()))
        return plan;
      // Loads that reach dots only through registers, in a loop too short
      // for its copies to run ahead of anything but its own start (all of
      // them issued before it, its own copies all past its end): Lightning
      // Attention's two-step inner loops measured 10% slower so (H200,
      // 2.78 vs 2.52 ms), their carried pointers spilling more.
      if (isShorterThanStages(loop, stages))
        return std::nullopt;
    }
    if (!registerLoadsAhead)
      return planLoop(loop, axisInfo, /*withRegisterLoads=*/false);
    getOperation()->setAttr(TileGPUDialect::getStagedRegisterLoadsAttrName(),
                            UnitAttr::get(&getContext()));
    return plan;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(module)) ||
        failed(checkNumStages(module, numStages)))
      return signalPassFailure();
    SmallVector<std::pair<scf::ForOp, int>> loops =
        loopsToPipeline(module, numStages);
    if (loops.empty())
      return;
    AxisInfoAnalysis axisInfo(module);
    for (auto [loop, stages] : loops)
      if (std::optional<LoopPlan> plan = planFor(loop, stages, axisInfo)) {
        stageRegisterLoads(*plan);
        PipelineSchedule schedule =
            scheduleFor(loop, *plan, stages, maxShared, sharedPerSM);
        // Against what a CTA can have at all, not `max-shared` (which
        // steers the schedule): these buffers could never be allocated.
        if (failed(checkBuffersFit(loop, *plan, schedule.numBuffers,
                                   PipelineBudget().maxShared)))
          return signalPassFailure();
        LoopPipeliner(loop, std::move(*plan), stages, schedule).run();
      }
  }
};

} // namespace
