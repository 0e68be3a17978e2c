//===- CrashRecovery.h - Compiles that cannot kill their host ---*- C++ -*-===//
//
// libtile runs inside the user's Python process. LLVM reports some errors
// by ending the process (report_fatal_error: "LLVM ERROR: Cannot select",
// an unsupported PTX feature), and a bug anywhere in a pass can crash it.
// Every entry point of the API runs its work through runRecoverably, which
// turns both into a message, so the caller raises an exception instead.
//
// Internal to libtile (namespace mlir::tile, not exported): it uses LLVM
// types.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_API_CRASHRECOVERY_H
#define TILE_API_CRASHRECOVERY_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace mlir {
namespace tile {

/// Runs `work` on this thread. If it ends in an LLVM fatal error or a
/// crash (SIGSEGV, SIGABRT, SIGFPE, SIGILL, SIGBUS, SIGTRAP), control comes
/// back here and the result says what happened ("LLVM ERROR: ..." or the
/// signal's name); otherwise it is empty. After a failure, whatever `work`
/// was changing is in an unknown state: callers leak it rather than
/// destroy it. Outside such a run an LLVM fatal error still ends the
/// process, with the message LLVM would print (tile-opt).
std::optional<std::string> runRecoverably(llvm::function_ref<void()> work);

} // namespace tile
} // namespace mlir

#endif // TILE_API_CRASHRECOVERY_H
