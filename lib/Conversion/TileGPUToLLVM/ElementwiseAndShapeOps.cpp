//===- ElementwiseAndShapeOps.cpp - Per-register ops and layout moves -----===//
//
// An elementwise op on tensors becomes the same op on each register, or on
// one register per group of registers that AxisInfo's constancy says hold
// equal results (`offs < n` with n a multiple of 16 is one compare per 16
// columns; LLVM cannot see that the per-column compares agree). Ops that
// only rearrange elements (broadcast, expand_dims, trans, convert_layout)
// pick registers when every thread already holds what it needs, and go
// through shared memory otherwise.
//
//===----------------------------------------------------------------------===//

#include "CrossWarpExchange.h"
#include "Utility.h"

#include "tile/Analysis/SharedAccess.h"

#include "tile/Analysis/Allocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

bool hasTensorType(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<RankedTensorType>(t); });
}

/// Ops with their own patterns below or in the other files.
bool isSpecialOp(Operation *op) {
  return isa<arith::ConstantOp, MakeRangeOp, SplatOp, BroadcastOp, ExpandDimsOp,
             TransOp, ReshapeOp, ConvertLayoutOp, LoadOp, StoreOp, AtomicRMWOp,
             AtomicCASOp, ReduceOp, ScanOp, DotOp, HistogramOp, JoinOp, SplitOp,
             CatOp, PrintOp, AssertOp>(op) ||
         op->getNumRegions() != 0 ||
         op->getDialect()->getNamespace() == "scf" ||
         op->getDialect()->getNamespace() == "func";
}

struct ElementwisePattern : ConversionPattern {
  ElementwisePattern(const TypeConverter &converter, MLIRContext *context,
                     const AxisInfoAnalysis &axisInfo)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), 1, context),
        axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (isSpecialOp(op) || !hasTensorType(op->getResultTypes()))
      return failure();
    LinearLayout layout =
        getLinearLayout(cast<RankedTensorType>(op->getResult(0).getType()));
    int64_t registers = layout.getNumRegisters();
    SmallVector<int64_t> representatives;
    if (op->getNumResults() == 1)
      representatives = layout.getRegisterRepresentatives(
          axisInfo.getAxisInfo(op->getResult(0)).constancy);
    SmallVector<SmallVector<Value>> results(op->getNumResults());
    for (int64_t reg = 0; reg < registers; ++reg) {
      if (!representatives.empty() && representatives[reg] != reg) {
        results[0].push_back(results[0][representatives[reg]]);
        continue;
      }
      SmallVector<Value> scalarOperands;
      for (ValueRange values : operands)
        scalarOperands.push_back(values.size() == 1 ? values[0] : values[reg]);
      SmallVector<Type> scalarTypes;
      for (Type type : op->getResultTypes())
        scalarTypes.push_back(getElementTypeOrSelf(type));
      OperationState state(op->getLoc(), op->getName(), scalarOperands,
                           scalarTypes, op->getAttrs());
      Operation *scalar = rewriter.create(state);
      for (auto [i, result] : llvm::enumerate(scalar->getResults()))
        results[i].push_back(result);
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }

  const AxisInfoAnalysis &axisInfo;
};

struct ConstantPattern : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!type || !dense)
      return failure();
    if (!dense.isSplat())
      return rewriter.notifyMatchFailure(op, "non-splat tensor constant");
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        cast<TypedAttr>(dense.getSplatValue<Attribute>()));
    SmallVector<Value> values(getLinearLayout(type).getNumRegisters(), scalar);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct SplatPattern : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> values(getLinearLayout(op.getType()).getNumRegisters(),
                              adaptor.getSrc()[0]);
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

struct MakeRangePattern : OpConversionPattern<MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MakeRangeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ThreadId tid = getThreadId(rewriter, op);
    Value start = i32Constant(rewriter, loc, op.getStart());
    SmallVector<Value> values;
    for (auto &coords :
         emitCoordinates(rewriter, loc, getLinearLayout(op.getType()), tid))
      values.push_back(arith::AddIOp::create(rewriter, loc, start, coords[0]));
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

/// Integers and floats of at least a byte: what storeTensor/loadTensor
/// move (booleans and pointers take the element-wise path).
bool isPlainElement(Type type) {
  return (isa<IntegerType>(type) || isa<FloatType>(type)) &&
         getElementBitWidth(type) >= 8;
}

