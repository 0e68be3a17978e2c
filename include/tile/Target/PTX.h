//===- PTX.h - LLVM dialect to PTX and cubin --------------------*- C++ -*-===//

#ifndef TILE_TARGET_PTX_H
#define TILE_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir {
namespace tile {

struct PTXOutput {
  std::string llvmIR; // after linking libdevice and O3
  std::string ptx;
};

/// Registers the translations from the LLVM and NVVM dialects to LLVM IR.
void registerTileTranslations(DialectRegistry &registry);

/// Translates `module` (LLVM + NVVM dialects) to LLVM IR, links the
/// libdevice functions it calls, runs NVVMReflect and O3, and emits PTX for
/// `chip` (e.g. "sm_90a"). With `fpFusion`, a multiply feeding an add may
/// become one fma (Triton's `enable_fp_fusion`, on by default there too).
/// With `reflectFtz`, libdevice's functions flush denormals (Triton's
/// `enable_reflect_ftz`, also on by default). Errors are emitted on the
/// module.
FailureOr<PTXOutput> translateToPTX(ModuleOp module, StringRef chip,
                                    bool fpFusion = true,
                                    bool reflectFtz = true);

/// What ptxas reported about the kernel it assembled.
struct CubinInfo {
  int64_t registers = 0;
  int64_t spillStoreBytes = 0;
  /// The `.maxnreg` given to ptxas for occupancy (see assembleCubin), or 0.
  int64_t registerCap = 0;
  /// ptxas serialised the kernel's wgmmas (its "wgmma.mma_async
  /// instructions are serialized" advisories), and whether because other
  /// instructions write their input registers while they run (C7513).
  bool wgmmaSerialized = false;
  bool wgmmaInputsWritten = false;
};

/// Assembles PTX to a cubin with ptxas. `error` gets ptxas's log on failure.
/// When the kernel (`threadsPerCTA`, `sharedBytes` per CTA) is held to
/// fewer CTAs per SM by its registers than by anything else, and capping
/// them a little (Occupancy.h) would fit one CTA more, the PTX is assembled
/// again with that `.maxnreg`; the capped cubin is kept if ptxas spills
/// next to nothing for it and does not serialise its wgmmas where the
/// uncapped one did not, and `ptx` then becomes the capped text, so that
/// it stays what the cubin was made from. `occupancyCap` false keeps the
/// PTX as it is (the user chose `.maxnreg`).
FailureOr<std::string> assembleCubin(std::string &ptx, StringRef chip,
                                     int64_t threadsPerCTA, int64_t sharedBytes,
                                     std::string &error,
                                     CubinInfo *info = nullptr,
                                     bool occupancyCap = true);

/// Reads the register count and spill stores from ptxas's `-v` report.
void parsePtxasReport(StringRef log, CubinInfo &info);

/// Where libdevice.10.bc and ptxas were found (empty when not found).
std::string findLibdevice();
std::string findPtxas();

} // namespace tile
} // namespace mlir

#endif // TILE_TARGET_PTX_H
