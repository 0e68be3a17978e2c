//===- Pipeline.cpp - Multi-buffered async operand loads for dot loops ----===//
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
// Dots run async where something can overlap them (see
// LoopPlan::asyncDots). Those whose results are only carried to the next
// iteration keep reading their operands into it, so such loops get S+1
// buffers; where S+1 do not fit (or cost occupancy), S buffers, and the
// body's copies start only once the previous iteration's dots are retired
// (after a barrier) instead of at the top of the body.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/AxisInfo.h"
#include "tile/Analysis/SharedAccess.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// A global load (a tile.load, or a descriptor load copied by TMA) whose
/// only use fills a shared buffer that only dots read.
struct StagedLoad {
  Operation *load;
  LocalAllocOp alloc;
  /// Kept apart from `load`, which the rewrite erases while the pipeliner
  /// still asks this.
  bool tma = false;
  bool isTMA() const { return tma; }
};

int64_t bufferBytes(MemDescType type) {
  int64_t bytes = getSharedElementBytes(type.getElementType());
  for (int64_t dim : type.getShape())
    bytes *= dim;
  return bytes;
}

/// What pipelining one loop takes.
/// A warpgroup_dot of the loop body that runs asynchronously.
struct AsyncDot {
  WarpGroupDotOp dot;
  /// The iter arg the result goes back to, when that is its only use.
  std::optional<unsigned> carriedIndex;
};

struct LoopPlan {
  SmallVector<StagedLoad> loads;
  /// Body ops computing the loads' operands and the next values of the
  /// shifted iter args, in body order.
  SmallVector<Operation *> addressOps;
  /// Iter args that run ahead.
  SmallVector<unsigned> shiftedArgs;
  /// The body's dots, in body order, all run asynchronously. When the only
  /// dot takes its accumulator straight from the iter arg its result goes
  /// back to (a K loop, `chained`), one MMA stays in flight behind the
  /// next. Otherwise each is waited for where its result is first read:
  /// later in the same iteration (other dots issued in between keep the
  /// tensor cores busy meanwhile), or, for a result only carried to the
  /// next iteration, where that iteration first reads it, overlapping
  /// everything before that (attention's P*V, whose accumulator is
  /// rescaled first).
  SmallVector<AsyncDot> asyncDots;
  bool chained = false;

  bool hasCarriedDot() const {
    return llvm::any_of(asyncDots,
                        [](const AsyncDot &d) { return d.carriedIndex; });
  }
};

/// The op of `body` that first reads `value`, if any.
Operation *firstReaderIn(Block *body, Value value) {
  Operation *first = nullptr;
  for (Operation *user : value.getUsers()) {
    Operation *inBody = body->findAncestorOpInBlock(*user);
    if (inBody && (!first || inBody->isBeforeInBlock(first)))
      first = inBody;
  }
  return first;
}

/// The iter arg `dot` takes its A from when that is registers carried from
/// the previous iteration (through layout conversions), else null: the back
/// edge then rewrites them, which ptxas only allows once the dot has
/// finished (else it serialises every wgmma, C7514).
BlockArgument carriedRegisterOperand(WarpGroupDotOp dot, scf::ForOp loop) {
  Value a = dot.getA();
  while (auto convert = a.getDefiningOp<ConvertLayoutOp>())
    a = convert.getSrc();
  auto arg = dyn_cast<BlockArgument>(a);
  if (!isa<RankedTensorType>(a.getType()) || !arg ||
      arg.getOwner() != loop.getBody())
    return nullptr;
  return arg;
}

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

/// The warpgroup_dots of the body that can run async, into `plan`.
void matchAsyncDots(scf::ForOp loop, LoopPlan &plan) {
  Block *body = loop.getBody();
  auto dots = llvm::to_vector(body->getOps<WarpGroupDotOp>());
  for (WarpGroupDotOp dot : dots) {
    if (dot->use_empty())
      continue;
    bool onlyCarried =
        dot->hasOneUse() && isa<scf::YieldOp>(dot->use_begin()->getOwner());
    if (!onlyCarried || carriedRegisterOperand(dot, loop)) {
      // Waited for in this iteration (at the latest before the yield):
      // worth it when something can run before the result is read.
      if (dot->getNextNode() != firstReaderIn(body, dot.getD()))
        plan.asyncDots.push_back({dot, std::nullopt});
      continue;
    }
    unsigned index = dot->use_begin()->getOperandNumber();
    // Only the wait where the next iteration reads the result keeps the
    // dot's buffers from being refilled under it.
    if (loop.getRegionIterArg(index).use_empty())
      continue;
    plan.chained =
        dots.size() == 1 && dot.getC() == loop.getRegionIterArg(index);
    plan.asyncDots.push_back({dot, index});
  }
}

