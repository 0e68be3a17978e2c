//===- InsertBarriers.cpp - Barriers from shared-memory hazards -----------===//
//
// Every op with a `tilegpu.offset` reads and writes the byte range
// [offset, offset + scratch size) while it runs (its own internal
// write-then-read is synchronised by its lowering). local_load and
// warpgroup_dot read their buffers; local_store and a filled local_alloc
// write theirs. A buffer of a multi-buffer (memdesc_index) counts as the
// whole allocation. A local_store writing again what only it wrote (its
// loop's next iteration) is no hazard: each thread rewrites its own bytes.
//
// An async copy's data lands when a later async_wait returns, so the copy
// is checked as a write against earlier reads and writes, and the wait
// then counts as writing every buffer async copies fill. A TMA copy is
// checked the same way but leaves nothing pending: the mbarrier wait that
// every thread makes publishes its data. mbarrier init/inval write the
// barrier; arrivals, waits and TMA signals only read it (they are atomic).
// A TMA store reads its buffer from its issue until an async_tma_store_wait
// returns (in a loop, the next iteration's): the store is checked as a read
// when issued and stays in flight through CTA barriers; the wait turns the
// reads of the stores in flight into pending reads again, so a write after
// it waits behind a barrier for the issuing thread's wait. Loop
// bodies start with what is pending before the loop merged with what is pending
// at the body's end (iterated to a fixed point), so a loop whose body already
// synchronises needs no barrier of its own at the top.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUINSERTBARRIERS
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

using Range = std::pair<int64_t, int64_t>;

bool overlaps(ArrayRef<Range> a, ArrayRef<Range> b) {
  for (Range x : a)
    for (Range y : b)
      if (x.first < y.second && y.first < x.second)
        return true;
  return false;
}

struct Accesses {
  SmallVector<Range> reads, writes;
  /// Which local_store made each of `writes` it made: a store writing
  /// again what it alone wrote (its loop's next iteration) needs no
  /// barrier, each thread rewriting bytes only it wrote.
  SmallVector<std::pair<Range, Operation *>> storers;
  /// The buffers of TMA stores issued and not yet waited for: a CTA
  /// barrier does not end these reads, only the issuing thread's wait.
  SmallVector<Range> storesInFlight;
  /// Accesses inside a region we summarised: anything may be pending.
  bool unknown = false;

  /// What a CTA barrier leaves: the TMA stores still reading.
  void clear() {
    SmallVector<Range> inFlight = std::move(storesInFlight);
    *this = Accesses();
    storesInFlight = std::move(inFlight);
  }
  bool empty() const { return reads.empty() && writes.empty() && !unknown; }

  /// An async_tma_store_wait: the reads of the stores it waited for are
  /// ordered with later writes only once a CTA barrier follows it.
  void releaseStores() {
    reads.append(storesInFlight);
    storesInFlight.clear();
    merge(Accesses());
  }

  /// Adds `other`'s accesses, keeping each range once.
  void merge(const Accesses &other) {
    reads.append(other.reads);
    writes.append(other.writes);
    storers.append(other.storers);
    storesInFlight.append(other.storesInFlight);
    unknown |= other.unknown;
    for (SmallVector<Range> *ranges : {&reads, &writes, &storesInFlight}) {
      llvm::sort(*ranges);
      ranges->erase(std::unique(ranges->begin(), ranges->end()), ranges->end());
    }
    llvm::sort(storers);
    storers.erase(std::unique(storers.begin(), storers.end()), storers.end());
  }

  /// Whether `ranges`, written by `op`, overlap a pending write that `op`
  /// did not make alone.
  bool overwritesOthers(ArrayRef<Range> ranges, Operation *op) const {
    for (Range pendingWrite : writes) {
      if (!overlaps(ranges, pendingWrite))
        continue;
      bool byOp = false, byOther = false;
      for (auto [range, storer] : storers)
        if (range == pendingWrite)
          (storer == op ? byOp : byOther) = true;
      if (!byOp || byOther)
        return true;
    }
    return false;
  }

  bool operator==(const Accesses &other) const {
    return reads == other.reads && writes == other.writes &&
           storers == other.storers && storesInFlight == other.storesInFlight &&
           unknown == other.unknown;
  }
};

Range rangeOf(Operation *buffer) {
  int64_t offset =
      cast<IntegerAttr>(buffer->getAttr(TileGPUDialect::getOffsetAttrName()))
          .getInt();
  return {offset, offset + tile::getScratchBytes(buffer)};
}

