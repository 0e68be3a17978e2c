//===- ElementwiseAndShapeOps.cpp - Per-register ops and layout moves -----===//
//
// An elementwise op on tensors becomes the same op on each register, or on
// one register per group of registers that AxisInfo's constancy says hold
// equal results (`offs < n` with n a multiple of 16 is one compare per 16
// columns; LLVM cannot see that the per-column compares agree). Ops that
// only rearrange elements (broadcast, expand_dims, trans, convert_layout)
// pick registers when every thread already holds what it needs, and go
// through shared memory otherwise. A map_elementwise region is cloned once
// per pack of registers, its control flow included.
//
//===----------------------------------------------------------------------===//

#include "CrossWarpExchange.h"
#include "Utility.h"

#include "tile/Analysis/SharedAccess.h"

#include "tile/Analysis/Allocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

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
             AtomicCASOp, ReduceOp, ScanOp, DotOp, HistogramOp, GatherOp, JoinOp,
             SplitOp,
             CatOp, PrintOp, AssertOp, DebugBarrierOp, ElementwiseInlineAsmOp,
             HintOp>(op) ||
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

/// One layout's side of a conversion in rounds: its registers grouped by
/// their round in lane 0 of warp 0 and, where lanes or warps move round
/// bits, this thread's own round (an element is in registerRound ^
/// threadRound).
struct RoundSide {
  llvm::MapVector<int64_t, SmallVector<int64_t>> groups;
  Value threadRound;

  RoundSide(OpBuilder &b, Location loc, const LinearLayout &layout,
            ArrayRef<SmallVector<Value>> coords, ArrayRef<int64_t> shape,
            ArrayRef<unsigned> bits) {
    for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg)
      groups[getRegisterRound(layout, reg, bits)].push_back(reg);
    if (threadsMoveIndexBits(layout, bits))
      threadRound =
          gatherBits(b, loc, emitLinearIndex(b, loc, coords[0], shape), bits);
  }

  /// Whether this thread moves `group` in the (run-time) `round`.
  Value takesPart(OpBuilder &b, Location loc, Value round,
                  int64_t group) const {
    Value mine =
        threadRound ? arith::XOrIOp::create(b, loc, round, threadRound) : round;
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, mine,
                                 i32Constant(b, loc, group));
  }
};

