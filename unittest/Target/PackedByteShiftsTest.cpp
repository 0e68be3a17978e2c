//===- PackedByteShiftsTest.cpp - Byte-pair shifts as one 32-bit shift ----===//

#include "tile/Target/PackedByteShifts.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

#include <gtest/gtest.h>

using namespace llvm;

namespace {

/// Runs the pass on `function` of `ir`; the module after it.
std::unique_ptr<Module> runPass(LLVMContext &context, StringRef ir) {
  SMDiagnostic error;
  std::unique_ptr<Module> module = parseAssemblyString(ir, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  if (!module)
    return nullptr;
  PassBuilder pb;
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  FunctionPassManager fpm;
  fpm.addPass(mlir::tile::PackedByteShiftsPass());
  for (Function &function : *module)
    if (!function.isDeclaration())
      fpm.run(function, fam);
  EXPECT_FALSE(verifyModule(*module, &errs()));
  return module;
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

} // namespace
