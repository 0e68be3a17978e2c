//===- CompilerTest.cpp - libtile's public API ----------------------------===//

#include "tile/API/Compiler.h"

#include <gtest/gtest.h>

namespace {

const char *kValid = R"(
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %c = arith.constant 0.0 : f32
  %s = tile.splat %c : f32 -> tensor<16xf32>
  %z = arith.constant 0 : i32
  %q = tile.addptr %p, %z : !tile.ptr<f32>, i32
  tile.store %q, %c : !tile.ptr<f32>
  return
}
)";

TEST(CompilerAPI, VersionIsSet) {
  EXPECT_STRNE(tile::version(), "");
  EXPECT_STRNE(tile::version(), "unknown");
}

TEST(CompilerAPI, ParsesAndVerifies) {
  tile::Result r = tile::parseAndVerify(kValid, "kernel.mlir");
  EXPECT_TRUE(r.ok);
  EXPECT_TRUE(r.diagnostics.empty());
  EXPECT_NE(r.ir.find("tile.store"), std::string::npos);
}

TEST(CompilerAPI, DiagnosticsCarryTheSourceLocation) {
  // The front end names every op with its Python source location; a
  // verifier error must come back with that location.
  const char *bad = R"(
func.func @k() {
  %r = tile.make_range {start = 0 : i32, end = 12 : i32} : tensor<12xi32> loc("kernel.py":7:11)
  return
}
)";
  tile::Result r = tile::parseAndVerify(bad, "kernel.mlir");
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const tile::Diagnostic &d = r.diagnostics.front();
  EXPECT_EQ(d.severity, tile::Diagnostic::Severity::Error);
  EXPECT_EQ(d.file, "kernel.py");
  EXPECT_EQ(d.line, 7u);
  EXPECT_EQ(d.column, 11u);
  EXPECT_NE(d.message.find("power of two"), std::string::npos);
}

TEST(CompilerAPI, SyntaxErrorsPointIntoTheBuffer) {
  tile::Result r = tile::parseAndVerify("func.func @k( {", "broken.mlir");
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics.front().file, "broken.mlir");
  EXPECT_EQ(r.diagnostics.front().line, 1u);
}

TEST(CompilerAPI, RunsAPipeline) {
  tile::Result r =
      tile::runPipeline(kValid, "kernel.mlir", "builtin.module(canonicalize)");
  ASSERT_TRUE(r.ok);
  // The splat is dead and the addptr of zero folds away.
  EXPECT_EQ(r.ir.find("tile.splat"), std::string::npos);
  EXPECT_EQ(r.ir.find("tile.addptr"), std::string::npos);
}

TEST(CompilerAPI, RejectsAnUnknownPass) {
  tile::Result r =
      tile::runPipeline(kValid, "kernel.mlir", "builtin.module(no-such-pass)");
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics.front().message.find("no-such-pass"),
            std::string::npos);
}

} // namespace