/// A conversion too large for one scratch buffer, in 2^bits.size() rounds:
/// round r moves the elements whose index `bits` (getConversionRoundBits)
/// read r through a buffer indexed by the element index without those bits.
/// A barrier before each later round keeps its writes off the buffer until
/// the previous round's reads are done.
///
/// Where the bits are register bits of both layouts, each round's registers
/// are known at compile time and the rounds unroll. Otherwise a thread's
/// registers change rounds with the thread, so the rounds are a loop and
/// each group of registers is moved under a branch on the round: the code
/// stays one copy of each register's access however many rounds there are
/// (unrolled, every group would appear in every round).
void convertInRounds(ConvertLayoutOp op, ValueRange src, Value base,
                     ArrayRef<unsigned> bits,
                     ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  auto dstType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> shape = srcType.getShape();
  LinearLayout srcLayout = getLinearLayout(srcType);
  LinearLayout dstLayout = getLinearLayout(dstType);
  Type elementType = srcType.getElementType();
  ThreadId tid = getThreadId(rewriter, op);
  Value owner = emitOwnerPredicate(rewriter, loc, srcLayout, tid);
  auto srcCoords = emitCoordinates(rewriter, loc, srcLayout, tid);
  auto dstCoords = emitCoordinates(rewriter, loc, dstLayout, tid);
  auto address = [&](ArrayRef<Value> coords) {
    Value index = emitLinearIndex(rewriter, loc, coords, shape);
    return sharedElementPtr(rewriter, loc, base, elementType,
                            removeBits(rewriter, loc, index, bits));
  };
  auto store = [&](ArrayRef<int64_t> registers) {
    SmallVector<Value> ptrs, values;
    for (int64_t reg : registers) {
      ptrs.push_back(address(srcCoords[reg]));
      values.push_back(src[reg]);
    }
    storeAllShared(rewriter, loc, ptrs, values, owner);
  };
  auto load = [&](int64_t reg) {
    return loadShared(rewriter, loc, address(dstCoords[reg]), elementType);
  };
  RoundSide writer(rewriter, loc, srcLayout, srcCoords, shape, bits);
  RoundSide reader(rewriter, loc, dstLayout, dstCoords, shape, bits);
  int64_t rounds = int64_t(1) << bits.size();
  SmallVector<Value> results(dstLayout.getNumRegisters());

  if (!writer.threadRound && !reader.threadRound) {
    for (int64_t round = 0; round < rounds; ++round) {
      if (round > 0)
        emitBarrier(rewriter, loc);
      store(writer.groups.lookup(round));
      emitBarrier(rewriter, loc);
      for (int64_t reg : reader.groups.lookup(round))
        results[reg] = load(reg);
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return;
  }

  Type valueType = src[0].getType();
  // Zero, not poison: a register is written in one round and carried
  // through the others. With poison the carried values came out wrong on
  // the H100 (every transposing test failed; the PTX read right), so the
  // undefined start is avoided at the cost of one move per register.
  Value unset = LLVM::ZeroOp::create(rewriter, loc, valueType);
  SmallVector<Value> initial(results.size(), unset);
  auto loop = scf::ForOp::create(
      rewriter, loc, i32Constant(rewriter, loc, 0),
      i32Constant(rewriter, loc, rounds), i32Constant(rewriter, loc, 1),
      initial);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    Value round = loop.getInductionVar();
    // The first round's barrier is one more than needed; it keeps the loop
    // body uniform.
    emitBarrier(rewriter, loc);
    for (auto &[group, registers] : writer.groups) {
      auto ifOp = scf::IfOp::create(
          rewriter, loc, writer.takesPart(rewriter, loc, round, group), false);
      OpBuilder::InsertionGuard inIf(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      store(registers);
    }
    emitBarrier(rewriter, loc);
    results.assign(loop.getRegionIterArgs().begin(),
                   loop.getRegionIterArgs().end());
    for (auto &[group, registers] : reader.groups) {
      // The registers keep what an earlier round gave them unless this
      // thread reads them in this one.
      auto ifOp = scf::IfOp::create(
          rewriter, loc, SmallVector<Type>(registers.size(), valueType),
          reader.takesPart(rewriter, loc, round, group),
          /*withElseRegion=*/true);
      OpBuilder::InsertionGuard inIf(rewriter);
      rewriter.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> loaded, kept;
      for (int64_t reg : registers) {
        loaded.push_back(load(reg));
        kept.push_back(results[reg]);
      }
      scf::YieldOp::create(rewriter, loc, loaded);
      rewriter.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(rewriter, loc, kept);
      for (auto [reg, value] : llvm::zip(registers, ifOp.getResults()))
        results[reg] = value;
    }
    scf::YieldOp::create(rewriter, loc, results);
  }
  rewriter.replaceOpWithMultiple(op, {SmallVector<Value>(loop.getResults())});
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
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op->getOperand(0).getType());
    auto dstType = cast<RankedTensorType>(op->getResult(0).getType());
    if (isa<ConvertLayoutOp>(op.getOperation()))
      if (std::optional<WarpShufflePlan> plan =
              getConversionShufflePlan(srcType, dstType)) {
        rewriter.replaceOpWithMultiple(
            op, {emitWarpShuffleConversion(rewriter, loc, op, src, *plan)});
        return success();
      }
    FailureOr<int64_t> offset = getScratchOffset(op);
    if (failed(offset))
      return failure();
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
      SmallVector<unsigned> bits = getConversionRoundBits(srcType, dstType);
      if (!bits.empty()) {
        convertInRounds(convert, src, base, bits, rewriter);
        return success();
      }
      scratch = getConversionScratchLayout(srcType, dstType);
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

/// A hint has done its work once the axis analysis has read it: its
/// result is its operand's registers.
struct HintPattern : OpConversionPattern<HintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
    return success();
  }
};

/// The region runs on each thread's registers, `pack` consecutive ones at
/// a time. A last, partial pack repeats its last register, whose results
/// are then dropped, so the region never sees an undefined value.
struct MapElementwisePattern : OpConversionPattern<MapElementwiseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MapElementwiseOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getScalarOp().front();
    auto srcs = adaptor.getSrcs();
    int64_t pack = op.getPack();
    int64_t registers = srcs.front().size();
    size_t numResults = op.getNumResults();
    SmallVector<SmallVector<Value>> results(numResults);
    for (int64_t first = 0; first < registers; first += pack) {
      IRMapping mapping;
      unsigned arg = 0;
      for (ValueRange regs : srcs)
        for (int64_t k = 0; k < pack; ++k)
          mapping.map(body.getArgument(arg++),
                      regs[std::min(first + k, registers - 1)]);
      for (Operation &inner : body.without_terminator())
        rewriter.clone(inner, mapping);
      Operation *yield = body.getTerminator();
      for (size_t r = 0; r < numResults; ++r)
        for (int64_t k = 0; k < pack && first + k < registers; ++k)
          results[r].push_back(
              mapping.lookupOrDefault(yield->getOperand(r * pack + k)));
    }
    rewriter.replaceOpWithMultiple(op, results);
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
               RearrangePattern<ReshapeOp>, MapElementwisePattern,
               HintPattern>(converter, context);
}
