//===- MemoryOps.cpp - Global loads, stores and atomics per thread --------===//
//
// Each thread accesses its registers in groups of `vec` consecutive elements,
// where `vec` is the smallest of: the registers the layout makes consecutive,
// what contiguity and alignment allow (axis info), how far the mask stays
// constant, and 128 bits. A group is one predicated PTX access, written as
// inline assembly so that the mask becomes a guard predicate instead of a
// branch and `other` fills the lanes it turns off.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// How a group of elements travels in PTX registers.
struct WordKind {
  unsigned bits;       // 8, 16, 32 or 64
  const char *ptxType; // instruction type suffix
  const char *constraint;
  Type type; // the LLVM type of one word
};

WordKind wordKindFor(MLIRContext *context, Type element, unsigned totalBits) {
  Builder b(context);
  // 64-bit elements travel as 64-bit words (ld.global.v2.b64, as Triton
  // emits them), not as pairs of 32-bit halves.
  if (getElementBitWidth(element) == 64)
    return {64, "b64", "l", b.getI64Type()};
  if (totalBits >= 32) {
    if (element.isF32())
      // .b32 with f32 registers: PTX lets bit-size types take any
      // operand of their size (and Triton spells its loads so).
      return {32, "b32", "f", b.getF32Type()};
    return {32, "b32", "r", b.getI32Type()};
  }
  if (totalBits == 16)
    return {16, "b16", "h", b.getI16Type()};
  return {8, "u8", "h", b.getI16Type()};
}

/// Packs `elements` (already in memory type) into words.
SmallVector<Value> packWords(OpBuilder &b, Location loc,
                             ArrayRef<Value> elements, const WordKind &word) {
  Type elementType = elements[0].getType();
  unsigned elementBits = getElementBitWidth(elementType);
  unsigned totalBits = elementBits * elements.size();
  if (word.bits == 8)
    return {arith::ExtUIOp::create(b, loc, word.type, elements[0])};
  if (elements.size() == 1 && elementBits == word.bits &&
      elementType == word.type)
    return {elements[0]};
  auto vecType = VectorType::get({(int64_t)elements.size()}, elementType);
  Value vec = LLVM::UndefOp::create(b, loc, vecType);
  for (auto [i, e] : llvm::enumerate(elements))
    vec = LLVM::InsertElementOp::create(b, loc, vec, e, i32Constant(b, loc, i));
  unsigned words = totalBits / word.bits;
  auto wordsType = VectorType::get({(int64_t)words}, word.type);
  Value cast = LLVM::BitcastOp::create(b, loc, wordsType, vec);
  SmallVector<Value> result;
  for (unsigned i = 0; i < words; ++i)
    result.push_back(
        LLVM::ExtractElementOp::create(b, loc, cast, i32Constant(b, loc, i)));
  return result;
}

SmallVector<Value> unpackWords(OpBuilder &b, Location loc,
                               ArrayRef<Value> words, Type elementType,
                               unsigned count, const WordKind &word) {
  if (word.bits == 8)
    return {arith::TruncIOp::create(b, loc, elementType, words[0])};
  if (count == 1 && words.size() == 1 && elementType == word.type)
    return {words[0]};
  auto wordsType = VectorType::get({(int64_t)words.size()}, word.type);
  Value vec = LLVM::UndefOp::create(b, loc, wordsType);
  for (auto [i, w] : llvm::enumerate(words))
    vec = LLVM::InsertElementOp::create(b, loc, vec, w, i32Constant(b, loc, i));
  auto elementsType = VectorType::get({(int64_t)count}, elementType);
  Value cast = LLVM::BitcastOp::create(b, loc, elementsType, vec);
  SmallVector<Value> result;
  for (unsigned i = 0; i < count; ++i)
    result.push_back(
        LLVM::ExtractElementOp::create(b, loc, cast, i32Constant(b, loc, i)));
  return result;
}

Value andPredicates(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(b, loc, x, y);
}

