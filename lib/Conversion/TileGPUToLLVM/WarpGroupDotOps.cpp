//===- WarpGroupDotOps.cpp - tilegpu.warpgroup_dot to wgmma.mma_async -----===//
//
// Each warpgroup owns 64-row slabs of the accumulator (and, with warps
// along N, instrN-column slabs). For each slab it issues one
// wgmma.mma_async.m64nNkK per K step, reading A and B straight from their
// NVMMA-swizzled buffers through 64-bit matrix descriptors (A may instead
// come from registers), then commits the group and waits for it.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

NVVM::WGMMATypes wgmmaType(Type type, InputPrecision precision) {
  if (type.isF16())
    return NVVM::WGMMATypes::f16;
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (isa<Float8E4M3FNType>(type))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(type))
    return NVVM::WGMMATypes::e5m2;
  if (type.isF32())
    return precision == InputPrecision::TF32 ? NVVM::WGMMATypes::tf32
                                             : NVVM::WGMMATypes::f32;
  if (type.isInteger(8))
    return NVVM::WGMMATypes::s8;
  return NVVM::WGMMATypes::s32;
}

/// How one operand buffer is addressed: where the (mn, k) corner of an
/// instruction's slab starts, and the descriptor fields that do not depend
/// on it. A K-major buffer (K contiguous) has rows along M/N; an MN-major
/// one (16-bit B only) has rows along K and atom columns along N.
struct OperandDescriptor {
  bool kMajor;
  int64_t rows;     // extent of the non-contiguous dimension
  int64_t swizzle;  // bytes
  int64_t atomCols; // contiguous elements per swizzle atom row
  int64_t elementBits;

  int64_t byteOffset(int64_t mn, int64_t k) const {
    int64_t contiguous = kMajor ? k : mn, row = kMajor ? mn : k;
    return (contiguous / atomCols) * rows * swizzle + row * swizzle +
           (contiguous % atomCols) * elementBits / 8;
  }

  /// Descriptor bits 14.. : leading and stride byte offsets, swizzle mode.
  /// K-major: 8-row groups are `8 * swizzle` apart (the leading offset is
  /// unused). MN-major: atom columns are `rows * swizzle` apart and 8-row
  /// groups of K `8 * swizzle`.
  int64_t highBits() const {
    int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    int64_t leading = kMajor ? 1 : (rows * swizzle) >> 4;
    int64_t stride = (8 * swizzle) >> 4;
    return (leading << 16) | (stride << 32) | (mode << 62);
  }
};

/// `kDim` is the buffer's K dimension (1 for A, 0 for B).
OperandDescriptor describe(MemDescType type, unsigned kDim) {
  auto layout = cast<NVMMASharedEncodingAttr>(type.getEncoding());
  int64_t bits = getElementBitWidth(type.getElementType());
  unsigned contiguousDim = layout.getOrder()[0];
  int64_t atomCols = std::min<int64_t>(layout.getSwizzle() * 8 / bits,
                                       type.getShape()[contiguousDim]);
  return {contiguousDim == kDim, type.getShape()[1 - contiguousDim],
          layout.getSwizzle(), atomCols, bits};
}

/// i64 descriptor of `buffer` + `byteOffset` (i32, runtime).
Value emitDescriptor(OpBuilder &b, Location loc, Value buffer, Value byteOffset,
                     const OperandDescriptor &desc) {
  Type i64 = b.getI64Type();
  Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), buffer);
  address = arith::AddIOp::create(b, loc, address, byteOffset);
  Value field = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, address, i32Constant(b, loc, 4)),
      i32Constant(b, loc, 0x3fff));
  Value wide = arith::ExtUIOp::create(b, loc, i64, field);
  return arith::OrIOp::create(
      b, loc, wide,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(desc.highBits())));
}

/// The 32-bit registers of a register A operand's fragment, in order: two
/// K-adjacent 16-bit elements to a register, or one f32 (tf32) each.
SmallVector<Value> operandWords(OpBuilder &b, Location loc, ValueRange values) {
  SmallVector<Value> words;
  if (!values.empty() && values.front().getType().isF32()) {
    for (Value value : values)
      words.push_back(
          LLVM::BitcastOp::create(b, loc, b.getI32Type(), value).getResult());
    return words;
  }
  for (size_t i = 0; i + 1 < values.size(); i += 2)
    words.push_back(packHalves(b, loc, values[i], values[i + 1]));
  return words;
}

