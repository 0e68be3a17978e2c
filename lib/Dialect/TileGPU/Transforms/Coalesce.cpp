//===- Coalesce.cpp - Layouts for wide, coalesced global accesses ---------===//

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

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

struct CoalescePass : tilegpu::impl::TileGPUCoalesceBase<CoalescePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(getOperation())))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    int numWarps = TileGPUDialect::getNumWarps(module);
    AxisInfoAnalysis axisInfo(module);
    SmallVector<std::pair<Operation *, BlockedEncodingAttr>> changes;
    module.walk([&](Operation *op) {
      if (!isa<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp>(op))
        return;
      Value ptr = op->getOperand(0);
      auto type = dyn_cast<RankedTensorType>(ptr.getType());
      if (!type || !getDistributedEncoding(type))
        return;
      AxisInfo info = axisInfo.getAxisInfo(ptr);
      // Most contiguous dimension first; ties keep the fastest-last order.
      SmallVector<unsigned> order;
      for (unsigned d = type.getRank(); d-- > 0;)
        order.push_back(d);
      llvm::stable_sort(order, [&](unsigned a, unsigned b) {
        return info.contiguity[a] > info.contiguity[b];
      });
      unsigned elementBits = std::max(
          8u, getElementBitWidth(getPointeeTypeLike(type.getElementType())));
      int64_t perThread = 1;
      if (isa<LoadOp, StoreOp>(op)) {
        int64_t threads = int64_t(numWarps) * TileGPUDialect::kThreadsPerWarp;
        perThread = std::min<int64_t>(
            {axisInfo.getPtrVectorLimit(ptr, order[0]), 128 / elementBits,
             std::max<int64_t>(1, type.getNumElements() / threads),
             type.getShape()[order[0]]});
        perThread = std::max<int64_t>(1, llvm::bit_floor(uint64_t(perThread)));
      }
      BlockedEncodingAttr encoding =
          BlockedEncodingAttr::getFilling(context, type.getShape(), order,
                                          perThread, numWarps);
      if (encoding != type.getEncoding())
        changes.push_back({op, encoding});
    });
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
