//===- PackedByteShifts.cpp - Shifts of byte pairs as one 32-bit shift ----===//

#include "tile/Target/PackedByteShifts.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Vectorize/SLPVectorizer.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace {

/// A pair of bytes shifted right by the same constant: the unshifted pair
/// (built here when the shifts are scalar) and the amount.
struct ShiftedPair {
  Value *bytes;
  uint64_t amount;
};

/// Bytes that widen into whole 32-bit words: an even number of them.
bool isBytePairs(Type *type) {
  auto *vector = dyn_cast<FixedVectorType>(type);
  return vector && vector->getNumElements() % 2 == 0 &&
         vector->getElementType()->isIntegerTy(8);
}

/// Shifts that leave some of a byte: by 1 to 7.
bool isByteShift(uint64_t amount) { return amount > 0 && amount < 8; }

/// `pair` (two lanes) as both lanes inserted into poison: the scalars, by
/// lane.
bool matchInsertedLanes(Value *pair, Value *(&lanes)[2]) {
  if (cast<FixedVectorType>(pair->getType())->getNumElements() != 2)
    return false;
  lanes[0] = lanes[1] = nullptr;
  Value *vector = pair;
  for (int inserted = 0; inserted < 2; ++inserted) {
    Value *scalar;
    uint64_t lane;
    if (!match(vector, m_InsertElt(m_Value(vector), m_Value(scalar),
                                   m_ConstantInt(lane))) ||
        lane > 1 || lanes[lane])
      return false;
    lanes[lane] = scalar;
  }
  return isa<PoisonValue, UndefValue>(vector);
}

/// `pair` as `lshr %bytes, C` (a vector shift by a splat, any even number
/// of lanes) or as two lanes inserted from scalar `lshr x_i, C`, with C in
/// [1, 7]; the unshifted pair is built before `pair`'s user `at`.
std::optional<ShiftedPair> matchShiftedPair(Value *pair, Instruction *at) {
  const APInt *amount;
  Value *bytes;
  if (match(pair, m_LShr(m_Value(bytes), m_APInt(amount)))) {
    if (!isByteShift(amount->getZExtValue()))
      return std::nullopt;
    return ShiftedPair{bytes, amount->getZExtValue()};
  }

  Value *lanes[2];
  if (!matchInsertedLanes(pair, lanes))
    return std::nullopt;
  Value *sources[2];
  std::optional<uint64_t> shared;
  for (int lane = 0; lane < 2; ++lane) {
    if (!match(lanes[lane], m_LShr(m_Value(sources[lane]), m_APInt(amount))))
      return std::nullopt;
    if (!isByteShift(amount->getZExtValue()) ||
        (shared && *shared != amount->getZExtValue()))
      return std::nullopt;
    shared = amount->getZExtValue();
  }
  IRBuilder<> b(at);
  Value *built = PoisonValue::get(pair->getType());
  for (int lane = 0; lane < 2; ++lane)
    built = b.CreateInsertElement(built, sources[lane], b.getInt64(lane));
  return ShiftedPair{built, *shared};
}

/// Bytes `first` and `first + 2` of one 32-bit word, each masked by
/// `mask`: the k pair of one row in an `ldmatrix.trans` word of int4
/// weights (SharedAccess.h, TransposedByteMatrices).
struct WordBytePair {
  Value *bytes; // <4 x i8>
  unsigned first;
  uint8_t mask;
};

/// Lane `lane` of `pair` as `[and] (extractelement <4 x i8> V, idx), C`.
bool matchWordByteLane(Value *lane, Value *&vector, uint64_t &index,
                       uint8_t &mask) {
  const APInt *bits;
  mask = 0xFF;
  if (match(lane, m_And(m_Value(lane), m_APInt(bits))))
    mask = bits->getZExtValue();
  auto *bytesType =
      FixedVectorType::get(Type::getInt8Ty(lane->getContext()), 4);
  return match(lane, m_ExtractElt(m_Value(vector), m_ConstantInt(index))) &&
         vector->getType() == bytesType;
}

