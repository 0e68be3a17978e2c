//===- CrashRecovery.cpp - Compiles that cannot kill their host -----------===//
//
// LLVM's CrashRecoveryContext catches the signals of a crash on the thread
// that runs it and jumps back out of the work. A fatal error is not a
// signal: report_fatal_error calls the installed handler and then exits.
// The handler here records the reason and jumps out the same way
// (HandleExit) when a recoverable run is in progress on this thread.
//
//===----------------------------------------------------------------------===//

#include "tile/API/CrashRecovery.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <mutex>

using namespace llvm;

namespace {

/// The reason of the fatal error, for the recoverable run on this thread.
thread_local std::string *fatalReason = nullptr;

void onFatalError(void *, const char *reason, bool) {
  if (CrashRecoveryContext *context = CrashRecoveryContext::GetCurrent();
      context && fatalReason) {
    *fatalReason = reason;
    context->HandleExit(1);
  }
  // No recoverable run: LLVM exits after this, as without a handler.
  errs() << "LLVM ERROR: " << reason << "\n";
}

} // namespace

std::optional<std::string>
mlir::tile::runRecoverably(function_ref<void()> work) {
  static std::once_flag installed;
  std::call_once(installed,
                 [] { install_fatal_error_handler(onFatalError, nullptr); });
  // A crash outside any recoverable run turns recovery off again (and
  // hands the signal to the handlers from before), so turn it on each time.
  CrashRecoveryContext::Enable();
  std::string reason;
  std::string *outer = fatalReason;
  fatalReason = &reason;
  CrashRecoveryContext context;
  bool finished = context.RunSafely(work);
  fatalReason = outer;
  if (finished)
    return std::nullopt;
  if (!reason.empty())
    return "LLVM ERROR: " + reason;
  // A signal comes back as 128 + its number.
  int signal = context.RetCode - 128;
  const char *name = signal > 0 ? strsignal(signal) : nullptr;
  return std::string("crashed with signal ") + std::to_string(signal) +
         (name ? std::string(" (") + name + ")" : std::string());
}
