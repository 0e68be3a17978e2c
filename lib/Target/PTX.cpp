//===- PTX.cpp - LLVM dialect to PTX and cubin ----------------------------===//
//
// The in-process route: MLIR's LLVM IR translation, llvm::Linker for
// libdevice, the NVPTX target's own pass pipeline at O3 (which runs
// NVVMReflect), and the NVPTX backend for PTX. Only the last step, PTX to
// cubin, runs outside the process (ptxas).
//
//===----------------------------------------------------------------------===//

#include "tile/Target/PTX.h"
#include "tile/Target/Occupancy.h"
#include "tile/Target/PackedByteShifts.h"
#include "tile/Target/ThreeInputLogic.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

using namespace mlir;
using namespace mlir::tile;

void mlir::tile::registerTileTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

static std::string firstExisting(std::initializer_list<std::string> paths) {
  for (const std::string &path : paths)
    if (!path.empty() && llvm::sys::fs::exists(path))
      return path;
  return "";
}

static std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// The directory libtile.so was loaded from. An installed wheel keeps
/// libdevice there, and pip puts NVIDIA's packages beside it.
static std::string libraryDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&libraryDirectory), &info) ||
      !info.dli_fname)
    return "";
  return llvm::sys::path::parent_path(info.dli_fname).str();
}

/// `relative` under `root` ("" when root is unset).
static std::string under(const std::string &root, const char *relative) {
  return root.empty() ? "" : root + relative;
}

std::string mlir::tile::findLibdevice() {
  const char *rel = "/nvvm/libdevice/libdevice.10.bc";
  std::string here = libraryDirectory();
  // The copy a wheel ships comes before a toolkit's: it is the one the
  // wheel was tested with.
  return firstExisting({env("TILE_LIBDEVICE"),
                        under(here, "/libdevice.10.bc"),
                        under(env("CUDA_HOME"), rel),
                        under(env("CUDA_PATH"), rel),
                        "/usr/local/cuda" + std::string(rel)});
}

std::string mlir::tile::findPtxas() {
  std::string found = firstExisting(
      {env("TILE_PTXAS"), under(env("CUDA_HOME"), "/bin/ptxas"),
       under(env("CUDA_PATH"), "/bin/ptxas"), "/usr/local/cuda/bin/ptxas"});
  if (!found.empty())
    return found;
  if (auto onPath = llvm::sys::findProgramByName("ptxas"))
    return *onPath;
  // NVIDIA's PyPI package (`pip install tile[ptxas]`), installed into the
  // same site-packages as tile.
  return firstExisting(
      {under(libraryDirectory(), "/../nvidia/cu13/bin/ptxas")});
}

static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

FailureOr<PTXOutput> mlir::tile::translateToPTX(ModuleOp module, StringRef chip,
                                                bool fpFusion,
                                                bool reflectFtz) {
  initializeNVPTX();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tile");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");

  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("NVPTX target unavailable: ") << error;
  // PTX 8.1 (CUDA 12.1+ drivers): sm_90a needs 8.0, and 8.1 adds the
  // vector reductions (red.v2/.v4.f32) that atomic sums lower to.
  llvm::TargetOptions targetOptions;
  targetOptions.AllowFPOpFusion =
      fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, "+ptx81", targetOptions, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return module.emitError("cannot create an NVPTX target for ") << chip;
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  // libdevice, only when the kernel calls into it.
  bool needsLibdevice = llvm::any_of(llvmModule->functions(), [](auto &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (needsLibdevice) {
    std::string path = findLibdevice();
    if (path.empty())
      return module.emitError(
          "the kernel calls libdevice but libdevice.10.bc was not found; set "
          "TILE_LIBDEVICE or CUDA_HOME");
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> libdevice =
        llvm::parseIRFile(path, diag, llvmContext);
    if (!libdevice)
      return module.emitError("cannot read ") << path;
    libdevice->setTargetTriple(triple);
    libdevice->setDataLayout(llvmModule->getDataLayout());
    if (llvm::Linker::linkModules(*llvmModule, std::move(libdevice),
                                  llvm::Linker::Flags::LinkOnlyNeeded))
      return module.emitError("linking libdevice failed");
  }
  // NVVMReflect reads this flag: libdevice's fast paths (exp2 as
  // ex2.approx.ftz, ...) flush denormals, as Triton's do by default; off,
  // they keep them (Triton's enable_reflect_ftz=False). Ordinary
  // arithmetic keeps them either way.
  llvmModule->setModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                            uint32_t(reflectFtz ? 1 : 0));

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    // PassBuilder's tuning defaults leave the vectorizers off (clang and
    // opt turn them on per -O level). The SLP vectorizer is what pairs
    // 16-bit elementwise chains into one 32-bit register (`and.b32`,
    // `add.rn.bf16x2` on two lanes): the unpacked weights of an int4 GEMM
    // and every f16/bf16 elementwise tile whose pairs end in one operand
    // register. Loops stay scalar: the bodies are already unrolled tiles.
    llvm::PipelineTuningOptions tuning;
    tuning.SLPVectorization = true;
    llvm::PassBuilder pb(machine.get(), tuning);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm =
        pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    // After SLP: shifts of the byte pairs it left scalar become 32-bit ones
    // (PackedByteShifts.h).
    mpm.addPass(
        llvm::createModuleToFunctionPassAdaptor(PackedByteShiftsPass()));
    // Last: pairs of logic ops with two constants as one lop3 each
    // (ThreeInputLogic.h), which nothing after it needs to see through.
    mpm.addPass(
        llvm::createModuleToFunctionPassAdaptor(ThreeInputLogicPass()));
    mpm.run(*llvmModule, mam);
  }

  PTXOutput output;
  {
    llvm::raw_string_ostream os(output.llvmIR);
    llvmModule->print(os, nullptr);
  }
  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, os, nullptr,
                                     llvm::CodeGenFileType::AssemblyFile))
      return module.emitError("NVPTX cannot emit assembly");
    pm.run(*llvmModule);
  }
  output.ptx = ptx.str().str();
  return output;
}

