//===- PackedByteShifts.cpp - Shifts of byte pairs as one 32-bit shift ----===//

#include "tile/Target/PackedByteShifts.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/Local.h"

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

  if (cast<FixedVectorType>(pair->getType())->getNumElements() != 2)
    return std::nullopt;
  Value *lanes[2] = {nullptr, nullptr};
  Value *vector = pair;
  for (int inserted = 0; inserted < 2; ++inserted) {
    Value *scalar;
    uint64_t lane;
    if (!match(vector, m_InsertElt(m_Value(vector), m_Value(scalar),
                                   m_ConstantInt(lane))) ||
        lane > 1 || lanes[lane])
      return std::nullopt;
    lanes[lane] = scalar;
  }
  if (!isa<PoisonValue, UndefValue>(vector))
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

} // namespace

PreservedAnalyses
mlir::tile::PackedByteShiftsPass::run(Function &function,
                                      FunctionAnalysisManager &) {
  SmallVector<ZExtInst *> widenings;
  for (Instruction &inst : instructions(function))
    if (auto *zext = dyn_cast<ZExtInst>(&inst))
      if (isBytePairs(zext->getSrcTy()) &&
          cast<FixedVectorType>(zext->getDestTy())
              ->getElementType()
              ->isIntegerTy(16))
        widenings.push_back(zext);

  bool changed = false;
  for (ZExtInst *zext : widenings) {
    std::optional<ShiftedPair> pair =
        matchShiftedPair(zext->getOperand(0), zext);
    if (!pair)
      continue;
    IRBuilder<> b(zext);
    Value *wide = b.CreateZExt(pair->bytes, zext->getDestTy());
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
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
