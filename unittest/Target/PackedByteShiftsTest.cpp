//===- PackedByteShiftsTest.cpp - Byte-pair shifts as one 32-bit shift ----===//

#include "tile/Target/PackedByteShifts.h"

#include "RunFunctionPass.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <string>

#include <gtest/gtest.h>

using namespace llvm;

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
}

namespace {

/// sm_90a's target machine: the SLP vectorizer the pass runs prices
/// vectors through it.
std::unique_ptr<TargetMachine> nvptxMachine() {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  EXPECT_TRUE(target) << error;
  if (!target)
    return nullptr;
  return std::unique_ptr<TargetMachine>(target->createTargetMachine(
      triple, "sm_90a", "+ptx80", TargetOptions(), std::nullopt));
}

/// Runs the pass on the functions of `ir`; the module after it.
std::unique_ptr<Module> runPass(LLVMContext &context, StringRef ir,
                                TargetMachine *machine = nullptr) {
  return tile::testing::runFunctionPass(
      context, ir, mlir::tile::PackedByteShiftsPass(), machine);
}

/// runPass for sm_90a (the SLP vectorizer the pass re-runs prices through
/// its target machine); null when the target or the IR is missing.
std::unique_ptr<Module> runPassForNVPTX(LLVMContext &context, StringRef ir) {
  std::unique_ptr<TargetMachine> machine = nvptxMachine();
  if (!machine)
    return nullptr;
  return runPass(context, ir, machine.get());
}

/// How many instructions with `opcode` and result type `type` `function` has.
int count(Function &function, unsigned opcode, Type *type) {
  int n = 0;
  for (Instruction &inst : instructions(function))
    n += inst.getOpcode() == opcode && inst.getType() == type;
  return n;
}

/// Two bytes shifted right by `a` and `b` as SLP leaves them (scalar
/// shifts, packed, widened) in a function `name`: the high nibbles of two
/// weight bytes when a = b = 4.
std::string scalarShifts(StringRef name, unsigned a, unsigned b) {
  std::string ir;
  raw_string_ostream(ir)
      << "define <2 x i16> @" << name << "(i8 %a, i8 %b) {\n"
      << "  %ha = lshr i8 %a, " << a << "\n  %hb = lshr i8 %b, " << b
      << "\n  %p0 = insertelement <2 x i8> poison, i8 %ha, i64 0\n"
      << "  %p1 = insertelement <2 x i8> %p0, i8 %hb, i64 1\n"
      << "  %w = zext <2 x i8> %p1 to <2 x i16>\n  ret <2 x i16> %w\n}\n";
  return ir;
}

TEST(PackedByteShiftsTest, ScalarShiftsBecomeOneWordShift) {
  LLVMContext context;
  std::unique_ptr<Module> module = runPass(context, scalarShifts("f", 4, 4));
  ASSERT_TRUE(module);
  Function &f = *module->getFunction("f");
  Type *i32 = Type::getInt32Ty(context);
  EXPECT_EQ(count(f, Instruction::LShr, i32), 1);
  // The mask keeps each half's low 4 bits: 0x000F000F.
  bool masked = false;
  for (Instruction &inst : instructions(f))
    if (inst.getOpcode() == Instruction::And)
      if (auto *mask = dyn_cast<ConstantInt>(inst.getOperand(1)))
        masked |= mask->getZExtValue() == 0x000F000Fu;
  EXPECT_TRUE(masked);
  // What the function returns is the shifted word, as two halves.
  auto *ret = cast<ReturnInst>(f.getEntryBlock().getTerminator());
  auto *halves = dyn_cast<BitCastInst>(ret->getReturnValue());
  ASSERT_TRUE(halves);
  EXPECT_EQ(halves->getSrcTy(), i32);
}

/// A vector of `bytes` bytes shifted right by `amount` and widened to
/// 16-bit lanes becomes one shift of bytes / 2 words.
void expectWordShift(unsigned bytes, unsigned amount) {
  LLVMContext context;
  std::string ir;
  raw_string_ostream(ir) << "define <" << bytes << " x i16> @f(<" << bytes
                         << " x i8> %v) {\n  %h = lshr <" << bytes
                         << " x i8> %v, splat (i8 " << amount
                         << ")\n  %w = zext <" << bytes << " x i8> %h to <"
                         << bytes << " x i16>\n  ret <" << bytes
                         << " x i16> %w\n}\n";
  std::unique_ptr<Module> module = runPass(context, ir);
  ASSERT_TRUE(module);
  Type *i32 = Type::getInt32Ty(context);
  Type *words = bytes == 2 ? i32 : FixedVectorType::get(i32, bytes / 2);
  EXPECT_EQ(count(*module->getFunction("f"), Instruction::LShr, words), 1);
}

TEST(PackedByteShiftsTest, VectorShiftBecomesOneWordShift) {
  expectWordShift(2, 3);
}

TEST(PackedByteShiftsTest, EightBytesBecomeFourWordShifts) {
  expectWordShift(8, 4);
}

TEST(PackedByteShiftsTest, MixedAmountsAndWideLanesStay) {
  LLVMContext context;
  std::unique_ptr<Module> module =
      runPass(context, scalarShifts("mixed", 4, 3) +
                           scalarShifts("unshifted", 0, 0) + R"(
define <2 x i32> @wide(<2 x i8> %v) {
  %h = lshr <2 x i8> %v, splat (i8 4)
  %w = zext <2 x i8> %h to <2 x i32>
  ret <2 x i32> %w
}
)");
  ASSERT_TRUE(module);
  Type *i32 = Type::getInt32Ty(context);
  EXPECT_EQ(count(*module->getFunction("mixed"), Instruction::LShr, i32), 0);
  EXPECT_EQ(count(*module->getFunction("unshifted"), Instruction::LShr, i32),
            0);
  EXPECT_EQ(count(*module->getFunction("wide"), Instruction::LShr, i32), 0);
}

/// One row's k pair of int4 weights from an `ldmatrix.trans` word, as the
/// lowering leaves it: bytes `first` and `first` + 2 of %w, each masked to
/// its low nibble, widened, biased by the 0x4308 trick and packed into
/// the two bf16 halves of an MMA operand register.
std::string wordPlane(StringRef name, unsigned first) {
  std::string ir;
  raw_string_ostream(ir) << "define i32 @" << name << "(i32 %w) {\n"
                         << "  %v = bitcast i32 %w to <4 x i8>\n"
                         << "  %b0 = extractelement <4 x i8> %v, i64 " << first
                         << "\n"
                         << "  %b1 = extractelement <4 x i8> %v, i64 "
                         << first + 2 << "\n"
                         << R"(  %m0 = and i8 %b0, 15
  %m1 = and i8 %b1, 15
  %z0 = zext i8 %m0 to i16
  %z1 = zext i8 %m1 to i16
  %x0 = xor i16 %z0, 17160
  %x1 = xor i16 %z1, 17160
  %f0 = bitcast i16 %x0 to bfloat
  %f1 = bitcast i16 %x1 to bfloat
  %a0 = fadd bfloat %f0, 0xRC308
  %a1 = fadd bfloat %f1, 0xRC308
  %p0 = insertelement <2 x bfloat> poison, bfloat %a0, i64 0
  %p1 = insertelement <2 x bfloat> %p0, bfloat %a1, i64 1
  %r = bitcast <2 x bfloat> %p1 to i32
  ret i32 %r
}
)";
  return ir;
}