bool isZeroOrAbsent(Value other) {
  return !other || matchPattern(other, m_AnyZeroFloat()) ||
         matchPattern(other, m_Zero());
}

/// Whether each thread's pieces of `load` can be copied by cp.async (at
/// least 4 bytes at a time) into `buffer`.
bool copiesInWords(LoadOp load, MemDescType buffer,
                   const AxisInfoAnalysis &axisInfo) {
  auto tensor = dyn_cast<RankedTensorType>(load.getType());
  if (!tensor)
    return false;
  FailureOr<SharedAccessMap> map = composeAccessMap(tensor, buffer);
  if (failed(map))
    return false;
  unsigned vec =
      std::min(map->vec, vectorWidth(load.getPtr(), load.getMask(), axisInfo));
  return vec * getSharedElementBytes(tensor.getElementType()) >= 4;
}

/// The local_alloc in `body` that `load` only fills, when only dots in
/// `body` read it.
LocalAllocOp matchDotStaging(Operation *load, Block *body) {
  if (load->getBlock() != body || !load->hasOneUse())
    return {};
  auto alloc = dyn_cast<LocalAllocOp>(*load->user_begin());
  if (!alloc || alloc->getBlock() != body || alloc.getResult().use_empty())
    return {};
  auto readByDots = [&](Value buffer) {
    return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
      return isa<WarpGroupDotOp>(user) && user->getBlock() == body;
    });
  };
  // Dots may read it through a transposed view (attention's K^T).
  for (Operation *user : alloc->getUsers())
    if (auto trans = dyn_cast<MemDescTransOp>(user)) {
      if (trans->getBlock() != body || !readByDots(trans.getResult()))
        return {};
    } else if (!isa<WarpGroupDotOp>(user) || user->getBlock() != body) {
      return {};
    }
  return alloc;
}

std::optional<StagedLoad> matchStagedLoad(Operation *op, Block *body,
                                          const AxisInfoAnalysis &axisInfo) {
  if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
    // The TMA copy must be able to write the dot's buffer as it is.
    LocalAllocOp alloc = matchDotStaging(load, body);
    if (!alloc || !getTMASharedEncoding(load.getDesc().getType()) ||
        alloc.getType().getEncoding() !=
            getTMASharedEncoding(load.getDesc().getType()))
      return std::nullopt;
    if (Operation *def = load.getDesc().getDefiningOp())
      if (def->getBlock() == body)
        return std::nullopt;
    return StagedLoad{load, alloc, /*tma=*/true};
  }
  auto load = dyn_cast<LoadOp>(op);
  if (!load || load.getIsVolatile() || !isZeroOrAbsent(load.getOther()))
    return std::nullopt;
  LocalAllocOp alloc = matchDotStaging(load, body);
  if (!alloc || !copiesInWords(load, alloc.getType(), axisInfo))
    return std::nullopt;
  return StagedLoad{load, alloc};
}

/// Collects the body ops that `roots` depend on, and the iter args they
/// read, closing over the next values of those iter args. Fails when one
/// of them has side effects or regions.
LogicalResult collectAddressOps(scf::ForOp loop, LoopPlan &plan) {
  Block *body = loop.getBody();
  llvm::SmallPtrSet<Operation *, 32> ops;
  llvm::SmallSetVector<unsigned, 4> args;
  SmallVector<Value> worklist;
  for (StagedLoad &staged : plan.loads) {
    if (auto load = dyn_cast<LoadOp>(staged.load)) {
      worklist.push_back(load.getPtr());
      if (Value mask = load.getMask())
        worklist.push_back(mask);
    } else {
      llvm::append_range(worklist,
                         cast<DescriptorLoadOp>(staged.load).getIndices());
    }
  }
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != body || arg == loop.getInductionVar())
        continue;
      unsigned index = arg.getArgNumber() - 1;
      if (args.insert(index))
        worklist.push_back(yield.getOperand(index));
      continue;
    }
    Operation *op = value.getDefiningOp();
    if (op->getBlock() != body || !ops.insert(op).second)
      continue;
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return failure();
    llvm::append_range(worklist, op->getOperands());
  }
  for (Operation &op : *body)
    if (ops.contains(&op))
      plan.addressOps.push_back(&op);
  plan.shiftedArgs.assign(args.begin(), args.end());

  // The shifted values and everything computed from them must feed only
  // addresses, staged loads and the shifted args' next values.
  llvm::SmallPtrSet<Operation *, 8> loads;
  for (StagedLoad &staged : plan.loads)
    loads.insert(staged.load);
  llvm::SmallPtrSet<Value, 32> shifted;
  for (unsigned index : plan.shiftedArgs) {
    if (!loop.getResult(index).use_empty())
      return failure();
    shifted.insert(loop.getRegionIterArg(index));
  }
  for (Operation *op : plan.addressOps)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return shifted.contains(v); }))
      shifted.insert(op->getResults().begin(), op->getResults().end());
  for (Value value : shifted)
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (ops.contains(user) || loads.contains(user))
        continue;
      if (user == yield &&
          llvm::is_contained(plan.shiftedArgs, use.getOperandNumber()))
        continue;
      return failure();
    }
  return success();
}