Value addressOf(OpBuilder &b, Location loc, Value ptr) {
  return PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
}

/// How one thread accesses its elements: `vec` elements per instruction,
/// carried as `numWords` words of kind `word`.
struct AccessShape {
  unsigned elementBits, vec, numWords;
  WordKind word;
};

AccessShape accessShapeFor(MLIRContext *context, Value ptr, Value mask,
                           Type memType, const AxisInfoAnalysis &axisInfo) {
  unsigned elementBits = std::max(8u, getElementBitWidth(memType));
  unsigned vec = vectorWidth(ptr, mask, axisInfo);
  WordKind word = wordKindFor(context, memType, vec * elementBits);
  return {elementBits, vec, std::max(1u, vec * elementBits / word.bits), word};
}

std::string cacheSuffix(CacheModifier cache) {
  if (cache == CacheModifier::None)
    return "";
  return "." + stringifyCacheModifier(cache).str();
}

/// The L1 eviction-priority qualifier of a load or store.
std::string evictSuffix(EvictionPolicy evict) {
  switch (evict) {
  case EvictionPolicy::First:
    return ".L1::evict_first";
  case EvictionPolicy::Last:
    return ".L1::evict_last";
  default:
    return "";
  }
}

struct LoadPattern : OpConversionPattern<LoadOp> {
  LoadPattern(const TypeConverter &converter, MLIRContext *context,
              const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, context), axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = getContext();
    ValueRange ptrs = adaptor.getPtr();
    ValueRange masks = adaptor.getMask();
    ValueRange others = adaptor.getOther();
    Type elementType = getElementTypeOrSelf(op.getType());
    Type memType = storageType(elementType);
    auto [elementBits, vec, numWords, word] =
        accessShapeFor(context, op.getPtr(), op.getMask(), memType, axisInfo);

    std::string modifiers;
    if (op.getIsVolatile())
      modifiers = ".volatile";
    std::string cache = op.getIsVolatile() ? "" : cacheSuffix(op.getCache());
    std::string evict = op.getIsVolatile() ? "" : evictSuffix(op.getEvict());

    SmallVector<Value> results;
    for (size_t start = 0; start < ptrs.size(); start += vec) {
      Value pred = masks.empty() ? Value() : masks[start];
      SmallVector<Value> operands;
      std::string constraints, body;
      for (unsigned i = 0; i < numWords; ++i)
        constraints += std::string(i ? "," : "") + "=" + word.constraint;
      unsigned next = numWords;
      std::string predRef;
      if (pred) {
        operands.push_back(pred);
        constraints += ",b";
        predRef = llvm::formatv("@${0} ", next++).str();
      }
      operands.push_back(addressOf(rewriter, loc, ptrs[start]));
      constraints += ",l";
      unsigned addrIndex = next++;
      if (pred) {
        // Lanes the mask turns off keep `other` (or zero).
        SmallVector<Value> fill;
        if (!others.empty()) {
          SmallVector<Value> elements;
          for (unsigned i = 0; i < vec; ++i)
            elements.push_back(toStorage(rewriter, loc, others[start + i]));
          fill = packWords(rewriter, loc, elements, word);
        }
        const char *movType =
            word.bits == 64   ? "b64"
            : word.bits == 32 ? (word.type.isF32() ? "f32" : "b32")
                              : "b16";
        for (unsigned i = 0; i < numWords; ++i) {
          if (fill.empty()) {
            // PTX float immediates are spelled in hex.
            body += llvm::formatv("mov.{0} ${1}, {2};\n\t", movType, i,
                                  word.type.isF32() ? "0f00000000" : "0")
                        .str();
          } else {
            operands.push_back(fill[i]);
            constraints += std::string(",") + word.constraint;
            body += llvm::formatv("mov.{0} ${1}, ${2};\n\t", movType, i, next++)
                        .str();
          }
        }
      }
      std::string dests;
      for (unsigned i = 0; i < numWords; ++i)
        dests += llvm::formatv("{0}${1}", i ? ", " : "", i).str();
      if (numWords > 1)
        dests = "{ " + dests + " }";
      std::string vecSuffix =
          numWords > 1 ? llvm::formatv(".v{0}", numWords).str() : "";
      body += llvm::formatv("{0}ld{1}.global{2}{3}{4}.{5} {6}, [ ${7} + 0 ];",
                            predRef, modifiers, cache, evict, vecSuffix,
                            word.ptxType, dests, addrIndex)
                  .str();
      Type resultType =
          numWords == 1 ? word.type
                        : LLVM::LLVMStructType::getLiteral(
                              context, SmallVector<Type>(numWords, word.type));
      // Side-effecting, as Triton's loads are: LLVM takes a pure asm for a
      // function of its address alone, so it would hoist a load out of a
      // loop that stores to the same address, or reuse an earlier load of
      // it past a store (test_core's nested read-modify-write loop read
      // its value once and stored it ten times).
      auto asmOp = emitInlineAsm(rewriter, loc, resultType, operands, body,
                                 constraints, /*hasSideEffects=*/true);
      SmallVector<Value> words;
      if (numWords == 1)
        words.push_back(asmOp.getResult(0));
      else
        for (unsigned i = 0; i < numWords; ++i)
          words.push_back(LLVM::ExtractValueOp::create(rewriter, loc,
                                                       asmOp.getResult(0), i));
      for (Value v : unpackWords(rewriter, loc, words, memType, vec, word))
        results.push_back(fromStorage(rewriter, loc, v, elementType));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }

