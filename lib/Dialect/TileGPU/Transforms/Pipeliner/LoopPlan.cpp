//===- LoopPlan.cpp - Which loads a pipelined loop stages -----------------===//
//
// Matches a loop whose body loads tiles from global memory only to stage
// them in shared memory for warpgroup_dots, collects the address arithmetic
// the copies will have to run ahead, and picks the dots that can run
// asynchronously. Nothing here changes the IR.
//
// The addresses of a later iteration come from the loop-carried values they
// depend on (typically the pointer tensors), which the rewrite shifts to
// run ahead. That needs the carried values to be used by nothing but
// address arithmetic, and their final values to be unused.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/SharedAccess.h"
#include "tile/Dialect/TileGPU/Transforms/MmaSelection.h"
#include "tile/Support/Limits.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

int64_t pipeliner::bufferBytes(MemDescType type) {
  int64_t bytes = getSharedElementBytes(type.getElementType());
  for (int64_t dim : type.getShape())
    bytes *= dim;
  return bytes;
}

int64_t pipeliner::stageBytes(const LoopPlan &plan) {
  int64_t bytes = 0;
  for (StagedLoad staged : plan.loads)
    bytes += bufferBytes(staged.alloc.getType());
  return bytes;
}

Value pipeliner::isBefore(OpBuilder &b, scf::ForOp loop, Value lhs, Value rhs) {
  return arith::CmpIOp::create(b, loop.getLoc(),
                               loop.getUnsignedCmp()
                                   ? arith::CmpIPredicate::ult
                                   : arith::CmpIPredicate::slt,
                               lhs, rhs);
}

LogicalResult pipeliner::checkBuffersFit(scf::ForOp loop, const LoopPlan &plan,
                                         int64_t numBuffers,
                                         int64_t maxShared) {
  int64_t needed =
      numBuffers * stageBytes(plan) + otherBufferBytesDuring(loop, plan);
  if (needed <= maxShared)
    return success();
  auto module = loop->getParentOfType<ModuleOp>();
  module->setAttr(
      TileGPUDialect::getSharedAttrName(),
      IntegerAttr::get(IntegerType::get(loop.getContext(), 64), needed));
  return loop.emitError() << "pipelining this loop with " << numBuffers
                          << " buffers needs " << needed
                          << " bytes of shared memory, more than the "
                          << maxShared << " available";
}

int64_t pipeliner::otherBufferBytes(scf::ForOp loop, const LoopPlan &plan) {
  int64_t bytes = 0;
  auto func = loop->getParentOfType<FunctionOpInterface>();
  func->walk([&](LocalAllocOp alloc) {
    if (llvm::none_of(plan.loads,
                      [&](StagedLoad staged) { return staged.alloc == alloc; }))
      bytes += bufferBytes(alloc.getType());
  });
  return bytes;
}

int64_t pipeliner::otherBufferBytesDuring(scf::ForOp loop,
                                          const LoopPlan &plan) {
  auto func = loop->getParentOfType<FunctionOpInterface>();
  // The allocation's own live ranges: what it will place beside the loop.
  // Buffers the body fills and reads within one step (operands a dot
  // reads from registers' results) share their bytes with each other.
  SharedMemoryAllocation allocation(func);
  return allocation.peakBufferBytesDuring(loop, [&](Operation *buffer) {
    return llvm::any_of(plan.loads, [&](const StagedLoad &staged) {
      return staged.alloc == buffer;
    });
  });
}