std::optional<LoopPlan> planLoop(scf::ForOp loop,
                                 const AxisInfoAnalysis &axisInfo) {
  APInt step;
  if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
      !step.isStrictlyPositive())
    return std::nullopt;
  LoopPlan plan;
  for (Operation &op : *loop.getBody())
    if (auto staged = matchStagedLoad(&op, loop.getBody(), axisInfo))
      plan.loads.push_back(*staged);
  if (plan.loads.empty() || failed(collectAddressOps(loop, plan)))
    return std::nullopt;
  matchAsyncDots(loop, plan);
  return plan;
}

class LoopPipeliner {
public:
  /// Copies run `numStages - 1` iterations ahead. A synchronous dot has
  /// finished with its buffer when the next iteration starts, so
  /// `numStages` buffers suffice; a carried async dot still reads it during
  /// the next iteration, so it gets one buffer more. When that does not fit
  /// in `maxShared` bytes, or would leave one CTA per SM where `numStages`
  /// buffers leave two or more (a lone CTA has nobody to overlap its
  /// non-MMA work with: attention with 64-row blocks, for one), 3+ stages
  /// keep `numStages` buffers with late copies: each iteration's copies
  /// wait for the point where the previous iteration's dots are retired.
  LoopPipeliner(scf::ForOp loop, LoopPlan plan, int numStages,
                int64_t maxShared, int64_t sharedPerSM)
      : loop(loop), plan(std::move(plan)), numBuffers(numStages),
        distance(numStages - 1), rewriter(loop.getContext()) {
    // A producer refills a buffer only once the consumers release it, so
    // `numStages` buffers serve carried dots too.
    if (loop->hasAttr(TileDialect::getWarpSpecializeAttrName()) &&
        canWarpSpecialize())
      warpSpecialized = true;
    if (warpSpecialized || !this->plan.hasCarriedDot())
      return;
    int64_t perStage = 0;
    for (StagedLoad &staged : this->plan.loads)
      perStage += bufferBytes(staged.alloc.getType());
    int64_t others = otherBufferBytes();
    auto ctasPerSM = [&](int64_t buffers) {
      return sharedPerSM / (buffers * perStage + others + kReservedPerCTA);
    };
    bool extraFits = (numStages + 1) * perStage <= maxShared;
    bool extraCostsOccupancy = numStages >= 3 && ctasPerSM(numStages + 1) < 2 &&
                               ctasPerSM(numStages) >= 2;
    if (extraFits && !extraCostsOccupancy)
      numBuffers = numStages + 1;
    else if (numStages >= 3)
      lateCopies = true;
    else
      dropCarriedDots();
  }

  /// Makes the carried dots synchronous (their buffers would be refilled
  /// under them).
  void dropCarriedDots() {
    llvm::erase_if(plan.asyncDots,
                   [](const AsyncDot &d) { return d.carriedIndex; });
    plan.chained = false;
  }

  /// Bytes of the function's other shared buffers (operands staged once,
  /// like attention's Q): an estimate of what shares the SM with the
  /// pipeline's buffers (conversion scratch comes later and is not known).
  int64_t otherBufferBytes() {
    int64_t bytes = 0;
    auto func = loop->getParentOfType<FunctionOpInterface>();
    func->walk([&](LocalAllocOp alloc) {
      if (llvm::none_of(plan.loads, [&](const StagedLoad &staged) {
            return staged.alloc == alloc;
          }))
        bytes += bufferBytes(alloc.getType());
    });
    return bytes;
  }

  /// Shared memory the driver reserves per CTA on sm_80+.
  static constexpr int64_t kReservedPerCTA = 1024;

