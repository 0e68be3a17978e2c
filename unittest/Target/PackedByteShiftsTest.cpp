//===- PackedByteShiftsTest.cpp - Byte-pair shifts as one 32-bit shift ----===//

#include "tile/Target/PackedByteShifts.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"

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

// The high nibbles of two weight bytes as SLP leaves them: scalar shifts,
// packed, widened.
constexpr const char *kScalarShifts = R"(
define <2 x i16> @f(i8 %a, i8 %b) {
  %ha = lshr i8 %a, 4
  %hb = lshr i8 %b, 4
  %p0 = insertelement <2 x i8> poison, i8 %ha, i64 0
  %p1 = insertelement <2 x i8> %p0, i8 %hb, i64 1
  %w = zext <2 x i8> %p1 to <2 x i16>
  ret <2 x i16> %w
}
)";

TEST(PackedByteShiftsTest, ScalarShiftsBecomeOneWordShift) {
  LLVMContext context;
  std::unique_ptr<Module> module = runPass(context, kScalarShifts);
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

TEST(PackedByteShiftsTest, VectorShiftBecomesOneWordShift) {
  LLVMContext context;
  std::unique_ptr<Module> module = runPass(context, R"(
define <2 x i16> @f(<2 x i8> %v) {
  %h = lshr <2 x i8> %v, splat (i8 3)
  %w = zext <2 x i8> %h to <2 x i16>
  ret <2 x i16> %w
}
)");
  ASSERT_TRUE(module);
  Function &f = *module->getFunction("f");
  EXPECT_EQ(count(f, Instruction::LShr, Type::getInt32Ty(context)), 1);
}

TEST(PackedByteShiftsTest, EightBytesBecomeFourWordShifts) {
  LLVMContext context;
  std::unique_ptr<Module> module = runPass(context, R"(
define <8 x i16> @f(<8 x i8> %v) {
  %h = lshr <8 x i8> %v, splat (i8 4)
  %w = zext <8 x i8> %h to <8 x i16>
  ret <8 x i16> %w
}
)");
  ASSERT_TRUE(module);
  Function &f = *module->getFunction("f");
  EXPECT_EQ(count(f, Instruction::LShr,
                  FixedVectorType::get(Type::getInt32Ty(context), 4)),
            1);
}

TEST(PackedByteShiftsTest, MixedAmountsAndWideLanesStay) {
  LLVMContext context;
  std::unique_ptr<Module> module = runPass(context, R"(
define <2 x i16> @mixed(i8 %a, i8 %b) {
  %ha = lshr i8 %a, 4
  %hb = lshr i8 %b, 3
  %p0 = insertelement <2 x i8> poison, i8 %ha, i64 0
  %p1 = insertelement <2 x i8> %p0, i8 %hb, i64 1
  %w = zext <2 x i8> %p1 to <2 x i16>
  ret <2 x i16> %w
}
define <2 x i32> @wide(<2 x i8> %v) {
  %h = lshr <2 x i8> %v, splat (i8 4)
  %w = zext <2 x i8> %h to <2 x i32>
  ret <2 x i32> %w
}
)");
  ASSERT_TRUE(module);
  Type *i32 = Type::getInt32Ty(context);
  EXPECT_EQ(count(*module->getFunction("mixed"), Instruction::LShr, i32), 0);
  EXPECT_EQ(count(*module->getFunction("wide"), Instruction::LShr, i32), 0);
}

} // namespace
