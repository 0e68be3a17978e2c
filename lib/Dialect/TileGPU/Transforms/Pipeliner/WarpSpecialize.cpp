//===- WarpSpecialize.cpp - A producer warpgroup issues a loop's copies ---===//
//
// `tl.range(..., warp_specialize=True)` marks a loop with
// `tile.warp_specialize`. When every operand the loop stages arrives by
// TMA, the loop sits in the kernel's entry block (the consumers' region
// takes the whole body) and the copies' coordinates are scalars that pure
// ops compute from the kernel's arguments, the kernel body becomes the
// consumers of a tilegpu.warp_specialize whose producer warpgroup runs the
// copies in a loop of its own:
//
//   full[s]:  armed by the producer's expect, paid off by the copies; the
//             consumers wait for it where the loop's loads were.
//   empty[s]: one arrival per consumer thread once the dots that read
//             buffer s are retired; the producer waits for it before
//             refilling s (its first round passes: parity 1).
//
// No CTA barrier is left in the loop: the consumer warpgroups drift apart,
// one's softmax running under the other's dots. A producer refills a buffer
// only once the consumers release it, so `num_stages` buffers serve carried
// dots too. Loops that do not qualify are left to tilegpu-pipeline.
//
// A persistent kernel's loop sits in a tile loop at the top of the kernel
// instead: both roles then run that tile loop and carry their buffer index
// and parity from one tile to the next, so the producer fills the next
// tile's buffers during this tile's epilogue.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "tile/Dialect/TileGPU/Transforms/PipelineSchedule.h"

#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUWARPSPECIALIZE
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// Whether values of `type` are scalars a producer thread can compute.
bool isScalar(Type type) { return !isa<RankedTensorType, MemDescType>(type); }

class WarpSpecializer : public MultiBufferRewriter {
public:
  WarpSpecializer(scf::ForOp loop, LoopPlan plan, int numStages)
      : MultiBufferRewriter(loop, std::move(plan), numStages, numStages - 1) {}

