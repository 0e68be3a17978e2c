//===- ConvertTileGPUToLLVM.cpp - Tensors become each thread's registers --===//

#include "Utility.h"

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"

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

struct BarrierPattern : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConvertTileGPUToLLVMPass
    : tile::impl::ConvertTileGPUToLLVMBase<ConvertTileGPUToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(getOperation())))
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
    populateSharedMemoryOpPatterns(converter, patterns, axisInfo);
    populateWarpGroupDotPatterns(converter, patterns);
    populateTMAPatterns(converter, patterns);
    populateTurnPatterns(converter, patterns);
    patterns.add<BarrierPattern>(converter, context);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // The ops inside asked where they run (getThreadId); now the partitions
    // can become branches.
    lowerWarpSpecialize(module);
  }
};

} // namespace
