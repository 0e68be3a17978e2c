//===- SpeculateBranchLoads.cpp - Branch loads issued before the branch ---===//
//
// A load inside one branch of an scf.if waits for the branch condition;
// when that condition is itself loaded, the two memory round trips run one
// after the other. The tutorial's layer-norm backward does this inside its
// lock's critical section:
//
//   if tl.load(count) == 0: tl.atomic_xchg(count, 1)
//   else: dw += tl.load(dw_ptrs, mask=mask)
//   tl.store(dw_ptrs, dw, mask=mask)
//
// and every program queued on the lock waits for both round trips. The
// load is issued before the `if` instead (with the pure ops that compute
// its pointers), so it runs beside the load of the condition, when:
//
// - it is not volatile, and no op before it in its branch writes memory
//   or has unknown effects (on the path that uses it, nothing it could
//   read changes between the two places);
// - its pointers and mask are computed from values defined before the if
//   by pure ops only;
// - the if's block, after the if, stores to (or loads from) the same
//   pointers under the same mask, unconditionally: those addresses are
//   then accessed whichever branch runs, so reading them early cannot
//   fault where the program did not already access them.
//
// On the other branch the value is unused. "Same" means the same SSA
// value or the same pure computation of the same operands (the front end
// recomputes `base + offsets` in each place).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUSPECULATEBRANCHLOADS
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// A pure op without regions: one that can be recomputed or moved freely.
bool isMovable(Operation *op) {
  return op && op->getNumRegions() == 0 && isPure(op);
}

/// Whether `a` and `b` are the same value or the same pure computation of
/// the same values, up to `depth` ops deep.
bool sameValue(Value a, Value b, unsigned depth = 8) {
  if (a == b)
    return true;
  if (!a || !b || depth == 0)
    return false;
  auto x = dyn_cast<OpResult>(a), y = dyn_cast<OpResult>(b);
  if (!x || !y || x.getResultNumber() != y.getResultNumber() ||
      !isMovable(x.getOwner()) || !isMovable(y.getOwner()))
    return false;
  return OperationEquivalence::isEquivalentTo(
      x.getOwner(), y.getOwner(),
      [&](Value u, Value v) { return success(sameValue(u, v, depth - 1)); },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

/// Whether `op` may write memory (or has effects it does not declare).
bool mayWrite(Operation *op) {
  if (isPure(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  if (op->getNumRegions() != 0)
    return true;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::any_of(list, [](const MemoryEffects::EffectInstance &effect) {
    return !isa<MemoryEffects::Read>(effect.getEffect());
  });
}

/// The ops of `branch` that compute `load`'s operands, in program order,
/// if they are all movable and otherwise read only values from before
/// `ifOp`; failure otherwise.
FailureOr<SmallVector<Operation *>> operandSlice(LoadOp load, Block *branch,
                                                 scf::IfOp ifOp) {
  SetVector<Operation *> slice;
  SmallVector<Value> work(load->getOperands());
  while (!work.empty()) {
    Value value = work.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (!def) {
      // A block argument: acceptable only from outside the if.
      if (ifOp->isAncestor(value.getParentBlock()->getParentOp()))
        return failure();
      continue;
    }
    if (!ifOp->isAncestor(def))
      continue;
    if (def->getBlock() != branch || !isMovable(def))
      return failure();
    if (slice.insert(def))
      work.append(def->operand_begin(), def->operand_end());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Whether the block of `ifOp` accesses `load`'s pointers under its mask
/// after the if, on every path.
bool accessedAfter(LoadOp load, scf::IfOp ifOp) {
  for (Operation *op = ifOp->getNextNode(); op; op = op->getNextNode()) {
    Value ptr, mask;
    if (auto store = dyn_cast<StoreOp>(op)) {
      ptr = store.getPtr();
      mask = store.getMask();
    } else if (auto later = dyn_cast<LoadOp>(op)) {
      ptr = later.getPtr();
      mask = later.getMask();
    } else {
      continue;
    }
    bool sameMask = (!mask && !load.getMask()) ||
                    (mask && load.getMask() && sameValue(mask, load.getMask()));
    if (sameMask && sameValue(ptr, load.getPtr()))
      return true;
  }
  return false;
}

void speculate(scf::IfOp ifOp) {
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
    if (region->empty())
      continue;
    Block *branch = &region->front();
    SmallVector<LoadOp> loads;
    for (Operation &op : *branch) {
      if (auto load = dyn_cast<LoadOp>(op))
        if (!load.getIsVolatile())
          loads.push_back(load);
      if (mayWrite(&op))
        break;
    }
    for (LoadOp load : loads) {
      FailureOr<SmallVector<Operation *>> slice =
          operandSlice(load, branch, ifOp);
      if (failed(slice) || !accessedAfter(load, ifOp))
        continue;
      for (Operation *op : *slice)
        op->moveBefore(ifOp);
      load->moveBefore(ifOp);
    }
  }
}

struct SpeculateBranchLoadsPass
    : tilegpu::impl::TileGPUSpeculateBranchLoadsBase<SpeculateBranchLoadsPass> {
  void runOnOperation() override {
    SmallVector<scf::IfOp> ifs;
    getOperation().walk([&](scf::IfOp ifOp) { ifs.push_back(ifOp); });
    for (scf::IfOp ifOp : ifs)
      speculate(ifOp);
  }
};

} // namespace