  /// Whether the loop can get a producer: every staged load is a TMA copy,
  /// the loop sits at the top of the kernel (the consumers' region takes
  /// the whole body), and the copies' coordinates are scalars computable
  /// from the kernel's arguments by pure ops. Records those ops.
  bool canWarpSpecialize() {
    if (plan.hasCpAsync())
      return false;
    // A persistent kernel's tile loop around the loop: the producer runs the
    // same tile loop around its copies.
    if (auto around = dyn_cast<scf::ForOp>(loop->getParentOp()))
      if (isa<FunctionOpInterface>(around->getParentOp()))
        outer = around;
    // One loop a tile: a second (the diagonal blocks of a causal attention,
    // say) would run in the consumers with no producer, a case no test has
    // covered yet.
    if (outer && outer
                     ->walk([&](scf::ForOp other) {
                       return other == outer || other == loop ||
                                      loop->isAncestor(other)
                                  ? WalkResult::advance()
                                  : WalkResult::interrupt();
                     })
                     .wasInterrupted())
      return false;
    auto function = dyn_cast<FunctionOpInterface>(
        (outer ? outer.getOperation() : loop.getOperation())->getParentOp());
    kernel = function;
    if (!function || !function.getResultTypes().empty() ||
        TileGPUDialect::getNumWarps(loop) % 4 != 0)
      return false;
    if (function->walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return false;
    for (Operation *op : plan.addressOps)
      if (!llvm::all_of(op->getResultTypes(), isScalar))
        return false;
    // What the producer needs from before the loop.
    SmallVector<Value> worklist{loop.getLowerBound(), loop.getUpperBound(),
                                loop.getStep()};
    if (outer)
      llvm::append_range(worklist,
                         ValueRange{outer.getLowerBound(),
                                    outer.getUpperBound(), outer.getStep()});
    for (unsigned index : plan.shiftedArgs)
      worklist.push_back(loop.getInitArgs()[index]);
    for (Operation *op : plan.addressOps)
      llvm::append_range(worklist, op->getOperands());
    for (StagedLoad &staged : plan.loads) {
      auto load = cast<DescriptorLoadOp>(staged.load);
      worklist.push_back(load.getDesc());
      llvm::append_range(worklist, load.getIndices());
    }
    llvm::SmallPtrSet<Operation *, 16> needed;
    if (!addProducerInputs(worklist, needed))
      return false;
    findWrites(needed);
    // Loads before the loop that are its iteration -1 go through the first
    // buffer when the producer can compute their coordinates too.
    for (PrologueLoad &prologue :
         outer ? SmallVector<PrologueLoad>() : findPrologueLoads(loop, plan)) {
      SmallVector<Value> inputs(prologue.load.getIndices());
      llvm::SmallPtrSet<Operation *, 16> extended = needed;
      if (!addProducerInputs(inputs, extended))
        continue;
      needed = std::move(extended);
      prologueLoads.push_back(prologue);
    }
    Block &entry = function.getFunctionBody().front();
    for (Operation &op : entry)
      if (needed.contains(&op))
        producerPrologue.push_back(&op);
    if (outer)
      for (Operation &op : *outer.getBody())
        if (needed.contains(&op))
          tilePrologue.push_back(&op);
    return true;
  }

  /// The kernel body becomes the consumers of a warp_specialize whose
  /// producer runs the loop's copies on its own (see the file banner).
  void run() {
    Location loc = loop.getLoc();
    FunctionOpInterface function = kernel;
    Block &entry = function.getFunctionBody().front();
    int consumerThreads =
        TileGPUDialect::getNumWarps(loop) * TileGPUDialect::kThreadsPerWarp;
    rewriter.setInsertionPointToStart(&entry);
    createBuffers();
    barriers = createBarrierArray();
    InitBarrierOp::create(rewriter, loc, barriers, 1);
    Value empty = createBarrierArray();
    InitBarrierOp::create(rewriter, loc, empty, consumerThreads);
    std::optional<WriterWarp> writer;
    if (!writes.empty())
      writer.emplace(rewriter, loc, writes, writeBuffers, consumerThreads);
    // The producer keeps the 24 registers setmaxnreg allows at least (its
    // loop needs a dozen); the consumers share the rest of the 64K, at most
    // 256 each (FlashAttention-3's budgets with two consumer warpgroups).
    int producerWarps = 4, producerRegisters = 24;
    int consumerRegisters =
        std::min<int>(256, (65536 - producerRegisters * producerWarps *
                                        TileGPUDialect::kThreadsPerWarp) /
                               consumerThreads / 8 * 8);
    auto specialize = WarpSpecializeOp::create(
        rewriter, loc, producerWarps, producerRegisters, consumerRegisters);
    rewriter.createBlock(&specialize.getProducer());
    auto producerEnd = WarpYieldOp::create(rewriter, loc);
    rewriter.createBlock(&specialize.getConsumers());
    auto consumersEnd = WarpYieldOp::create(rewriter, loc);
    if (writer) {
      rewriter.createBlock(&specialize.getWriter());
      WarpYieldOp::create(rewriter, loc);
    }
    Operation *terminator = entry.getTerminator();
    for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
             std::next(specialize->getIterator()), terminator->getIterator())))
      op.moveBefore(consumersEnd);
    rewriter.setInsertionPoint(terminator);
    LocalDeallocOp::create(rewriter, loc, empty);
    LocalDeallocOp::create(rewriter, loc, barriers);
    // The writer reads its buffers until its last copy: they live through
    // the whole warp_specialize.
    if (writer)
      writer->deallocate(rewriter, loc);
    auto module = function->getParentOfType<ModuleOp>();
    module->setAttr(TileGPUDialect::getExtraWarpsAttrName(),
                    rewriter.getI32IntegerAttr(producerWarps));

    rewriter.setInsertionPoint(producerEnd);
    emitProducer(empty);
    if (writer) {
      rewriter.setInsertionPoint(
          specialize.getWriter().front().getTerminator());
      IRMapping kernelScalars = cloneProducerPrologue();
      writer->emitWriter(rewriter, loop, kernelScalars);
    }

    // The consumers: the loads before the loop read buffer 0 once its
    // copies land (the first phase of its full barrier), then the loop,
    // waiting for full buffers and releasing them.
    Type i32 = rewriter.getI32Type();
    for (PrologueLoad &prologue : prologueLoads) {
      rewriter.setInsertionPoint(prologue.alloc);
      Value first = constant(0, i32);
      WaitBarrierOp::create(rewriter, loc, barrierOf(first), first);
      Value view =
          MemDescIndexOp::create(rewriter, loc, prologue.alloc.getType(),
                                 buffers[prologue.staged], first);
      rewriter.replaceOp(prologue.alloc, view);
      rewriter.eraseOp(prologue.load);
    }
    firstReadStage = prologueLoads.empty() ? 0 : 1;
    rewriter.setInsertionPoint(loop);
    addStageIndices(/*fills=*/false);
    if (outer)
      carryStagesAcrossTiles();
    Block *body = loop.getBody();
    rewriter.setInsertionPointToStart(body);
    WaitBarrierOp::create(rewriter, loc, barrierOf(readStage), phase);
    replaceStagedLoads();
    waitForAsyncDots(loop, plan, rewriter);
    rewriter.setInsertionPointAfter(previousDotsRetired(loop));
    Value previous = previousIndex(rewriter, loc, readStage);
    // Iteration 0 has no previous buffer to release, unless the loads
    // before the loop filled buffer 0 (their dots finished before it).
    Value release = prologueLoads.empty()
                        ? arith::CmpIOp::create(
                              rewriter, loc, arith::CmpIPredicate::ne,
                              loop.getInductionVar(), loop.getLowerBound())
                              .getResult()
                        : constant(1, rewriter.getI1Type());
    ArriveBarrierOp::create(rewriter, loc, barrierIn(empty, previous), release);
    eraseDeadAddressOps();
    waitForCarriedDotsAfterLoop(loop, plan, rewriter);
    if (outer) {
      // The tile's last buffer, whose dots the wait after the loop retired
      // (none when the loop ran no iteration), goes back to the producer
      // before the next tile; the buffers live through the tile loop.
      auto yield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
      Value last = previousIndex(rewriter, loc,
                                 yield.getOperand(yield.getNumOperands() - 2));
      Value ran =
          isBefore(rewriter, loop, loop.getLowerBound(), loop.getUpperBound());
      ArriveBarrierOp::create(rewriter, loc, barrierIn(empty, last), ran);
      rewriter.setInsertionPointAfter(outer);
    }
    // Every copy has landed once the last full buffer was waited for.
    for (Value buffer : buffers)
      LocalDeallocOp::create(rewriter, loc, buffer);
    if (writer)
      writer->rewriteConsumers(rewriter, loop);
  }

  /// The producer's loop at the builder's insertion point: the prologue's
  /// scalars cloned, then per iteration wait for an empty buffer, arm its
  /// full barrier and start its copies.
  void emitProducer(Value empty) {
    Location loc = loop.getLoc();
    IRMapping kernelScalars = cloneProducerPrologue();
    Type i32 = rewriter.getI32Type();
    // The loads before the loop take buffer 0 in its first round (whose
    // empty barrier needs no wait) with a barrier expecting their bytes
    // only; the loop's copies start at buffer 1.
    if (!prologueLoads.empty()) {
      Value first = constant(0, i32);
      int64_t bytes = 0;
      for (PrologueLoad &prologue : prologueLoads)
        bytes += bufferBytes(prologue.alloc.getType());
      Value always = constant(1, rewriter.getI1Type());
      BarrierExpectOp::create(rewriter, loc, barrierOf(first), bytes, always);
      for (PrologueLoad &prologue : prologueLoads) {
        SmallVector<Value> indices;
        for (Value index : prologue.load.getIndices())
          indices.push_back(kernelScalars.lookupOrDefault(index));
        Value view =
            MemDescIndexOp::create(rewriter, loc, prologue.alloc.getType(),
                                   buffers[prologue.staged], first);
        AsyncTMACopyGlobalToLocalOp::create(
            rewriter, loc,
            kernelScalars.lookupOrDefault(prologue.load.getDesc()), indices,
            view, barrierOf(first), always);
      }
    }
    Value stage = constant(prologueLoads.empty() ? 0 : 1, i32);
    Value parity = constant(0, i32);
    if (!outer) {
      emitCopyLoop(kernelScalars, stage, parity, empty);
      return;
    }
    // A persistent kernel: the same tile loop, carrying the stage and
    // parity from one tile's copies to the next's.
    scf::ForOp::create(
        rewriter, loc, kernelScalars.lookupOrDefault(outer.getLowerBound()),
        kernelScalars.lookupOrDefault(outer.getUpperBound()),
        kernelScalars.lookupOrDefault(outer.getStep()),
        ValueRange{stage, parity},
        [&](OpBuilder &, Location, Value iv, ValueRange args) {
          IRMapping tileScalars = kernelScalars;
          tileScalars.map(outer.getInductionVar(), iv);
          for (Operation *op : tilePrologue)
            rewriter.clone(*op, tileScalars);
          scf::ForOp copies =
              emitCopyLoop(tileScalars, args[0], args[1], empty);
          unsigned n = copies.getNumResults();
          scf::YieldOp::create(
              rewriter, loc,
              ValueRange{copies.getResult(n - 2), copies.getResult(n - 1)});
        });
  }

  /// The producer's copy loop: per iteration wait for an empty buffer, arm
  /// its full barrier and start its copies, from buffer `stage` at
  /// `parity`; its last two results are the next stage and parity.
  scf::ForOp emitCopyLoop(IRMapping &scalars, Value firstStage,
                          Value firstParity, Value empty) {
    Location loc = loop.getLoc();
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> inits;
    for (unsigned index : plan.shiftedArgs)
      inits.push_back(scalars.lookupOrDefault(loop.getInitArgs()[index]));
    inits.push_back(firstStage);
    inits.push_back(firstParity);
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    return scf::ForOp::create(
        rewriter, loc, scalars.lookupOrDefault(loop.getLowerBound()),
        scalars.lookupOrDefault(loop.getUpperBound()),
        scalars.lookupOrDefault(loop.getStep()), inits,
        [&](OpBuilder &, Location, Value iv, ValueRange args) {
          IRMapping mapping = scalars;
          mapping.map(loop.getInductionVar(), iv);
          for (auto [index, arg] : llvm::zip(plan.shiftedArgs, args))
            mapping.map(loop.getRegionIterArg(index), arg);
          Value stage = args[plan.shiftedArgs.size()];
          Value parity = args[plan.shiftedArgs.size() + 1];
          Value emptyParity =
              arith::XOrIOp::create(rewriter, loc, parity, constant(1, i32));
          WaitBarrierOp::create(rewriter, loc, barrierIn(empty, stage),
                                emptyParity);
          // Every iteration of the producer's own loop is in range.
          emitCopies(mapping, iv, stage, constant(1, rewriter.getI1Type()));
          SmallVector<Value> yields;
          for (unsigned index : plan.shiftedArgs)
            yields.push_back(mapping.lookupOrDefault(yield.getOperand(index)));
          yields.push_back(nextIndex(rewriter, loc, stage));
          yields.push_back(nextParity(rewriter, loc, stage, parity));
          scf::YieldOp::create(rewriter, loc, yields);
        });
  }

