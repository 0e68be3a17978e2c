//===- ConvertTileToLLVM.cpp - Scalar Tile IR to LLVM/NVVM ----------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/Dialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Dialect/LLVMIR/BasicPtxBuilderInterface.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;

namespace {

struct ProgramIdPattern : ConvertOpToLLVMPattern<GetProgramIdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GetProgramIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    switch (op.getAxis()) {
    case ProgramAxis::X:
      rewriter.replaceOpWithNewOp<NVVM::BlockIdXOp>(op, i32);
      break;
    case ProgramAxis::Y:
      rewriter.replaceOpWithNewOp<NVVM::BlockIdYOp>(op, i32);
      break;
    case ProgramAxis::Z:
      rewriter.replaceOpWithNewOp<NVVM::BlockIdZOp>(op, i32);
      break;
    }
    return success();
  }
};

struct NumProgramsPattern : ConvertOpToLLVMPattern<GetNumProgramsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GetNumProgramsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    switch (op.getAxis()) {
    case ProgramAxis::X:
      rewriter.replaceOpWithNewOp<NVVM::GridDimXOp>(op, i32);
      break;
    case ProgramAxis::Y:
      rewriter.replaceOpWithNewOp<NVVM::GridDimYOp>(op, i32);
      break;
    case ProgramAxis::Z:
      rewriter.replaceOpWithNewOp<NVVM::GridDimZOp>(op, i32);
      break;
    }
    return success();
  }
};

struct AddPtrPattern : ConvertOpToLLVMPattern<AddPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto ptrType = dyn_cast<PointerType>(op.getType());
    if (!ptrType)
      return failure();
    Type element = ptrType.getPointeeType();
    if (element.isInteger(1))
      element = rewriter.getI8Type();
    Type llvmElement = getTypeConverter()->convertType(element);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, getTypeConverter()->convertType(ptrType), llvmElement,
        adaptor.getPtr(), ValueRange{adaptor.getOffset()});
    return success();
  }
};

struct PtrToIntPattern : ConvertOpToLLVMPattern<PtrToIntOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(PtrToIntOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::PtrToIntOp>(op, op.getType(),
                                                  adaptor.getSrc());
    return success();
  }
};

struct IntToPtrPattern : ConvertOpToLLVMPattern<IntToPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(IntToPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(
        op, getTypeConverter()->convertType(op.getType()), adaptor.getSrc());
    return success();
  }
};

struct BitcastPattern : ConvertOpToLLVMPattern<BitcastOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(
        op, getTypeConverter()->convertType(op.getType()), adaptor.getSrc());
    return success();
  }
};

struct FpToFpPattern : ConvertOpToLLVMPattern<FpToFpOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FpToFpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type to = op.getType(), from = op.getSrc().getType();
    if (!isa<FloatType>(to) || !isa<FloatType>(from) || to.getIntOrFloatBitWidth() < 16 ||
        from.getIntOrFloatBitWidth() < 16)
      return rewriter.notifyMatchFailure(op, "fp8 conversions need the "
                                             "tensor-core issue's lowering");
    if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
      rewriter.replaceOpWithNewOp<LLVM::FPExtOp>(op, to, adaptor.getSrc());
    else
      rewriter.replaceOpWithNewOp<LLVM::FPTruncOp>(op, to, adaptor.getSrc());
    return success();
  }
};

struct ClampFPattern : ConvertOpToLLVMPattern<ClampFOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ClampFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value low = LLVM::MaxNumOp::create(rewriter, op.getLoc(), adaptor.getX(),
                                       adaptor.getMin());
    rewriter.replaceOpWithNewOp<LLVM::MinNumOp>(op, low, adaptor.getMax());
    return success();
  }
};

struct PreciseSqrtPattern : ConvertOpToLLVMPattern<PreciseSqrtOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(PreciseSqrtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::SqrtOp>(op, adaptor.getX());
    return success();
  }
};

struct PreciseDivPattern : ConvertOpToLLVMPattern<PreciseDivFOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(PreciseDivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::FDivOp>(op, adaptor.getX(),
                                              adaptor.getY());
    return success();
  }
};

