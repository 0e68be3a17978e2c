//===- InsertBarriers.cpp - Barriers from shared-memory hazards -----------===//
//
// Every op with a `tilegpu.offset` reads and writes the byte range
// [offset, offset + scratch size) while it runs (its own internal
// write-then-read is synchronised by its lowering). local_load and
// warpgroup_dot read their buffers; local_store and a filled local_alloc
// write theirs.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

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

struct Accesses {
  SmallVector<Range> reads, writes;
  /// Accesses inside a region we summarised: anything may be pending.
  bool unknown = false;

  void clear() { *this = Accesses(); }
  bool empty() const { return reads.empty() && writes.empty() && !unknown; }
};

bool overlaps(ArrayRef<Range> a, ArrayRef<Range> b) {
  for (Range x : a)
    for (Range y : b)
      if (x.first < y.second && y.first < x.second)
        return true;
  return false;
}

Range rangeOf(Operation *buffer) {
  int64_t offset = cast<IntegerAttr>(
                       buffer->getAttr(TileGPUDialect::getOffsetAttrName()))
                       .getInt();
  return {offset, offset + tile::getScratchBytes(buffer)};
}

/// The shared-memory accesses `op` itself makes (not its regions').
Accesses accessesOf(Operation *op) {
  Accesses acc;
  // Ops on buffers: what their memdesc operands' allocations hold. An
  // async copy's writes land later (at its async_wait), but ordering it
  // like a store keeps any earlier readers of the buffer safe.
  bool reads = isa<LocalLoadOp, WarpGroupDotOp>(op);
  if (reads || isa<LocalStoreOp, AsyncCopyGlobalToLocalOp>(op)) {
    for (Value operand : op->getOperands())
      if (isa<MemDescType>(operand.getType()))
        if (Operation *alloc = operand.getDefiningOp())
          if (alloc->hasAttr(TileGPUDialect::getOffsetAttrName()))
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
    if (!accessesOf(inner).empty() || isa<BarrierOp>(inner))
      found = true;
  });
  return found;
}

class BarrierInserter {
public:
  /// Processes `block` with `pending` accesses at its start; leaves the
  /// accesses pending at its end in `pending`.
  void run(Block &block, Accesses &pending) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<BarrierOp>(op)) {
        pending.clear();
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
          insertBefore(&op, pending);
        for (Region &region : op.getRegions())
          for (Block &inner : region) {
            Accesses innerPending;
            if (!inner.empty()) {
              OpBuilder b(&inner, inner.begin());
              BarrierOp::create(b, op.getLoc());
            }
            run(inner, innerPending);
          }
        pending.unknown = true;
        continue;
      }
      Accesses acc = accessesOf(&op);
      if (acc.empty())
        continue;
      bool hazard = pending.unknown ||
                    overlaps(acc.reads, pending.writes) ||
                    overlaps(acc.writes, pending.writes) ||
                    overlaps(acc.writes, pending.reads);
      if (hazard)
        insertBefore(&op, pending);
      pending.reads.append(acc.reads);
      pending.writes.append(acc.writes);
    }
  }

private:
  void insertBefore(Operation *op, Accesses &pending) {
    OpBuilder b(op);
    BarrierOp::create(b, op->getLoc());
    pending.clear();
  }
};

struct InsertBarriersPass
    : tilegpu::impl::TileGPUInsertBarriersBase<InsertBarriersPass> {
  void runOnOperation() override {
    if (failed(verifyTensorsHaveLayouts(getOperation())))
      return signalPassFailure();
    getOperation().walk([](func::FuncOp function) {
      if (function.isExternal())
        return;
      Accesses pending;
      BarrierInserter().run(function.front(), pending);
    });
  }
};

} // namespace
