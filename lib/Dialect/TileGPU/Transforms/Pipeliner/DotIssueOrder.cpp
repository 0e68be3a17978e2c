//===- DotIssueOrder.cpp - Warp-specialised dots issued once ready --------===//
//
// wgmma groups retire in the order they were issued, and a warpgroup waits
// for a product only where it reads the result. A product that does not
// depend on the work written before it (attention backward's dP = dO V^T,
// written after P's softmax and dV's product) is best issued as soon as its
// operands are there: the tensor cores then run it under that work instead
// of after it, and the wait for the product issued before it leaves it in
// flight.
//
// Each dot of the body moves up to just after the nearest op it must
// follow: one that defines an operand, writes shared memory (a dot reads
// its operands there; a global write or a fresh allocation cannot change
// them), holds regions, or whose effects are not known. It passes a dot
// written before it only when that dot needs the result of a product of
// the iteration that it does not (dV needs S's, dP needs none): the other
// dots keep their order, so that a product is not held up behind one
// written after it. A loaded operand's shared copy (and the views a dot
// reads of it) first moves to where the value is loaded: it was made where
// the first dot to read it was written (dV's dO), after the softmax.
//
// Only warp-specialised loops are reordered: their consumers run with up
// to 240 registers (setmaxnreg), so the moved product's accumulator fits
// beside the work it overlaps. An 8-warp kernel without a producer has 255
// at most; attention backward's dK/dV kernel already uses 253 and spills
// (60 bytes) when its dP^T product is issued early.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetOperations.h"

using namespace mlir;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// Whether `op` may change what `dot` reads or computes from, so that the
/// dot must stay after it.
bool mustFollow(Operation *op, WarpGroupDotOp dot) {
  for (Value operand : dot->getOperands())
    if (operand.getDefiningOp() == op)
      return true;
  if (op->getNumRegions() != 0)
    return true;
  // Dots read shared memory and registers only: they may pass reads, a
  // fresh buffer's allocation and global writes, and other dots.
  if (isa<WarpGroupDotOp>(op) || isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    if (isa<MemoryEffects::Read, MemoryEffects::Allocate>(e.getEffect()))
      return false;
    return !isa<tile::GlobalMemory>(e.getResource());
  });
}

/// Moves `op` to just after `after` (to the start of `body` when null);
/// returns whether it moved.
bool placeJustAfter(Operation *op, Operation *after, Block *body) {
  if (after ? op->getPrevNode() == after : op == &body->front())
    return false;
  if (after)
    op->moveAfter(after);
  else
    op->moveBefore(&body->front());
  return true;
}

/// The last op of `body` that defines (or holds the definition of) one of
/// `op`'s operands; null when they all come from outside.
Operation *lastOperandDefinition(Operation *op, Block *body) {
  Operation *last = nullptr;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp())
      if (Operation *inBody = body->findAncestorOpInBlock(*def))
        if (!last || last->isBeforeInBlock(inBody))
          last = inBody;
  return last;
}

} // namespace

bool pipeliner::issueDotsWhenReady(scf::ForOp loop) {
  Block *body = loop.getBody();
  // The dots of the iteration whose results each op of the body needs.
  llvm::DenseMap<Operation *, llvm::SmallPtrSet<Operation *, 4>> needs;
  for (Operation &op : *body) {
    llvm::SmallPtrSet<Operation *, 4> mine;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != body)
          continue;
        if (isa<WarpGroupDotOp>(def))
          mine.insert(def);
        auto theirs = needs.find(def);
        if (theirs != needs.end())
          mine.insert(theirs->second.begin(), theirs->second.end());
      }
    });
    needs[&op] = std::move(mine);
  }
  auto mayPass = [&](WarpGroupDotOp dot, Operation *earlier) {
    return !llvm::is_contained(dot->getOperands(), earlier->getResult(0)) &&
           !llvm::set_is_subset(needs[earlier], needs[dot]);
  };
  bool moved = false;
  // A shared copy of an operand (and the views of it a dot reads) is made
  // where the value is: where the first dot that reads it was written
  // (dV's dO), it would hold back a product written earlier (dP's).
  for (WarpGroupDotOp dot : body->getOps<WarpGroupDotOp>())
    for (Value operand : {Value(dot.getA()), Value(dot.getB())}) {
      SmallVector<Operation *> views;
      Operation *def = operand.getDefiningOp();
      while (isa_and_nonnull<MemDescTransOp, MemDescIndexOp>(def) &&
             def->getBlock() == body) {
        views.push_back(def);
        def = def->getOperand(0).getDefiningOp();
      }
      auto alloc = dyn_cast_or_null<LocalAllocOp>(def);
      if (alloc && alloc->getBlock() == body && alloc.getSrc())
        moved |= placeJustAfter(alloc, lastOperandDefinition(alloc, body),
                                body);
      for (Operation *view : llvm::reverse(views))
        moved |=
            placeJustAfter(view, lastOperandDefinition(view, body), body);
    }
  for (WarpGroupDotOp dot : llvm::to_vector(body->getOps<WarpGroupDotOp>())) {
    Operation *after = dot->getPrevNode();
    while (after) {
      auto earlier = dyn_cast<WarpGroupDotOp>(after);
      if (earlier ? !mayPass(dot, earlier) : mustFollow(after, dot))
        break;
      after = after->getPrevNode();
    }
    moved |= placeJustAfter(dot, after, body);
  }
  return moved;
}