  const AxisInfoAnalysis &axisInfo;
};

/// The thread that writes for a scalar (uniform) store or atomic.
Value firstThreadPredicate(OpBuilder &b, Location loc, Operation *op) {
  ThreadId tid = getThreadId(b, op);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid.linear,
                               i32Constant(b, loc, 0));
}

/// Only one thread of each group of copies may write.
Value writerPredicate(OpBuilder &b, Location loc, Operation *op, Type ptrType) {
  auto tensor = dyn_cast<RankedTensorType>(ptrType);
  if (!tensor)
    return firstThreadPredicate(b, loc, op);
  return emitOwnerPredicate(b, loc, getLinearLayout(tensor),
                            getThreadId(b, op));
}

struct StorePattern : OpConversionPattern<StoreOp> {
  StorePattern(const TypeConverter &converter, MLIRContext *context,
               const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, context), axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = getContext();
    ValueRange ptrs = adaptor.getPtr();
    ValueRange values = adaptor.getValue();
    ValueRange masks = adaptor.getMask();
    Type memType = storageType(getElementTypeOrSelf(op.getValue().getType()));
    auto [elementBits, vec, numWords, word] =
        accessShapeFor(context, op.getPtr(), op.getMask(), memType, axisInfo);
    Value writer = writerPredicate(rewriter, loc, op, op.getPtr().getType());
    std::string cache = cacheSuffix(op.getCache()) + evictSuffix(op.getEvict());

