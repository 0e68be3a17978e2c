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
/// Each function's buffers are allocated on their own. A device function
/// (a `noinline` @jit function, called rather than inlined) runs while its
/// caller's buffers may be live, so its buffers start where all of each
/// caller's end: `base` is the most, over its callers, of the caller's
/// base plus its bytes. Calls form no cycle (the front end rejects
/// recursion), so this settles after as many rounds as the call depth.
struct AllocateSharedMemoryPass
    : tilegpu::impl::TileGPUAllocateSharedMemoryBase<AllocateSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(getOperation())))
      return signalPassFailure();
    Builder b(module.getContext());
    SmallVector<func::FuncOp> functions;
    DenseMap<Operation *, std::unique_ptr<tile::SharedMemoryAllocation>>
        allocations;
    module.walk([&](func::FuncOp function) {
      functions.push_back(function);
      allocations[function] =
          std::make_unique<tile::SharedMemoryAllocation>(function);
    });
    DenseMap<Operation *, int64_t> base;
    for (bool changed = true; changed;) {
      changed = false;
      for (func::FuncOp caller : functions) {
        int64_t end =
            base.lookup(caller) + allocations[caller]->getTotalBytes();
        caller.walk([&](func::CallOp call) {
          auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
          if (callee && end > base.lookup(callee)) {
            base[callee] = end;
            changed = true;
          }
        });
      }
    }
    int64_t total = 0;
    bool failed = false;
    for (func::FuncOp function : functions) {
      tile::SharedMemoryAllocation &allocation = *allocations[function];
      int64_t start = base.lookup(function);
      function.walk([&](Operation *op) {
        if (std::optional<int64_t> offset = allocation.getOffset(op))
          op->setAttr(TileGPUDialect::getOffsetAttrName(),
                      b.getI64IntegerAttr(start + *offset));
      });
      int64_t end = start + allocation.getTotalBytes();
      if (end > maxShared) {
        function.emitError()
            << "kernel '" << function.getName() << "' needs " << end
            << " bytes of shared memory, more than the "
            << static_cast<int64_t>(maxShared)
            << " a block may have; use smaller blocks or fewer stages";
        failed = true;
      }
      total = std::max(total, end);
    }
    module->setAttr(TileGPUDialect::getSharedAttrName(),
                    b.getI64IntegerAttr(total));
    if (failed)
      signalPassFailure();
  }
};
} // namespace