TEST(PackedByteShiftsTest, WordBytePairsBecomeOneMaskedWord) {
  LLVMContext context;
  std::unique_ptr<Module> module = runPassForNVPTX(
      context, wordPlane("low", 0) + wordPlane("high", 1));
  ASSERT_TRUE(module);
  Type *i8 = Type::getInt8Ty(context);
  Type *i32 = Type::getInt32Ty(context);
  for (auto [name, shift] : {std::pair<StringRef, uint64_t>{"low", 0},
                             std::pair<StringRef, uint64_t>{"high", 8}}) {
    Function &f = *module->getFunction(name);
    SCOPED_TRACE(name.str());
    // No byte is taken apart: one 32-bit (shift and) mask of the word,
    // 0x000F000F, feeds a pair of bf16 adds.
    EXPECT_EQ(count(f, Instruction::ExtractElement, i8), 0);
    EXPECT_EQ(count(f, Instruction::LShr, i32), shift ? 1 : 0);
    int masks = 0;
    for (Instruction &inst : instructions(f)) {
      if (inst.getOpcode() == Instruction::LShr)
        EXPECT_EQ(cast<ConstantInt>(inst.getOperand(1))->getZExtValue(), shift);
      if (inst.getOpcode() == Instruction::And && inst.getType() == i32)
        if (auto *mask = dyn_cast<ConstantInt>(inst.getOperand(1)))
          masks += mask->getZExtValue() == 0x000F000Fu;
    }
    EXPECT_EQ(masks, 1);
    Type *pair = FixedVectorType::get(Type::getBFloatTy(context), 2);
    EXPECT_EQ(count(f, Instruction::FAdd, pair), 1);
  }
}

/// Bytes 0 of %w and `index` of %w (or of %u, `otherWord`), paired and
/// widened, in a function `name`.
std::string bytePair(StringRef name, unsigned index, bool otherWord) {
  std::string ir;
  raw_string_ostream(ir)
      << "define <2 x i16> @" << name << "(i32 %w, i32 %u) {\n"
      << "  %v = bitcast i32 %w to <4 x i8>\n"
      << "  %t = bitcast i32 %u to <4 x i8>\n"
      << "  %b0 = extractelement <4 x i8> %v, i64 0\n"
      << "  %b1 = extractelement <4 x i8> " << (otherWord ? "%t" : "%v")
      << ", i64 " << index << "\n"
      << R"(  %p0 = insertelement <2 x i8> poison, i8 %b0, i64 0
  %p1 = insertelement <2 x i8> %p0, i8 %b1, i64 1
  %z = zext <2 x i8> %p1 to <2 x i16>
  ret <2 x i16> %z
}
)";
  return ir;
}

TEST(PackedByteShiftsTest, BytesOfDifferentWordsStay) {
  LLVMContext context;
  // Bytes 0 and 1 of a word are not a k pair of one row (those are two
  // bytes apart); bytes of two words are not one word.
  std::unique_ptr<Module> module = runPassForNVPTX(
      context, bytePair("adjacent", 1, false) + bytePair("two_words", 2, true));
  ASSERT_TRUE(module);
  Type *i32 = Type::getInt32Ty(context);
  for (StringRef name : {"adjacent", "two_words"}) {
    Function &f = *module->getFunction(name);
    int wordMasks = 0;
    for (Instruction &inst : instructions(f))
      wordMasks +=
          inst.getOpcode() == Instruction::And && inst.getType() == i32;
    EXPECT_EQ(wordMasks, 0) << name.str();
  }
}

} // namespace
