//===- DotOps.cpp - tile.dot on the CUDA cores (FMA) ----------------------===//
//
// The simple, always-correct dot: A and B go to shared memory in row-major
// order, then each thread walks K for the accumulator elements it holds,
// loading each A row and B column element once per k and reusing it across
// its registers. Dots that accelerate-matmul put on mma.sync (version-2 mma
// layouts) become mma.sync instructions instead (f16/bf16, tf32, int8).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tile/Analysis/Allocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  Type from = v.getType();
  if (from == type)
    return v;
  if (isa<FloatType>(type)) {
    if (!isa<FloatType>(from))
      return arith::SIToFPOp::create(b, loc, type, v);
    // arith.extf has no LLVM lowering from fp8; tile's scalar fp_to_fp
    // widens it exactly (cvt.rn.f16x2 from the byte, then to f32).
    if (isFp8(from))
      return FpToFpOp::create(b, loc, type, v, RoundingModeAttr());
    if (from.getIntOrFloatBitWidth() > type.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, type, v);
    return arith::ExtFOp::create(b, loc, type, v);
  }
  return arith::ExtSIOp::create(b, loc, type, v);
}

struct DotPattern : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (isa<MmaEncodingAttr>(
            cast<RankedTensorType>(op.getType()).getEncoding()))
      return failure(); // MmaSyncDotPattern
    FailureOr<int64_t> offset = getScratchOffset(op);
    if (failed(offset))
      return failure();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto cType = cast<RankedTensorType>(op.getC().getType());
    // A batched (3-D) dot is B independent products; its operands sit in
    // shared memory batch after batch, so batch b of A starts at row b * M
    // of a [B * M, K] matrix and batch b of B at element b * K * N.
    int64_t rank = cType.getRank();
    bool batched = rank == 3;
    int64_t M = aType.getShape()[rank - 2];
    int64_t K = aType.getShape()[rank - 1], N = bType.getShape()[rank - 1];
    // A 16-bit float accumulator sums in f32 and rounds once at the end,
    // as the tensor cores do (an f16 running sum loses a bit a step).
    Type resultType = cType.getElementType();
    Type accType = resultType.isF16() || resultType.isBF16()
                       ? Type(rewriter.getF32Type())
                       : resultType;
    ThreadId tid = getThreadId(rewriter, op);
    auto ptrType = LLVM::LLVMPointerType::get(getContext(), 3);

    Value aBase = getSharedPointer(rewriter, loc, op,
                                   i32Constant(rewriter, loc, *offset));
    int64_t aBytes =
        aType.getNumElements() * getSharedElementBytes(aType.getElementType());
    Value bBase = getSharedPointer(
        rewriter, loc, op, i32Constant(rewriter, loc, *offset + aBytes));
    auto write = [&](Value base, RankedTensorType type, ValueRange values) {
      LinearLayout layout = getLinearLayout(type);
      Value owner = emitOwnerPredicate(rewriter, loc, layout, tid);
      SmallVector<Value> ptrs;
      for (ArrayRef<Value> coords :
           emitCoordinates(rewriter, loc, layout, tid)) {
        Value index = emitLinearIndex(rewriter, loc, coords, type.getShape());
        ptrs.push_back(sharedElementPtr(rewriter, loc, base,
                                        type.getElementType(), index));
      }
      storeAllShared(rewriter, loc, ptrs, values, owner);
    };
    write(aBase, aType, adaptor.getA());
    write(bBase, bType, adaptor.getB());
    emitBarrier(rewriter, loc);

    // Accumulator registers, and the distinct rows and columns they need.
    LinearLayout cLayout = getLinearLayout(cType);
    auto cCoords = emitCoordinates(rewriter, loc, cLayout, tid);
    std::map<int64_t, unsigned> rowSlot, colSlot;
    SmallVector<Value> rows, cols;
    SmallVector<std::pair<unsigned, unsigned>> regSlots;
    // A row is the row of A's [B * M, K] matrix an accumulator register
    // reads; a column the element of B's row 0 it reads (k * N is added).
    auto scaled = [&](Value batch, int64_t stride, Value offset) -> Value {
      return arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, batch,
                                i32Constant(rewriter, loc, stride)),
          offset);
    };
    for (int64_t reg = 0; reg < cLayout.getNumRegisters(); ++reg) {
      LinearLayout::Basis fixed = cLayout.applyOne(LinearLayout::Register, reg);
      ValueRange coords = cCoords[reg];
      int64_t batch = batched ? fixed[0] : 0;
      auto r = rowSlot.try_emplace(batch * M + fixed[rank - 2], rows.size());
      if (r.second)
        rows.push_back(batched ? scaled(coords[0], M, coords[1]) : coords[0]);
      auto c = colSlot.try_emplace(batch * K * N + fixed[rank - 1], cols.size());
      if (c.second)
        cols.push_back(batched ? scaled(coords[0], K * N, coords[2])
                               : coords[rank - 1]);
      regSlots.push_back({r.first->second, c.first->second});
    }
    SmallVector<Value> init;
    for (Value c : adaptor.getC())
      init.push_back(castTo(rewriter, loc, c, accType));
    auto loop = scf::ForOp::create(rewriter, loc, i32Constant(rewriter, loc, 0),
                                   i32Constant(rewriter, loc, K),
                                   i32Constant(rewriter, loc, 1), init);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      Value k = loop.getInductionVar();
      // Element (i, j) of a row-major operand with `width` columns, as the
      // accumulator type.
      auto loadOperand = [&](Value base, Type element, Value i, Value j,
                             int64_t width) {
        Value index = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, i,
                                  i32Constant(rewriter, loc, width)),
            j);
        Value ptr = sharedElementPtr(rewriter, loc, base, element, index);
        return castTo(rewriter, loc, loadShared(rewriter, loc, ptr, element),
                      accType);
      };
      SmallVector<Value> aValues, bValues;
      for (Value row : rows)
        aValues.push_back(
            loadOperand(aBase, aType.getElementType(), row, k, K));
      for (Value col : cols)
        bValues.push_back(
            loadOperand(bBase, bType.getElementType(), k, col, N));
      SmallVector<Value> next;
      for (auto [acc, slots] : llvm::zip(loop.getRegionIterArgs(), regSlots)) {
        Value a = aValues[slots.first], b = bValues[slots.second];
        // The fma intrinsic (fma.rn), not libdevice's, whose denormal
        // flushing follows the module's FTZ setting.
        if (isa<FloatType>(accType))
          next.push_back(LLVM::FMAOp::create(rewriter, loc, a, b, acc));
        else
          next.push_back(arith::AddIOp::create(
              rewriter, loc, acc, arith::MulIOp::create(rewriter, loc, a, b)));
      }
      scf::YieldOp::create(rewriter, loc, next);
    }
    SmallVector<Value> results;
    for (Value sum : loop.getResults())
      results.push_back(castTo(rewriter, loc, sum, resultType));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