/// The op of `body` that first reads `value`, if any.
Operation *pipeliner::firstReaderIn(Block *body, Value value) {
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
BlockArgument pipeliner::carriedRegisterOperand(WarpGroupDotOp dot,
                                                scf::ForOp loop) {
  Value a = dot.getA();
  while (auto convert = a.getDefiningOp<ConvertLayoutOp>())
    a = convert.getSrc();
  auto arg = dyn_cast<BlockArgument>(a);
  if (!isa<RankedTensorType>(a.getType()) || !arg ||
      arg.getOwner() != loop.getBody())
    return nullptr;
  return arg;
}

Operation *pipeliner::firstOperandWriteIn(Block *body, WarpGroupDotOp dot,
                                          ArrayRef<StagedLoad> staged) {
  Operation *first = nullptr;
  auto consider = [&](Operation *op) {
    Operation *inBody = body->findAncestorOpInBlock(*op);
    if (inBody && (!first || inBody->isBeforeInBlock(first)))
      first = inBody;
  };
  for (Value operand : {Value(dot.getA()), Value(dot.getB())}) {
    if (!isa<MemDescType>(operand.getType()))
      continue;
    while (Operation *view = operand.getDefiningOp()) {
      if (!isa<MemDescTransOp, MemDescIndexOp>(view))
        break;
      operand = view->getOperand(0);
    }
    auto alloc = operand.getDefiningOp<LocalAllocOp>();
    if (!alloc || llvm::any_of(staged, [&](const StagedLoad &load) {
          return load.alloc == alloc;
        }))
      continue;
    if (alloc.getSrc())
      consider(alloc);
    SmallVector<Value> views{alloc.getResult()};
    while (!views.empty())
      for (Operation *user : views.pop_back_val().getUsers()) {
        if (isa<LocalStoreOp>(user))
          consider(user);
        else if (isa<MemDescTransOp, MemDescIndexOp>(user))
          views.push_back(user->getResult(0));
      }
  }
  return first;
}

namespace {

/// Whether `trans` keeps every element in its thread (the result is in the
/// permuted layout of its operand's): a renaming of registers, which a
/// swapped product puts around its accumulator.
bool isRenaming(TransOp trans) {
  auto src = cast<RankedTensorType>(trans.getSrc().getType());
  auto encoding = dyn_cast_or_null<DistributedEncoding>(src.getEncoding());
  return encoding &&
         cast<RankedTensorType>(trans.getType()).getEncoding() ==
             PermutedEncodingAttr::getTransposed(encoding, trans.getOrder());
}

/// `value` before the register renamings that produced it.
Value beforeRenamings(Value value) {
  while (auto trans = value.getDefiningOp<TransOp>()) {
    if (!isRenaming(trans))
      break;
    value = trans.getSrc();
  }
  return value;
}

/// The one use of `value` after register renamings that each have one use
/// too, or null.
OpOperand *soleUseAfterRenamings(Value value) {
  while (value.hasOneUse()) {
    OpOperand &use = *value.use_begin();
    auto trans = dyn_cast<TransOp>(use.getOwner());
    if (!trans || !isRenaming(trans))
      return &use;
    value = trans.getResult();
  }
  return nullptr;
}

/// A K loop whose dots all accumulate into one chain (the first takes the
/// carried accumulator, each next one the previous one's result, the last
/// one's result is carried; two dots per step for an int4 weight's two
/// nibble planes): all run async with no wait between them, since wgmma
/// orders MMAs on the same accumulator, and after the last the body waits
/// only for the previous iteration's (`chained`), or for all of its own
/// when they read registers it computes (`chainReadsRegisters`). Into
/// `plan`; false when the dots are not such a chain.
bool matchAccumulatorChain(scf::ForOp loop,
                           MutableArrayRef<WarpGroupDotOp> dots,
                           LoopPlan &plan) {
  if (dots.empty())
    return false;
  Block *body = loop.getBody();
  OpOperand *carried = soleUseAfterRenamings(dots.back().getD());
  if (!carried || !isa<scf::YieldOp>(carried->getOwner()))
    return false;
  unsigned index = carried->getOperandNumber();
  if (beforeRenamings(dots.front().getC()) != loop.getRegionIterArg(index))
    return false;
  for (auto [previous, next] : llvm::zip(dots.drop_back(), dots.drop_front()))
    if (!previous.getD().hasOneUse() || next.getC() != previous.getD())
      return false;
  for (WarpGroupDotOp dot : dots)
    if (firstOperandWriteIn(body, dot, plan.loads) ||
        carriedRegisterOperand(dot, loop))
      return false;
  for (WarpGroupDotOp dot : dots)
    plan.asyncDots.push_back({dot, std::nullopt});
  plan.chained = true;
  plan.chainReadsRegisters = llvm::any_of(dots, [](WarpGroupDotOp dot) {
    return isa<RankedTensorType>(dot.getA().getType());
  });
  // Only a chain that may stay in flight across the back edge is carried
  // (and gets the extra buffer that needs).
  if (!plan.chainReadsRegisters)
    plan.asyncDots.back().carriedIndex = index;
  return true;
}

/// The warpgroup_dots of the body that can run async, into `plan`.
void matchAsyncDots(scf::ForOp loop, LoopPlan &plan) {
  Block *body = loop.getBody();
  auto dots = llvm::to_vector(body->getOps<WarpGroupDotOp>());
  if (matchAccumulatorChain(loop, dots, plan))
    return;
  for (WarpGroupDotOp dot : dots) {
    if (dot->use_empty())
      continue;
    // A buffer the body rewrites after the dot (a local_store) would change
    // under the MMA before any wait could come.
    Operation *write = firstOperandWriteIn(body, dot, plan.loads);
    if (write && dot->isBeforeInBlock(write))
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
    // Keeping one MMA in flight behind the next needs operands the next
    // iteration does not rewrite: register operands stored to shared
    // memory each iteration (a dequantised weight) are not multi-buffered.
    plan.chained = dots.size() == 1 &&
                   dot.getC() == loop.getRegionIterArg(index) && !write;
    plan.asyncDots.push_back({dot, index});
  }
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

/// Whether `load`, which the body uses in registers, can be copied ahead:
/// a tile (of numbers) whose address changes with the iteration, in words
/// of at least 4 bytes. cp.async fills masked-off lanes with zeros; another
/// `other` is selected in after the buffer is read (stageRegisterLoads),
/// which needs the iteration's own mask there: see planLoop.
bool isRegisterLoad(Operation *op, scf::ForOp loop,
                    const AxisInfoAnalysis &axisInfo) {
  auto load = dyn_cast<LoadOp>(op);
  if (!load || load.getIsVolatile() ||
      loop.isDefinedOutsideOfLoop(load.getPtr()))
    return false;
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || !isa_and_nonnull<BlockedEncodingAttr>(type.getEncoding()) ||
      !type.getElementType().isIntOrFloat())
    return false;
  return copiesInWords(load, registerLoadBuffer(load, {}), axisInfo);
}

/// Whether the value of `load` reaches an operand of a dot in `body`
/// through the body's own computation (a conversion, a scaling, a
/// local_alloc the dot reads): the loop then waits on the load in every
/// iteration before its product can start.
bool feedsDot(LoadOp load, Block *body) {
  SmallVector<Operation *> worklist{load};
  llvm::SmallPtrSet<Operation *, 16> seen{load};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      Operation *inBody = body->findAncestorOpInBlock(*user);
      if (!inBody || isa<scf::YieldOp>(inBody))
        continue;
      if (isa<WarpGroupDotOp, DotOp>(user))
        return true;
      if (seen.insert(inBody).second)
        worklist.push_back(inBody);
    }
  }
  return false;
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
/// of them has side effects or regions. With `duplicate`, iter args that
/// other ops read too (a pointer that a store also uses) are run ahead as
/// copies instead of failing (LoopPlan::duplicateArgs).
LogicalResult collectAddressOps(scf::ForOp loop, LoopPlan &plan,
                                bool duplicate) {
  Block *body = loop.getBody();
  llvm::SmallPtrSet<Operation *, 32> ops;
  llvm::SmallSetVector<unsigned, 4> args;
  SmallVector<Value> worklist;
  auto addLoad = [&](LoadOp load) {
    worklist.push_back(load.getPtr());
    if (Value mask = load.getMask())
      worklist.push_back(mask);
  };
  for (StagedLoad &staged : plan.loads) {
    if (auto load = dyn_cast<LoadOp>(staged.load))
      addLoad(load);
    else
      llvm::append_range(worklist,
                         cast<DescriptorLoadOp>(staged.load).getIndices());
  }
  for (LoadOp load : plan.registerLoads)
    addLoad(load);
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
  if (duplicate) {
    // The originals stay as they are for their other users.
    plan.duplicateArgs = true;
    return success();
  }

  // The shifted values and everything computed from them must feed only
  // addresses, staged loads and the shifted args' next values.
  llvm::SmallPtrSet<Operation *, 8> loads;
  for (StagedLoad &staged : plan.loads)
    loads.insert(staged.load);
  for (LoadOp load : plan.registerLoads)
    loads.insert(load);
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
} // namespace

LogicalResult pipeliner::checkNumStages(ModuleOp module, int numStages) {
  if (numStages >= 1 && numStages <= ::tile::kMaxNumStages)
    return success();
  return module.emitError() << "num-stages must be in [1, "
                            << ::tile::kMaxNumStages << "], got " << numStages;
}

bool pipeliner::isZeroOrAbsent(Value other) {
  // (A constant may still be converted to the load's layout: before
  // RemoveLayoutConversions, when AccelerateMatmul asks.)
  if (other)
    other = arrivingOperand(other);
  return !other || matchPattern(other, m_AnyZeroFloat()) ||
         matchPattern(other, m_Zero());
}

int pipeliner::getLoopStages(scf::ForOp loop, int defaultStages) {
  if (auto attr = loop->getAttrOfType<IntegerAttr>(
          TileDialect::getNumStagesAttrName()))
    return attr.getInt();
  return defaultStages;
}

bool pipeliner::isShorterThanStages(scf::ForOp loop, int stages) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  return trips && trips->getZExtValue() < static_cast<uint64_t>(stages);
}

