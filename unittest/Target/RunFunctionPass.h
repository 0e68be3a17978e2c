//===- RunFunctionPass.h - One LLVM function pass over textual IR -*- C++
//-*-===//
//
// What the tests of the LLVM-level passes in lib/Target share: parse a
// module, run one function pass over each definition with the analyses a
// PassBuilder registers, and check that the result verifies.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTEST_TARGET_RUNFUNCTIONPASS_H
#define TILE_UNITTEST_TARGET_RUNFUNCTIONPASS_H

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

#include <gtest/gtest.h>

namespace tile {
namespace testing {

/// `ir` after `pass` ran on each of its functions (null when it does not
/// parse). With `machine`, the module takes its triple and data layout and
/// the analyses its cost model.
template <typename PassT>
std::unique_ptr<llvm::Module>
runFunctionPass(llvm::LLVMContext &context, llvm::StringRef ir, PassT pass,
                llvm::TargetMachine *machine = nullptr) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(ir, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  if (!module)
    return nullptr;
  if (machine) {
    module->setTargetTriple(machine->getTargetTriple());
    module->setDataLayout(machine->createDataLayout());
  }
  llvm::PassBuilder pb(machine);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::FunctionPassManager fpm;
  fpm.addPass(std::move(pass));
  for (llvm::Function &function : *module)
    if (!function.isDeclaration())
      fpm.run(function, fam);
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  return module;
}

} // namespace testing
} // namespace tile

#endif // TILE_UNITTEST_TARGET_RUNFUNCTIONPASS_H
