//===- AxisInfoTest.cpp - Contiguity, divisibility and constancy ----------===//
//
// Each test parses a small kernel, runs the analysis and checks the facts of
// the values that the `test.id` marker attribute names.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

#include "MarkedValues.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class AxisInfoTest : public ::testing::Test {
protected:
  AxisInfoTest() {
    context.loadDialect<TileDialect, arith::ArithDialect, func::FuncDialect>();
  }

  /// Parses `body` as the body of
  /// `func @k(%p: !tile.ptr<f32> {tile.divisibility = 16},
  ///          %q: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16}, %m: i32)`
  /// and analyses it.
  void analyse(StringRef body) {
    std::string text =
        "func.func @k(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, "
        "%q: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}, "
        "%m: i32) {\n" +
        body.str() + "\n  return\n}\n";
    module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << text;
    analysis.emplace(module->getOperation());
  }

  /// The result of the op marked `{test.id = "<name>"}`.
  Value marked(StringRef name) { return findMarked(*module, name); }

  AxisInfo info(StringRef name) { return analysis->getAxisInfo(marked(name)); }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::optional<AxisInfoAnalysis> analysis;
};

using Vec = AxisInfo::Vec;

TEST_F(AxisInfoTest, MakeRangeIsContiguousFromZero) {
  analyse(R"(
  %r = tile.make_range {end = 128 : i32, start = 0 : i32, test.id = "r"} : tensor<128xi32>
  %s = tile.make_range {end = 96 : i32, start = 32 : i32, test.id = "s"} : tensor<64xi32>)");
  AxisInfo r = info("r");
  EXPECT_EQ(r.contiguity, Vec{128});
  EXPECT_EQ(r.constancy, Vec{1});
  EXPECT_GE(r.divisibility[0], 128);
  // A range starting at 32 runs in blocks of 64 whose first value is 32.
  AxisInfo s = info("s");
  EXPECT_EQ(s.contiguity, Vec{64});
  EXPECT_EQ(s.divisibility, Vec{32});
}

TEST_F(AxisInfoTest, SplatAndConstantsAreConstant) {
  analyse(R"(
  %c = arith.constant {test.id = "c"} dense<48> : tensor<64xi32>
  %a = tile.splat %n {test.id = "a"} : i32 -> tensor<64xi32>
  %b = tile.splat %m {test.id = "b"} : i32 -> tensor<64xi32>)");
  AxisInfo c = info("c");
  EXPECT_EQ(c.constancy, Vec{64});
  EXPECT_EQ(c.divisibility, Vec{16});
  EXPECT_EQ(c.constant, 48);
  AxisInfo a = info("a");
  EXPECT_EQ(a.constancy, Vec{64});
  EXPECT_EQ(a.divisibility, Vec{16}); // from the argument attribute
  EXPECT_EQ(info("b").divisibility, Vec{1});
}

TEST_F(AxisInfoTest, BlockOffsetsKeepContiguityAndAlignment) {
  analyse(R"(
  %pid = tile.get_program_id x
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid, %c1024 : i32
  %base = tile.splat %start : i32 -> tensor<1024xi32>
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %offs = arith.addi %base, %r {test.id = "offs"} : tensor<1024xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %offs {test.id = "ptrs"} : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %qptrs = tile.addptr %qs, %offs {test.id = "qptrs"} : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %c1 = arith.constant dense<1> : tensor<1024xi32>
  %shifted = arith.addi %offs, %c1 {test.id = "shifted"} : tensor<1024xi32>
  %sptrs = tile.addptr %ps, %shifted {test.id = "sptrs"} : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>)");
  AxisInfo offs = info("offs");
  EXPECT_EQ(offs.contiguity, Vec{1024});
  EXPECT_EQ(offs.divisibility, Vec{1024});
  // 16-byte aligned and contiguous f32: four per access (128 bits).
  EXPECT_EQ(info("ptrs").divisibility, Vec{16});
  EXPECT_EQ(analysis->getPtrVectorLimit(marked("ptrs"), 0), 4);
  // Nothing known about %q's alignment: one element per access.
  EXPECT_EQ(analysis->getPtrVectorLimit(marked("qptrs"), 0), 1);
  // Off by one element: still contiguous, but only 4-byte aligned.
  EXPECT_EQ(info("shifted").contiguity, Vec{1024});
  EXPECT_EQ(info("shifted").divisibility, Vec{1});
  EXPECT_EQ(analysis->getPtrVectorLimit(marked("sptrs"), 0), 1);
}

