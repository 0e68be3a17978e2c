//===- ConvertTileGPUToLLVM.cpp - Tensors become each thread's registers --===//

#include "Utility.h"

#include "tile/Conversion/Passes.h"
#include "tile/Support/Limits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILEGPUTOLLVM
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

bool isScalarOnly(Operation *op) {
  auto scalar = [](Type t) { return !isa<RankedTensorType, MemDescType>(t); };
  if (!llvm::all_of(op->getOperandTypes(), scalar) ||
      !llvm::all_of(op->getResultTypes(), scalar))
    return false;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!llvm::all_of(block.getArgumentTypes(), scalar))
        return false;
  return true;
}

/// tilegpu.barrier (placed by the barrier pass) and tile.debug_barrier
/// (the kernel's own) are the same bar.sync.
template <typename BarrierLikeOp>
struct BarrierPattern : OpConversionPattern<BarrierLikeOp> {
  using OpConversionPattern<BarrierLikeOp>::OpConversionPattern;
  using OpAdaptor = typename BarrierLikeOp::Adaptor;
  LogicalResult
  matchAndRewrite(BarrierLikeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// A bar.sync right after another, with nothing between that touches
/// memory, waits for nothing new: every thread has passed the first and
/// none has made an access since that the second would order. Lowerings
/// emit such pairs where each guards its own use of shared memory (the
/// barrier pass's, a releasing atomic's, a user's debug_barrier); in a
/// lock's spin loop they are paid on every turn.
void removeRedundantBarriers(ModuleOp module) {
  SmallVector<Operation *> redundant;
  module.walk([&](Block *block) {
    bool afterBarrier = false;
    for (Operation &op : *block) {
      if (isa<NVVM::Barrier0Op>(op)) {
        if (afterBarrier)
          redundant.push_back(&op);
        afterBarrier = true;
      } else if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op)) {
        afterBarrier = false;
      }
    }
  });
  for (Operation *op : redundant)
    op->erase();
}

/// Fails, with an error at the op, when a tensor's layout gives a thread
/// more registers than kMaxRegistersPerThread: the lowering makes one value
/// per register.
LogicalResult verifyRegistersPerThread(ModuleOp module) {
  auto tooMany = [](Type type) -> std::optional<int64_t> {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !isa_and_nonnull<DistributedEncoding>(tensor.getEncoding()))
      return std::nullopt;
    int64_t registers = getLinearLayout(tensor).getNumRegisters();
    if (registers <= ::tile::kMaxRegistersPerThread)
      return std::nullopt;
    return registers;
  };
  WalkResult result = module.walk([&](Operation *op) {
    SmallVector<Type> types(op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::append_range(types, block.getArgumentTypes());
    for (Type type : types)
      if (std::optional<int64_t> registers = tooMany(type)) {
        op->emitError() << "a thread would hold " << *registers
                        << " registers of " << type << " (its layout repeats "
                        << "the tensor); at most "
                        << ::tile::kMaxRegistersPerThread << " are lowered";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct ConvertTileGPUToLLVMPass
    : mlir::tile::impl::ConvertTileGPUToLLVMBase<ConvertTileGPUToLLVMPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(getOperation())) ||
        failed(verifyRegistersPerThread(module)))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    AxisInfoAnalysis axisInfo(module);
    ThreadTypeConverter converter;
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal(isScalarOnly);
    target.addIllegalOp<BarrierOp, ConvertLayoutOp>();
    // Memory ops become PTX here even on scalars.
    target.addIllegalOp<LoadOp, StoreOp, AtomicRMWOp, AtomicCASOp>();
    target.addIllegalOp<PrintOp, AssertOp, DebugBarrierOp>();
    // Hints go here on scalars too: later passes have no use for them.
    target.addIllegalOp<HintOp>();
    // Inline asm is lowered here in both forms, where packing is known.
    target.addIllegalOp<ElementwiseInlineAsmOp>();
    target.addIllegalOp<TurnInitOp, TurnWaitOp, TurnPassOp>();
    target.addIllegalOp<LocalAllocOp, LocalLoadOp, LocalStoreOp, LocalDeallocOp,
                        WarpGroupDotOp, AsyncCopyGlobalToLocalOp,
                        AsyncCommitGroupOp, AsyncWaitOp, FenceAsyncSharedOp,
                        AsyncTMAStoreWaitOp>();
    RewritePatternSet patterns(context);
    populateElementwiseAndShapePatterns(converter, patterns, axisInfo);
    populateMemoryOpPatterns(converter, patterns, axisInfo);
    populateReducePatterns(converter, patterns);
    populateScanPatterns(converter, patterns);
    populateCombinePatterns(converter, patterns);
    populateDebugPatterns(converter, patterns);
    populateDotPatterns(converter, patterns);
    populateInlineAsmPatterns(converter, patterns);
    populateSharedMemoryOpPatterns(converter, patterns, axisInfo);
    populateWarpGroupDotPatterns(converter, patterns, freshCarriedOperands,
                                 descriptorsAtUse);
    populateTMAPatterns(converter, patterns);
    populateTurnPatterns(converter, patterns);
    patterns.add<BarrierPattern<BarrierOp>, BarrierPattern<DebugBarrierOp>>(
        converter, context);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    // A device function (`noinline`) that passes tensors takes and returns
    // each thread's registers of them, one value per register.
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    removeRedundantBarriers(module);
    packHalfBranchResults(module);
    // The ops inside asked where they run (getThreadId); now the partitions
    // can become branches.
    lowerWarpSpecialize(module);
  }
};

} // namespace
