//===- Compiler.h - libtile's public C++ API ---------------------*- C++
//-*-===//
//
// The only interface libtile exports. It uses no LLVM or MLIR types, so the
// Python bindings (and any other client) compile without LLVM headers and can
// be rebuilt in seconds against an installed libtile.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_API_COMPILER_H
#define TILE_API_COMPILER_H

#include "tile/Support/Export.h"

#include <string>
#include <vector>

namespace tile {

/// One diagnostic from the compiler, with the source location it points at.
/// `file` is empty when the diagnostic has no file location.
struct Diagnostic {
  enum class Severity { Error, Warning, Remark, Note };
  Severity severity = Severity::Error;
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
};

/// Outcome of a compiler step: on success `ir` holds the resulting module as
/// text; diagnostics are collected in either case.
struct Result {
  bool ok = false;
  std::string ir;
  std::vector<Diagnostic> diagnostics;
};

/// Version of the compiler, used in cache keys: the release number, plus
/// "+g<commit>" for a build that is not a release (utils/packaging).
TILE_API const char *version();

/// The ptxas and libdevice.10.bc the compiler uses; empty when not found.
/// An installed wheel's own libdevice comes first; see Target/PTX.h.
TILE_API std::string ptxasPath();
TILE_API std::string libdevicePath();

/// Parses `source` (Tile IR as MLIR text; `bufferName` names it in
/// diagnostics) and verifies it. On success `ir` is the module re-printed
/// with locations.
TILE_API Result parseAndVerify(const std::string &source,
                               const std::string &bufferName);

/// Parses and verifies `source`, then runs a textual pass pipeline on it, for
/// example "builtin.module(canonicalize,cse)".
TILE_API Result runPipeline(const std::string &source,
                            const std::string &bufferName,
                            const std::string &pipeline);

/// The tile-opt driver: registers tile's and the upstream dialects and
/// passes, then behaves like mlir-opt. Returns the process exit code.
TILE_API int runTileOpt(int argc, char **argv);

struct CompileOptions {
  int numWarps = 4;
  int numStages = 3;
  std::string target = "sm_90a";
  /// Contract a multiply and an add into an fma (Triton's default).
  bool fpFusion = true;
  /// libdevice flushes denormals (__CUDA_FTZ = 1 for NVVMReflect), as
  /// Triton's `enable_reflect_ftz` (on by default there too).
  bool reflectFtz = true;
  /// Stop after PTX (no ptxas): for machines without the CUDA toolkit.
  bool emitCubin = true;
  /// CTAs per program, launched as a thread-block cluster along x (1: no
  /// cluster). Triton's `num_ctas`.
  int numCtas = 1;
  /// Registers per thread ptxas may use (`.maxnreg`); 0 lets tile choose.
  int maxNumRegisters = 0;
  /// The pipeliner also copies ahead the tiles a loop uses in registers
  /// (tilegpu-pipeline's stage-register-loads). Off, only the dots'
  /// operands are staged: the Python compiler retries so when the staged
  /// buffers do not fit in shared memory.
  bool stageRegisterLoads = true;
};

/// A kernel compiled from Tile IR down to a cubin, with every stage's text.
struct CompiledKernel {
  bool ok = false;
  std::string name;
  std::string tilegpu; // after layouts, allocation and barriers
  std::string llir;    // LLVM IR after libdevice and O3
  std::string ptx;
  std::string cubin; // binary
  long long sharedBytes = 0;
  /// The pipeliner staged tiles a loop uses in registers
  /// (CompileOptions::stageRegisterLoads would change the kernel).
  bool stagedRegisterLoads = false;
  int numWarps = 4;
  /// Registers per thread ptxas allocated, and the `.maxnreg` it was given
  /// to fit one CTA more per SM (0: none).
  int numRegisters = 0;
  int registerCap = 0;
  /// ptxas serialised the kernel's wgmmas (a "wgmma.mma_async instructions
  /// are serialized" advisory for the cubin kept).
  bool wgmmaSerialized = false;
  /// Bytes ptxas stored to local memory to free registers (spills).
  long long spillStoreBytes = 0;
  std::vector<Diagnostic> diagnostics;
};

/// Runs the whole pipeline on a module with one kernel (`tile.kernel`).
TILE_API CompiledKernel compileKernel(const std::string &tileIR,
                                      const std::string &bufferName,
                                      const CompileOptions &options);

/// Assembles PTX given in place of the compiler's (a launch's
/// `ir_override`) into a cubin for `target`, as the pipeline's last step
/// does but with the PTX's own `.maxnreg`, if any: `ptx`, `cubin`,
/// `numRegisters` and `numWarps` are set; `ok` false with ptxas's log as
/// the diagnostic otherwise.
TILE_API CompiledKernel assemblePTX(const std::string &ptx,
                                    const std::string &target, int numWarps,
                                    long long sharedBytes);

} // namespace tile

#endif // TILE_API_COMPILER_H