/// The allocation a buffer operand lives in, if it has an offset.
Operation *allocationOf(Value buffer) {
  while (Operation *view = buffer.getDefiningOp()) {
    if (auto index = dyn_cast<MemDescIndexOp>(view))
      buffer = index.getSrc();
    else if (auto trans = dyn_cast<MemDescTransOp>(view))
      buffer = trans.getSrc();
    else
      break;
  }
  Operation *alloc = buffer.getDefiningOp();
  if (alloc && alloc->hasAttr(TileGPUDialect::getOffsetAttrName()))
    return alloc;
  return nullptr;
}

/// The shared-memory accesses `op` itself makes (not its regions'), except
/// async_wait's (see BarrierInserter).
Accesses accessesOf(Operation *op) {
  Accesses acc;
  auto add = [&](SmallVector<Range> &ranges, Value buffer) {
    if (Operation *alloc = allocationOf(buffer))
      ranges.push_back(rangeOf(alloc));
  };
  // mbarrier arrivals and waits are atomic: only the init (and the inval)
  // must be ordered against them by a CTA barrier.
  if (isa<InitBarrierOp, InvalBarrierOp>(op)) {
    add(acc.writes, op->getOperand(0));
    return acc;
  }
  if (isa<BarrierExpectOp, WaitBarrierOp, ArriveBarrierOp>(op)) {
    add(acc.reads, op->getOperand(0));
    return acc;
  }
  if (auto copy = dyn_cast<AsyncTMACopyGlobalToLocalOp>(op)) {
    add(acc.reads, copy.getBarrier());
    add(acc.writes, copy.getResult());
    return acc;
  }
  if (auto copy = dyn_cast<AsyncTMACopyLocalToGlobalOp>(op)) {
    add(acc.reads, copy.getSrc());
    return acc;
  }
  bool reads = isa<LocalLoadOp, WarpGroupDotOp>(op);
  if (reads || isa<LocalStoreOp, AsyncCopyGlobalToLocalOp>(op)) {
    for (Value operand : op->getOperands())
      if (isa<MemDescType>(operand.getType()))
        if (Operation *alloc = allocationOf(operand))
          (reads ? acc.reads : acc.writes).push_back(rangeOf(alloc));
    return acc;
  }
  if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
    if (alloc.getSrc() && op->hasAttr(TileGPUDialect::getOffsetAttrName()))
      acc.writes.push_back(rangeOf(op));
    return acc;
  }
  if (op->hasAttr(TileGPUDialect::getOffsetAttrName())) {
    Range range = rangeOf(op);
    acc.reads.push_back(range);
    acc.writes.push_back(range);
  }
  return acc;
}

bool touchesShared(Operation *op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (!accessesOf(inner).empty() ||
        isa<BarrierOp, AsyncWaitOp, AsyncTMAStoreWaitOp>(inner))
      found = true;
  });
  return found;
}

class BarrierInserter {
public:
  explicit BarrierInserter(Operation *function) {
    function->walk([&](AsyncCopyGlobalToLocalOp copy) {
      if (Operation *alloc = allocationOf(copy.getBuffer()))
        asyncWrites.writes.push_back(rangeOf(alloc));
    });
    asyncWrites.merge(Accesses());
  }

  /// Processes `block` with `pending` accesses at its start; leaves the
  /// accesses pending at its end in `pending`. With `insert` false only
  /// computes what would be pending.
  void run(Block &block, Accesses &pending, bool insert) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<BarrierOp>(op)) {
        pending.clear();
        continue;
      }
      if (isa<AsyncWaitOp>(op)) {
        pending.merge(asyncWrites);
        continue;
      }
      if (isa<AsyncTMAStoreWaitOp>(op)) {
        pending.releaseStores();
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        if (touchesShared(loop) && runLoop(loop, pending, insert))
          continue;
      }
      if (auto branch = dyn_cast<scf::IfOp>(op)) {
        if (touchesShared(branch))
          runIf(branch, pending, insert);
        continue;
      }
      if (auto specialize = dyn_cast<WarpSpecializeOp>(op)) {
        runWarpSpecialize(specialize, pending, insert);
        continue;
      }
      // Ops with scratch (reduce, scan) are single accesses: their combiner
      // regions hold no shared-memory ops of their own.
      if (op.getNumRegions() != 0 &&
          !op.hasAttr(TileGPUDialect::getOffsetAttrName())) {
        if (!touchesShared(&op))
          continue;
        // Conservatively: a barrier before the op if anything is pending,
        // each region starts clean (its own leading barrier covers the loop
        // back edge), and afterwards anything may be pending.
        if (!pending.empty())
          barrierBefore(&op, pending, insert);
        for (Region &region : op.getRegions())
          for (Block &inner : region) {
            Accesses innerPending;
            if (!inner.empty() && insert) {
              OpBuilder b(&inner, inner.begin());
              BarrierOp::create(b, op.getLoc());
            }
            run(inner, innerPending, insert);
          }
        pending.unknown = true;
        continue;
      }
      Accesses acc = accessesOf(&op);
      if (acc.empty())
        continue;
      bool hazard = pending.unknown || overlaps(acc.reads, pending.writes) ||
                    pending.overwritesOthers(acc.writes, &op) ||
                    overlaps(acc.writes, pending.reads);
      if (hazard)
        barrierBefore(&op, pending, insert);
      pending.reads.append(acc.reads);
      if (isa<AsyncTMACopyLocalToGlobalOp>(op))
        pending.storesInFlight.append(acc.reads);
      // A cp.async's writes become pending at the async_wait; a TMA copy's
      // are visible to every thread once its mbarrier wait returns.
      if (!isa<AsyncCopyGlobalToLocalOp, AsyncTMACopyGlobalToLocalOp>(op))
        pending.writes.append(acc.writes);
      if (isa<LocalStoreOp>(op))
        for (Range range : acc.writes)
          pending.storers.push_back({range, &op});
    }
  }

  /// Set when the producer of a warp_specialize would need a CTA barrier.
  bool producerHazard = false;

