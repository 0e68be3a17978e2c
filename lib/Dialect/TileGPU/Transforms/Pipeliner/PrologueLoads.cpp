//===- PrologueLoads.cpp - Loads before a loop that are its iteration -1 --===//
//
// A loop written to overlap one block's softmax with the next block's
// product (FlashAttention-3's intra-warpgroup overlap) loads its first key
// block before the loop and block i + 1 in iteration i. That first block
// is exactly what the staged load would read in the iteration before the
// first, so a producer warpgroup can copy it into the pipeline's first
// buffer instead of a buffer of its own: at 128x128 blocks this is the
// 32 KiB that lets three stages fit.
//
// The coordinates are compared as linear forms over the loop's invariant
// values (tile/Analysis/LinearForm.h): equal forms give equal indices
// whatever wraps.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "tile/Analysis/LinearForm.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// Whether something before `op` in its block (nested ops included) may
/// write global memory: a copy issued at the kernel's start could then
/// read what that write replaces.
bool globalWriteBefore(Operation *op) {
  for (Operation &earlier : *op->getBlock()) {
    if (&earlier == op)
      return false;
    WalkResult result = earlier.walk([](Operation *nested) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
      if (!effects)
        return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
                       isPure(nested)
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (auto &instance : instances)
        if (isa<MemoryEffects::Write>(instance.getEffect()) &&
            isa<GlobalMemory>(instance.getResource()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
  }
  return false;
}

/// Whether every reader of `alloc`'s buffer (through views) sits before
/// `loop` in its block and finishes there: no async dot, so the buffer is
/// free once the loop starts.
bool readOnlyBefore(LocalAllocOp alloc, scf::ForOp loop) {
  SmallVector<Value> worklist{alloc.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user->getBlock() != loop->getBlock() || !user->isBeforeInBlock(loop))
        return false;
      if (auto dot = dyn_cast<WarpGroupDotOp>(user)) {
        if (dot.getIsAsync())
          return false;
        continue;
      }
      if (isa<MemDescTransOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      // Anything else reading the buffer (a local_load, a store into it)
      // is not a dot operand the pipeline would stage either.
      return false;
    }
  }
  return true;
}

} // namespace

SmallVector<PrologueLoad> pipeliner::findPrologueLoads(scf::ForOp loop,
                                                       const LoopPlan &plan) {
  SmallVector<PrologueLoad> found;
  std::optional<LinearForm> lower = LinearForm::of(loop.getLowerBound());
  std::optional<LinearForm> step = LinearForm::of(loop.getStep());
  if (!lower || !step)
    return found;
  // The induction variable one step before the first iteration.
  LinearForm before = lower->plus(*step, -1);
  llvm::SmallDenseMap<Value, LinearForm> substitute;
  substitute.try_emplace(loop.getInductionVar(), before);
  for (auto [index, staged] : llvm::enumerate(plan.loads)) {
    LocalAllocOp stagedAlloc = staged.alloc;
    auto load = dyn_cast<DescriptorLoadOp>(staged.load);
    if (!load)
      continue;
    SmallVector<LinearForm> wanted;
    for (Value coordinate : load.getIndices()) {
      std::optional<LinearForm> form = LinearForm::of(coordinate, substitute);
      if (!form)
        break;
      wanted.push_back(*form);
    }
    if (wanted.size() != load.getIndices().size())
      continue;
    for (Operation &op : *loop->getBlock()) {
      if (&op == loop.getOperation())
        break;
      auto candidate = dyn_cast<DescriptorLoadOp>(&op);
      if (!candidate || candidate.getDesc() != load.getDesc() ||
          candidate.getType() != load.getType() || !candidate->hasOneUse())
        continue;
      auto alloc = dyn_cast<LocalAllocOp>(*candidate->getUsers().begin());
      if (!alloc || alloc.getType() != stagedAlloc.getType() ||
          !readOnlyBefore(alloc, loop) || globalWriteBefore(candidate))
        continue;
      bool same = true;
      for (auto [coordinate, form] :
           llvm::zip(candidate.getIndices(), wanted)) {
        std::optional<LinearForm> mine = LinearForm::of(coordinate);
        same &= mine && *mine == form;
      }
      if (!same)
        continue;
      found.push_back({candidate, alloc, static_cast<unsigned>(index)});
      break;
    }
  }
  return found;
}
