//===- ThreeInputLogicTest.cpp - Two constant logic ops as one lop3 -------===//

#include "tile/Target/ThreeInputLogic.h"

#include "RunFunctionPass.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

using namespace llvm;

namespace {

std::unique_ptr<Module> runPass(LLVMContext &context, StringRef ir) {
  return tile::testing::runFunctionPass(context, ir,
                                        mlir::tile::ThreeInputLogicPass());
}

/// What PTX's `lop3.b32 d, a, b, c, table` computes.
uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, unsigned table) {
  uint32_t d = 0;
  for (unsigned bit = 0; bit < 32; ++bit) {
    unsigned index =
        ((a >> bit) & 1) << 2 | ((b >> bit) & 1) << 1 | ((c >> bit) & 1);
    d |= ((table >> index) & 1u) << bit;
  }
  return d;
}

uint32_t apply(unsigned opcode, uint32_t a, uint32_t b) {
  return opcode == Instruction::And  ? a & b
         : opcode == Instruction::Or ? a | b
                                     : a ^ b;
}

/// The lop3 calls of `function`.
SmallVector<CallInst *> lop3Calls(Function &function) {
  SmallVector<CallInst *> calls;
  for (Instruction &inst : instructions(function))
    if (auto *call = dyn_cast<CallInst>(&inst))
      if (auto *text = dyn_cast<InlineAsm>(call->getCalledOperand()))
        if (StringRef(text->getAsmString()).starts_with("lop3.b32"))
          calls.push_back(call);
  return calls;
}

int countOps(Function &function) {
  int n = 0;
  for (Instruction &inst : instructions(function))
    n += inst.getOpcode() == Instruction::And ||
         inst.getOpcode() == Instruction::Or ||
         inst.getOpcode() == Instruction::Xor;
  return n;
}

TEST(ThreeInputLogicTest, TableIsTheComposedFunction) {
  std::mt19937 random(7);
  unsigned ops[] = {Instruction::And, Instruction::Or, Instruction::Xor};
  for (unsigned inner : ops)
    for (unsigned outer : ops)
      for (int i = 0; i < 100; ++i) {
        uint32_t a = random(), b = random(), c = random();
        EXPECT_EQ(lop3(a, b, c, mlir::tile::lop3Table(inner, outer)),
                  apply(outer, apply(inner, a, b), c));
      }
}

// The int4 unpacking as SLP leaves it: a 32-bit mask, then the xor that
// makes each half a bf16 magic number, on <2 x i16>.
TEST(ThreeInputLogicTest, NibbleMagicBecomesOneLop3) {
  LLVMContext context;
  std::unique_ptr<Module> module =
      runPass(context, "define <2 x i16> @f(i32 %w) {\n"
                       "  %m = and i32 %w, 983055\n"
                       "  %c = bitcast i32 %m to <2 x i16>\n"
                       "  %x = xor <2 x i16> %c, splat (i16 17160)\n"
                       "  ret <2 x i16> %x\n}\n");
  ASSERT_TRUE(module);
  Function &f = *module->getFunction("f");
  EXPECT_EQ(countOps(f), 0);
  SmallVector<CallInst *> calls = lop3Calls(f);
  ASSERT_EQ(calls.size(), 1u);
  CallInst *call = calls.front();
  EXPECT_EQ(call->getArgOperand(0), f.getArg(0));
  auto *mask = dyn_cast<ConstantInt>(call->getArgOperand(1));
  auto *magic = dyn_cast<ConstantInt>(call->getArgOperand(2));
  ASSERT_TRUE(mask && magic);
  EXPECT_EQ(mask->getZExtValue(), 0x000F000Fu);
  EXPECT_EQ(magic->getZExtValue(), 0x43084308u);
  // The table the asm names computes the original pair on any word.
  StringRef text = cast<InlineAsm>(call->getCalledOperand())->getAsmString();
  unsigned table = 0;
  ASSERT_FALSE(text.rsplit(", ").second.rtrim(";").getAsInteger(10, table));
  std::mt19937 random(11);
  for (int i = 0; i < 1000; ++i) {
    uint32_t w = random();
    EXPECT_EQ(lop3(w, 0x000F000Fu, 0x43084308u, table),
              (w & 0x000F000Fu) ^ 0x43084308u);
  }
}

// Left alone: an inner op used twice (it would stay, and the rewrite would
// add an instruction), a register operand (ptxas merges that itself), and
// 64-bit values (no lop3.b64).
TEST(ThreeInputLogicTest, OtherChainsStay) {
  LLVMContext context;
  std::unique_ptr<Module> module =
      runPass(context, "define i32 @shared(i32 %w) {\n"
                       "  %m = and i32 %w, 15\n"
                       "  %x = or i32 %m, 256\n"
                       "  %s = add i32 %m, %x\n"
                       "  ret i32 %s\n}\n"
                       "define i32 @register(i32 %w, i32 %v) {\n"
                       "  %m = and i32 %w, %v\n"
                       "  %x = xor i32 %m, 256\n"
                       "  ret i32 %x\n}\n"
                       "define i64 @wide(i64 %w) {\n"
                       "  %m = and i64 %w, 15\n"
                       "  %x = xor i64 %m, 256\n"
                       "  ret i64 %x\n}\n");
  ASSERT_TRUE(module);
  for (StringRef name : {"shared", "register", "wide"}) {
    Function &f = *module->getFunction(name);
    EXPECT_EQ(countOps(f), 2) << name.str();
    EXPECT_TRUE(lop3Calls(f).empty()) << name.str();
  }
}

} // namespace
