//===- InlineAsmOps.cpp - tile.elementwise_inline_asm as PTX --------------===//
//
// Each thread runs the assembly once per `packed_element` of its registers.
// Within one instance, an operand or result narrower than 32 bits travels
// packed: up to 32 / bitwidth elements share one asm operand (four i8 in a
// 32-bit "r", two f16 in one), which is what lets a user's PTX work on
// bytes with prmt or on half pairs with f16x2 instructions. Registers of
// every operand and result are paired by index, which is elementwise
// because they all share one layout; a last group shorter than the pack is
// padded with undefined lanes whose results are dropped.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"


#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// Per-register values of one operand or result: a tensor's registers, or
/// the one value of a scalar.
int64_t registerCount(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? getLinearLayout(tensor).getNumRegisters() : 1;
}

/// The asm-level type that carries `count` elements of `element`.
Type carrierType(Type element, int64_t count) {
  if (count == 1)
    return element;
  return IntegerType::get(element.getContext(),
                          count * element.getIntOrFloatBitWidth());
}

void unpackValue(OpBuilder &b, Location loc, Value carrier, Type element,
                 int64_t count, SmallVectorImpl<Value> &out) {
  if (count == 1) {
    out.push_back(carrier);
    return;
  }
  Value vector = LLVM::BitcastOp::create(
      b, loc, VectorType::get(count, element), carrier);
  for (int64_t i = 0; i < count; ++i)
    out.push_back(LLVM::ExtractElementOp::create(b, loc, vector,
                                                 i32Constant(b, loc, i)));
}

struct ElementwiseInlineAsmPattern
    : OpConversionPattern<ElementwiseInlineAsmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ElementwiseInlineAsmOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t pack = op.getPackedElement();
    int64_t registers = registerCount(op->getResult(0).getType());
    // Register k of every value must be the same element.
    auto first = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                        op->getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (tensor && first && tensor.getEncoding() != first.getEncoding())
        return rewriter.notifyMatchFailure(
            op, "operands and results in different layouts");
    }

    SmallVector<Type> resultElements;
    SmallVector<Type> asmResultTypes;
    for (Type type : op->getResultTypes()) {
      Type element = getElementTypeOrSelf(type);
      resultElements.push_back(element);
      int64_t perOperand = ElementwiseInlineAsmOp::elementsPerAsmOperand(
          element, pack);
      for (int64_t i = 0; i < pack / perOperand; ++i)
        asmResultTypes.push_back(carrierType(element, perOperand));
    }
    Type asmResult =
        asmResultTypes.size() == 1
            ? asmResultTypes.front()
            : LLVM::LLVMStructType::getLiteral(getContext(), asmResultTypes);

    SmallVector<SmallVector<Value>> results(op->getNumResults());
    for (int64_t base = 0; base < registers; base += pack) {
      SmallVector<Value> asmOperands;
      for (auto [value, operand] :
           llvm::zip(adaptor.getArgs(), op.getArgs())) {
        Type element = getElementTypeOrSelf(operand.getType());
        int64_t perOperand =
            ElementwiseInlineAsmOp::elementsPerAsmOperand(element, pack);
        SmallVector<Value> lanes;
        // A pointer goes to the asm as its 64-bit address ("l").
        bool pointer = isa<PointerType>(element);
        Type laneType = pointer ? rewriter.getI64Type() : element;
        for (int64_t reg = base; reg < base + pack; ++reg) {
          Value lane;
          if (reg >= registers)
            lane = LLVM::UndefOp::create(rewriter, loc, laneType);
          else if (pointer)
            lane = PtrToIntOp::create(rewriter, loc, laneType,
                                      value.size() == 1 ? value[0] : value[reg]);
          else
            lane = value.size() == 1 ? value[0] : value[reg];
          lanes.push_back(lane);
        }
        for (int64_t i = 0; i < pack; i += perOperand)
          asmOperands.push_back(packIntoWord(
              rewriter, loc, ArrayRef<Value>(lanes).slice(i, perOperand)));
      }
      auto asmOp = emitInlineAsm(rewriter, loc, asmResult, asmOperands,
                                 op.getAsmString(), op.getConstraints(),
                                 /*hasSideEffects=*/!op.getPure());
      SmallVector<Value> carriers;
      if (asmResultTypes.size() == 1)
        carriers.push_back(asmOp.getResult(0));
      else
        for (int64_t i = 0, e = asmResultTypes.size(); i < e; ++i)
          carriers.push_back(LLVM::ExtractValueOp::create(
              rewriter, loc, asmOp.getResult(0), i));
      unsigned next = 0;
      for (auto [index, element] : llvm::enumerate(resultElements)) {
        int64_t perOperand =
            ElementwiseInlineAsmOp::elementsPerAsmOperand(element, pack);
        SmallVector<Value> lanes;
        for (int64_t i = 0; i < pack; i += perOperand)
          unpackValue(rewriter, loc, carriers[next++], element, perOperand,
                      lanes);
        for (int64_t lane = 0; lane < pack && base + lane < registers; ++lane)
          results[index].push_back(lanes[lane]);
      }
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

} // namespace

void mlir::tile::populateInlineAsmPatterns(ThreadTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<ElementwiseInlineAsmPattern>(converter, patterns.getContext());
}
