//===- PermutedEncodingTest.cpp - #tilegpu.permuted layout math -----------===//
//
// A permuted layout must put every element in the thread and register the
// parent layout gives its untransposed coordinate, so that tile.trans
// between the two is a renaming; nested permutations must compose.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

class PermutedEncodingTest : public ::testing::Test {
protected:
  PermutedEncodingTest() { context.loadDialect<TileGPUDialect>(); }

  /// wgmma's register A operand for 4 warps, m64n64k16.
  DotOperandEncodingAttr wgmmaOperandA() {
    auto mma = MmaEncodingAttr::get(&context, 3, {4, 1}, {16, 64, 16});
    return DotOperandEncodingAttr::get(&context, 0, mma, 2);
  }

  MLIRContext context;
};

TEST_F(PermutedEncodingTest, TransposesEveryBasis) {
  DotOperandEncodingAttr parent = wgmmaOperandA();
  const int32_t swap[] = {1, 0};
  auto permuted =
      cast<PermutedEncodingAttr>(PermutedEncodingAttr::getTransposed(
          cast<DistributedEncoding>(parent), swap));
  LinearLayout original = parent.toLinearLayout({64, 32});
  LinearLayout transposed = permuted.toLinearLayout({32, 64});
  EXPECT_EQ(transposed.getShape(), ArrayRef<int64_t>({32, 64}));
  for (unsigned in = 0; in < LinearLayout::kNumInDims; ++in) {
    auto dim = static_cast<LinearLayout::InDim>(in);
    ArrayRef<LinearLayout::Basis> a = original.getBases(dim);
    ArrayRef<LinearLayout::Basis> b = transposed.getBases(dim);
    ASSERT_EQ(a.size(), b.size()) << "input dimension " << in;
    for (auto [x, y] : llvm::zip(a, b))
      EXPECT_EQ(y, (LinearLayout::Basis{x[1], x[0]})) << "input dim " << in;
  }
}

TEST_F(PermutedEncodingTest, TransposingBackGivesTheParent) {
  auto parent = cast<DistributedEncoding>(wgmmaOperandA());
  const int32_t swap[] = {1, 0};
  DistributedEncoding once = PermutedEncodingAttr::getTransposed(parent, swap);
  EXPECT_TRUE(isa<PermutedEncodingAttr>(once));
  EXPECT_EQ(PermutedEncodingAttr::getTransposed(once, swap), parent);
}

TEST_F(PermutedEncodingTest, RankThreePermutationsCompose) {
  auto parent = cast<DistributedEncoding>(
      BlockedEncodingAttr::get(&context, {1, 1, 4}, {1, 4, 8}, {2, 2, 1},
                               {2, 1, 0}));
  // Result dim i is the operand's order[i]: [2, 0, 1] then [1, 2, 0] is
  // the identity; [2, 0, 1] twice is [1, 2, 0].
  const int32_t first[] = {2, 0, 1}, inverse[] = {1, 2, 0};
  DistributedEncoding once = PermutedEncodingAttr::getTransposed(parent, first);
  EXPECT_EQ(PermutedEncodingAttr::getTransposed(once, inverse), parent);
  auto twice = dyn_cast<PermutedEncodingAttr>(
      PermutedEncodingAttr::getTransposed(once, first));
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice.getOrder(), ArrayRef<unsigned>({1, 2, 0}));
  EXPECT_EQ(twice.getParent(), parent);
  // And the layout agrees: element (a, b, c) of the twice-permuted tensor
  // is the parent's (c, a, b): checked on the bases.
  LinearLayout p = parent.toLinearLayout({4, 8, 16});
  LinearLayout t = twice.toLinearLayout({8, 16, 4});
  for (unsigned in = 0; in < LinearLayout::kNumInDims; ++in) {
    auto dim = static_cast<LinearLayout::InDim>(in);
    for (auto [x, y] : llvm::zip(p.getBases(dim), t.getBases(dim)))
      EXPECT_EQ(y, (LinearLayout::Basis{x[1], x[2], x[0]}));
  }
}

} // namespace
