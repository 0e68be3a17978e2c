//===- AllocateSharedMemory.cpp - Offsets for shared memory ---------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUALLOCATESHAREDMEMORY
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tilegpu;

namespace {
struct AllocateSharedMemoryPass
    : tilegpu::impl::TileGPUAllocateSharedMemoryBase<AllocateSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(getOperation())))
      return signalPassFailure();
    Builder b(module.getContext());
    int64_t total = 0;
    bool failed = false;
    module.walk([&](func::FuncOp function) {
      tile::SharedMemoryAllocation allocation(function);
      function.walk([&](Operation *op) {
        if (std::optional<int64_t> offset = allocation.getOffset(op))
          op->setAttr(TileGPUDialect::getOffsetAttrName(),
                      b.getI64IntegerAttr(*offset));
      });
      if (allocation.getTotalBytes() > maxShared) {
        function.emitError()
            << "kernel '" << function.getName() << "' needs "
            << allocation.getTotalBytes()
            << " bytes of shared memory, more than the "
            << static_cast<int64_t>(maxShared)
            << " a block may have; use smaller blocks or fewer stages";
        failed = true;
      }
      total = std::max(total, allocation.getTotalBytes());
    });
    module->setAttr(TileGPUDialect::getSharedAttrName(),
                    b.getI64IntegerAttr(total));
    if (failed)
      signalPassFailure();
  }
};
} // namespace
