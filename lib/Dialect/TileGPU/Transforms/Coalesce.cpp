//===- Coalesce.cpp - Layouts for wide, coalesced global accesses ---------===//

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUCOALESCE
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// Most contiguous dimension of `ptr` first; ties keep the fastest-last
/// order.
SmallVector<unsigned> accessOrder(Value ptr, const AxisInfo &info) {
  unsigned rank = cast<RankedTensorType>(ptr.getType()).getRank();
  SmallVector<unsigned> order;
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return info.contiguity[a] > info.contiguity[b];
  });
  return order;
}

/// The loads and stores that exchange tensors with `root`, directly or
/// through other tensor-valued ops, in either direction.
SetVector<Operation *> connectedAccesses(Operation *root) {
  SetVector<Operation *> seen;
  SmallVector<Operation *> work{root};
  seen.insert(root);
  auto visit = [&](Operation *op) {
    if (op && seen.insert(op))
      work.push_back(op);
  };
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        visit(operand.getDefiningOp());
    for (Value result : op->getResults())
      if (isa<RankedTensorType>(result.getType()))
        for (Operation *user : result.getUsers())
          visit(user);
  }
  SetVector<Operation *> accesses;
  for (Operation *op : seen)
    if (op != root && isa<LoadOp, StoreOp>(op))
      accesses.insert(op);
  return accesses;
}

struct CoalescePass : tilegpu::impl::TileGPUCoalesceBase<CoalescePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(getOperation())))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    int numWarps = TileGPUDialect::getNumWarps(module);
    int64_t threads = int64_t(numWarps) * TileGPUDialect::kThreadsPerWarp;
    AxisInfoAnalysis axisInfo(module);

    // Each access's own widest vector: what its addresses and alignment
    // allow, at most 128 bits, and no more than its share of the tensor.
    struct Access {
      SmallVector<unsigned> order;
      int64_t perThread = 1;
    };
    llvm::MapVector<Operation *, Access> accesses;
    module.walk([&](Operation *op) {
      if (!isa<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp>(op))
        return;
      Value ptr = op->getOperand(0);
      auto type = dyn_cast<RankedTensorType>(ptr.getType());
      if (!type || !getDistributedEncoding(type))
        return;
      Access access;
      access.order = accessOrder(ptr, axisInfo.getAxisInfo(ptr));
      if (isa<LoadOp, StoreOp>(op)) {
        unsigned elementBits = std::max(
            8u, getElementBitWidth(getPointeeTypeLike(type.getElementType())));
        access.perThread = std::min<int64_t>(
            {axisInfo.getPtrVectorLimit(ptr, access.order[0]),
             128 / elementBits, std::max<int64_t>(1, type.getNumElements() / threads),
             type.getShape()[access.order[0]]});
        access.perThread =
            std::max<int64_t>(1, llvm::bit_floor(uint64_t(access.perThread)));
      }
      accesses[op] = access;
    });

    // A load whose values meet those of a wider access of the same shape
    // and order takes that access's layout: a gathered load (`w[offs //
    // k]`) issues one scalar load per element either way, and sharing the
    // layout spares a conversion through shared memory between them. Stores
    // keep their own width; a wider layout would split their coalesced
    // writes.
    SmallVector<std::pair<Operation *, BlockedEncodingAttr>> changes;
    for (auto &[op, access] : accesses) {
      auto type = cast<RankedTensorType>(op->getOperand(0).getType());
      int64_t perThread = access.perThread;
      if (isa<LoadOp>(op))
        for (Operation *other : connectedAccesses(op)) {
          auto it = accesses.find(other);
          if (it == accesses.end() || it->second.order != access.order ||
              cast<RankedTensorType>(other->getOperand(0).getType())
                      .getShape() != type.getShape())
            continue;
          perThread = std::max(perThread, it->second.perThread);
        }
      BlockedEncodingAttr encoding = BlockedEncodingAttr::getFilling(
          context, type.getShape(), access.order, perThread, numWarps);
      if (encoding != type.getEncoding())
        changes.push_back({op, encoding});
    }
    for (auto [op, encoding] : changes) {
      OpBuilder b(op);
      for (OpOperand &operand : op->getOpOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type)
          continue;
        operand.set(ConvertLayoutOp::create(b, op->getLoc(),
                                            type.cloneWithEncoding(encoding),
                                            operand.get()));
      }
      b.setInsertionPointAfter(op);
      for (Value result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type)
          continue;
        result.setType(type.cloneWithEncoding(encoding));
        auto back = ConvertLayoutOp::create(b, op->getLoc(), type, result);
        result.replaceAllUsesExcept(back, back);
      }
    }
  }
};

} // namespace