    for (size_t start = 0; start < ptrs.size(); start += vec) {
      Value pred = andPredicates(rewriter, loc, writer,
                                 masks.empty() ? Value() : masks[start]);
      SmallVector<Value> operands;
      std::string constraints;
      unsigned next = 0;
      std::string predRef;
      if (pred) {
        operands.push_back(pred);
        constraints = "b";
        predRef = llvm::formatv("@${0} ", next++).str();
      }
      operands.push_back(addressOf(rewriter, loc, ptrs[start]));
      constraints += std::string(constraints.empty() ? "" : ",") + "l";
      unsigned addrIndex = next++;
      SmallVector<Value> elements;
      for (unsigned i = 0; i < vec; ++i)
        elements.push_back(toStorage(rewriter, loc, values[start + i]));
      std::string srcs;
      for (auto [i, w] :
           llvm::enumerate(packWords(rewriter, loc, elements, word))) {
        operands.push_back(w);
        constraints += std::string(",") + word.constraint;
        srcs += llvm::formatv("{0}${1}", i ? ", " : "", next++).str();
      }
      if (numWords > 1)
        srcs = "{ " + srcs + " }";
      std::string vecSuffix =
          numWords > 1 ? llvm::formatv(".v{0}", numWords).str() : "";
      std::string body =
          llvm::formatv("{0}st.global{1}{2}.{3} [ ${4} + 0 ], {5};", predRef,
                        cache, vecSuffix, word.ptxType, addrIndex, srcs)
              .str();
      emitInlineAsm(rewriter, loc, TypeRange(), operands, body, constraints,
                    /*hasSideEffects=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }

  const AxisInfoAnalysis &axisInfo;
};

/// PTX spelling of an atomic's operation and operand type.
FailureOr<std::string> atomicOpSuffix(RMWOp kind, Type type) {
  unsigned bits = getElementBitWidth(type);
  bool isFloat = isa<FloatType>(type);
  std::string b = "b" + std::to_string(bits);
  std::string u = "u" + std::to_string(bits);
  std::string s = "s" + std::to_string(bits);
  switch (kind) {
  case RMWOp::And:
    return "and." + b;
  case RMWOp::Or:
    return "or." + b;
  case RMWOp::Xor:
    return "xor." + b;
  case RMWOp::Xchg:
    return "exch." + b;
  case RMWOp::Add:
  case RMWOp::FAdd:
    if (isFloat) {
      if (type.isF16())
        return std::string("add.noftz.f16");
      if (type.isBF16())
        return std::string("add.noftz.bf16");
      return "add.f" + std::to_string(bits);
    }
    return "add." + u;
  case RMWOp::Max:
    return isFloat ? FailureOr<std::string>(failure()) : "max." + s;
  case RMWOp::Min:
    return isFloat ? FailureOr<std::string>(failure()) : "min." + s;
  case RMWOp::UMax:
    return "max." + u;
  case RMWOp::UMin:
    return "min." + u;
  }
  return failure();
}

const char *registerConstraint(Type type) {
  if (type.isF32())
    return "f";
  if (type.isF64())
    return "d";
  switch (getElementBitWidth(type)) {
  case 16:
    return "h";
  case 64:
    return "l";
  default:
    return "r";
  }
}

/// Bit-casts 16-bit floats to i16 for "h" registers, and back.
Value toRegister(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (type.isF16() || type.isBF16())
    return arith::BitcastOp::create(b, loc, b.getI16Type(), value);
  return value;
}

Value fromRegister(OpBuilder &b, Location loc, Value value, Type type) {
  if (type != value.getType())
    return arith::BitcastOp::create(b, loc, type, value);
  return value;
}

Type registerType(OpBuilder &b, Type type) {
  if (type.isF16() || type.isBF16())
    return b.getI16Type();
  return type;
}

/// The qualifiers before an atom's operation. PTX takes them in any order;
/// these are the orders Triton prints (`.global.gpu.acq_rel.add` for
/// read-modify-writes, `.global.acq_rel.gpu.cas`), so that PTX checks
/// written against Triton's output read ours the same way.
std::string rmwQualifiers(MemSemantic sem, MemSyncScope scope) {
  return ".global." + stringifyMemSyncScope(scope).str() + "." +
         stringifyMemSemantic(sem).str();
}

std::string casQualifiers(MemSemantic sem, MemSyncScope scope) {
  return ".global." + stringifyMemSemantic(sem).str() + "." +
         stringifyMemSyncScope(scope).str();
}

/// Shared by atomic_rmw and atomic_cas: one PTX atom per element, guarded
/// by mask and ownership. A scalar atomic runs in thread 0 and its result
/// reaches every thread through shared memory.
LogicalResult lowerAtomic(Operation *op, ValueRange ptrs,
                          ArrayRef<ValueRange> valueOperands, ValueRange masks,
                          StringRef opcode,
                          ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Type elementType = getElementTypeOrSelf(op->getResult(0).getType());
  bool isScalar = !isa<RankedTensorType>(op->getResult(0).getType());
  // A scalar atomic that releases (e.g. a lock) publishes the writes of
  // the whole CTA, not only of thread 0: everyone's writes must be done
  // before thread 0 issues it.
  // Likewise an acquiring one orders the loads of every thread after it:
  // the barrier that hands out its result does that, or one of its own.
  auto sem = op->getAttrOfType<MemSemanticAttr>("sem");
  bool releases = sem && (sem.getValue() == MemSemantic::Release ||
                          sem.getValue() == MemSemantic::AcqRel);
  bool acquires = sem && (sem.getValue() == MemSemantic::Acquire ||
                          sem.getValue() == MemSemantic::AcqRel);
  if (isScalar && releases)
    emitBarrier(rewriter, loc);
  Value writer =
      writerPredicate(rewriter, loc, op, op->getOperand(0).getType());
  const char *constraint = registerConstraint(elementType);
  Type regType = registerType(rewriter, elementType);
  SmallVector<Value> results;
  for (size_t i = 0; i < ptrs.size(); ++i) {
    Value pred = andPredicates(rewriter, loc, writer,
                               masks.empty() ? Value() : masks[i]);
    // Unmasked, and no thread holds a copy (a block of at least one
    // element per thread): every lane's atom runs.
    if (!pred)
      pred = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    SmallVector<Value> operands{pred, addressOf(rewriter, loc, ptrs[i])};
    std::string constraints = std::string("=") + constraint + ",b,l";
    std::string args;
    for (auto [j, values] : llvm::enumerate(valueOperands)) {
      operands.push_back(toRegister(rewriter, loc, values[i]));
      constraints += std::string(",") + constraint;
      args += llvm::formatv(", ${0}", j + 3).str();
    }
    std::string body =
        llvm::formatv("mov.b{0} $0, 0;\n\t@$1 atom{1} $0, [ $2 + 0 ]{2};",
                      getElementBitWidth(elementType), opcode, args)
            .str();
    auto asmOp = emitInlineAsm(rewriter, loc, regType, operands, body,
                               constraints, /*hasSideEffects=*/true);
    results.push_back(
        fromRegister(rewriter, loc, asmOp.getResult(0), elementType));
  }
  if (isScalar && !op->getResult(0).use_empty()) {
    FailureOr<int64_t> offset = getScratchOffset(op);
    if (failed(offset))
      return failure();
    Value slot = getSharedPointer(rewriter, loc, op,
                                  i32Constant(rewriter, loc, *offset));
    storeShared(rewriter, loc, slot, results[0], writer);
    emitBarrier(rewriter, loc);
    results[0] = loadShared(rewriter, loc, slot, elementType);
  } else if (isScalar && acquires) {
    emitBarrier(rewriter, loc);
  }
  rewriter.replaceOpWithMultiple(op, {results});
  return success();
}