SmallVector<std::pair<scf::ForOp, int>>
pipeliner::loopsToPipeline(ModuleOp module, int defaultStages) {
  SmallVector<std::pair<scf::ForOp, int>> loops;
  module.walk([&](scf::ForOp loop) {
    int stages = getLoopStages(loop, defaultStages);
    if (stages >= 2)
      loops.push_back({loop, stages});
  });
  return loops;
}

std::optional<LoopPlan> pipeliner::planLoop(scf::ForOp loop,
                                            const AxisInfoAnalysis &axisInfo,
                                            bool withRegisterLoads) {
  APInt step;
  if (!matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
      !step.isStrictlyPositive())
    return std::nullopt;
  LoopPlan plan;
  SmallVector<LoadOp> others;
  for (Operation &op : *loop.getBody()) {
    if (auto staged = matchStagedLoad(&op, loop.getBody(), axisInfo))
      plan.loads.push_back(*staged);
    else if (withRegisterLoads && isRegisterLoad(&op, loop, axisInfo))
      others.push_back(cast<LoadOp>(op));
  }
  // A loop without dot operands to stage is pipelined when its
  // `tl.range(..., num_stages=)` asks for it (as Triton does), staging
  // every register load, or when some of its loads reach a dot's operands
  // through computation in registers (converted, scaled, or bound for an
  // mma.sync operand's layout), staging those, as Triton's pipeliner does
  // for loads that feed dots. Their pointers usually serve the loop's
  // stores too, so they are run ahead as copies.
  bool asked = loop->hasAttr(TileDialect::getNumStagesAttrName());
  bool dotless = plan.loads.empty();
  if (dotless && !asked)
    llvm::erase_if(
        others, [&](LoadOp load) { return !feedsDot(load, loop.getBody()); });
  // A load with a nonzero `other` needs its mask after the copy. A dotless
  // plan runs copies of the address iter args ahead and leaves the body's
  // own values for the current iteration (collectAddressOps with
  // `duplicate`), so the body's mask is this iteration's; a plan with
  // dots shifts those iter args, so its loads keep zero or no `other`.
  if (!dotless)
    llvm::erase_if(others, [](LoadOp load) {
      return !isZeroOrAbsent(load.getOther());
    });
  if (dotless && !(withRegisterLoads && !others.empty()))
    return std::nullopt;
  plan.registerLoads = std::move(others);
  if (failed(collectAddressOps(loop, plan, /*duplicate=*/dotless)))
    return std::nullopt;
  matchAsyncDots(loop, plan);
  return plan;
}