/// The scratch buffer of a 2-D layout conversion: row-major along the
/// result's contiguous dimension, in chunks of the result's vector width,
/// XOR-swizzled across 128 bytes of rows so that the source's column-wise
/// writes spread over the banks.
std::optional<MemDescType> scratchLayoutFor(RankedTensorType srcType,
                                            RankedTensorType dstType) {
  if (!isPlainElement(dstType.getElementType()) || dstType.getRank() != 2)
    return std::nullopt;
  LinearLayout layout = getLinearLayout(dstType);
  unsigned rank = dstType.getRank();
  unsigned fast = layout.getFastestDim().value_or(rank - 1);
  SmallVector<unsigned> order{fast};
  for (int d = rank - 1; d >= 0; --d)
    if (unsigned(d) != fast)
      order.push_back(d);
  int64_t bytes = getSharedElementBytes(dstType.getElementType());
  int64_t rowLength = dstType.getShape()[fast];
  int64_t vec = std::min<int64_t>(layout.getContiguousRegisters(fast),
                                  std::max<int64_t>(1, 16 / bytes));
  vec = std::min(vec, rowLength);
  unsigned perPhase = std::max<int64_t>(1, 128 / (rowLength * bytes));
  unsigned maxPhase =
      std::max<int64_t>(1, std::min(128 / (vec * bytes), rowLength / vec));
  auto encoding = SharedEncodingAttr::get(dstType.getContext(), vec, perPhase,
                                          maxPhase, order);
  // Valid by construction: power-of-two dims (distributed tensors) and
  // vec * maxPhase within a row.
  auto type =
      MemDescType::get(dstType.getContext(), dstType.getShape(),
                       dstType.getElementType(), cast<SharedLayout>(encoding));
  if (failed(composeAccessMap(srcType, type)) ||
      failed(composeAccessMap(dstType, type)))
    return std::nullopt;
  return type;
}

/// `index` with bits `bits` (descending) taken out, the higher bits moved
/// down to close each gap.
Value removeBits(OpBuilder &b, Location loc, Value index,
                 ArrayRef<unsigned> bits) {
  for (unsigned bit : bits) {
    Value low = arith::AndIOp::create(b, loc, index,
                                      i32Constant(b, loc, (1ll << bit) - 1));
    Value high = arith::ShLIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, index, i32Constant(b, loc, bit + 1)),
        i32Constant(b, loc, bit));
    index = arith::OrIOp::create(b, loc, low, high);
  }
  return index;
}

/// A conversion too large for one scratch buffer, in 2^count rounds: round
/// r moves the elements whose round bits (index bits that are register bits
/// of both layouts, findConversionRoundBits) read r, which are whole
/// registers on both sides, through a buffer indexed by the element index
/// without those bits. A barrier before each later round keeps its writes
/// off the buffer until the previous round's reads are done.
void convertInRounds(ConvertLayoutOp op, ValueRange src, Value base,
                     unsigned count, ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  auto dstType = cast<RankedTensorType>(op.getType());
  LinearLayout srcLayout = getLinearLayout(srcType);
  LinearLayout dstLayout = getLinearLayout(dstType);
  ConversionRoundBits all = findConversionRoundBits(srcLayout, dstLayout);
  ArrayRef<unsigned> indexBits = ArrayRef(all.indexBits).take_front(count);
  ArrayRef<unsigned> srcBits = ArrayRef(all.srcRegisterBits).take_front(count);
  ArrayRef<unsigned> dstBits = ArrayRef(all.dstRegisterBits).take_front(count);
  Type elementType = srcType.getElementType();
  ThreadId tid = getThreadId(rewriter, op);
  Value owner = emitOwnerPredicate(rewriter, loc, srcLayout, tid);
  auto address = [&](ArrayRef<Value> coords) {
    Value index = emitLinearIndex(rewriter, loc, coords, srcType.getShape());
    return sharedElementPtr(rewriter, loc, base, elementType,
                            removeBits(rewriter, loc, index, indexBits));
  };
  auto srcCoords = emitCoordinates(rewriter, loc, srcLayout, tid);
  auto dstCoords = emitCoordinates(rewriter, loc, dstLayout, tid);
  SmallVector<Value> results(dstLayout.getNumRegisters());
  for (int64_t round = 0; round < (int64_t(1) << count); ++round) {
    if (round > 0)
      emitBarrier(rewriter, loc);
    for (int64_t reg = 0; reg < srcLayout.getNumRegisters(); ++reg)
      if (gatherBits(reg, srcBits) == round)
        storeShared(rewriter, loc, address(srcCoords[reg]), src[reg], owner);
    emitBarrier(rewriter, loc);
    for (int64_t reg = 0; reg < dstLayout.getNumRegisters(); ++reg)
      if (gatherBits(reg, dstBits) == round)
        results[reg] =
            loadShared(rewriter, loc, address(dstCoords[reg]), elementType);
  }
  rewriter.replaceOpWithMultiple(op, {results});
}

