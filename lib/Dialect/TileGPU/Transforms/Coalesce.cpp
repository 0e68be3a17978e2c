//===- Coalesce.cpp - Layouts for wide, coalesced global accesses ---------===//

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/MapVector.h"
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

/// Labels the ops that exchange tensors with one another, directly or
/// through other tensor-valued ops, in either direction: two ops get the
/// same label when such a path joins them. Only ops reachable from `roots`
/// are labelled.
DenseMap<Operation *, unsigned> labelTensorFlow(ArrayRef<Operation *> roots) {
  DenseMap<Operation *, unsigned> label;
  unsigned next = 0;
  for (Operation *root : roots) {
    if (label.count(root))
      continue;
    unsigned id = next++;
    SmallVector<Operation *> work{root};
    label[root] = id;
    auto visit = [&](Operation *op) {
      if (op && label.try_emplace(op, id).second)
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
  }
  return label;
}

/// Whether the pipeliner may copy `loop`'s loads ahead: a dot in its own
/// body (a K loop; not one in a nested loop, such as a persistent kernel's
/// loop over tiles), or the kernel asked for stages
/// (`tl.range(num_stages=)`).
bool mayBeStaged(scf::ForOp loop) {
  return loop->hasAttr(TileDialect::getNumStagesAttrName()) ||
         !loop.getBody()->getOps<DotOp>().empty();
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
        int64_t vectorLimit = axisInfo.getPtrVectorLimit(ptr, access.order[0]);
        int64_t rowLength = type.getShape()[access.order[0]];
        access.perThread = std::min<int64_t>(
            {vectorLimit, 128 / elementBits,
             std::max<int64_t>(1, type.getNumElements() / threads), rowLength});
        access.perThread =
            std::max<int64_t>(1, llvm::bit_floor(uint64_t(access.perThread)));
        // A load in a loop of less than a word per thread (a row of 16-bit
        // group scales spread over more threads than it has elements) is
        // one cp.async can never copy, so a pipelined loop would wait for
        // it in every iteration. A word per thread on fewer threads (the
        // rest holding copies) moves the same bytes in the same
        // transactions. Only in loops the pipeliner may stage (a dot's K
        // loop, or one given num_stages): elsewhere nothing is copied
        // ahead, and the narrower layout may spare a conversion.
        int64_t wordElements = 32 / elementBits;
        auto loop = op->getParentOfType<scf::ForOp>();
        if (isa<LoadOp>(op) && access.perThread < wordElements && loop &&
            !loop.isDefinedOutsideOfLoop(ptr) && mayBeStaged(loop)) {
          int64_t wider =
              std::min<int64_t>({vectorLimit, wordElements, rowLength});
          access.perThread = std::max<int64_t>(
              access.perThread, llvm::bit_floor(uint64_t(wider)));
        }
      }
      accesses[op] = access;
    });

    // A load whose values meet those of a wider access of the same shape
    // and order takes that access's layout: a gathered load (`w[offs //
    // k]`) issues one scalar load per element either way, and sharing the
    // layout spares a conversion through shared memory between them. Stores
    // keep their own width; a wider layout would split their coalesced
    // writes.
    SmallVector<Operation *> roots;
    for (auto &entry : accesses)
      roots.push_back(entry.first);
    DenseMap<Operation *, unsigned> label = labelTensorFlow(roots);
    auto shapeOf = [](Operation *op) {
      return cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
    };
    SmallVector<std::pair<Operation *, BlockedEncodingAttr>> changes;
    for (auto &[op, access] : accesses) {
      auto type = cast<RankedTensorType>(op->getOperand(0).getType());
      int64_t perThread = access.perThread;
      if (isa<LoadOp>(op))
        for (auto &[other, candidate] : accesses)
          if (isa<LoadOp, StoreOp>(other) && label[other] == label[op] &&
              candidate.order == access.order &&
              shapeOf(other) == type.getShape())
            perThread = std::max(perThread, candidate.perThread);
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
