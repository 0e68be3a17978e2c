//===- ThreeInputLogic.cpp - Two constant logic ops as one lop3 -----------===//

#include "tile/Target/ThreeInputLogic.h"

#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

#include <optional>
#include <string>

using namespace llvm;

namespace {

bool isBitwise(unsigned opcode) {
  return opcode == Instruction::And || opcode == Instruction::Or ||
         opcode == Instruction::Xor;
}

/// The 32 bits of a constant word (poison or undef lanes: none).
std::optional<uint32_t> wordBits(Value *value, const DataLayout &layout) {
  auto *constant = dyn_cast<Constant>(value);
  if (!constant || constant->containsUndefOrPoisonElement())
    return std::nullopt;
  Type *word = Type::getInt32Ty(value->getContext());
  Constant *bits =
      ConstantFoldCastOperand(Instruction::BitCast, constant, word, layout);
  if (auto *integer = dyn_cast_or_null<ConstantInt>(bits))
    return static_cast<uint32_t>(integer->getZExtValue());
  return std::nullopt;
}

/// One bitwise operation of a register with a constant: the operand that is
/// not constant and the constant's bits.
struct ConstantOperation {
  BinaryOperator *op;
  Value *other;
  uint32_t bits;
};

std::optional<ConstantOperation> matchConstantOperation(Value *value,
                                                        const DataLayout &dl) {
  auto *op = dyn_cast<BinaryOperator>(value);
  if (!op || !isBitwise(op->getOpcode()))
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i)
    if (std::optional<uint32_t> bits = wordBits(op->getOperand(i), dl))
      if (!isa<Constant>(op->getOperand(1 - i)))
        return ConstantOperation{op, op->getOperand(1 - i), *bits};
  return std::nullopt;
}

/// i32, <2 x i16> or <4 x i8>: what one 32-bit register holds.
bool is32BitInteger(Type *type) {
  Type *element = type->getScalarType();
  return element->isIntegerTy() && type->getPrimitiveSizeInBits() == 32;
}

/// Rewrites `outer(inner(x, C1), C2)` at `outer` into one lop3; false when
/// `outer` is not such a chain. `inner` must have no other use: it would
/// then stay and the rewrite would add an instruction.
bool rewriteChain(BinaryOperator *outerOp, const DataLayout &dl) {
  if (!is32BitInteger(outerOp->getType()))
    return false;
  std::optional<ConstantOperation> outer = matchConstantOperation(outerOp, dl);
  if (!outer)
    return false;
  // SLP may have left a bitcast between the two (an i32 mask, a <2 x i16>
  // xor).
  auto *cast = dyn_cast<BitCastInst>(outer->other);
  Value *innerValue = cast ? cast->getOperand(0) : outer->other;
  if (cast && (!cast->hasOneUse() || !is32BitInteger(innerValue->getType())))
    return false;
  std::optional<ConstantOperation> inner =
      matchConstantOperation(innerValue, dl);
  // Same block: the ops erased below then precede `outerOp`, behind the
  // caller's iterator.
  if (!inner || !inner->op->hasOneUse() ||
      inner->op->getParent() != outerOp->getParent() ||
      (cast && cast->getParent() != outerOp->getParent()))
    return false;

  IRBuilder<> builder(outerOp);
  Type *word = builder.getInt32Ty();
  Value *x = builder.CreateBitCast(inner->other, word);
  uint8_t table =
      mlir::tile::lop3Table(inner->op->getOpcode(), outerOp->getOpcode());
  std::string text = "lop3.b32 $0, $1, $2, $3, " + std::to_string(table) + ";";
  auto *type = FunctionType::get(word, {word, word, word}, false);
  InlineAsm *lop3 = InlineAsm::get(type, text, "=r,r,n,n",
                                   /*hasSideEffects=*/false);
  Value *result = builder.CreateCall(
      lop3, {x, builder.getInt32(inner->bits), builder.getInt32(outer->bits)});
  result = builder.CreateBitCast(result, outerOp->getType());
  outerOp->replaceAllUsesWith(result);
  outerOp->eraseFromParent();
  if (cast)
    cast->eraseFromParent();
  inner->op->eraseFromParent();
  return true;
}

} // namespace

uint8_t mlir::tile::lop3Table(unsigned inner, unsigned outer) {
  auto apply = [](unsigned opcode, uint8_t a, uint8_t b) -> uint8_t {
    switch (opcode) {
    case Instruction::And:
      return a & b;
    case Instruction::Or:
      return a | b;
    default:
      return a ^ b;
    }
  };
  // PTX's operand tables: a = 0xF0, b = 0xCC, c = 0xAA.
  return apply(outer, apply(inner, 0xF0, 0xCC), 0xAA);
}

PreservedAnalyses
mlir::tile::ThreeInputLogicPass::run(Function &function,
                                     FunctionAnalysisManager &) {
  const DataLayout &dl = function.getDataLayout();
  bool changed = false;
  // In order: a chain's inner op comes first and, rewritten, is no longer
  // a bitwise op for the chain it feeds.
  for (Instruction &inst : make_early_inc_range(instructions(function)))
    if (auto *op = dyn_cast<BinaryOperator>(&inst))
      changed |= rewriteChain(op, dl);
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