/// Whether a read-modify-write can be a `red`: nobody reads its result,
/// it does not acquire (red orders at most as a release), and it is an
/// operation red has (not an exchange). A scalar one stays an atom: its
/// lowering hands the result around and fences for the whole CTA.
bool isReduction(AtomicRMWOp op) {
  return isa<RankedTensorType>(op.getType()) && op.getResult().use_empty() &&
         op.getRmwOp() != RMWOp::Xchg &&
         (op.getSem() == MemSemantic::Relaxed ||
          op.getSem() == MemSemantic::Release);
}

/// An atomic whose result nobody reads, as `red` (no value comes back, so
/// the thread does not wait for the round trip to L2). fp32 additions go
/// in groups of up to four consecutive elements (`red.v4.f32`, sm_90),
/// as contiguity, alignment and the mask allow: a dot's accumulator added
/// into a global sum (attention's dQ) holds pairs of consecutive columns.
void lowerReduction(AtomicRMWOp op, ValueRange ptrs, ValueRange values,
                    ValueRange masks, const std::string &opcode,
                    const AxisInfoAnalysis &axisInfo,
                    ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  Type elementType = getElementTypeOrSelf(op.getType());
  bool vectorizes = elementType.isF32() && op.getRmwOp() == RMWOp::FAdd;
  unsigned vec =
      vectorizes ? std::min(4u, vectorWidth(op.getPtr(), op.getMask(), axisInfo))
                 : 1;
  Value writer = writerPredicate(rewriter, loc, op, op.getPtr().getType());
  const char *constraint = registerConstraint(elementType);
  for (size_t start = 0; start < ptrs.size(); start += vec) {
    Value pred = andPredicates(rewriter, loc, writer,
                               masks.empty() ? Value() : masks[start]);
    if (!pred)
      pred = arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    SmallVector<Value> operands{pred, addressOf(rewriter, loc, ptrs[start])};
    std::string constraints = "b,l";
    std::string srcs;
    for (unsigned i = 0; i < vec; ++i) {
      operands.push_back(toRegister(rewriter, loc, values[start + i]));
      constraints += std::string(",") + constraint;
      srcs += llvm::formatv("{0}${1}", i ? ", " : "", i + 2).str();
    }
    std::string vecSuffix;
    if (vec > 1) {
      srcs = "{ " + srcs + " }";
      vecSuffix = llvm::formatv(".v{0}", vec).str();
    }
    // opcode ends in the type ("add.f32"): the vector width goes before it.
    size_t typeDot = opcode.rfind('.');
    std::string body =
        llvm::formatv("@$0 red{0}{1}{2} [ $1 + 0 ], {3};",
                      opcode.substr(0, typeDot), vecSuffix,
                      opcode.substr(typeDot), srcs)
            .str();
    emitInlineAsm(rewriter, loc, TypeRange(), operands, body, constraints,
                  /*hasSideEffects=*/true);
  }
  rewriter.eraseOp(op);
}