private:
  /// The kernel's scalars the copies need, cloned at the builder's point
  /// (each side of the warp_specialize computes its own).
  IRMapping cloneProducerPrologue() {
    IRMapping kernelScalars;
    for (Operation *op : producerPrologue)
      rewriter.clone(*op, kernelScalars);
    return kernelScalars;
  }

  /// The TMA writes of the loop's body that the writer warp can take, and
  /// as many buffers for each (two, else one) as shared memory has room
  /// for; adds the ops before the loop they need to `needed`. Writes in a
  /// persistent kernel's loop stay with the consumers.
  void findWrites(llvm::SmallPtrSet<Operation *, 16> &needed) {
    if (outer)
      return;
    SmallVector<Value> inputs;
    SmallVector<HandedOffWrite> found = findHandedOffWrites(loop, inputs);
    if (found.empty())
      return;
    llvm::SmallPtrSet<Operation *, 16> extended = needed;
    if (!addProducerInputs(inputs, extended))
      return;
    int64_t perBuffer = 0;
    for (const HandedOffWrite &write : found)
      perBuffer += writeBufferBytes(write);
    // Two more mbarriers per buffer beside the loop's buffers and the
    // kernel's others.
    int64_t used =
        numBuffers * stageBytes(plan) + otherBufferBytesDuring(loop, plan) + 64;
    int64_t room = PipelineBudget().maxShared - used;
    writeBuffers = room >= 2 * (perBuffer + 16) ? 2
                   : room >= perBuffer + 16     ? 1
                                                : 0;
    if (writeBuffers == 0)
      return;
    needed = std::move(extended);
    writes = std::move(found);
  }

  /// The consumers' read index and phase go on from tile to tile: the
  /// outer loop carries them into each run of the loop and back out.
  void carryStagesAcrossTiles() {
    unsigned results = loop.getNumResults();
    Type i32 = rewriter.getI32Type();
    rewriter.setInsertionPoint(outer);
    SmallVector<Value> inits{constant(firstReadStage, i32), constant(0, i32)};
    scf::ForOp inner = loop;
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(outer.getOperation())
            .replaceWithAdditionalYields(
                rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                  return SmallVector<Value>{inner.getResult(results - 2),
                                            inner.getResult(results - 1)};
                });
    outer = cast<scf::ForOp>(replaced->getOperation());
    unsigned args = outer.getRegionIterArgs().size();
    unsigned numInits = loop.getInitArgs().size();
    loop.getInitArgsMutable()[numInits - 2].assign(
        outer.getRegionIterArg(args - 2));
    loop.getInitArgsMutable()[numInits - 1].assign(
        outer.getRegionIterArg(args - 1));
  }

  /// Adds to `needed` the ops before the loop that compute `worklist`'s
  /// values; fails unless all are pure scalar ops of the loop's block.
  bool addProducerInputs(SmallVector<Value> &worklist,
                         llvm::SmallPtrSet<Operation *, 16> &needed) {
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      Operation *def = value.getDefiningOp();
      // The outer loop's carried values change as its tiles go by; the
      // producer follows its induction variable only.
      if (auto arg = dyn_cast<BlockArgument>(value))
        if (outer && arg.getOwner() == outer.getBody() &&
            arg != outer.getInductionVar())
          return false;
      if (!def || loop->isAncestor(def) || !needed.insert(def).second)
        continue;
      Block *home = def->getBlock();
      bool entryBlock = isa<FunctionOpInterface>(home->getParentOp());
      if ((!entryBlock && !(outer && home == outer.getBody())) ||
          (outer && outer->isAncestor(def) && !def->isBeforeInBlock(loop)) ||
          def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
          !llvm::all_of(def->getResultTypes(), isScalar))
        return false;
      llvm::append_range(worklist, def->getOperands());
    }
    return true;
  }

  /// Loads before the loop that the producer copies into buffer 0 ahead of
  /// the loop's own (PrologueLoads.cpp).
  SmallVector<PrologueLoad> prologueLoads;
  /// Ops of the kernel's entry block that the producer's copies need (pure
  /// scalars).
  SmallVector<Operation *> producerPrologue;
  /// With an outer loop: the ops of its body before the loop that they
  /// need (a tile's coordinates).
  SmallVector<Operation *> tilePrologue;
  /// The persistent tile loop around the loop, if any.
  scf::ForOp outer;
  /// The kernel whose body the consumers take.
  FunctionOpInterface kernel;
  /// The loop's TMA writes that the writer warp issues, from
  /// `writeBuffers` buffers each.
  SmallVector<HandedOffWrite> writes;
  int64_t writeBuffers = 0;
};