  void run() {
    if (warpSpecialized)
      return runWarpSpecialized();
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    createBuffers();
    if (hasTMA()) {
      // One mbarrier per buffer, armed by each copy into it.
      barriers = createBarrierArray();
      InitBarrierOp::create(rewriter, loc, barriers, 1);
    }
    emitPrologue();
    addStageIndices();
    rewriteBody();
    waitForCarriedDotsAfterLoop();
    if (hasCpAsync())
      AsyncWaitOp::create(rewriter, loc, 0);
    if (hasTMA()) {
      // Copies past the loop's end were never issued, so none is in
      // flight here.
      InvalBarrierOp::create(rewriter, loc, barriers);
      LocalDeallocOp::create(rewriter, loc, barriers);
    }
    for (Value buffer : buffers)
      LocalDeallocOp::create(rewriter, loc, buffer);
  }

private:
  void createBuffers() {
    for (StagedLoad &staged : plan.loads) {
      MemDescType single = staged.alloc.getType();
      SmallVector<int64_t> shape{numBuffers};
      llvm::append_range(shape, single.getShape());
      buffers.push_back(LocalAllocOp::create(
          rewriter, loop.getLoc(),
          MemDescType::get(loop.getContext(), shape, single.getElementType(),
                           single.getEncoding()),
          Value()));
    }
  }

  /// One mbarrier per buffer.
  Value createBarrierArray() {
    return LocalAllocOp::create(
        rewriter, loop.getLoc(),
        MemDescType::get(loop.getContext(), {numBuffers, 1},
                         rewriter.getI64Type(),
                         SharedEncodingAttr::get(loop.getContext(), {0})),
        Value());
  }

  //===--------------------------------------------------------------------===//
  // Warp specialisation: a producer warpgroup issues every copy
  //===--------------------------------------------------------------------===//

  /// Whether the loop can get a producer: every staged load is a TMA copy,
  /// the loop sits at the top of the kernel (the consumers' region takes
  /// the whole body), and the copies' coordinates are scalars computable
  /// from the kernel's arguments by pure ops. Records those ops.
  bool canWarpSpecialize() {
    if (!llvm::all_of(plan.loads,
                      [](const StagedLoad &l) { return l.isTMA(); }))
      return false;
    auto function = dyn_cast<FunctionOpInterface>(loop->getParentOp());
    if (!function || !function.getResultTypes().empty() ||
        TileGPUDialect::getNumWarps(loop) % 4 != 0)
      return false;
    if (function->walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return false;
    auto scalar = [](Type type) {
      return !isa<RankedTensorType, MemDescType>(type);
    };
    for (Operation *op : plan.addressOps)
      if (!llvm::all_of(op->getResultTypes(), scalar))
        return false;
    // What the producer needs from before the loop.
    SmallVector<Value> worklist{loop.getLowerBound(), loop.getUpperBound(),
                                loop.getStep()};
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
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      Operation *def = value.getDefiningOp();
      if (!def || loop->isAncestor(def) || !needed.insert(def).second)
        continue;
      if (def->getBlock() != loop->getBlock() || def->getNumRegions() != 0 ||
          !isMemoryEffectFree(def) ||
          !llvm::all_of(def->getResultTypes(), scalar))
        return false;
      llvm::append_range(worklist, def->getOperands());
    }
    for (Operation &op : *loop->getBlock())
      if (needed.contains(&op))
        producerPrologue.push_back(&op);
    return true;
  }