/// One mma.sync shape: its PTX spelling and how its operands travel.
struct MmaSyncKind {
  std::string ptx;      // the instruction, up to the operand list
  int64_t instrK;       // K depth of one instruction
  unsigned kWidth;      // operand elements a 32-bit register packs
  unsigned accWords;    // accumulator registers (f16 pairs share one)
  const char *accConstraint;
};

FailureOr<MmaSyncKind> getMmaSyncKind(Type element, Type acc) {
  if ((element.isF16() || element.isBF16()) && acc.isF32()) {
    std::string t = element.isBF16() ? "bf16" : "f16";
    return MmaSyncKind{"mma.sync.aligned.m16n8k16.row.col.f32." + t + "." + t +
                           ".f32",
                       16, 2, 4, "f"};
  }
  if (element.isF16() && acc.isF16())
    return MmaSyncKind{"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16,
                       2, 2, "r"};
  if (element.isF32() && acc.isF32())
    return MmaSyncKind{"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8,
                       1, 4, "f"};
  if (element.isInteger(8) && acc.isInteger(32))
    return MmaSyncKind{
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", 32, 4, 4,
        "r"};
  return failure();
}

/// `kWidth` consecutive fragment elements as one i32 register.
Value packRegister(OpBuilder &b, Location loc, ValueRange elements) {
  Value word = packIntoWord(b, loc, SmallVector<Value>(elements));
  if (word.getType() != b.getI32Type())
    word = LLVM::BitcastOp::create(b, loc, b.getI32Type(), word);
  return word;
}