namespace {

/// One ptxas run: the cubin, or failure with the log in `error`; what
/// `-v` reported goes to `info`.
FailureOr<std::string> runPtxas(const std::string &ptxas, StringRef ptx,
                                StringRef chip, std::string &error,
                                CubinInfo &info) {
  llvm::SmallString<128> ptxPath, cubinPath, logPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tile", "ptx", fd, ptxPath)) {
    error = "cannot create a temporary file";
    return failure();
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("tile", "cubin", cubinPath);
  llvm::sys::fs::createTemporaryFile("tile", "log", logPath);
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args{ptxas,   arch, "-O3",    "-v",
                              ptxPath, "-o", cubinPath};
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects);
  FailureOr<std::string> result = failure();
  auto log = llvm::MemoryBuffer::getFile(logPath);
  if (rc == 0) {
    if (auto buffer = llvm::MemoryBuffer::getFile(cubinPath))
      result = (*buffer)->getBuffer().str();
    else
      error = "ptxas wrote no cubin";
    if (log)
      parsePtxasReport((*log)->getBuffer(), info);
  } else if (log) {
    error = "ptxas failed:\n" + (*log)->getBuffer().str();
  } else {
    error = "ptxas failed";
  }
  llvm::sys::fs::remove(ptxPath);
  llvm::sys::fs::remove(cubinPath);
  llvm::sys::fs::remove(logPath);
  return result;
}

/// The PTX with `.maxnreg cap` among the entry's performance directives
/// (after `.reqntid`, which every kernel of ours has); empty if none.
std::string withRegisterCap(StringRef ptx, int64_t cap) {
  size_t at = ptx.find("\n.reqntid");
  if (at == StringRef::npos)
    return {};
  size_t end = ptx.find('\n', at + 1);
  if (end == StringRef::npos)
    return {};
  return (ptx.take_front(end + 1) + ".maxnreg " + std::to_string(cap) + "\n" +
          ptx.drop_front(end + 1))
      .str();
}

} // namespace

void mlir::tile::parsePtxasReport(StringRef log, CubinInfo &info) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.contains("wgmma.mma_async instructions are serialized"))
      info.wgmmaSerialized = true;
    if (line.contains("(C7513)"))
      info.wgmmaInputsWritten = true;
    size_t used = line.find("Used ");
    if (used != StringRef::npos) {
      StringRef rest = line.drop_front(used + 5);
      int64_t registers;
      if (!rest.consumeInteger(10, registers) && rest.starts_with(" registers"))
        info.registers = registers;
    }
    size_t spill = line.find(" bytes spill stores");
    if (spill != StringRef::npos) {
      StringRef head = line.take_front(spill).rtrim();
      size_t space = head.find_last_of(" \t");
      int64_t bytes;
      if (!head.drop_front(space == StringRef::npos ? 0 : space + 1)
               .getAsInteger(10, bytes))
        info.spillStoreBytes = bytes;
    }
  }
}

FailureOr<std::string>
mlir::tile::assembleCubin(std::string &ptx, StringRef chip,
                          int64_t threadsPerCTA, int64_t sharedBytes,
                          std::string &error, CubinInfo *info,
                          bool occupancyCap) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    error = "ptxas was not found: install the CUDA toolkit (or `pip install "
            "tile[ptxas]`), or set TILE_PTXAS or CUDA_HOME";
    return failure();
  }
  CubinInfo first;
  FailureOr<std::string> cubin = runPtxas(ptxas, ptx, chip, error, first);
  if (info)
    *info = first;
  if (failed(cubin) || first.registers == 0 || !occupancyCap)
    return cubin;
  std::optional<int64_t> cap =
      getOccupancyRegisterCap(first.registers, threadsPerCTA, sharedBytes);
  if (!cap)
    return cubin;
  std::string capped = withRegisterCap(ptx, *cap);
  if (capped.empty())
    return cubin;
  // A few spilled bytes (loop-invariant values) cost less than the CTA the
  // cap adds; more would land in the loop.
  constexpr int64_t kTolerableSpillBytes = 32;
  CubinInfo second;
  std::string ignored;
  FailureOr<std::string> better =
      runPtxas(ptxas, capped, chip, ignored, second);
  // Nor is one CTA more worth wgmmas run one at a time (C7512: too few
  // registers to keep them in flight).
  if (failed(better) || second.spillStoreBytes > kTolerableSpillBytes ||
      (second.wgmmaSerialized && !first.wgmmaSerialized))
    return cubin;
  second.registerCap = *cap;
  if (info)
    *info = second;
  ptx = std::move(capped);
  return better;
}
