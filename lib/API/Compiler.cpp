//===- Compiler.cpp - libtile's public C++ API ----------------------------===//

#include "tile/API/Compiler.h"
#include "tile/API/CrashRecovery.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"
#include "tile/InitAll.h"
#include "tile/Support/Limits.h"
#include "tile/Target/PTX.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tile {
std::string ptxasPath() { return mlir::tile::findPtxas(); }
std::string libdevicePath() { return mlir::tile::findLibdevice(); }
} // namespace tile

namespace {

/// Translates an MLIR diagnostic (and its notes) into the API's form.
void collect(Diagnostic &diag, std::vector<::tile::Diagnostic> &out) {
  ::tile::Diagnostic d;
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    d.severity = ::tile::Diagnostic::Severity::Error;
    break;
  case DiagnosticSeverity::Warning:
    d.severity = ::tile::Diagnostic::Severity::Warning;
    break;
  case DiagnosticSeverity::Remark:
    d.severity = ::tile::Diagnostic::Severity::Remark;
    break;
  case DiagnosticSeverity::Note:
    d.severity = ::tile::Diagnostic::Severity::Note;
    break;
  }
  // Fused and call-site locations wrap the file location we want.
  diag.getLocation()->walk([&](Location loc) {
    if (auto file = dyn_cast<FileLineColLoc>(loc)) {
      d.file = file.getFilename().str();
      d.line = file.getLine();
      d.column = file.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  d.message = diag.str();
  out.push_back(std::move(d));
  for (Diagnostic &note : diag.getNotes())
    collect(note, out);
}

/// A context with tile's dialects that records every diagnostic.
struct CompileSession {
  DialectRegistry registry;
  MLIRContext context;
  std::vector<::tile::Diagnostic> diagnostics;
  ScopedDiagnosticHandler handler;

  CompileSession()
      : context(makeRegistry(registry), MLIRContext::Threading::DISABLED),
        handler(&context, [this](Diagnostic &diag) {
          collect(diag, diagnostics);
          return success();
        }) {
    // Users read these diagnostics next to their Python source; a dump of
    // the failing op would only be noise there.
    context.printOpOnDiagnostic(false);
  }

  static DialectRegistry &makeRegistry(DialectRegistry &registry) {
    mlir::tile::registerAllDialects(registry);
    mlir::tile::registerTileTranslations(registry);
    return registry;
  }

  OwningOpRef<ModuleOp> parse(const std::string &source,
                              const std::string &bufferName) {
    ParserConfig config(&context);
    return parseSourceString<ModuleOp>(source, config, bufferName);
  }
};

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                      /*prettyForm=*/false));
  return text;
}

/// Runs `work` on a fresh session and returns its output with the
/// session's diagnostics. An LLVM fatal error or a crash inside becomes an
/// error diagnostic instead of the end of the process; the session, left
/// in an unknown state, is leaked rather than destroyed.
template <typename Output>
Output runInSession(const std::string &bufferName,
                    llvm::function_ref<void(CompileSession &, Output &)> work) {
  auto session = std::make_unique<CompileSession>();
  Output output;
  std::optional<std::string> crash =
      mlir::tile::runRecoverably([&] { work(*session, output); });
  if (!crash) {
    output.diagnostics = std::move(session->diagnostics);
    return output;
  }
  Output failed;
  failed.diagnostics = session->diagnostics;
  (void)session.release();
  ::tile::Diagnostic internal;
  internal.message = "internal compiler error in " + bufferName + ": " +
                     *crash +
                     " (caught: the process goes on; please report it)";
  failed.diagnostics.push_back(std::move(internal));
  return failed;
}

} // namespace

