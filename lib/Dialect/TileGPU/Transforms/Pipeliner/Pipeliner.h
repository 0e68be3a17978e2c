//===- Pipeliner.h - Pieces shared by the pipeliner and warp specialisation
//===//
//
// The software pipeliner is split the way its decisions are made:
//
//   LoopPlan.cpp      which loads are staged, what computes their addresses,
//                     which dots run async (no IR is changed);
//   MultiBuffer.cpp   the multi-buffered operands: buffers, stage indices,
//                     mbarrier arrays, and the copies into them (cp.async
//                     or TMA);
//   AsyncDotWaits.cpp where each async dot is waited for;
//   RegisterOperandPrefetch.cpp  register A operands made one iteration
//                     early;
//   Pipeline.cpp      the tilegpu-pipeline pass: copies run ahead in the
//                     loop itself (prologue + body);
//   WarpSpecialize.cpp the tilegpu-warp-specialize pass: a producer
//                     warpgroup issues the copies;
//   PrologueLoads.cpp  loads before the loop that are its iteration -1,
//                     which the producer copies into the first buffer;
//   WriterWarp.cpp    TMA writes of a warp-specialised loop, issued by a
//                     second producer warp.
//
// The buffer-count policy is PipelineSchedule.h (public, unit-tested).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_PIPELINER_PIPELINER_H
#define TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_PIPELINER_PIPELINER_H

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace tilegpu {
namespace pipeliner {

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

/// A global load (a tile.load, or a descriptor load copied by TMA) whose
/// only use fills a shared buffer that only dots read.
struct StagedLoad {
  Operation *load;
  LocalAllocOp alloc;
  /// Kept apart from `load`, which the rewrite erases while the pipeliner
  /// still asks this.
  bool tma = false;
  /// A register load (LoopPlan::registerLoads) given a buffer that a
  /// local_load reads at the top of its iteration: no dot reads it.
  bool inRegisters = false;
  bool isTMA() const { return tma; }
};

/// A warpgroup_dot of the loop body that runs asynchronously.
struct AsyncDot {
  WarpGroupDotOp dot;
  /// The iter arg the result goes back to, when that is its only use.
  std::optional<unsigned> carriedIndex;
};

/// What pipelining one loop takes.
struct LoopPlan {
  SmallVector<StagedLoad> loads;
  /// Loads whose tiles the body uses in registers (a packed weight it
  /// unpacks, a scale): stageRegisterLoads gives each a buffer that its
  /// copy fills ahead like the dots' operands, and a local_load where the
  /// value was.
  SmallVector<tile::LoadOp> registerLoads;
  /// Body ops computing the loads' operands and the next values of the
  /// shifted iter args, in body order.
  SmallVector<Operation *> addressOps;
  /// Iter args that run ahead.
  SmallVector<unsigned> shiftedArgs;
  /// The shifted args are used by more than the copies (a loop of loads and
  /// stores through one pointer): the loop keeps them and carries copies
  /// that run ahead for the copies.
  bool duplicateArgs = false;
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
  /// A chain whose dots read A from registers the body computes (a swapped
  /// product's unpacked weights): an MMA reads them until it retires, and
  /// the next iteration makes new ones, so the chain is waited for at the
  /// end of its own iteration, with those operands passed through the wait
  /// to keep their registers untouched until then.
  bool chainReadsRegisters = false;

  bool hasCarriedDot() const {
    return llvm::any_of(asyncDots,
                        [](const AsyncDot &d) { return d.carriedIndex; });
  }
  /// Whether some async dot's result is only carried to the next
  /// iteration while it reads a staged buffer (which the next iteration's
  /// copies must then not refill).
  bool hasCarriedDotOnStagedBuffers() const {
    return hasCarriedDot() && llvm::any_of(loads, [](const StagedLoad &l) {
             return !l.inRegisters;
           });
  }
  bool hasTMA() const {
    return llvm::any_of(loads, [](const StagedLoad &l) { return l.isTMA(); });
  }
  bool hasCpAsync() const {
    return llvm::any_of(loads, [](const StagedLoad &l) { return !l.isTMA(); });
  }
  /// Makes the carried dots synchronous.
  void dropCarriedDots() {
    llvm::erase_if(asyncDots, [](const AsyncDot &d) { return d.carriedIndex; });
    chained = false;
  }
};

/// Fails (with an error on the module) unless 1 <= numStages <=
/// kMaxNumStages (tile/Support/Limits.h), as the pass option must be.
LogicalResult checkNumStages(ModuleOp module, int numStages);

/// Whether a load's `other` is absent or zero, what the copies fill masked
/// elements with (a load with another `other` is not copied ahead next to
/// dot operands).
bool isZeroOrAbsent(Value other);

/// `loop`'s stage count: its `tile.num_stages`, else `defaultStages`.
int getLoopStages(scf::ForOp loop, int defaultStages);

/// Whether `loop`'s constant trip count is below `stages`: its copies would
/// all be issued before it, so a loop whose loads reach dots only through
/// registers is left alone.
bool isShorterThanStages(scf::ForOp loop, int stages);

/// The loops of `module` to pipeline, in post-order, with their stage
/// counts: a loop's `tile.num_stages`, else `defaultStages`; fewer than 2
/// leaves a loop alone.
SmallVector<std::pair<scf::ForOp, int>> loopsToPipeline(ModuleOp module,
                                                        int defaultStages);

/// The plan of `loop`, or none when it cannot be pipelined. With
/// `withRegisterLoads`, a loop that stages dot operands also copies ahead
/// the loads it uses in registers (LoopPlan::registerLoads); without, such
/// a load keeps the loop from being pipelined.
std::optional<LoopPlan> planLoop(scf::ForOp loop,
                                 const tile::AxisInfoAnalysis &axisInfo,
                                 bool withRegisterLoads = false);

/// Gives each of `plan`'s register loads a shared buffer that it fills and
/// a local_load of it in the load's layout, then stages it as the dots'
/// loads are.
void stageRegisterLoads(LoopPlan &plan);

/// Bytes of one copy of a staged operand's buffer.
int64_t bufferBytes(MemDescType type);

/// Bytes of one stage: one buffer of every staged operand.
int64_t stageBytes(const LoopPlan &plan);

/// `lhs < rhs` as `loop` compares its bounds (signed or unsigned): whether
/// the iteration at `lhs` runs.
Value isBefore(OpBuilder &b, scf::ForOp loop, Value lhs, Value rhs);

/// Fails, with an error at the loop and the bytes needed as the module's
/// `tilegpu.shared` (so that callers report out of shared memory, as for an
/// allocation that does not fit), when `numBuffers` copies of the plan's
/// buffers and the function's other buffers live during the loop exceed
/// `maxShared` (what a CTA may have: PipelineBudget's default): checked before
/// the buffers and their copies are built, so that a deep pipeline
/// (`tl.range(num_stages=100)`) fails at once.
LogicalResult checkBuffersFit(scf::ForOp loop, const LoopPlan &plan,
                              int64_t numBuffers, int64_t maxShared);

/// Bytes of the function's other shared buffers (operands staged once,
/// like attention's Q): an estimate of what shares the SM with the
/// pipeline's buffers (conversion scratch comes later and is not known).
int64_t otherBufferBytes(scf::ForOp loop, const LoopPlan &plan);

/// The most bytes of the function's other shared buffers live at once
/// while `loop` runs (by the allocation's live ranges): what the pipeline's
/// buffers must fit beside. A buffer used only before the loop (attention's
/// first key block, say) shares its bytes with them, and buffers the body
/// fills and reads in turn share theirs with each other.
int64_t otherBufferBytesDuring(scf::ForOp loop, const LoopPlan &plan);

/// The buffer `load` (of a blocked layout, used in registers) is copied
/// into: row-major in its layout's order, or, when it is read back in
/// other layouts (`readTypes`, empty if none), rows XOR-swizzled where that
/// takes fewer shared-memory wavefronts.
MemDescType registerLoadBuffer(tile::LoadOp load,
                               ArrayRef<RankedTensorType> readTypes);

/// The op of `body` that first reads `value`, if any.
Operation *firstReaderIn(Block *body, Value value);

/// The first op of `body` that writes a shared buffer `dot` reads, other
/// than the `staged` loads' buffers (which the pipeline multi-buffers): a
/// register operand stored each iteration, by a local_alloc from a value
/// or a local_store. An async dot must be retired before it.
Operation *firstOperandWriteIn(Block *body, WarpGroupDotOp dot,
                               ArrayRef<StagedLoad> staged = {});

/// The iter arg `dot` takes its A from when that is registers carried from
/// the previous iteration (through layout conversions), else null: the back
/// edge then rewrites them, which ptxas only allows once the dot has
/// finished (else it serialises every wgmma, C7514).
BlockArgument carriedRegisterOperand(WarpGroupDotOp dot, scf::ForOp loop);

/// A load before the loop that reads the block a staged load would read one
/// step before the loop's first iteration (PrologueLoads.cpp).
struct PrologueLoad {
  tile::DescriptorLoadOp load;
  /// Its only use; only dots before the loop read it, synchronously.
  LocalAllocOp alloc;
  /// The staged load (index into LoopPlan::loads) it runs ahead of.
  unsigned staged;
};

/// The loads before `loop` (in its block) that are `plan`'s TMA loads at
/// the induction variable's value one step before the lower bound (at most
/// one per staged load), whose buffers nothing reads once the loop starts
/// and that no global write before them could change: a producer may copy
/// them into the pipeline's first buffer.
SmallVector<PrologueLoad> findPrologueLoads(scf::ForOp loop,
                                            const LoopPlan &plan);

//===----------------------------------------------------------------------===//
// Async-dot waits (AsyncDotWaits.cpp)
//===----------------------------------------------------------------------===//

/// Makes the planned dots async and waits for each where needed.
void waitForAsyncDots(scf::ForOp loop, LoopPlan &plan, RewriterBase &rewriter);

/// The carried dots' final wait, after the loop (which may end up inside an
/// `scf.if`); leaves the insertion point after the loop (or that `if`).
void waitForCarriedDotsAfterLoop(scf::ForOp loop, const LoopPlan &plan,
                                 RewriterBase &rewriter);

/// The first op of the body after which no dot of the previous iteration
/// is in flight.
Operation *previousDotsRetired(scf::ForOp loop);

//===----------------------------------------------------------------------===//
// Dot issue order in warp-specialised loops (DotIssueOrder.cpp)
//===----------------------------------------------------------------------===//

/// Moves each dot of `loop`'s body up to where its operands are ready,
/// past dots written before it that wait for a product it does not need;
/// returns whether any moved.
bool issueDotsWhenReady(scf::ForOp loop);

//===----------------------------------------------------------------------===//
// Register operands one iteration ahead (RegisterOperandPrefetch.cpp)
//===----------------------------------------------------------------------===//

/// For a pipelined chain of dots that reads A from registers the body
/// computes, with copies `distance` >= 2 iterations ahead: computes the
/// operands one iteration early, so that making them overlaps the previous
/// step's MMAs. Returns the loop (replaced when rewritten).
scf::ForOp prefetchRegisterOperands(scf::ForOp loop, const LoopPlan &plan,
                                    int distance, RewriterBase &rewriter);

//===----------------------------------------------------------------------===//
// Multi-buffered operands (MultiBuffer.cpp)
//===----------------------------------------------------------------------===//

/// The state and the rewrites that both ways of filling multi-buffered
/// operands share: the loop itself copying ahead (LoopPipeliner), or a
/// producer warpgroup (WarpSpecializer).
class MultiBufferRewriter {
protected:
  MultiBufferRewriter(scf::ForOp loop, LoopPlan plan, int64_t numBuffers,
                      int distance)
      : loop(loop), plan(std::move(plan)), numBuffers(numBuffers),
        distance(distance), rewriter(loop.getContext()) {}

  /// One allocation of `numBuffers` copies per staged operand, at the
  /// insertion point.
  void createBuffers();
  /// One mbarrier per buffer.
  Value createBarrierArray();

  /// Stage-index iter args: the buffer the next copy fills (starting at
  /// `distance`) unless `fills` is false, the one this iteration's dots
  /// read (starting at 0), and with TMA copies the parity of the mbarrier
  /// phase this iteration waits for, which flips each time the read index
  /// wraps. Replaces `loop`.
  void addStageIndices(bool fills);

  /// Clones the address ops with `mapping` (the induction variable and the
  /// shifted args already mapped), then starts each staged load's copy
  /// into buffer `stage`, masked off where `iv` is past the loop's end
  /// (unless `inRange` is given).
  void emitCopies(IRMapping &mapping, Value iv, Value stage,
                  Value inRange = {});

  /// The dots' buffers become views of the multi-buffers at the read
  /// stage; the loads are gone (their copies run elsewhere).
  void replaceStagedLoads();

  /// The original address ops now only fed the erased loads and the
  /// replaced yields.
  void eraseDeadAddressOps();

  /// The i32 index of the buffer after `index`, wrapping at numBuffers.
  Value nextIndex(OpBuilder &b, Location loc, Value index);
  /// The i32 index of the buffer before `index`, wrapping below 0.
  Value previousIndex(OpBuilder &b, Location loc, Value index);
  /// The mbarrier parity to wait for after buffer `index`: flips each time
  /// the index wraps.
  Value nextParity(OpBuilder &b, Location loc, Value index, Value phase);
  /// The mbarrier `stage` of the array `array`.
  Value barrierIn(Value array, Value stage);
  /// The mbarrier of buffer `stage` (i32).
  Value barrierOf(Value stage) { return barrierIn(barriers, stage); }
  Value constant(int64_t value, Type type);
  /// Bytes the TMA copies of one stage land on its mbarrier.
  int64_t tmaBytesPerStage();

  scf::ForOp loop;
  LoopPlan plan;
  int64_t numBuffers;
  /// How many iterations ahead the copies run.
  int distance;
  IRRewriter rewriter;
  SmallVector<Value> buffers;
  /// The `full` mbarriers: one per buffer, armed by each TMA copy into it.
  Value barriers;
  Value fillStage, readStage, phase;
  /// The buffer the loop's first iteration reads (1 when a producer filled
  /// buffer 0 for a load before the loop).
  int64_t firstReadStage = 0;
};

//===----------------------------------------------------------------------===//
// TMA writes handed to the producer's second warp (WriterWarp.cpp)
//===----------------------------------------------------------------------===//

/// A TMA store or bulk reduction directly in a warp-specialised loop's
/// body (so every iteration writes), whose descriptor and block
/// coordinates are pure scalars of the induction variable and of values
/// from before the loop.
struct HandedOffWrite {
  Operation *write;
  /// Body ops computing the descriptor and coordinates, in body order.
  SmallVector<Operation *> indexOps;
};

/// The writes of `loop`'s body that the writer warp can issue; appends to
/// `outsideInputs` the values from before the loop that they read.
SmallVector<HandedOffWrite>
findHandedOffWrites(scf::ForOp loop, SmallVectorImpl<Value> &outsideInputs);

/// Shared bytes of one buffer of `write`'s block.
int64_t writeBufferBytes(const HandedOffWrite &write);

/// The buffers and mbarriers through which the consumers hand their
/// writes to the writer warp, and the rewrites on both sides.
class WriterWarp {
public:
  /// Allocates, at the builder's point, `count` buffers per write and its
  /// `written` (one arrival per consumer thread) and `drained` (one per
  /// writer lane) mbarriers.
  WriterWarp(RewriterBase &rewriter, Location loc,
             SmallVector<HandedOffWrite> writes, int64_t count,
             int consumerThreads);
  /// Each write in the consumers' `loop` becomes: wait until its buffer is
  /// drained, fill it, fence it, arrive on `written`.
  void rewriteConsumers(RewriterBase &rewriter, scf::ForOp loop);
  /// At the builder's point, the writer's loop over the iterations of
  /// `loop` (whose bounds and the writes' inputs from before it `scalars`
  /// maps): wait for each tile, copy it out, wait for the read, arrive on
  /// `drained`.
  void emitWriter(RewriterBase &rewriter, scf::ForOp loop, IRMapping &scalars);
  void deallocate(RewriterBase &rewriter, Location loc);

private:
  static Value view(OpBuilder &b, Location loc, Value array, Value index);

  SmallVector<HandedOffWrite> writes;
  int64_t count;
  SmallVector<Value> buffers, written, drained;
};

} // namespace pipeliner
} // namespace tilegpu
} // namespace mlir

#endif // TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_PIPELINER_PIPELINER_H