struct AtomicRMWPattern : OpConversionPattern<AtomicRMWOp> {
  AtomicRMWPattern(const TypeConverter &converter, MLIRContext *context,
                   const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, context), axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(AtomicRMWOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elementType = getElementTypeOrSelf(op.getType());
    FailureOr<std::string> suffix = atomicOpSuffix(op.getRmwOp(), elementType);
    if (failed(suffix))
      return op.emitError("atomic ") << stringifyRMWOp(op.getRmwOp()) << " on "
                                     << elementType << " is not supported";
    std::string opcode =
        rmwQualifiers(op.getSem(), op.getScope()) + "." + *suffix;
    if (isReduction(op)) {
      lowerReduction(op, adaptor.getPtr(), adaptor.getVal(), adaptor.getMask(),
                     opcode, axisInfo, rewriter);
      return success();
    }
    return lowerAtomic(op, adaptor.getPtr(), {adaptor.getVal()},
                       adaptor.getMask(), opcode, rewriter);
  }

  const AxisInfoAnalysis &axisInfo;
};

struct AtomicCASPattern : OpConversionPattern<AtomicCASOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AtomicCASOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elementType = getElementTypeOrSelf(op.getType());
    std::string opcode = casQualifiers(op.getSem(), op.getScope()) + ".cas.b" +
                         std::to_string(getElementBitWidth(elementType));
    return lowerAtomic(op, adaptor.getPtr(),
                       {adaptor.getCmp(), adaptor.getVal()}, ValueRange(),
                       opcode, rewriter);
  }
};

} // namespace

void mlir::tile::populateMemoryOpPatterns(ThreadTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const AxisInfoAnalysis &axisInfo) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LoadPattern, StorePattern, AtomicRMWPattern>(converter, context,
                                                           axisInfo);
  patterns.add<AtomicCASPattern>(converter, context);
}