namespace tile {
Result parseAndVerify(const std::string &source,
                      const std::string &bufferName) {
  return runInSession<Result>(
      bufferName, [&](CompileSession &session, Result &result) {
        OwningOpRef<ModuleOp> module = session.parse(source, bufferName);
        // The parser verifies what it builds; a null module means it
        // reported why.
        if (module) {
          result.ok = true;
          result.ir = print(*module);
        }
      });
}

Result runPipeline(const std::string &source, const std::string &bufferName,
                   const std::string &pipeline) {
  static const bool passesRegistered = [] {
    mlir::tile::registerAllPasses();
    return true;
  }();
  (void)passesRegistered;

  return runInSession<Result>(
      bufferName, [&](CompileSession &session, Result &result) {
        OwningOpRef<ModuleOp> module = session.parse(source, bufferName);
        if (module) {
          std::string error;
          llvm::raw_string_ostream errorStream(error);
          // The pipeline names its anchor, as in tile-opt's --pass-pipeline.
          FailureOr<OpPassManager> parsed =
              parsePassPipeline(pipeline, errorStream);
          PassManager pm(&session.context, ModuleOp::getOperationName());
          if (failed(parsed) || parsed->getOpName() != pm.getOpName()) {
            emitError(UnknownLoc::get(&session.context))
                << "invalid pass pipeline '" << pipeline << "': "
                << (error.empty() ? "it must be anchored on builtin.module"
                                  : error);
          } else if (static_cast<OpPassManager &>(pm) = std::move(*parsed),
                     succeeded(pm.run(*module))) {
            result.ok = true;
            result.ir = print(*module);
          }
        }
      });
}
} // namespace tile