void pipeliner::stageRegisterLoads(LoopPlan &plan) {
  for (LoadOp load : plan.registerLoads) {
    // A tile converted to other layouts (packed weights bound for a dot
    // operand's registers, a tile that is the A of two dots of different
    // shapes) is read from the buffer in each of them: the buffer already
    // is the trip through shared memory a conversion would make.
    SmallVector<RankedTensorType> convertedTypes;
    bool usedAsLoaded = false;
    for (Operation *user : load->getUsers()) {
      if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
        if (!llvm::is_contained(convertedTypes, convert.getType()))
          convertedTypes.push_back(convert.getType());
      } else {
        usedAsLoaded = true;
      }
    }
    // The select of a nonzero `other` works in the load's layout.
    bool selectOther = !isZeroOrAbsent(load.getOther());
    if (selectOther)
      convertedTypes.clear();
    SmallVector<RankedTensorType> readTypes(convertedTypes);
    if (!readTypes.empty() && usedAsLoaded)
      readTypes.push_back(cast<RankedTensorType>(load.getType()));
    OpBuilder b(load->getContext());
    b.setInsertionPointAfter(load);
    auto alloc = LocalAllocOp::create(
        b, load.getLoc(), registerLoadBuffer(load, readTypes), load);
    for (RankedTensorType type : convertedTypes) {
      auto read = LocalLoadOp::create(b, load.getLoc(), type, alloc);
      for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
        auto convert = dyn_cast<ConvertLayoutOp>(user);
        if (convert && convert.getType() == type) {
          convert.getResult().replaceAllUsesWith(read.getResult());
          convert->erase();
        }
      }
      // A tile read in several layouts is read in each where first
      // needed: at the top of the body it would hold them all at once
      // (Lightning Attention's q as the A of two dots and k as an A and a
      // B: 440 bytes of spills, 88 so).
      if (readTypes.size() > 1)
        if (Operation *first =
                firstReaderIn(load->getBlock(), read.getResult()))
          read->moveBefore(first);
    }
    if (selectOther || usedAsLoaded) {
      Value value =
          LocalLoadOp::create(b, load.getLoc(), load.getType(), alloc);
      if (selectOther)
        value = arith::SelectOp::create(b, load.getLoc(), load.getMask(), value,
                                        load.getOther());
      load.getResult().replaceAllUsesExcept(value, alloc);
    }
    plan.loads.push_back(
        StagedLoad{load, alloc, /*tma=*/false, /*inRegisters=*/true});
  }
  plan.registerLoads.clear();
}
