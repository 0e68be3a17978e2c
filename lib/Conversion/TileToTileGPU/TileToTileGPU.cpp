//===- TileToTileGPU.cpp - Give every tensor a layout ---------------------===//
//
// A dialect conversion whose type converter adds the default blocked
// encoding to every tensor type. Most ops only change their result types;
// reductions and expand_dims relate their operand's layout to their
// result's through a slice, and the conversion framework inserts
// tilegpu.convert_layout wherever a value's layout differs from what its
// user was converted to expect.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Support/Limits.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {
#define GEN_PASS_DEF_CONVERTTILETOTILEGPU
#include "tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

class LayoutTypeConverter : public TypeConverter {
public:
  LayoutTypeConverter(MLIRContext *context, int numWarps) {
    addConversion([](Type type) { return type; });
    addConversion([context, numWarps](RankedTensorType type) -> Type {
      if (type.getEncoding())
        return type;
      return type.cloneWithEncoding(
          BlockedEncodingAttr::getDefault(context, type.getShape(), numWarps));
    });
    auto convert = [](OpBuilder &builder, Type type, ValueRange inputs,
                      Location loc) -> Value {
      if (inputs.size() != 1 || !isa<RankedTensorType>(type) ||
          !isa<RankedTensorType>(inputs[0].getType()))
        return {};
      return ConvertLayoutOp::create(builder, loc, type, inputs[0]);
    };
    addTargetMaterialization(convert);
    addSourceMaterialization(convert);
  }
};

bool hasLegalTypes(Operation *op) {
  auto legal = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return !tensor || tensor.getEncoding();
  };
  if (!llvm::all_of(op->getOperandTypes(), legal) ||
      !llvm::all_of(op->getResultTypes(), legal))
    return false;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!llvm::all_of(block.getArgumentTypes(), legal))
        return false;
  return true;
}

/// Any op whose only change is its result types: arith, math and most Tile
/// ops. Regions (reduce/scan combiners) move over unchanged.
struct RetypeOp : ConversionPattern {
  RetypeOp(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<func::FuncOp, func::ReturnOp, func::CallOp, ModuleOp>(op) ||
        op->getDialect()->getNamespace() == "scf")
      return failure();
    SmallVector<Type> resultTypes;
    if (failed(typeConverter->convertTypes(op->getResultTypes(), resultTypes)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         op->getAttrs(), op->getSuccessors());
    for (Region &region : op->getRegions()) {
      Region *newRegion = state.addRegion();
      rewriter.inlineRegionBefore(region, *newRegion, newRegion->end());
    }
    Operation *newOp = rewriter.create(state);
    rewriter.replaceOp(op, newOp->getResults());
    return success();
  }
};

/// A tensor constant's attribute carries the tensor type, encoding included.
struct RetypeConstant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense)
      return failure();
    auto type = cast<ShapedType>(getTypeConverter()->convertType(op.getType()));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   dense.reshape(type));
    return success();
  }
};

/// The operand of expand_dims is the slice, at `axis`, of the result's
/// layout: each thread keeps its elements and gains a unit dimension.
struct RetypeExpandDims : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    auto srcType = cast<RankedTensorType>(adaptor.getSrc().getType());
    auto slice = SliceEncodingAttr::get(
        getContext(), op.getAxis(),
        cast<DistributedEncoding>(resultType.getEncoding()));
    Value src = adaptor.getSrc();
    if (srcType.getEncoding() != slice)
      src = ConvertLayoutOp::create(rewriter, op.getLoc(),
                                    srcType.cloneWithEncoding(slice), src);
    rewriter.replaceOpWithNewOp<ExpandDimsOp>(op, resultType, src,
                                              op.getAxis());
    return success();
  }
};

/// A reduction leaves each thread's results where its operands were: the
/// result layout is the operand's sliced at `axis`.
struct RetypeReduce : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> resultTypes;
    for (auto [src, result] : llvm::zip(adaptor.getSrcs(), op.getResults())) {
      auto tensor = dyn_cast<RankedTensorType>(result.getType());
      if (!tensor) {
        resultTypes.push_back(result.getType());
        continue;
      }
      auto srcEncoding = cast<DistributedEncoding>(
          cast<RankedTensorType>(src.getType()).getEncoding());
      resultTypes.push_back(tensor.cloneWithEncoding(
          SliceEncodingAttr::get(getContext(), op.getAxis(), srcEncoding)));
    }
    auto newOp = ReduceOp::create(rewriter, op.getLoc(), resultTypes,
                                  adaptor.getSrcs(), op->getAttrs());
    rewriter.inlineRegionBefore(op.getCombineOp(), newOp.getCombineOp(),
                                newOp.getCombineOp().end());
    rewriter.replaceOp(op, newOp.getResults());
    return success();
  }
};

struct ConvertTileToTileGPUPass
    : mlir::tile::impl::ConvertTileToTileGPUBase<ConvertTileToTileGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (numWarps <= 0 || numWarps > ::tile::kMaxNumWarps ||
        (numWarps & (numWarps - 1))) {
      module.emitError() << "num-warps must be a power of two in [1, "
                         << ::tile::kMaxNumWarps << "], got "
                         << static_cast<int>(numWarps);
      return signalPassFailure();
    }
    // Tensor descriptors are copied by TMA, which sm_80-class parts lack
    // (LLVM would abort on the copy instructions).
    StringRef arch = target;
    if (arch != "sm_90" && arch != "sm_90a") {
      WalkResult walk = module.walk([&](Operation *op) {
        if (!isa<DescriptorLoadOp, DescriptorStoreOp, DescriptorReduceOp>(op))
          return WalkResult::advance();
        op->emitError() << "tensor descriptors are copied by TMA, which needs "
                           "sm_90 or later; this kernel is compiled for '"
                        << arch << "'";
        return WalkResult::interrupt();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
    }
    LayoutTypeConverter converter(context, numWarps);
    ConversionTarget legality(*context);
    legality.markUnknownOpDynamicallyLegal(hasLegalTypes);
    legality.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    RewritePatternSet patterns(context);
    patterns.add<RetypeOp>(converter, context);
    patterns.add<RetypeConstant, RetypeExpandDims, RetypeReduce>(
        converter, context, /*benefit=*/2);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         legality);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    if (failed(applyPartialConversion(module, legality, std::move(patterns))))
      return signalPassFailure();
    Builder b(context);
    module->setAttr(TileGPUDialect::getNumWarpsAttrName(),
                    b.getI32IntegerAttr(numWarps));
    module->setAttr(TileGPUDialect::getTargetAttrName(),
                    b.getStringAttr(this->target.getValue()));
  }
};

} // namespace