/// A dot whose accumulator has a version-2 mma layout and whose operands
/// hold the matching register fragments: one mma.sync per (16-row,
/// 8-column, instrK-deep) block. The fragments' register orders are the
/// linear layouts' (LinearLayout::mmaOperand / mmaAccumulator): A repeats
/// K then M, B repeats K then N, the accumulator N then M. Each of A's four
/// registers and B's two packs kWidth consecutive K elements; the
/// accumulator's four elements are four registers, or two for f16 (c0 c1
/// and c2 c3 share one).
struct MmaSyncDotPattern : OpConversionPattern<DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto cType = cast<RankedTensorType>(op.getType());
    auto mma = dyn_cast<MmaEncodingAttr>(cType.getEncoding());
    if (!mma || mma.getVersion() != 2)
      return failure();
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    Type element = aType.getElementType();
    Type accType = cType.getElementType();
    FailureOr<MmaSyncKind> kind = getMmaSyncKind(element, accType);
    if (failed(kind))
      return op->emitError() << "mma.sync takes no " << element
                             << " operands with a " << accType
                             << " accumulator";
    int64_t M = cType.getShape()[0], N = cType.getShape()[1];
    int64_t K = aType.getShape()[1];
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    // Warps past the tile's blocks repeat others' blocks (zero bases).
    int64_t repsM = std::max<int64_t>(1, M / (16 * warps[0]));
    int64_t repsN = std::max<int64_t>(1, N / (8 * warps[1]));
    int64_t repsK = K / kind->instrK;
    unsigned kw = kind->kWidth, words = kind->accWords;

    ValueRange aElements = adaptor.getA(), bElements = adaptor.getB();
    SmallVector<Value> acc(adaptor.getC().begin(), adaptor.getC().end());
    // {$0..}: accumulator out; then the accumulator in (tied), A, B.
    std::string ptx = kind->ptx + " {";
    std::string constraints;
    for (unsigned i = 0; i < words; ++i) {
      ptx += llvm::formatv("{0}${1}", i ? "," : "", i).str();
      constraints += std::string(i ? "," : "") + "=" + kind->accConstraint;
    }
    auto operandList = [&](unsigned first, unsigned count) {
      std::string list = "{";
      for (unsigned i = 0; i < count; ++i)
        list += llvm::formatv("{0}${1}", i ? "," : "", first + i).str();
      return list + "}";
    };
    ptx += "}, " + operandList(2 * words, 4) + ", " +
           operandList(2 * words + 4, 2) + ", " + operandList(words, words) +
           ";";
    for (unsigned i = 0; i < words; ++i)
      constraints += "," + std::to_string(i);
    constraints += ",r,r,r,r,r,r";
    Type wordType = accType.isF16() ? Type(rewriter.getI32Type()) : accType;
    auto resultType = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(words, wordType));
    auto f16x2 = VectorType::get({2}, rewriter.getF16Type());

    for (int64_t m = 0; m < repsM; ++m)
      for (int64_t n = 0; n < repsN; ++n) {
        int64_t c = (m * repsN + n) * 4;
        SmallVector<Value> accWords;
        if (accType.isF16()) {
          for (int i = 0; i < 2; ++i)
            accWords.push_back(
                packHalves(rewriter, loc, acc[c + 2 * i], acc[c + 2 * i + 1]));
        } else {
          accWords.assign(acc.begin() + c, acc.begin() + c + 4);
        }
        for (int64_t k = 0; k < repsK; ++k) {
          int64_t a = (m * repsK + k) * 4 * kw, b = (n * repsK + k) * 2 * kw;
          SmallVector<Value> operands(accWords);
          for (int i = 0; i < 4; ++i)
            operands.push_back(packRegister(
                rewriter, loc, aElements.slice(a + i * kw, kw)));
          for (int i = 0; i < 2; ++i)
            operands.push_back(packRegister(
                rewriter, loc, bElements.slice(b + i * kw, kw)));
          auto asmOp = emitInlineAsm(rewriter, loc, resultType, operands, ptx,
                                     constraints, /*hasSideEffects=*/false);
          for (unsigned i = 0; i < words; ++i)
            accWords[i] = LLVM::ExtractValueOp::create(rewriter, loc,
                                                       asmOp.getResult(0), i);
        }
        if (accType.isF16()) {
          for (int i = 0; i < 2; ++i) {
            Value pair =
                LLVM::BitcastOp::create(rewriter, loc, f16x2, accWords[i]);
            for (int j = 0; j < 2; ++j)
              acc[c + 2 * i + j] = LLVM::ExtractElementOp::create(
                  rewriter, loc, pair, i32Constant(rewriter, loc, j));
          }
        } else {
          std::copy(accWords.begin(), accWords.end(), acc.begin() + c);
        }
      }
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

} // namespace

void mlir::tile::populateDotPatterns(ThreadTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<DotPattern, MmaSyncDotPattern>(converter, patterns.getContext());
}