/// One m64nNk16 (16-bit) or m64nNk8 (tf32) wgmma with A from registers
/// (NVVM has no op for that form): inline PTX whose accumulator outputs
/// are tied to its inputs. tf32 takes no transpose of B (it is K-major).
Value emitRegisterA(OpBuilder &b, Location loc, LLVM::LLVMStructType accType,
                    Value acc, ValueRange aWords, Value descB, int64_t instrN,
                    Type element, bool transposeB, bool readAcc) {
  unsigned numAcc = accType.getBody().size();
  SmallVector<Value> operands;
  for (unsigned i = 0; i < numAcc; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  llvm::append_range(operands, aWords);
  operands.push_back(descB);
  std::string d, constraints;
  for (unsigned i = 0; i < numAcc; ++i) {
    d += (i ? ",$" : "$") + std::to_string(i);
    constraints += "=f,";
  }
  for (unsigned i = 0; i < numAcc; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l";
  bool tf32 = element.isF32();
  std::string type = tf32 ? "tf32" : element.isBF16() ? "bf16" : "f16";
  // tf32 takes no transpose operand for B.
  std::string transposeBit = tf32 ? "" : transposeB ? ", 1" : ", 0";
  // Operands number outputs, then the tied inputs, then a0..a3 and B.
  auto reg = [&](unsigned i) { return "$" + std::to_string(2 * numAcc + i); };
  std::string ptx =
      "{\n.reg .pred p;\nsetp.ne.b32 p, " + std::string(readAcc ? "1" : "0") +
      ", 0;\n"
      "wgmma.mma_async.sync.aligned.m64n" +
      std::to_string(instrN) + (tf32 ? "k8" : "k16") + ".f32." + type + "." +
      type + " {" + d + "}, {" + reg(0) + "," + reg(1) + "," + reg(2) + "," +
      reg(3) + "}, " + reg(4) + ", p, 1, 1" + transposeBit + ";\n}";
  return emitInlineAsm(b, loc, accType, operands, ptx, constraints,
                       /*hasSideEffects=*/true)
      .getResult(0);
}

/// Whether a register A operand, as its converted `halves`, is carried into
/// a loop body from the previous iteration (arguments of the body block:
/// the operands the register-operand prefetch computes one step early, or
/// a source's own software pipelining).
bool carriedIntoLoop(ValueRange halves) {
  return llvm::any_of(halves, [](Value half) {
    auto arg = dyn_cast<BlockArgument>(half);
    return arg &&
           isa_and_nonnull<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
  });
}

/// `word` through an identity byte permute that nothing can fold away.
/// ptxas may coalesce a carried word's back-edge copy with the instruction
/// that made it, which runs while the previous step's wgmmas still read
/// that register, and then serialises every wgmma of the loop (C7513: the
/// int4 GEMMs once SLP carried the words instead of their halves). A word
/// made here, before the fence, is one the wgmmas alone read. It costs an
/// instruction per word, so the compile driver asks for it only when ptxas
/// reported the serialisation (Compiler.cpp).
Value freshRegister(OpBuilder &b, Location loc, Value word) {
  return emitInlineAsm(b, loc, b.getI32Type(), ValueRange{word},
                       "prmt.b32 $0, $1, 0, 0x3210;", "=r,r",
                       /*hasSideEffects=*/false)
      .getResult(0);
}

/// `value` (i64) through a `mov` that LLVM may neither hoist nor merge
/// with another: what is computed from it stays where it is used.
Value opaqueCopy(OpBuilder &b, Location loc, Value value) {
  return emitInlineAsm(b, loc, b.getI64Type(), ValueRange{value},
                       "mov.b64 $0, $1;", "=l,l", /*hasSideEffects=*/true)
      .getResult(0);
}

/// `wgmma.wait_group pendings` with `registers` (f32 accumulator values,
/// or 32-bit words of register operands) tied through it as asm outputs,
/// so that nothing reads or overwrites them before the MMAs using them
/// retire; the registers as they are after the wait.
SmallVector<Value> waitTied(OpBuilder &b, Location loc, ValueRange registers,
                            int64_t pendings = 0) {
  std::string outputs, inputs;
  for (auto [i, value] : llvm::enumerate(registers)) {
    outputs += std::string(i ? "," : "") +
               (value.getType().isF32() ? "=f" : "=r");
    inputs += std::string(i ? "," : "") + std::to_string(i);
  }
  auto type = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(registers.getTypes()));
  auto wait = emitInlineAsm(
      b, loc, type, registers,
      "wgmma.wait_group.sync.aligned " + std::to_string(pendings) + ";",
      outputs + "," + inputs, /*hasSideEffects=*/true);
  SmallVector<Value> after;
  for (size_t i = 0; i < registers.size(); ++i)
    after.push_back(
        LLVM::ExtractValueOp::create(b, loc, wait.getResult(0), i));
  return after;
}

struct WarpGroupDotPattern : OpConversionPattern<WarpGroupDotOp> {
  WarpGroupDotPattern(ThreadTypeConverter &converter, MLIRContext *context,
                      bool freshCarriedOperands, bool descriptorsAtUse)
      : OpConversionPattern(converter, context),
        freshCarriedOperands(freshCarriedOperands),
        descriptorsAtUse(descriptorsAtUse) {}
  bool freshCarriedOperands;
  bool descriptorsAtUse;

  LogicalResult
  matchAndRewrite(WarpGroupDotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = getContext();
    auto aType = cast<ShapedType>(op.getA().getType());
    MemDescType bType = op.getB().getType();
    auto aBuffer = dyn_cast<MemDescType>(aType);
    auto cType = cast<RankedTensorType>(op.getC().getType());
    auto mma = cast<MmaEncodingAttr>(cType.getEncoding());
    Type element = aType.getElementType();
    Type accType = cType.getElementType();
    int64_t M = cType.getShape()[0], N = cType.getShape()[1];
    int64_t K = aType.getShape()[1];
    int64_t instrN = mma.getInstrShape()[1];
    int64_t instrK = WarpGroupDotOp::getInstrK(element);
    int64_t groupsM = mma.getWarpsPerCTA()[0] / 4;
    int64_t groupsN = mma.getWarpsPerCTA()[1];
    int64_t repsM = M / (64 * groupsM), repsN = N / (instrN * groupsN);
    int64_t regsPerInstr = instrN / 2;

    OperandDescriptor bDesc = describe(bType, 0);
    // This warpgroup's slab: warps run along M first, four to a group.
    ThreadId tid = getThreadId(rewriter, op);
    Value group = arith::DivUIOp::create(rewriter, loc, tid.warp,
                                         i32Constant(rewriter, loc, 4));
    Value groupM = arith::RemUIOp::create(rewriter, loc, group,
                                          i32Constant(rewriter, loc, groupsM));
    Value groupN = arith::DivUIOp::create(rewriter, loc, group,
                                          i32Constant(rewriter, loc, groupsM));
    // Slab offsets are linear in the group index: groups start on whole
    // rows (K-major) or whole atom columns (MN-major).
    OperandDescriptor aDesc;
    Value aBase;
    if (aBuffer) {
      aDesc = describe(aBuffer, 1);
      aBase = emitDescriptor(
          rewriter, loc, adaptor.getA().front(),
          arith::MulIOp::create(
              rewriter, loc, groupM,
              i32Constant(rewriter, loc, aDesc.byteOffset(64, 0))),
          aDesc);
    }
    Value bBase = emitDescriptor(
        rewriter, loc, adaptor.getB().front(),
        arith::MulIOp::create(
            rewriter, loc, groupN,
            i32Constant(rewriter, loc, bDesc.byteOffset(instrN, 0))),
        bDesc);
    // A loop's wgmmas on buffers that do not change in it (attention
    // backward's K and V) would have every K step's descriptor hoisted out
    // of the loop, 64 bits each, live throughout it: the fused backward's
    // consumers held ~48 at 240 registers and spilled. An opaque copy of
    // the base where the wgmma issues keeps the steps' adds there.
    if (descriptorsAtUse && op->getParentOfType<scf::ForOp>()) {
      bBase = opaqueCopy(rewriter, loc, bBase);
      if (aBase)
        aBase = opaqueCopy(rewriter, loc, aBase);
    }
    auto at = [&](Value base, int64_t byteOffset) -> Value {
      if (byteOffset == 0)
        return base;
      return arith::AddIOp::create(
          rewriter, loc, base,
          arith::ConstantOp::create(
              rewriter, loc, rewriter.getI64IntegerAttr(byteOffset >> 4)));
    };

    auto structType = LLVM::LLVMStructType::getLiteral(
        context, SmallVector<Type>(regsPerInstr, accType));
    auto shape = NVVM::MMAShapeAttr::get(context, 64, instrN, instrK);
    auto typeAB = NVVM::WGMMATypesAttr::get(
        context, wgmmaType(element, op.getInputPrecision()));
    auto typeD = NVVM::WGMMATypesAttr::get(
        context,
        accType.isF32() ? NVVM::WGMMATypes::f32 : NVVM::WGMMATypes::s32);
    auto scaleIn =
        NVVM::WGMMAScaleInAttr::get(context, NVVM::WGMMAScaleIn::one);
    auto scaleOut =
        NVVM::WGMMAScaleOutAttr::get(context, NVVM::WGMMAScaleOut::one);
    // K-major A is "row", K-major B is "col" (not transposed); an M-major
    // A is "col" (imm-trans-a = 1) and an N-major B "row" (imm-trans-b = 1).
    auto aLayout = NVVM::MMALayoutAttr::get(
        context,
        !aBuffer || aDesc.kMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col);
    auto bLayout = NVVM::MMALayoutAttr::get(
        context, bDesc.kMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row);

    // A in registers: its halves packed in pairs (a0..a3 of each 64-row
    // slab and k16 step, in that order) before the fence, so the wgmmas
    // issue back to back.
    SmallVector<Value> aWords;
    if (!aBuffer) {
      ValueRange values = adaptor.getA();
      bool carried = freshCarriedOperands && carriedIntoLoop(values);
      for (Value word : operandWords(rewriter, loc, values))
        aWords.push_back(carried ? freshRegister(rewriter, loc, word) : word);
    }
    SmallVector<Value> acc(adaptor.getC().begin(), adaptor.getC().end());
    // A zero accumulator is not materialised: the first K step ignores it
    // (scale-d = 0). Registers set by other instructions while an async
    // wgmma is in flight would make ptxas serialise the wgmmas.
    bool zeroInit = matchPattern(op.getC(), m_AnyZeroFloat()) ||
                    matchPattern(op.getC(), m_Zero());
    if (zeroInit)
      for (Value &value : acc)
        value = LLVM::PoisonOp::create(rewriter, loc, accType);
    auto scaleZero =
        NVVM::WGMMAScaleOutAttr::get(context, NVVM::WGMMAScaleOut::zero);
    // The wgmmas over K in [kBegin, kEnd) into `into` (the accumulator
    // registers; `fresh`: their old values are ignored).
    auto issue = [&](SmallVector<Value> &into, int64_t kBegin, int64_t kEnd,
                     bool fresh) {
      NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
      for (int64_t m = 0; m < repsM; ++m)
        for (int64_t n = 0; n < repsN; ++n) {
          // Accumulator registers: instruction bits, then N, then M reps.
          int64_t first = (m * repsN + n) * regsPerInstr;
          Value packed = LLVM::PoisonOp::create(rewriter, loc, structType);
          for (int64_t r = 0; r < regsPerInstr; ++r)
            packed = LLVM::InsertValueOp::create(rewriter, loc, packed,
                                                 into[first + r], r);
          for (int64_t k = kBegin; k < kEnd; k += instrK) {
            bool ignoreOld = fresh && k == kBegin;
            Value descB = at(bBase, bDesc.byteOffset(n * groupsN * instrN, k));
            if (!aBuffer) {
              ValueRange words = ValueRange(aWords).slice(
                  (m * (K / instrK) + k / instrK) * 4, 4);
              packed = emitRegisterA(rewriter, loc, structType, packed, words,
                                     descB, instrN, element, !bDesc.kMajor,
                                     !ignoreOld);
              continue;
            }
            Value descA = at(aBase, aDesc.byteOffset(m * groupsM * 64, k));
            packed = NVVM::WgmmaMmaAsyncOp::create(
                rewriter, loc, structType, packed, descA, descB, shape, typeAB,
                typeAB, typeD, ignoreOld ? scaleZero : scaleOut, scaleIn,
                scaleIn, aLayout, bLayout, NVVM::MMAIntOverflowAttr());
          }
          for (int64_t r = 0; r < regsPerInstr; ++r)
            into[first + r] =
                LLVM::ExtractValueOp::create(rewriter, loc, packed, r);
        }
      NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    };

    // fp8 wgmma sums its products at reduced precision. With
    // max_num_imprecise_acc = n, each n-deep slice of K (at least one
    // instruction's) goes into a zeroed partial accumulator, which is
    // waited for and added to the f32 accumulator, so no more than n
    // products are ever summed imprecisely (the carried accumulator from
    // earlier loop iterations included). A zero accumulator needs no split
    // when all of K fits one slice.
    int64_t imprecise = op.getMaxNumImpreciseAcc();
    int64_t slice = std::max(imprecise, instrK);
    if (imprecise == 0 || (zeroInit && slice >= K)) {
      issue(acc, 0, K, zeroInit);
      if (!op.getIsAsync())
        NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
      rewriter.replaceOpWithMultiple(op, {acc});
      return success();
    }
    for (int64_t kBegin = 0; kBegin < K; kBegin += slice) {
      SmallVector<Value> partial(acc.size());
      for (Value &value : partial)
        value = LLVM::PoisonOp::create(rewriter, loc, accType);
      issue(partial, kBegin, std::min(K, kBegin + slice), /*fresh=*/true);
      partial = waitTied(rewriter, loc, partial);
      for (auto [sum, part] : llvm::zip(acc, partial))
        sum = zeroInit && kBegin == 0
                  ? part
                  : LLVM::FAddOp::create(rewriter, loc, sum, part).getResult();
    }
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

/// `wgmma.wait_group` as inline asm whose outputs are tied to the
/// accumulator registers: LLVM and ptxas then cannot move a read of them
/// above the wait.
struct WarpGroupDotWaitPattern : OpConversionPattern<WarpGroupDotWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpGroupDotWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> registers;
    // Register A operands pass as the 32-bit words the MMA read (packed
    // as WarpGroupDotPattern packs them, so LLVM folds the two packings
    // into one): tying them keeps those registers unchanged until here.
    SmallVector<bool> isOperand;
    for (auto [input, values] :
         llvm::zip(op.getInputs(), adaptor.getInputs())) {
      bool operand = isa<DotOperandEncodingAttr>(
          cast<RankedTensorType>(input.getType()).getEncoding());
      isOperand.push_back(operand);
      if (operand) {
        llvm::append_range(registers, operandWords(rewriter, loc, values));
        continue;
      }
      for (Value value : values) {
        Type type = value.getType();
        if (!type.isF32() && !type.isInteger(32))
          return op->emitError("accumulator registers must be f32 or i32");
        registers.push_back(value);
      }
    }
    SmallVector<Value> waited =
        waitTied(rewriter, loc, registers, op.getPendings());
    SmallVector<SmallVector<Value>> results;
    int64_t next = 0;
    for (auto [operand, values] : llvm::zip(isOperand, adaptor.getInputs())) {
      SmallVector<Value> &result = results.emplace_back();
      if (operand) {
        // Nothing reads an operand after its MMA: its values pass on as
        // they were.
        next += values.front().getType().isF32() ? values.size()
                                                 : values.size() / 2;
        result.assign(values.begin(), values.end());
        continue;
      }
      for (size_t i = 0; i < values.size(); ++i)
        result.push_back(waited[next++]);
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

struct FenceAsyncSharedPattern : OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

} // namespace

void mlir::tile::populateWarpGroupDotPatterns(ThreadTypeConverter &converter,
                                              RewritePatternSet &patterns,
                                              bool freshCarriedOperands,
                                              bool descriptorsAtUse) {
  patterns.add<WarpGroupDotPattern>(converter, patterns.getContext(),
                                    freshCarriedOperands, descriptorsAtUse);
  patterns.add<WarpGroupDotWaitPattern, FenceAsyncSharedPattern>(
      converter, patterns.getContext());
}