private:
  /// Both sides start behind one CTA barrier (the mbarriers initialised
  /// before must be visible to all); inside, the mbarriers order the
  /// producer's copies against the consumers, so only the consumers' own
  /// accesses get barriers (named ones, for the consumer warps). The
  /// producer and the writer must need none: their warps never meet the
  /// consumers'.
  void runWarpSpecialize(WarpSpecializeOp specialize, Accesses &pending,
                         bool insert) {
    if (!pending.empty())
      barrierBefore(specialize, pending, insert);
    for (Region *side : {&specialize.getProducer(), &specialize.getWriter()}) {
      if (side->empty())
        continue;
      Accesses own;
      run(side->front(), own, /*insert=*/true);
      side->walk([&](BarrierOp barrier) {
        producerHazard = true;
        barrier.erase();
      });
    }
    Accesses consumers;
    run(specialize.getConsumers().front(), consumers, insert);
    pending.unknown = true;
  }

  /// Each branch of an `if` starts with what is pending before it (no
  /// back edge: a barrier only where a branch's own accesses need one, as
  /// in straight-line code), and what either leaves pending is pending
  /// after it.
  void runIf(scf::IfOp branch, Accesses &pending, bool insert) {
    Accesses taken = pending;
    run(branch.getThenRegion().front(), taken, insert);
    if (!branch.getElseRegion().empty()) {
      Accesses skipped = pending;
      run(branch.getElseRegion().front(), skipped, insert);
      taken.merge(skipped);
    } else {
      taken.merge(pending);
    }
    pending = taken;
  }

  /// A loop body starts with the accesses pending before the loop or at
  /// the end of an iteration. Returns false (nothing done) when that does
  /// not settle in a few rounds.
  bool runLoop(scf::ForOp loop, Accesses &pending, bool insert) {
    Block &body = *loop.getBody();
    Accesses start = pending;
    for (int round = 0; round < 4; ++round) {
      Accesses end = start;
      run(body, end, /*insert=*/false);
      Accesses next = pending;
      next.merge(end);
      next.merge(start);
      if (next == start) {
        if (insert) {
          Accesses check = start;
          run(body, check, /*insert=*/true);
        }
        // The loop may run no iterations at all.
        pending.merge(end);
        return true;
      }
      start = next;
    }
    return false;
  }

  void barrierBefore(Operation *op, Accesses &pending, bool insert) {
    if (insert) {
      OpBuilder b(op);
      BarrierOp::create(b, op->getLoc());
    }
    pending.clear();
  }

  /// What an async_wait makes visible: every buffer async copies fill.
  Accesses asyncWrites;
};

struct InsertBarriersPass
    : tilegpu::impl::TileGPUInsertBarriersBase<InsertBarriersPass> {
  void runOnOperation() override {
    if (failed(verifyTensorsHaveLayouts(getOperation())))
      return signalPassFailure();
    getOperation().walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      // A device function (a `noinline` @jit function) may start while the
      // warps of its previous call still read its buffers.
      Accesses pending;
      pending.unknown =
          !function->hasAttr(tile::TileDialect::getKernelAttrName());
      BarrierInserter inserter(function);
      inserter.run(function.front(), pending, /*insert=*/true);
      if (inserter.producerHazard) {
        function.emitError("the producer of a warp_specialize would need a "
                           "CTA barrier its warps cannot take");
        signalPassFailure();
      }
    });
  }
};

} // namespace