namespace tile {
namespace {
/// Lowers the laid-out TileGPU `module` to LLVM/NVVM, PTX and, when asked,
/// a cubin, into `kernel`; `wgmmaInputsWritten` says whether ptxas serialised
/// its wgmmas because other instructions write their input registers
/// (C7513). False when a step failed (its diagnostics are recorded).
bool lowerToCubin(CompileSession &session, ModuleOp module,
                  const CompileOptions &options, bool freshCarriedOperands,
                  bool descriptorsAtUse, CompiledKernel &kernel,
                  bool &wgmmaInputsWritten) {
  PassManager lower(&session.context);
  mlir::tile::ConvertTileGPUToLLVMOptions toThreads;
  toThreads.freshCarriedOperands = freshCarriedOperands;
  toThreads.descriptorsAtUse = descriptorsAtUse;
  lower.addPass(mlir::tile::createConvertTileGPUToLLVM(toThreads));
  lower.addPass(createSCFToControlFlowPass());
  mlir::tile::ConvertTileToLLVMOptions toLLVM;
  toLLVM.numCtas = options.numCtas;
  toLLVM.maxNumRegisters = options.maxNumRegisters;
  lower.addPass(mlir::tile::createConvertTileToLLVM(toLLVM));
  lower.addPass(createReconcileUnrealizedCastsPass());
  lower.addPass(createCanonicalizerPass());
  lower.addPass(createCSEPass());
  if (failed(lower.run(module)))
    return false;

  FailureOr<mlir::tile::PTXOutput> ptx = mlir::tile::translateToPTX(
      module, options.target, options.fpFusion, options.reflectFtz);
  if (failed(ptx))
    return false;
  kernel.llir = std::move(ptx->llvmIR);
  kernel.ptx = std::move(ptx->ptx);
  wgmmaInputsWritten = false;
  if (!options.emitCubin)
    return true;
  std::string error;
  mlir::tile::CubinInfo info;
  FailureOr<std::string> cubin = mlir::tile::assembleCubin(
      kernel.ptx, options.target, int64_t(kernel.numWarps) * 32,
      kernel.sharedBytes, error, &info,
      /*occupancyCap=*/options.maxNumRegisters == 0);
  if (failed(cubin)) {
    emitError(UnknownLoc::get(&session.context)) << error;
    return false;
  }
  kernel.cubin = std::move(*cubin);
  kernel.numRegisters = int(info.registers);
  kernel.registerCap = int(info.registerCap);
  kernel.wgmmaSerialized = info.wgmmaSerialized;
  kernel.spillStoreBytes = info.spillStoreBytes;
  wgmmaInputsWritten = info.wgmmaInputsWritten;
  return true;
}

void compileInSession(CompileSession &session, CompiledKernel &kernel,
                      const std::string &tileIR, const std::string &bufferName,
                      const CompileOptions &options) {
  kernel.numWarps = options.numWarps;
  if (!isSupportedTarget(options.target)) {
    Diagnostic unsupported;
    unsupported.message =
        "unsupported target '" + options.target + "'; tile compiles for";
    for (const char *target : kSupportedTargets)
      unsupported.message += std::string(" ") + target;
    session.diagnostics.push_back(std::move(unsupported));
    return;
  }
  OwningOpRef<ModuleOp> module = session.parse(tileIR, bufferName);
  if (!module)
    return;
  module->walk([&](func::FuncOp function) {
    if (function->hasAttr(mlir::tile::TileDialect::getKernelAttrName()))
      kernel.name = function.getName().str();
  });

  // Tile -> TileGPU: layouts, then shared memory and barriers.
  PassManager layouts(&session.context);
  layouts.addPass(createInlinerPass());
  layouts.addPass(createSymbolDCEPass());
  mlir::tile::ConvertTileToTileGPUOptions toGPU;
  toGPU.numWarps = options.numWarps;
  toGPU.target = options.target;
  layouts.addPass(mlir::tile::createConvertTileToTileGPU(toGPU));
  layouts.addPass(tilegpu::createTileGPUCoalesce());
  layouts.addPass(tilegpu::createTileGPUSwapDotOperands());
  tilegpu::TileGPUAccelerateMatmulOptions accelerate;
  accelerate.numStages = options.numStages;
  accelerate.registerLoadsAhead = options.stageRegisterLoads;
  layouts.addPass(tilegpu::createTileGPUAccelerateMatmul(accelerate));
  layouts.addPass(tilegpu::createTileGPURemoveLayoutConversions());
  layouts.addPass(tilegpu::createTileGPUSpeculateBranchLoads());
  layouts.addPass(createCanonicalizerPass());
  layouts.addPass(createCSEPass());
  layouts.addPass(tilegpu::createTileGPUIntToFloatByBits());
  tilegpu::TileGPUWarpSpecializeOptions specialize;
  specialize.numStages = options.numStages;
  layouts.addPass(tilegpu::createTileGPUWarpSpecialize(specialize));
  tilegpu::TileGPUPipelineOptions pipeline;
  pipeline.numStages = options.numStages;
  pipeline.registerLoadsAhead = options.stageRegisterLoads;
  layouts.addPass(tilegpu::createTileGPUPipeline(pipeline));
  layouts.addPass(createCanonicalizerPass());
  layouts.addPass(tilegpu::createTileGPULowerTMA());
  layouts.addPass(tilegpu::createTileGPUAllocateSharedMemory());
  layouts.addPass(tilegpu::createTileGPUInsertBarriers());
  layouts.addPass(tilegpu::createTileGPUPingPong());
  layouts.addPass(tilegpu::createTileGPUUnmaskFullBlocks());
  bool layoutsFailed = failed(layouts.run(*module));
  kernel.stagedRegisterLoads = (*module)->hasAttr(
      tilegpu::TileGPUDialect::getStagedRegisterLoadsAttrName());
  if (layoutsFailed) {
    // What the allocation asked for, so that callers can say "out of
    // shared memory" with the amount (Python's OutOfResources).
    if (auto shared = (*module)->getAttrOfType<IntegerAttr>(
            tilegpu::TileGPUDialect::getSharedAttrName()))
      kernel.sharedBytes = shared.getInt();
    return;
  }
  kernel.tilegpu = print(*module);
  // Warp specialisation may have added producer warps.
  kernel.numWarps = tilegpu::TileGPUDialect::getLaunchWarps(*module);
  if (auto shared = (*module)->getAttrOfType<IntegerAttr>(
          tilegpu::TileGPUDialect::getSharedAttrName()))
    kernel.sharedBytes = shared.getInt();

  // Whether a wgmma runs in a loop (asked before lowering changes the
  // module).
  bool wgmmaInLoop = false;
  module->walk([&](tilegpu::WarpGroupDotOp dot) {
    wgmmaInLoop |= dot->getParentOfType<scf::ForOp>() != nullptr;
  });
  bool serialized = false;
  if (!lowerToCubin(session, *module, options, /*freshCarriedOperands=*/false,
                    /*descriptorsAtUse=*/false, kernel, serialized))
    return;
  // The laid-out module lowered again with other lowering options; the
  // result replaces `kernel` when `better` says so. Its diagnostics are
  // dropped either way: the first lowering already succeeded.
  bool fresh = false;
  auto retry = [&](bool freshOperands, bool descriptorsAtUse,
                   llvm::function_ref<bool(const CompiledKernel &, bool)>
                       better) {
    size_t reported = session.diagnostics.size();
    OwningOpRef<ModuleOp> again = session.parse(kernel.tilegpu, bufferName);
    CompiledKernel other = kernel;
    bool inputsWritten = true;
    bool kept = again &&
                lowerToCubin(session, *again, options, freshOperands,
                             descriptorsAtUse, other, inputsWritten) &&
                better(other, inputsWritten);
    if (kept)
      kernel = std::move(other);
    session.diagnostics.resize(reported);
    return kept;
  };
  // ptxas serialises every wgmma of a loop (C7513) when it merges the copy
  // of a loop-carried register operand into the instruction that made it
  // (WarpGroupDotOps.cpp). Lowered again with fresh registers for those
  // operands, the kernel is kept if ptxas no longer reports it; the extra
  // instructions are paid only where they remove the serialisation.
  if (serialized)
    fresh = retry(/*freshOperands=*/true, /*descriptorsAtUse=*/false,
                  [](const CompiledKernel &, bool stillSerialized) {
                    return !stillSerialized;
                  });
  // A kernel that spills with wgmmas in a loop may be holding every K
  // step's shared-memory descriptor through the loop (WarpGroupDotOps.cpp).
  // Lowered again with the descriptors made where each wgmma issues, it is
  // kept if ptxas spills less; kernels that do not spill never pay the
  // extra adds in their loops.
  if (kernel.spillStoreBytes > 0 && wgmmaInLoop && options.emitCubin) {
    long long spilled = kernel.spillStoreBytes;
    retry(fresh, /*descriptorsAtUse=*/true,
          [&](const CompiledKernel &other, bool) {
            return other.spillStoreBytes < spilled;
          });
  }
  kernel.ok = true;
}
} // namespace

CompiledKernel compileKernel(const std::string &tileIR,
                             const std::string &bufferName,
                             const CompileOptions &options) {
  return runInSession<CompiledKernel>(
      bufferName, [&](CompileSession &session, CompiledKernel &kernel) {
        compileInSession(session, kernel, tileIR, bufferName, options);
      });
}

CompiledKernel assemblePTX(const std::string &ptx, const std::string &target,
                           int numWarps, long long sharedBytes) {
  CompiledKernel kernel;
  kernel.ptx = ptx;
  kernel.numWarps = numWarps;
  kernel.sharedBytes = sharedBytes;
  std::string error;
  mlir::tile::CubinInfo info;
  FailureOr<std::string> cubin = mlir::tile::assembleCubin(
      kernel.ptx, target, int64_t(numWarps) * 32, sharedBytes, error, &info,
      /*occupancyCap=*/false);
  if (failed(cubin)) {
    Diagnostic diagnostic;
    diagnostic.message = error;
    kernel.diagnostics.push_back(std::move(diagnostic));
    return kernel;
  }
  kernel.cubin = std::move(*cubin);
  kernel.numRegisters = int(info.registers);
  kernel.spillStoreBytes = info.spillStoreBytes;
  kernel.ok = true;
  return kernel;
}
} // namespace tile
