//===- CombineOps.cpp - join, split, cat, gather and histogram ------------===//
//
// These ops gather elements from places no register mapping reaches in
// general, so each goes through its scratch buffer: the operands are written
// at their row-major position in the result, the CTA synchronises, and each
// thread reads its result registers. A gather writes its source row-major
// and reads at the positions its indices name. The histogram counts into its
// scratch with shared-memory atomics between two barriers.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

using IndexFn = function_ref<Value(OpBuilder &, ArrayRef<Value>)>;

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The scratch buffer of `op` in shared memory.
FailureOr<Value> scratchBase(OpBuilder &b, Operation *op) {
  FailureOr<int64_t> offset = getScratchOffset(op);
  if (failed(offset))
    return failure();
  return getSharedPointer(b, op->getLoc(), op,
                          i32Constant(b, op->getLoc(), *offset));
}

/// Writes `src` (its registers `values`) row-major into `op`'s scratch and
/// synchronises the CTA; the scratch base, from which any thread may then
/// read any element.
FailureOr<Value> stageRowMajor(Operation *op, Value src, ValueRange values,
                               ConversionPatternRewriter &rewriter) {
  FailureOr<Value> base = scratchBase(rewriter, op);
  if (failed(base))
    return failure();
  Location loc = op->getLoc();
  RankedTensorType srcType = tensorType(src);
  auto srcIndex = [&](OpBuilder &b, ArrayRef<Value> coords) {
    return emitLinearIndex(b, loc, coords, srcType.getShape());
  };
  writeToShared(rewriter, loc, op, *base, SmallVector<Value>(values),
                getLinearLayout(srcType), srcIndex, srcType.getElementType());
  emitBarrier(rewriter, loc);
  return base;
}

/// Join and cat: both operands written at their place in the row-major
/// result (`offset(half, i)` for operand element i), then read back in the
/// result's layout.
template <typename OpTy>
LogicalResult
gatherTwo(OpTy op, ArrayRef<ValueRange> operands,
          function_ref<Value(OpBuilder &, int64_t, Value)> position,
          ConversionPatternRewriter &rewriter) {
  FailureOr<Value> base = scratchBase(rewriter, op);
  if (failed(base))
    return failure();
  Location loc = op.getLoc();
  RankedTensorType srcType = tensorType(op.getLhs());
  Type element = srcType.getElementType();
  LinearLayout srcLayout = getLinearLayout(srcType);
  for (auto [half, values] : llvm::enumerate(operands)) {
    auto index = [&, half = half](OpBuilder &b, ArrayRef<Value> coords) {
      return position(b, half,
                      emitLinearIndex(b, loc, coords, srcType.getShape()));
    };
    writeToShared(rewriter, loc, op, *base, SmallVector<Value>(values),
                  srcLayout, index, element);
  }
  emitBarrier(rewriter, loc);
  auto dstIndex = [&](OpBuilder &b, ArrayRef<Value> coords) {
    return emitLinearIndex(b, loc, coords, op.getType().getShape());
  };
  rewriter.replaceOpWithMultiple(
      op, {readFromShared(rewriter, loc, op, *base,
                          getLinearLayout(op.getType()), dstIndex, element)});
  return success();
}

struct JoinPattern : OpConversionPattern<JoinOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(JoinOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Element i of the operands sits at 2i (lhs) and 2i + 1 (rhs).
    Location loc = op.getLoc();
    auto position = [&](OpBuilder &b, int64_t half, Value i) -> Value {
      return arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, i, i32Constant(b, loc, 2)),
          i32Constant(b, loc, half));
    };
    return gatherTwo(op, adaptor.getOperands(), position, rewriter);
  }
};

struct SplitPattern : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> base =
        stageRowMajor(op, op.getSrc(), adaptor.getSrc(), rewriter);
    if (failed(base))
      return failure();
    Location loc = op.getLoc();
    Type element = tensorType(op.getSrc()).getElementType();
    RankedTensorType dstType = tensorType(op.getOutLHS());
    SmallVector<SmallVector<Value>> results;
    for (int half = 0; half < 2; ++half) {
      auto dstIndex = [&](OpBuilder &b, ArrayRef<Value> coords) {
        Value i = emitLinearIndex(b, loc, coords, dstType.getShape());
        return arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, i, i32Constant(b, loc, 2)),
            i32Constant(b, loc, half));
      };
      results.push_back(readFromShared(rewriter, loc, op, *base,
                                       getLinearLayout(dstType), dstIndex,
                                       element));
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

struct CatPattern : OpConversionPattern<CatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Along the first dimension, row-major: rhs follows lhs.
    Location loc = op.getLoc();
    int64_t size = op.getLhs().getType().getNumElements();
    auto position = [&](OpBuilder &b, int64_t half, Value i) -> Value {
      return arith::AddIOp::create(b, loc, i, i32Constant(b, loc, half * size));
    };
    return gatherTwo(op, adaptor.getOperands(), position, rewriter);
  }
};