/// broadcast, expand_dims, trans, convert_layout and reshape.
template <typename OpTy> struct RearrangePattern : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OneToNOpAdaptor = typename OpConversionPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange src = adaptor.getOperands()[0];
    if (std::optional<SmallVector<int64_t>> mapping = getRegisterMapping(op)) {
      SmallVector<Value> values;
      for (int64_t reg : *mapping)
        values.push_back(src[reg]);
      rewriter.replaceOpWithMultiple(op, {values});
      return success();
    }
    FailureOr<int64_t> offset = getScratchOffset(op);
    if (failed(offset))
      return failure();
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op->getOperand(0).getType());
    auto dstType = cast<RankedTensorType>(op->getResult(0).getType());
    ArrayRef<int64_t> srcShape = srcType.getShape();
    Value base = getSharedPointer(rewriter, loc, op,
                                  i32Constant(rewriter, loc, *offset));
    auto srcIndex = [&](OpBuilder &b, ArrayRef<Value> coords) {
      return emitLinearIndex(b, loc, coords, srcShape);
    };
    // Where each result element lives in the operand, as operand coords.
    auto dstIndex = [&](OpBuilder &b, ArrayRef<Value> coords) -> Value {
      SmallVector<Value> s(coords);
      if (isa<BroadcastOp>(op)) {
        for (unsigned d = 0; d < s.size(); ++d)
          if (srcShape[d] == 1)
            s[d] = i32Constant(b, loc, 0);
      } else if (auto expand = dyn_cast<ExpandDimsOp>(op.getOperation())) {
        s.erase(s.begin() + expand.getAxis());
      } else if (auto trans = dyn_cast<TransOp>(op.getOperation())) {
        for (unsigned i = 0; i < coords.size(); ++i)
          s[trans.getOrder()[i]] = coords[i];
      } else if (isa<ReshapeOp>(op)) {
        // Same row-major position in both shapes.
        return emitLinearIndex(b, loc, coords, dstType.getShape());
      }
      return emitLinearIndex(b, loc, s, srcShape);
    };
    std::optional<MemDescType> scratch;
    if (auto convert = dyn_cast<ConvertLayoutOp>(op.getOperation())) {
      if (unsigned count = getConversionRoundBitCount(srcType, dstType)) {
        convertInRounds(convert, src, base, count, rewriter);
        return success();
      }
      scratch = scratchLayoutFor(srcType, dstType);
    }
    if (scratch) {
      // Through a buffer laid out for the result: its reads are vectors
      // up to 16 bytes, the swizzle keeps the writes off shared banks.
      if (failed(storeTensor(rewriter, loc, op, src, srcType, base, *scratch)))
        return failure();
      emitBarrier(rewriter, loc);
      FailureOr<SmallVector<Value>> values =
          loadTensor(rewriter, loc, op, dstType, base, *scratch);
      if (failed(values))
        return failure();
      rewriter.replaceOpWithMultiple(op, {*values});
      return success();
    }
    SmallVector<Value> values = shuffleThroughShared(
        rewriter, loc, op, base, SmallVector<Value>(src),
        getLinearLayout(srcType), srcIndex, getLinearLayout(dstType), dstIndex,
        srcType.getElementType());
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }
};

} // namespace

void mlir::tile::populateElementwiseAndShapePatterns(
    ThreadTypeConverter &converter, RewritePatternSet &patterns,
    const AxisInfoAnalysis &axisInfo) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ElementwisePattern>(converter, context, axisInfo);
  patterns.add<ConstantPattern, SplatPattern, MakeRangePattern,
               RearrangePattern<BroadcastOp>, RearrangePattern<ExpandDimsOp>,
               RearrangePattern<TransOp>, RearrangePattern<ConvertLayoutOp>,
               RearrangePattern<ReshapeOp>>(converter, context);
}