/// `pair` as bytes i and i + 2 of one <4 x i8> (i = 0 or 1), unmasked or
/// masked alike: a shuffle of the vector, two lanes inserted from its
/// elements, or either under `and splat C`.
std::optional<WordBytePair> matchWordBytePair(Value *pair) {
  auto *type = cast<FixedVectorType>(pair->getType());
  if (type->getNumElements() != 2)
    return std::nullopt;
  uint8_t outerMask = 0xFF;
  const APInt *bits;
  if (match(pair, m_And(m_Value(pair), m_APInt(bits))))
    outerMask = bits->getZExtValue();
  auto *bytesType = FixedVectorType::get(type->getElementType(), 4);
  auto fits = [](uint64_t first, uint64_t second) {
    return first <= 1 && second == first + 2;
  };
  Value *vector;
  ArrayRef<int> lanes;
  if (match(pair, m_Shuffle(m_Value(vector), m_Value(), m_Mask(lanes))) &&
      vector->getType() == bytesType && lanes.size() == 2 && lanes[0] >= 0 &&
      fits(lanes[0], lanes[1]))
    return WordBytePair{vector, unsigned(lanes[0]), outerMask};

  Value *inserted[2];
  if (!matchInsertedLanes(pair, inserted))
    return std::nullopt;
  // Lanes 0 and 1 of one pair, taken apart and put back together.
  Value *whole[2];
  uint64_t lane[2];
  if (match(inserted[0],
            m_ExtractElt(m_Value(whole[0]), m_ConstantInt(lane[0]))) &&
      match(inserted[1],
            m_ExtractElt(m_Value(whole[1]), m_ConstantInt(lane[1]))) &&
      whole[0] == whole[1] && whole[0]->getType() == type && lane[0] == 0 &&
      lane[1] == 1) {
    std::optional<WordBytePair> inner = matchWordBytePair(whole[0]);
    if (inner)
      inner->mask &= outerMask;
    return inner;
  }
  Value *sources[2];
  uint64_t indices[2];
  uint8_t masks[2];
  for (int i = 0; i < 2; ++i)
    if (!matchWordByteLane(inserted[i], sources[i], indices[i], masks[i]))
      return std::nullopt;
  if (sources[0] != sources[1] || masks[0] != masks[1] ||
      !fits(indices[0], indices[1]))
    return std::nullopt;
  return WordBytePair{sources[0], unsigned(indices[0]),
                      uint8_t(masks[0] & outerMask)};
}

/// zext of bytes i and i + 2 of a word into two 16-bit lanes: the word
/// shifted right by 8i, with the other bytes masked off.
Value *widenWordBytePair(IRBuilder<> &b, const WordBytePair &pair,
                         Type *pairType) {
  Value *word = b.CreateBitCast(pair.bytes, b.getInt32Ty());
  if (pair.first != 0)
    word = b.CreateLShr(word, 8 * pair.first);
  Value *kept = b.CreateAnd(word, uint32_t(pair.mask) * 0x00010001u);
  return b.CreateBitCast(kept, pairType);
}

/// Reads bytes i and i + 2 (i = 0, 1) of a <4 x i8> word through a
/// shuffle of that pair: `extractelement %w, i` becomes `extractelement
/// (shufflevector %w, <i, i+2>), 0`, and i + 2 lane 1. To the SLP
/// vectorizer the two then come in order from one 2-lane vector (a free
/// gather, where the shuffle it would need otherwise tipped its cost model
/// against pairing the chains above them), and the shuffle is what
/// widenWordBytePair makes a shift and mask of.
bool pairWordBytes(Function &function) {
  SmallVector<ExtractElementInst *> extracts;
  for (Instruction &inst : instructions(function))
    if (auto *extract = dyn_cast<ExtractElementInst>(&inst))
      if (auto *type =
              dyn_cast<FixedVectorType>(extract->getVectorOperandType());
          type && type->getNumElements() == 4 &&
          type->getElementType()->isIntegerTy(8) &&
          isa<ConstantInt>(extract->getIndexOperand()))
        extracts.push_back(extract);
  DenseMap<std::pair<Value *, uint64_t>, ExtractElementInst *> byIndex;
  for (ExtractElementInst *extract : extracts)
    byIndex.try_emplace(
        {extract->getVectorOperand(),
         cast<ConstantInt>(extract->getIndexOperand())->getZExtValue()},
        extract);
  bool changed = false;
  for (auto [key, low] : byIndex) {
    auto [word, index] = key;
    if (index > 1)
      continue;
    auto high = byIndex.find({word, index + 2});
    if (high == byIndex.end())
      continue;
    IRBuilder<> b(function.getContext());
    if (auto *def = dyn_cast<Instruction>(word))
      b.SetInsertPoint(def->getParent(), ++def->getIterator());
    else
      b.SetInsertPoint(function.getEntryBlock().getFirstInsertionPt());
    if (isa<PHINode>(&*b.GetInsertPoint()))
      b.SetInsertPoint(b.GetInsertBlock()->getFirstNonPHIIt());

    int lanes[2] = {int(index), int(index + 2)};
    Value *pair = b.CreateShuffleVector(word, lanes);
    ExtractElementInst *reads[2] = {low, high->second};
    for (auto [lane, extract] : llvm::enumerate(reads)) {
      IRBuilder<> at(extract);
      extract->replaceAllUsesWith(at.CreateExtractElement(pair, lane));
    }
    changed = true;
  }
  for (ExtractElementInst *extract : extracts)
    if (extract->use_empty())
      extract->eraseFromParent();
  return changed;
}

} // namespace