  /// The i32 index of the buffer after `index`, wrapping at numBuffers.
  Value nextIndex(OpBuilder &b, Location loc, Value index) {
    Type i32 = b.getI32Type();
    Value plusOne = arith::AddIOp::create(
        b, loc, index, arith::ConstantIntOp::create(b, loc, i32, 1));
    Value wraps = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, plusOne,
        arith::ConstantIntOp::create(b, loc, i32, numBuffers));
    return arith::SelectOp::create(
        b, loc, wraps, arith::ConstantIntOp::create(b, loc, i32, 0), plusOne);
  }

  /// The mbarrier parity to wait for after buffer `index`: flips each time
  /// the index wraps.
  Value nextParity(OpBuilder &b, Location loc, Value index, Value phase) {
    Type i32 = b.getI32Type();
    Value last = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, index,
        arith::ConstantIntOp::create(b, loc, i32, numBuffers - 1));
    Value flipped = arith::XOrIOp::create(
        b, loc, phase, arith::ConstantIntOp::create(b, loc, i32, 1));
    return arith::SelectOp::create(b, loc, last, flipped, phase);
  }

  /// The mbarrier `stage` of the array `array`.
  Value barrierIn(Value array, Value stage) {
    auto type = cast<MemDescType>(array.getType());
    return MemDescIndexOp::create(rewriter, loop.getLoc(),
                                  MemDescType::get(loop.getContext(), {1},
                                                   type.getElementType(),
                                                   type.getEncoding()),
                                  array, stage);
  }

  /// The kernel body becomes the consumers of a warp_specialize whose
  /// producer runs the loop's copies on its own:
  ///
  ///   full[s]: armed by the producer's expect, paid off by the copies;
  ///            the consumers wait for it where the loop's loads were.
  ///   empty[s]: one arrival per consumer thread once the dots that read
  ///            buffer s are retired; the producer waits for it before
  ///            refilling s (its first round passes: parity 1).
  ///
  /// No CTA barrier is left in the loop: the consumer warpgroups drift
  /// apart, one's softmax running under the other's dots.
  void runWarpSpecialized() {
    Location loc = loop.getLoc();
    auto function = cast<FunctionOpInterface>(loop->getParentOp());
    Block &entry = function.getFunctionBody().front();
    int consumerThreads =
        TileGPUDialect::getNumWarps(loop) * TileGPUDialect::kThreadsPerWarp;
    rewriter.setInsertionPointToStart(&entry);
    createBuffers();
    barriers = createBarrierArray();
    InitBarrierOp::create(rewriter, loc, barriers, 1);
    Value empty = createBarrierArray();
    InitBarrierOp::create(rewriter, loc, empty, consumerThreads);
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
    Operation *terminator = entry.getTerminator();
    for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
             std::next(specialize->getIterator()), terminator->getIterator())))
      op.moveBefore(consumersEnd);
    rewriter.setInsertionPoint(terminator);
    LocalDeallocOp::create(rewriter, loc, empty);
    LocalDeallocOp::create(rewriter, loc, barriers);
    auto module = function->getParentOfType<ModuleOp>();
    module->setAttr(TileGPUDialect::getExtraWarpsAttrName(),
                    rewriter.getI32IntegerAttr(producerWarps));

    rewriter.setInsertionPoint(producerEnd);
    emitProducer(empty);

    // The consumers: the loop, waiting for full buffers and releasing them.
    rewriter.setInsertionPoint(loop);
    addStageIndices();
    Block *body = loop.getBody();
    rewriter.setInsertionPointToStart(body);
    WaitBarrierOp::create(rewriter, loc, barrierOf(readStage), phase);
    replaceStagedLoads();
    waitForAsyncDots();
    rewriter.setInsertionPointAfter(previousDotsRetired());
    Type i32 = rewriter.getI32Type();
    Value isFirst = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, readStage, constant(0, i32));
    Value previous = arith::SelectOp::create(
        rewriter, loc, isFirst, constant(numBuffers - 1, i32),
        arith::SubIOp::create(rewriter, loc, readStage, constant(1, i32)));
    Value notFirstIteration =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                              loop.getInductionVar(), loop.getLowerBound());
    ArriveBarrierOp::create(rewriter, loc, barrierIn(empty, previous),
                            notFirstIteration);
    eraseDeadAddressOps();
    waitForCarriedDotsAfterLoop();
    // Every copy has landed once the last full buffer was waited for.
    for (Value buffer : buffers)
      LocalDeallocOp::create(rewriter, loc, buffer);
  }

  /// The producer's loop at the builder's insertion point: the prologue's
  /// scalars cloned, then per iteration wait for an empty buffer, arm its
  /// full barrier and start its copies.
  void emitProducer(Value empty) {
    Location loc = loop.getLoc();
    IRMapping outer;
    for (Operation *op : producerPrologue)
      rewriter.clone(*op, outer);
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> inits;
    for (unsigned index : plan.shiftedArgs)
      inits.push_back(outer.lookupOrDefault(loop.getInitArgs()[index]));
    inits.push_back(constant(0, i32));
    inits.push_back(constant(0, i32));
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    scf::ForOp::create(
        rewriter, loc, outer.lookupOrDefault(loop.getLowerBound()),
        outer.lookupOrDefault(loop.getUpperBound()),
        outer.lookupOrDefault(loop.getStep()), inits,
        [&](OpBuilder &, Location, Value iv, ValueRange args) {
          IRMapping mapping = outer;
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

  bool hasTMA() const {
    return llvm::any_of(plan.loads,
                        [](const StagedLoad &l) { return l.isTMA(); });
  }
  bool hasCpAsync() const {
    return llvm::any_of(plan.loads,
                        [](const StagedLoad &l) { return !l.isTMA(); });
  }

  /// The mbarrier of buffer `stage` (i32).
  Value barrierOf(Value stage) { return barrierIn(barriers, stage); }

  Value constant(int64_t value, Type type) {
    return arith::ConstantOp::create(rewriter, loop.getLoc(), type,
                                     rewriter.getIntegerAttr(type, value));
  }

  /// The induction variable `iterations` steps after `iv`.
  Value ivAhead(Value iv, int64_t iterations) {
    Value offset =
        arith::MulIOp::create(rewriter, loop.getLoc(), loop.getStep(),
                              constant(iterations, loop.getStep().getType()));
    return arith::AddIOp::create(rewriter, loop.getLoc(), iv, offset);
  }

  /// Bytes the TMA copies of one stage land on its mbarrier.
  int64_t tmaBytesPerStage() {
    int64_t bytes = 0;
    for (StagedLoad &staged : plan.loads)
      if (staged.isTMA())
        bytes += bufferBytes(staged.alloc.getType());
    return bytes;
  }

  /// Clones the address ops with `mapping` (the induction variable and the
  /// shifted args already mapped), then starts each staged load's copy
  /// into buffer `stage`, masked off where `iv` is past the loop's end
  /// (unless `inRange` is given).
  void emitCopies(IRMapping &mapping, Value iv, Value stage,
                  Value inRange = {}) {
    Location loc = loop.getLoc();
    for (Operation *op : plan.addressOps)
      rewriter.clone(*op, mapping);
    if (!inRange)
      inRange = arith::CmpIOp::create(rewriter, loc,
                                      loop.getUnsignedCmp()
                                          ? arith::CmpIPredicate::ult
                                          : arith::CmpIPredicate::slt,
                                      iv, loop.getUpperBound());
    if (hasTMA())
      BarrierExpectOp::create(rewriter, loc, barrierOf(stage),
                              tmaBytesPerStage(), inRange);
    for (auto [staged, buffer] : llvm::zip(plan.loads, buffers)) {
      auto viewOf = [&, buffer = buffer, type = staged.alloc.getType()] {
        return MemDescIndexOp::create(rewriter, loc, type, buffer, stage);
      };
      if (auto load = dyn_cast<DescriptorLoadOp>(staged.load)) {
        Value view = viewOf();
        SmallVector<Value> indices;
        for (Value index : load.getIndices())
          indices.push_back(mapping.lookupOrDefault(index));
        AsyncTMACopyGlobalToLocalOp::create(
            rewriter, loc, mapping.lookupOrDefault(load.getDesc()), indices,
            view, barrierOf(stage), inRange);
        continue;
      }
      auto load = cast<LoadOp>(staged.load);
      auto ptrType = cast<RankedTensorType>(load.getPtr().getType());
      Type maskType = ptrType.clone(rewriter.getI1Type());
      Value mask = SplatOp::create(rewriter, loc, maskType, inRange);
      if (Value loadMask = load.getMask())
        mask = arith::AndIOp::create(rewriter, loc,
                                     mapping.lookupOrDefault(loadMask), mask);
      AsyncCopyGlobalToLocalOp::create(rewriter, loc,
                                       mapping.lookupOrDefault(load.getPtr()),
                                       viewOf(), mask);
    }
    if (hasCpAsync())
      AsyncCommitGroupOp::create(rewriter, loc);
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
    for (size_t i = 0; i < current.size(); ++i)
      loop.getInitArgsMutable()[plan.shiftedArgs[i]].assign(current[i]);
  }

  /// Two i32 iter args: the buffer the next copy fills (starting at
  /// `distance`) and the one this iteration's dots read (starting at 0);
  /// with TMA copies a third, the parity of the mbarrier phase this
  /// iteration waits for, which flips each time the read index wraps.
  /// A warp-specialised loop's consumers fill nothing: no fill index.
  void addStageIndices() {
    Type i32 = rewriter.getI32Type();
    Value first = constant(distance, i32), zero = constant(0, i32);
    bool tma = hasTMA();
    // The consumers of a warp-specialised loop fill nothing.
    bool fills = !warpSpecialized;
    SmallVector<Value> inits{first, zero};
    if (!fills)
      inits.erase(inits.begin());
    if (tma)
      inits.push_back(zero);
    FailureOr<LoopLikeOpInterface> replaced =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, inits,
                /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &b, Location loc,
                    ArrayRef<BlockArgument> args) -> SmallVector<Value> {
                  if (!fills)
                    return {nextIndex(b, loc, args[0]),
                            nextParity(b, loc, args[0], args[1])};
                  SmallVector<Value> yields{nextIndex(b, loc, args[0]),
                                            nextIndex(b, loc, args[1])};
                  if (tma)
                    yields.push_back(nextParity(b, loc, args[1], args[2]));
                  return yields;
                });
    loop = cast<scf::ForOp>(replaced->getOperation());
    unsigned numArgs = loop.getRegionIterArgs().size();
    unsigned base = numArgs - inits.size();
    if (fills)
      fillStage = loop.getRegionIterArg(base++);
    readStage = loop.getRegionIterArg(base);
    if (tma)
      phase = loop.getRegionIterArg(base + 1);
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
    if (hasCpAsync())
      AsyncWaitOp::create(rewriter, loc, distance - 1);
    if (hasTMA())
      WaitBarrierOp::create(rewriter, loc, barrierOf(readStage), phase);
    // The top of the body now ends with a wait; the copies follow it.
    Operation *lastWait = &*std::prev(rewriter.getInsertionPoint());
    IRMapping mapping;
    Value iv = ivAhead(loop.getInductionVar(), distance);
    mapping.map(loop.getInductionVar(), iv);
    emitCopies(mapping, iv, fillStage);
    for (unsigned index : plan.shiftedArgs)
      yield->setOperand(index,
                        mapping.lookupOrDefault(yield.getOperand(index)));
    SmallVector<Operation *> copyOps;
    for (Operation *op = lastWait->getNextNode();
         op != &*rewriter.getInsertionPoint(); op = op->getNextNode())
      copyOps.push_back(op);

    replaceStagedLoads();
    waitForAsyncDots();
    if (lateCopies) {
      // The buffer the copies fill was read by the previous iteration's
      // carried dots: start them once every warpgroup has waited for those.
      // (Right there or at the end of the body, as Triton does, measured
      // the same on attention.)
      rewriter.setInsertionPointAfter(previousDotsRetired());
      Operation *barrier = BarrierOp::create(rewriter, loc);
      for (Operation *op : llvm::reverse(copyOps))
        op->moveAfter(barrier);
    }

    eraseDeadAddressOps();
  }

  /// The original address ops now only fed the erased loads and the
  /// replaced yields.
  void eraseDeadAddressOps() {
    for (Operation *op : llvm::reverse(plan.addressOps))
      if (op->use_empty())
        rewriter.eraseOp(op);
  }

  /// The carried dots' final wait, after the loop (leaves the insertion
  /// point after it).
  void waitForCarriedDotsAfterLoop() {
    rewriter.setInsertionPointAfter(loop);
    if (!plan.hasCarriedDot())
      return;
    if (plan.chained)
      waitAfterLoop();
    else
      waitAfterGuardedLoop();
  }

  /// The dots' buffers become views of the multi-buffers at the read
  /// stage; the loads are gone (their copies run elsewhere).
  void replaceStagedLoads() {
    for (auto [staged, buffer] : llvm::zip(plan.loads, buffers)) {
      rewriter.setInsertionPoint(staged.alloc);
      Value view = MemDescIndexOp::create(
          rewriter, loop.getLoc(), staged.alloc.getType(), buffer, readStage);
      rewriter.replaceOp(staged.alloc, view);
      rewriter.eraseOp(staged.load);
    }
  }

  /// Makes the planned dots async and waits for each where needed.
  void waitForAsyncDots() {
    Location loc = loop.getLoc();
    for (AsyncDot &async : plan.asyncDots)
      async.dot.setIsAsync(true);
    if (plan.chained) {
      // Keep one MMA in flight: the previous iteration's has finished
      // reading its buffers once this one is issued and waited down to 1.
      WarpGroupDotOp dot = plan.asyncDots.front().dot;
      rewriter.setInsertionPointAfter(dot);
      auto wait =
          WarpGroupDotWaitOp::create(rewriter, loc, ValueRange{dot.getD()},
                                     /*pendings=*/1);
      dot.getD().replaceAllUsesExcept(wait.getResult(0), wait);
    } else {
      for (size_t k = 0; k < plan.asyncDots.size(); ++k)
        waitBeforeFirstRead(k);
    }
  }

  /// The carried result of the async dot is complete after a wait.
  void waitAfterLoop() {
    Value acc = loop.getResult(*plan.asyncDots.front().carriedIndex);
    auto wait = WarpGroupDotWaitOp::create(rewriter, loop.getLoc(),
                                           ValueRange{acc}, /*pendings=*/0);
    acc.replaceAllUsesExcept(wait.getResult(0), wait);
  }

  /// The same, with the loop inside `if (lower < upper)` and the wait
  /// behind it: the path that skips the loop then never reaches the wait.
  /// A wait that path also reached (it carries the initial accumulator,
  /// set by ordinary moves) would put those moves inside the deferred
  /// MMA's pipeline stage for ptxas, which then serialises every wgmma.
  void waitAfterGuardedLoop() {
    Location loc = loop.getLoc();
    rewriter.setInsertionPoint(loop);
    Value ran =
        arith::CmpIOp::create(rewriter, loc,
                              loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                                    : arith::CmpIPredicate::slt,
                              loop.getLowerBound(), loop.getUpperBound());
    auto guard = scf::IfOp::create(rewriter, loc, loop.getResultTypes(), ran,
                                   /*withElse=*/true);
    loop->replaceAllUsesWith(guard.getResults());
    rewriter.setInsertionPointToStart(guard.elseBlock());
    scf::YieldOp::create(rewriter, loc, loop.getInitArgs());
    rewriter.setInsertionPointToStart(guard.thenBlock());
    loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
    rewriter.setInsertionPointAfter(loop);
    SmallVector<Value> results(loop.getResults());
    SmallVector<unsigned> indices;
    SmallVector<Value> carried;
    for (AsyncDot &async : plan.asyncDots)
      if (async.carriedIndex) {
        indices.push_back(*async.carriedIndex);
        carried.push_back(results[*async.carriedIndex]);
      }
    auto wait = WarpGroupDotWaitOp::create(rewriter, loc, carried,
                                           /*pendings=*/0);
    for (auto [index, done] : llvm::zip(indices, wait.getResults()))
      results[index] = done;
    scf::YieldOp::create(rewriter, loc, results);
    rewriter.setInsertionPointAfter(guard);
  }

  /// The first op of the body after which no dot of the previous iteration
  /// is in flight: a synchronous dot (it waits for all), or a wait that
  /// leaves pending no more dots than this iteration has issued.
  Operation *previousDotsRetired() {
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

  /// Waits for async dot `k` just before its result is first read: in
  /// this iteration, or in the next for a carried result (the extra buffer
  /// keeps its operands intact until then). wgmma groups complete in
  /// order, so the async dots issued between the two may stay pending.
  void waitBeforeFirstRead(size_t k) {
    Block *body = loop.getBody();
    AsyncDot &async = plan.asyncDots[k];
    Value read = async.carriedIndex
                     ? Value(loop.getRegionIterArg(*async.carriedIndex))
                     : async.dot.getD();
    Operation *first = firstReaderIn(body, read);
    if (!first)
      return;
    if (Operation *birth = nextOperandBirth(async.dot, loop))
      if (!async.carriedIndex && async.dot->isBeforeInBlock(birth) &&
          birth->isBeforeInBlock(first))
        first = birth;
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

  scf::ForOp loop;
  LoopPlan plan;
  int64_t numBuffers;
  int distance;
  /// Copies start where the previous iteration's dots have finished, not
  /// at the top of the body (S buffers for async dots that would need S+1).
  bool lateCopies = false;
  /// A producer warpgroup issues the copies (runWarpSpecialized).
  bool warpSpecialized = false;
  /// Ops before the loop that the producer's copies need (pure scalars).
  SmallVector<Operation *> producerPrologue;
  IRRewriter rewriter;
  SmallVector<Value> buffers;
  Value barriers;
  Value fillStage, readStage, phase;
};

struct PipelinePass : tilegpu::impl::TileGPUPipelineBase<PipelinePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(module)))
      return signalPassFailure();
    SmallVector<std::pair<scf::ForOp, int>> loops;
    module.walk([&](scf::ForOp loop) {
      int stages = numStages;
      if (auto attr = loop->getAttrOfType<IntegerAttr>(
              TileDialect::getNumStagesAttrName()))
        stages = attr.getInt();
      if (stages >= 2)
        loops.push_back({loop, stages});
    });
    if (loops.empty())
      return;
    AxisInfoAnalysis axisInfo(module);
    for (auto [loop, stages] : loops)
      if (std::optional<LoopPlan> plan = planLoop(loop, axisInfo))
        LoopPipeliner(loop, std::move(*plan), stages, maxShared, sharedPerSM)
            .run();
  }
};

} // namespace