/// `/` on f32 is PTX's div.full.f32 (within 2 ulp, no slow path), as in
/// Triton; tile.precise_divf (div_rn) keeps IEEE rounding.
struct FastDivF32Pattern : ConvertOpToLLVMPattern<arith::DivFOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.nvvm.div.full"),
        ValueRange{adaptor.getLhs(), adaptor.getRhs()});
    return success();
  }
};

struct MulhiUIPattern : ConvertOpToLLVMPattern<MulhiUIOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MulhiUIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned bits = op.getType().getIntOrFloatBitWidth();
    Type wide = rewriter.getIntegerType(2 * bits);
    Value x = LLVM::ZExtOp::create(rewriter, loc, wide, adaptor.getX());
    Value y = LLVM::ZExtOp::create(rewriter, loc, wide, adaptor.getY());
    Value product = LLVM::MulOp::create(rewriter, loc, x, y);
    Value shift = LLVM::ConstantOp::create(rewriter, loc, wide,
                                           rewriter.getIntegerAttr(wide, bits));
    Value high = LLVM::LShrOp::create(rewriter, loc, product, shift);
    rewriter.replaceOpWithNewOp<LLVM::TruncOp>(op, op.getType(), high);
    return success();
  }
};

struct ExternElementwisePattern : ConvertOpToLLVMPattern<ExternElementwiseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ExternElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    StringRef symbol = op.getSymbol();
    auto fnType = LLVM::LLVMFunctionType::get(
        op.getType(), llvm::to_vector(adaptor.getOperands().getTypes()));
    if (!module.lookupSymbol<LLVM::LLVMFuncOp>(symbol)) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::LLVMFuncOp::create(rewriter, module.getLoc(), symbol, fnType);
    }
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, fnType, symbol,
                                              adaptor.getOperands());
    return success();
  }
};

struct ConvertTileToLLVMPass
    : tile::impl::ConvertTileToLLVMBase<ConvertTileToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    int numWarps = 4;
    if (auto attr = module->getAttrOfType<IntegerAttr>("tilegpu.num_warps"))
      numWarps = attr.getInt();
    // Kernel entry points: NVVM's kernel marker and the block size, which
    // lets ptxas budget registers. Tile's own attributes are dropped.
    Builder b(context);
    module.walk([&](func::FuncOp function) {
      if (function->hasAttr(TileDialect::getKernelAttrName())) {
        function->removeAttr(TileDialect::getKernelAttrName());
        function->setAttr("nvvm.kernel", b.getUnitAttr());
        function->setAttr("nvvm.reqntid",
                          b.getDenseI32ArrayAttr({numWarps * 32, 1, 1}));
      }
      for (unsigned i = 0; i < function.getNumArguments(); ++i) {
        function.removeArgAttr(i, TileDialect::getDivisibilityAttrName());
        function.removeArgAttr(i, TileDialect::getContiguityAttrName());
      }
    });

    LowerToLLVMOptions options(context);
    options.overrideIndexBitwidth(32);
    LLVMTypeConverter converter(context, options);
    converter.addConversion([&](PointerType type) -> Type {
      return LLVM::LLVMPointerType::get(context, type.getAddressSpace());
    });
    RewritePatternSet patterns(context);
    patterns.add<ProgramIdPattern, NumProgramsPattern, AddPtrPattern,
                 PtrToIntPattern, IntToPtrPattern, BitcastPattern,
                 FpToFpPattern, ClampFPattern, PreciseSqrtPattern,
                 PreciseDivPattern, MulhiUIPattern, ExternElementwisePattern>(
        converter);
    patterns.add<FastDivF32Pattern>(converter, /*benefit=*/20);
    // libdevice first; what it does not cover goes to LLVM intrinsics.
    populateLibDeviceConversionPatterns(converter, patterns, /*benefit=*/10);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    // NVVM ops with no LLVM intrinsic (wgmma.mma_async, ...) become inline
    // PTX here.
    populateNVVMToLLVMConversionPatterns(patterns);
    LLVMConversionTarget target(*context);
    target.addDynamicallyLegalDialect<NVVM::NVVMDialect>([](Operation *op) {
      auto ptx = dyn_cast<NVVM::BasicPtxBuilderInterface>(op);
      return !ptx || ptx.hasIntrinsic();
    });
    target.addLegalOp<ModuleOp>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