struct GatherPattern : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> base =
        stageRowMajor(op, op.getSrc(), adaptor.getSrc(), rewriter);
    if (failed(base))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType srcType = tensorType(op.getSrc());
    Type element = srcType.getElementType();
    ArrayRef<int64_t> srcShape = srcType.getShape();

    // The verifier keeps the result in the indices' layout, so index
    // register i belongs to result register i.
    ValueRange indices = adaptor.getIndices();
    int64_t axis = op.getAxis();
    Type i32 = rewriter.getI32Type();
    // Extents are powers of two: masking wraps a bad index into the buffer.
    Value wrap = i32Constant(rewriter, loc, srcShape[axis] - 1);
    ThreadId tid = getThreadId(rewriter, op);
    SmallVector<Value> results;
    for (auto [reg, coords] : llvm::enumerate(
             emitCoordinates(rewriter, loc, getLinearLayout(op.getType()), tid))) {
      Value index = indices[reg];
      unsigned width = index.getType().getIntOrFloatBitWidth();
      if (width > 32)
        index = arith::TruncIOp::create(rewriter, loc, i32, index);
      else if (width < 32)
        index = arith::ExtUIOp::create(rewriter, loc, i32, index);
      SmallVector<Value> at(coords);
      at[axis] = arith::AndIOp::create(rewriter, loc, index, wrap);
      Value ptr = sharedElementPtr(rewriter, loc, *base, element,
                                   emitLinearIndex(rewriter, loc, at, srcShape));
      results.push_back(loadShared(rewriter, loc, ptr, element));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

struct HistogramPattern : OpConversionPattern<HistogramOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HistogramOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> base = scratchBase(rewriter, op);
    if (failed(base))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType dstType = op.getType();
    Type count = dstType.getElementType();
    int64_t bins = dstType.getNumElements();
    LinearLayout dstLayout = getLinearLayout(dstType);
    auto binIndex = [&](OpBuilder &b, ArrayRef<Value> coords) {
      return coords[0];
    };
    // 1. Zero the bins: every bin is owned by exactly one thread.
    Value zero = arith::ConstantIntOp::create(rewriter, loc, count, 0);
    writeToShared(rewriter, loc, op, *base,
                  SmallVector<Value>(dstLayout.getNumRegisters(), zero),
                  dstLayout, binIndex, count);
    emitBarrier(rewriter, loc);

    // 2. Each owned element in range adds one to its bin.
    RankedTensorType srcType = tensorType(op.getSrc());
    // Narrow values are compared as i32 so that every bin number fits.
    Type valueType = srcType.getElementType();
    bool widen = valueType.getIntOrFloatBitWidth() < 32;
    if (widen)
      valueType = rewriter.getI32Type();
    LinearLayout srcLayout = getLinearLayout(srcType);
    ThreadId tid = getThreadId(rewriter, op);
    Value owner = emitOwnerPredicate(rewriter, loc, srcLayout, tid);
    Value lowest = arith::ConstantIntOp::create(rewriter, loc, valueType, 0);
    Value limit = arith::ConstantIntOp::create(rewriter, loc, valueType, bins);
    Value one = arith::ConstantIntOp::create(rewriter, loc, count, 1);
    auto ptrType = LLVM::LLVMPointerType::get(getContext(), 3);
    for (Value value : adaptor.getSrc()) {
      if (widen)
        value = arith::ExtSIOp::create(rewriter, loc, valueType, value);
      Value inRange = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge,
                                value, lowest),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                value, limit));
      if (owner)
        inRange = arith::AndIOp::create(rewriter, loc, inRange, owner);
      auto ifOp = scf::IfOp::create(rewriter, loc, inRange, false);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      Value bin = value;
      if (valueType.getIntOrFloatBitWidth() > 32)
        bin = arith::TruncIOp::create(rewriter, loc, rewriter.getI32Type(), bin);
      Value ptr = LLVM::GEPOp::create(rewriter, loc, ptrType, count, *base,
                                      ValueRange{bin});
      LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::add, ptr,
                                one, LLVM::AtomicOrdering::monotonic);
    }
    emitBarrier(rewriter, loc);

    // 3. Each thread reads the bins it holds.
    rewriter.replaceOpWithMultiple(
        op, {readFromShared(rewriter, loc, op, *base, dstLayout, binIndex,
                            count)});
    return success();
  }
};

} // namespace

void mlir::tile::populateCombinePatterns(ThreadTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<JoinPattern, SplitPattern, CatPattern, GatherPattern,
               HistogramPattern>(
      converter, patterns.getContext());
}
