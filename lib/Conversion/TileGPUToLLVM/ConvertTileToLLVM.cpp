//===- ConvertTileToLLVM.cpp - Scalar Tile IR to LLVM/NVVM ----------------===//

#include "Utility.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/Dialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/LLVMIR/BasicPtxBuilderInterface.h"
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

/// Program ids and counts. With clusters (`num-ctas` > 1 along x) a program
/// is a cluster, so x reads the cluster registers; y and z are unchanged
/// because clusters span x only.
struct ProgramIdPattern : ConvertOpToLLVMPattern<GetProgramIdOp> {
  ProgramIdPattern(const LLVMTypeConverter &converter, bool clustered)
      : ConvertOpToLLVMPattern(converter), clustered(clustered) {}
  LogicalResult
  matchAndRewrite(GetProgramIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    switch (op.getAxis()) {
    case ProgramAxis::X:
      if (clustered)
        rewriter.replaceOpWithNewOp<NVVM::ClusterIdXOp>(op, i32);
      else
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
  bool clustered;
};

struct NumProgramsPattern : ConvertOpToLLVMPattern<GetNumProgramsOp> {
  NumProgramsPattern(const LLVMTypeConverter &converter, bool clustered)
      : ConvertOpToLLVMPattern(converter), clustered(clustered) {}
  LogicalResult
  matchAndRewrite(GetNumProgramsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    switch (op.getAxis()) {
    case ProgramAxis::X:
      if (clustered)
        rewriter.replaceOpWithNewOp<NVVM::ClusterDimXOp>(op, i32);
      else
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
  bool clustered;
};

/// Only the first CTA of a cluster runs the program: the kernel's entry
/// block branches to a return for the others. The program's code is laid
/// out for one CTA, and running it on every CTA of the cluster would repeat
/// its stores and atomics.
void exitUnlessClusterLeader(LLVM::LLVMFuncOp kernel) {
  Block &entry = kernel.getBody().front();
  Block *body = entry.splitBlock(entry.begin());
  Block *exit = new Block();
  kernel.getBody().getBlocks().insertAfter(Region::iterator(body), exit);
  OpBuilder b = OpBuilder::atBlockEnd(exit);
  Location loc = kernel.getLoc();
  LLVM::ReturnOp::create(b, loc, ValueRange());
  b.setInsertionPointToEnd(&entry);
  Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  Value zero = LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0);
  Value leader =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, rank, zero);
  LLVM::CondBrOp::create(b, loc, leader, body, exit);
}

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

/// One PTX instruction as inline asm: `$0` is the result, `$1`.. the
/// operands.
Value emitPtx(OpBuilder &b, Location loc, Type result, StringRef ptx,
              StringRef constraints, ValueRange operands) {
  return emitInlineAsm(b, loc, result, operands, ptx, constraints,
                       /*hasSideEffects=*/false)
      .getResult(0);
}

StringRef fp8Name(Type type) {
  return isa<Float8E4M3FNType>(type) ? "e4m3" : "e5m2";
}

/// Float conversions. fp8 values arrive and leave as their bytes (i8):
/// they widen exactly through f16 (`cvt.rn.f16x2.e4m3x2`) and narrow from
/// f32 with round-to-nearest-even, saturating to the largest finite value
/// (`cvt.rn.satfinite.e4m3x2.f32`, sm_89+), as Triton does. Other
/// narrowings honour the rounding mode (rtz through `cvt.rz`).
struct FpToFpPattern : ConvertOpToLLVMPattern<FpToFpOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FpToFpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type to = op.getType(), from = op.getSrc().getType();
    if (!isa<FloatType>(to) || !isa<FloatType>(from))
      return rewriter.notifyMatchFailure(op, "tensor fp_to_fp");
    Type f16 = rewriter.getF16Type(), f32 = rewriter.getF32Type();
    Type i16 = rewriter.getI16Type();
    Value x = adaptor.getSrc();
    if (isFp8(from)) {
      Value wide = LLVM::ZExtOp::create(rewriter, loc, i16, x);
      Value pair = emitPtx(
          rewriter, loc, rewriter.getI32Type(),
          ("cvt.rn.f16x2." + fp8Name(from) + "x2 $0, $1;").str(), "=r,h", wide);
      x = LLVM::BitcastOp::create(
          rewriter, loc, f16, LLVM::TruncOp::create(rewriter, loc, i16, pair));
      from = f16;
      if (to == f16) {
        rewriter.replaceOp(op, x);
        return success();
      }
      // f16 and bf16 have the same width but neither holds the other;
      // every fp8 value is exact in both, so the f32 detour is exact.
      if (to.isBF16()) {
        x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
        from = f32;
      }
    }
    bool rtz = op.getRounding() == RoundingMode::RTZ;
    if (isFp8(to)) {
      if (rtz)
        return op->emitError("conversions to fp8 round to nearest even only");
      if (from != f32)
        x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
      Value bytes =
          emitPtx(rewriter, loc, i16,
                  ("{ .reg .f32 z; mov.f32 z, 0f00000000; cvt.rn.satfinite." +
                   fp8Name(to) + "x2.f32 $0, z, $1; }")
                      .str(),
                  "=h,f", x);
      rewriter.replaceOpWithNewOp<LLVM::TruncOp>(op, rewriter.getI8Type(),
                                                 bytes);
      return success();
    }
    unsigned toBits = to.getIntOrFloatBitWidth(),
             fromBits = from.getIntOrFloatBitWidth();
    if (toBits > fromBits) {
      rewriter.replaceOpWithNewOp<LLVM::FPExtOp>(op, to, x);
      return success();
    }
    if (!rtz) {
      rewriter.replaceOpWithNewOp<LLVM::FPTruncOp>(op, to, x);
      return success();
    }
    auto ptxType = [](Type t) -> std::string {
      return t.isBF16() ? "bf16"
                        : "f" + std::to_string(t.getIntOrFloatBitWidth());
    };
    auto constraint = [](Type t) -> std::string {
      return t.getIntOrFloatBitWidth() == 16   ? "h"
             : t.getIntOrFloatBitWidth() == 32 ? "f"
                                               : "d";
    };
    Type resultBits = toBits == 16 ? i16 : to;
    Value result =
        emitPtx(rewriter, loc, resultBits,
                "cvt.rz." + ptxType(to) + "." + ptxType(from) + " $0, $1;",
                "=" + constraint(to) + "," + constraint(from), x);
    if (resultBits != to)
      result = LLVM::BitcastOp::create(rewriter, loc, to, result);
    rewriter.replaceOp(op, result);
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

struct AssumePattern : ConvertOpToLLVMPattern<AssumeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(AssumeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVM::AssumeOp::create(rewriter, op.getLoc(), adaptor.getCond());
    rewriter.eraseOp(op);
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

/// `tl.exp` on f32 is ex2.approx.f32 of x * log2(e), as in Triton: two
/// instructions where libdevice's __nv_expf takes about ten (a row loop
/// with an exp per element is issue-bound on them). The precise exp stays
/// available as `tl.extra.cuda.libdevice.exp`.
struct FastExpF32Pattern : ConvertOpToLLVMPattern<math::ExpOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(math::ExpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    Value log2e = LLVM::ConstantOp::create(
        rewriter, loc, rewriter.getF32Type(),
        rewriter.getF32FloatAttr(1.4426950408889634f));
    Value scaled =
        LLVM::FMulOp::create(rewriter, loc, adaptor.getOperand(), log2e);
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.nvvm.ex2.approx.f32"),
        ValueRange{scaled});
    return success();
  }
};

/// mul.hi.u32 / mul.hi.u64 through NVVM's intrinsics, as libdevice's
/// __nv_umulhi does. The generic form (zext, 64-bit mul, shift) let LLVM
/// hoist one widened operand out of a loop and multiply in 64 bits, and
/// ptxas 13.0 at -O3 miscompiled that loop (issue 27: a fuzzed kernel with
/// umulhi in a while loop inside a for loop gave wrong integers at -O3,
/// right ones at -O0 and under Triton).
struct MulhiUIPattern : ConvertOpToLLVMPattern<MulhiUIOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MulhiUIOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    unsigned bits = op.getType().getIntOrFloatBitWidth();
    if (bits != 32 && bits != 64)
      return rewriter.notifyMatchFailure(op, "umulhi of 32 or 64 bits only");
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(),
        rewriter.getStringAttr(bits == 32 ? "llvm.nvvm.mulhi.ui"
                                          : "llvm.nvvm.mulhi.ull"),
        ValueRange{adaptor.getX(), adaptor.getY()});
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
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // A warp-specialised kernel launches its producer warps too.
    int numWarps = tilegpu::TileGPUDialect::getLaunchWarps(module);
    // Kernel entry points: NVVM's kernel marker and the block size, which
    // lets ptxas budget registers. Tile's own attributes are dropped.
    Builder b(context);
    // A `noinline` @jit function stays a device function to the end: LLVM
    // must not inline it either (func-to-llvm drops the marker).
    SmallVector<StringAttr> noInline;
    module.walk([&](func::FuncOp function) {
      if (function.getNoInline())
        noInline.push_back(function.getSymNameAttr());
      if (function->hasAttr(TileDialect::getKernelAttrName())) {
        function->removeAttr(TileDialect::getKernelAttrName());
        function->setAttr("nvvm.kernel", b.getUnitAttr());
        function->setAttr("nvvm.reqntid",
                          b.getDenseI32ArrayAttr({numWarps * 32, 1, 1}));
        if (numCtas > 1)
          function->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                            b.getDenseI32ArrayAttr({numCtas, 1, 1}));
        if (maxNumRegisters > 0)
          function->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                            b.getI32IntegerAttr(maxNumRegisters));
      }
      for (unsigned i = 0; i < function.getNumArguments(); ++i) {
        function.removeArgAttr(i, TileDialect::getDivisibilityAttrName());
        function.removeArgAttr(i, TileDialect::getContiguityAttrName());
        // A tensor descriptor is the 128-byte CUtensorMap passed by value;
        // the TMA instructions read it in place in parameter space.
        if (isa<TensorDescType>(function.getArgumentTypes()[i])) {
          function.setArgAttr(i, "llvm.byval",
                              TypeAttr::get(LLVM::LLVMArrayType::get(
                                  IntegerType::get(context, 8), 128)));
          function.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(64));
          function.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
        }
      }
    });

    LowerToLLVMOptions options(context);
    options.overrideIndexBitwidth(32);
    LLVMTypeConverter converter(context, options);
    converter.addConversion([&](PointerType type) -> Type {
      return LLVM::LLVMPointerType::get(context, type.getAddressSpace());
    });
    converter.addConversion([&](TensorDescType) -> Type {
      return LLVM::LLVMPointerType::get(context);
    });
    RewritePatternSet patterns(context);
    patterns.add<ProgramIdPattern, NumProgramsPattern>(converter, numCtas > 1);
    patterns
        .add<AddPtrPattern, PtrToIntPattern, IntToPtrPattern, BitcastPattern,
             FpToFpPattern, ClampFPattern, PreciseSqrtPattern,
             PreciseDivPattern, MulhiUIPattern, ExternElementwisePattern,
             AssumePattern>(converter);
    patterns.add<FastDivF32Pattern, FastExpF32Pattern>(converter,
                                                       /*benefit=*/20);
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
    if (failed(applyPartialConversion(module, target, std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    for (StringAttr name : noInline)
      if (auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
        function.setNoInline(true);
    if (numCtas > 1)
      module.walk([](LLVM::LLVMFuncOp function) {
        if (function->hasAttr(NVVM::NVVMDialect::getClusterDimAttrName()) &&
            !function.getBody().empty())
          exitUnlessClusterLeader(function);
      });
    adoptLoopAnnotations(module);
  }

  /// scf-to-cf leaves a loop's `llvm.loop_annotation` (tl.range's
  /// loop_unroll_factor, disable_licm) on its back edge as a discardable
  /// attribute, and cf-to-llvm copies it as one; the LLVM IR translation
  /// reads only the branch's own `loop_annotation`.
  static void adoptLoopAnnotations(ModuleOp module) {
    // The name scf-to-cf gives it (SCFToControlFlow.cpp).
    StringRef name = "llvm.loop_annotation";
    module.walk([&](Operation *op) {
      auto annotation = dyn_cast_or_null<LLVM::LoopAnnotationAttr>(
          op->getDiscardableAttr(name));
      if (!annotation)
        return;
      if (auto branch = dyn_cast<LLVM::BrOp>(op))
        branch.setLoopAnnotationAttr(annotation);
      else if (auto branch = dyn_cast<LLVM::CondBrOp>(op))
        branch.setLoopAnnotationAttr(annotation);
      else
        return;
      op->removeDiscardableAttr(name);
    });
  }
};

} // namespace