TEST_F(AxisInfoTest, TwoDimensionalRowsAlongTheMinorDimension) {
  analyse(R"(
  %rows = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %cols = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %stride = tile.splat %n : i32 -> tensor<16x1xi32>
  %roff = arith.muli %r2, %stride {test.id = "roff"} : tensor<16x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %roff : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %offs = arith.addi %rb, %cb {test.id = "offs"} : tensor<16x64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %offs {test.id = "ptrs"} : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %ms = tile.splat %m : i32 -> tensor<16x1xi32>
  %uoff = arith.muli %r2, %ms : tensor<16x1xi32>
  %ub = tile.broadcast %uoff : tensor<16x1xi32> -> tensor<16x64xi32>
  %uoffs = arith.addi %ub, %cb : tensor<16x64xi32>
  %uptrs = tile.addptr %ps, %uoffs {test.id = "uptrs"} : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>)");
  AxisInfo roff = info("roff");
  EXPECT_EQ(roff.divisibility[0], 16); // rows * a multiple of 16
  AxisInfo offs = info("offs");
  EXPECT_EQ(offs.contiguity, (Vec{1, 64}));
  EXPECT_EQ(offs.constancy[0], 1);
  EXPECT_EQ(analysis->getPtrVectorLimit(marked("ptrs"), 1), 4);
  EXPECT_EQ(analysis->getPtrVectorLimit(marked("ptrs"), 0), 1);
  // A row stride of unknown alignment: rows start anywhere.
  EXPECT_EQ(analysis->getPtrVectorLimit(marked("uptrs"), 1), 1);
}

TEST_F(AxisInfoTest, MaskConstancyFollowsTheBound) {
  analyse(R"(
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ns = tile.splat %n : i32 -> tensor<256xi32>
  %ms = tile.splat %m : i32 -> tensor<256xi32>
  %aligned = arith.cmpi slt, %r, %ns {test.id = "aligned"} : tensor<256xi32>
  %any = arith.cmpi slt, %r, %ms {test.id = "any"} : tensor<256xi32>)");
  // n is a multiple of 16: the mask changes only at multiples of 16.
  EXPECT_EQ(analysis->getMaskConstancy(marked("aligned"), 0), 16);
  EXPECT_EQ(analysis->getMaskConstancy(marked("any"), 0), 1);
}

TEST_F(AxisInfoTest, LoadedValuesAreUnknown) {
  analyse(R"(
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %ptrs {test.id = "x"} : tensor<64x!tile.ptr<f32>>
  %xi = arith.fptosi %x {test.id = "xi"} : tensor<64xf32> to tensor<64xi32>)");
  EXPECT_EQ(info("xi"), AxisInfo::unknown(1));
}

TEST_F(AxisInfoTest, HintsReplaceWhatIsDerived) {
  // Offsets loaded from memory: nothing known until the kernel promises
  // runs of 64 consecutive values starting at multiples of 48 (whose
  // largest power-of-two factor, 16, is what counts). A contiguity beyond
  // the dimension is capped at it; a scalar hint has one entry.
  analyse(R"(
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %ptrs : tensor<64x!tile.ptr<f32>>
  %xi = arith.fptosi %x : tensor<64xf32> to tensor<64xi32>
  %h = tile.hint %xi {divisibility = array<i64: 48>, contiguity = array<i64: 64>, test.id = "h"} : tensor<64xi32>
  %c = tile.hint %xi {contiguity = array<i64: 1000>, constancy = array<i64: 2>, test.id = "c"} : tensor<64xi32>
  %s = tile.hint %m {divisibility = array<i64: 8>, test.id = "s"} : i32)");
  AxisInfo h = info("h");
  EXPECT_EQ(h.divisibility[0], 16);
  EXPECT_EQ(h.contiguity[0], 64);
  EXPECT_EQ(h.constancy[0], 1);
  AxisInfo c = info("c");
  EXPECT_EQ(c.contiguity[0], 64);
  EXPECT_EQ(c.constancy[0], 2);
  EXPECT_EQ(c.divisibility[0], 1);
  EXPECT_EQ(info("s").divisibility[0], 8);
}

TEST(AxisInfoMath, HighestPowerOf2Divisor) {
  EXPECT_EQ(highestPowerOf2Divisor(48), 16);
  EXPECT_EQ(highestPowerOf2Divisor(7), 1);
  EXPECT_EQ(highestPowerOf2Divisor(-64), 64);
  // Zero is divisible by everything: the cap.
  EXPECT_GE(highestPowerOf2Divisor(0), int64_t(1) << 30);
}

} // namespace
