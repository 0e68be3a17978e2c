//===- CrashRecoveryTest.cpp - Fatal errors and crashes come back ---------===//

#include "tile/API/CrashRecovery.h"
#include "tile/API/Compiler.h"

#include "llvm/Support/ErrorHandling.h"

#include <csignal>
#include <gtest/gtest.h>

namespace {

TEST(CrashRecovery, NothingToReportWhenTheWorkFinishes) {
  int ran = 0;
  EXPECT_EQ(mlir::tile::runRecoverably([&] { ++ran; }), std::nullopt);
  EXPECT_EQ(ran, 1);
}

TEST(CrashRecovery, FatalErrorComesBackAsAMessage) {
  std::optional<std::string> message = mlir::tile::runRecoverably(
      [] { llvm::report_fatal_error("Cannot select: a test node"); });
  ASSERT_TRUE(message);
  EXPECT_EQ(*message, "LLVM ERROR: Cannot select: a test node");
}

TEST(CrashRecovery, SignalsComeBackAsAMessage) {
  for (int signal : {SIGSEGV, SIGABRT, SIGFPE}) {
    std::optional<std::string> message =
        mlir::tile::runRecoverably([signal] { std::raise(signal); });
    ASSERT_TRUE(message);
    EXPECT_NE(message->find("crashed with signal " + std::to_string(signal)),
              std::string::npos)
        << *message;
  }
}

TEST(CrashRecovery, CompilingStillWorksAfterACrash) {
  ASSERT_TRUE(
      mlir::tile::runRecoverably([] { llvm::report_fatal_error("first"); }));
  tile::Result r = tile::parseAndVerify("func.func @f() { return }", "f.mlir");
  EXPECT_TRUE(r.ok);
  std::optional<std::string> again =
      mlir::tile::runRecoverably([] { llvm::report_fatal_error("second"); });
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, "LLVM ERROR: second");
}

TEST(CrashRecovery, NestedRunsReportToTheInnermost) {
  std::optional<std::string> inner;
  std::optional<std::string> outer = mlir::tile::runRecoverably([&] {
    inner =
        mlir::tile::runRecoverably([] { llvm::report_fatal_error("inner"); });
  });
  EXPECT_EQ(outer, std::nullopt);
  ASSERT_TRUE(inner);
  EXPECT_EQ(*inner, "LLVM ERROR: inner");
}

TEST(CrashRecoveryDeathTest, OutsideARunAFatalErrorStillEndsTheProcess) {
  // tile-opt's behaviour: the message LLVM prints, then the process ends
  // as LLVM ends it (abort).
  (void)mlir::tile::runRecoverably([] {}); // installs the handler
  EXPECT_DEATH(llvm::report_fatal_error("outside"), "LLVM ERROR: outside");
}

} // namespace
