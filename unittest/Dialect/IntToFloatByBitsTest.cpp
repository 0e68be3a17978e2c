//===- IntToFloatByBitsTest.cpp - Int-to-float by bits is exact ----------===//
//
// Evaluates planIntToFloatByBits's recipe with APInt/APFloat, as the GPU
// would (integer ops in the float's width, one float subtraction rounded
// to nearest even), for every value of many ranges, against the
// conversion itself.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/Transforms/IntToFloatByBits.h"

#include <gtest/gtest.h>

using namespace mlir::tilegpu;
using llvm::APFloat;
using llvm::APInt;

namespace {

/// The recipe's result for `v`, given as the integer type's bits
/// (`intWidth`), as the pass's IR computes it.
APFloat byBits(const IntToFloatByBits &plan, int64_t v, unsigned intWidth,
               const llvm::fltSemantics &semantics) {
  unsigned width = plan.mask.getBitWidth();
  APInt value(intWidth, v, /*isSigned=*/true);
  APInt ext = intWidth <= width ? value.zext(width) : value.trunc(width);
  APInt bits = plan.flip ? (ext & plan.mask) ^ plan.combine
                         : ((ext - plan.low) & plan.mask) | plan.combine;
  APFloat result(semantics, bits);
  result.subtract(plan.offset, APFloat::rmNearestTiesToEven);
  return result;
}

APFloat converted(int64_t v, const llvm::fltSemantics &semantics) {
  APFloat result(semantics);
  result.convertFromAPInt(APInt(64, v, /*isSigned=*/true), /*IsSigned=*/true,
                          APFloat::rmNearestTiesToEven);
  return result;
}

struct Format {
  const char *name;
  const llvm::fltSemantics &semantics;
  int64_t values; // 2^p
};

const Format kFormats[] = {{"bf16", APFloat::BFloat(), 128},
                           {"f16", APFloat::IEEEhalf(), 1024},
                           {"f32", APFloat::IEEEsingle(), int64_t(1) << 23}};

/// Checks every value of [lo, hi] (at most `limit` of them, spread over
/// the range) in an integer type of `intWidth` bits.
void expectExact(int64_t lo, int64_t hi, unsigned intWidth,
                 const Format &format) {
  std::optional<IntToFloatByBits> plan =
      planIntToFloatByBits(lo, hi, format.semantics);
  ASSERT_TRUE(plan) << format.name << " [" << lo << ", " << hi << "]";
  int64_t step = std::max<int64_t>(1, (hi - lo) / 4096);
  for (int64_t v = lo; v <= hi; v += step) {
    APFloat got = byBits(*plan, v, intWidth, format.semantics);
    APFloat want = converted(v, format.semantics);
    ASSERT_TRUE(got.bitwiseIsEqual(want))
        << format.name << " [" << lo << ", " << hi << "] v=" << v
        << " got " << got.convertToDouble() << " want "
        << want.convertToDouble();
  }
  APFloat last = byBits(*plan, hi, intWidth, format.semantics);
  EXPECT_TRUE(last.bitwiseIsEqual(converted(hi, format.semantics)));
}

TEST(IntToFloatByBitsTest, NibblesAndBytes) {
  for (const Format &format : kFormats) {
    expectExact(-8, 7, 8, format);  // a signed int4 nibble
    expectExact(0, 15, 8, format);  // an unsigned one
    expectExact(-1, 0, 1, format);  // a boolean, sitofp
    expectExact(0, 1, 1, format);   // uitofp
    expectExact(-64, 63, 8, format);
    expectExact(0, 127, 8, format);
  }
  // 256 values fit f16's and f32's bits, not bf16's.
  expectExact(-128, 127, 8, kFormats[1]);
  expectExact(-128, 127, 8, kFormats[2]);
  expectExact(0, 255, 16, kFormats[1]);
  EXPECT_FALSE(planIntToFloatByBits(-128, 127, APFloat::BFloat()));
}

TEST(IntToFloatByBitsTest, ShiftedAndOneSidedRanges) {
  // Every start of a 16-value window from -40 to 40, in three widths.
  for (const Format &format : kFormats)
    for (int64_t lo = -40; lo <= 40; ++lo)
      for (unsigned intWidth : {8u, 16u, 32u})
        expectExact(lo, lo + 15, intWidth, format);
  // Ranges ending at the largest exact bound, both signs.
  expectExact(-128, -1, 8, kFormats[0]);
  expectExact(1, 128, 16, kFormats[0]);
  expectExact(-1024, -1, 16, kFormats[1]);
  expectExact(10, 73, 32, kFormats[0]);
  expectExact(0, (int64_t(1) << 20) - 1, 32, kFormats[2]);
  expectExact(-(int64_t(1) << 22), (int64_t(1) << 22) - 1, 32, kFormats[2]);
}

TEST(IntToFloatByBitsTest, RefusesWhatBitsCannotHold) {
  // Too many values for the mantissa.
  EXPECT_FALSE(planIntToFloatByBits(0, 128, APFloat::BFloat()));
  EXPECT_FALSE(planIntToFloatByBits(0, 1024, APFloat::IEEEhalf()));
  // A bound past 2^p, where the values themselves are not all exact.
  EXPECT_FALSE(planIntToFloatByBits(200, 300, APFloat::BFloat()));
  EXPECT_FALSE(planIntToFloatByBits(-300, -200, APFloat::BFloat()));
  // Other formats, and empty ranges.
  EXPECT_FALSE(planIntToFloatByBits(0, 15, APFloat::IEEEdouble()));
  EXPECT_FALSE(planIntToFloatByBits(0, 15, APFloat::Float8E4M3FN()));
  EXPECT_FALSE(planIntToFloatByBits(5, 4, APFloat::IEEEsingle()));
}

TEST(IntToFloatByBitsTest, SignedFieldIsOneXor) {
  // A signed nibble: (v & 15) ^ 0x4308 as bf16, minus 136.
  std::optional<IntToFloatByBits> plan =
      planIntToFloatByBits(-8, 7, APFloat::BFloat());
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->flip);
  EXPECT_EQ(plan->mask.getZExtValue(), 15u);
  EXPECT_EQ(plan->combine.getZExtValue(), 0x4308u);
  EXPECT_EQ(plan->offset.convertToDouble(), 136.0);
}

} // namespace