PreservedAnalyses
mlir::tile::PackedByteShiftsPass::run(Function &function,
                                      FunctionAnalysisManager &analyses) {
  bool changed = false;
  if (pairWordBytes(function)) {
    analyses.invalidate(function, PreservedAnalyses::none());
    SLPVectorizerPass().run(function, analyses);
    changed = true;
  }
  SmallVector<ZExtInst *> widenings;
  for (Instruction &inst : instructions(function))
    if (auto *zext = dyn_cast<ZExtInst>(&inst))
      if (isBytePairs(zext->getSrcTy()) &&
          cast<FixedVectorType>(zext->getDestTy())
              ->getElementType()
              ->isIntegerTy(16))
        widenings.push_back(zext);

  for (ZExtInst *zext : widenings) {
    if (std::optional<WordBytePair> bytes =
            matchWordBytePair(zext->getOperand(0))) {
      IRBuilder<> b(zext);
      Value *pairValue = zext->getOperand(0);
      zext->replaceAllUsesWith(widenWordBytePair(b, *bytes, zext->getDestTy()));
      zext->eraseFromParent();
      RecursivelyDeleteTriviallyDeadInstructions(pairValue);
      changed = true;
      continue;
    }
    std::optional<ShiftedPair> pair =
        matchShiftedPair(zext->getOperand(0), zext);
    if (!pair)
      continue;
    IRBuilder<> b(zext);
    // The unshifted pair may itself be two bytes of a word.
    std::optional<WordBytePair> wordBytes;
    if (cast<FixedVectorType>(zext->getDestTy())->getNumElements() == 2)
      wordBytes = matchWordBytePair(pair->bytes);
    Value *wide = wordBytes
                      ? widenWordBytePair(b, *wordBytes, zext->getDestTy())
                      : b.CreateZExt(pair->bytes, zext->getDestTy());
    unsigned words =
        cast<FixedVectorType>(zext->getDestTy())->getNumElements() / 2;
    Type *wordType =
        words == 1
            ? static_cast<Type *>(b.getInt32Ty())
            : static_cast<Type *>(FixedVectorType::get(b.getInt32Ty(), words));
    Value *word = b.CreateBitCast(wide, wordType);
    // Each 16-bit half holds a byte: after the shift, keep its 8 - C low
    // bits (the high half's low bits moved into the low half's top).
    uint32_t keep = (0xFFu >> pair->amount) * 0x00010001u;
    Value *shifted = b.CreateAnd(b.CreateLShr(word, pair->amount),
                                 ConstantInt::get(wordType, keep));
    Value *shiftedPair = zext->getOperand(0);
    zext->replaceAllUsesWith(b.CreateBitCast(shifted, zext->getDestTy()));
    zext->eraseFromParent();
    // The scalar shifts and their packing, when nothing else reads them.
    RecursivelyDeleteTriviallyDeadInstructions(shiftedPair);
    changed = true;
  }
  if (!changed)
    return PreservedAnalyses::all();
  // The word's shift and mask meet the shifts and masks of the nibble
  // planes that follow: instcombine merges them (a function left as it
  // was is not revisited).
  analyses.invalidate(function, PreservedAnalyses::none());
  InstCombinePass().run(function, analyses);
  return PreservedAnalyses::none();
}