struct WarpSpecializePass
    : tilegpu::impl::TileGPUWarpSpecializeBase<WarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(module)) ||
        failed(checkNumStages(module, numStages)))
      return signalPassFailure();
    struct Candidate {
      scf::ForOp loop;
      int stages;
      Operation *function;
    };
    SmallVector<Candidate> loops;
    // A device function (a `noinline` @jit function) called in the loop
    // would number its threads from the CTA's first, not the consumers'.
    auto callsAFunction = [](scf::ForOp loop) {
      return loop->walk([](func::CallOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
    };
    // Triton's persistent kernels mark the tile loop; its copies are in the
    // loop it runs for each tile, which then takes the mark (the consumers'
    // turns follow it).
    StringRef mark = TileDialect::getWarpSpecializeAttrName();
    for (auto [loop, stages] : loopsToPipeline(module, numStages)) {
      if (TileDialect::asksForWarpSpecialization(loop) && !callsAFunction(loop))
        loops.push_back(
            {loop, stages, loop->getParentOfType<FunctionOpInterface>()});
    }
    if (loops.empty())
      return;
    AxisInfoAnalysis axisInfo(module);
    // A function has one producer; specialising rewrites the loops around
    // the specialised one, so its other candidates are not looked at again.
    llvm::SmallPtrSet<Operation *, 4> specialized;
    for (auto [loop, stages, function] : loops) {
      if (specialized.contains(function))
        continue;
      std::optional<LoopPlan> plan = planLoop(loop, axisInfo);
      if (!plan)
        continue;
      if (failed(
              checkBuffersFit(loop, *plan, stages, PipelineBudget().maxShared)))
        return signalPassFailure();
      std::optional<WarpSpecializer> specializer;
      specializer.emplace(loop, *plan, stages);
      if (!specializer->canWarpSpecialize())
        continue;
      // The consumers' register budget lets their products start early
      // (DotIssueOrder.cpp); which dots run async depends on the order.
      // Moving dots changes neither the loads nor their coordinates, so the
      // loop still qualifies; were it not to, the reordered body is still
      // correct for tilegpu-pipeline.
      if (issueDotsWhenReady(loop)) {
        plan = planLoop(loop, axisInfo);
        if (!plan)
          continue;
        specializer.emplace(loop, std::move(*plan), stages);
        if (!specializer->canWarpSpecialize())
          continue;
      }
      if (!loop->hasAttr(mark))
        loop->setAttr(mark, UnitAttr::get(loop.getContext()));
      specializer->run();
      specialized.insert(function);
    }
  }
};

} // namespace
