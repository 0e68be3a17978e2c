//===- WarpShuffleTest.cpp - Layout conversions by shuffles ---------------===//
//
// Each plan is run on paper: every lane of every warp follows its rounds,
// and each result register must receive the element the result layout puts
// there. Layouts are parsed from the encodings the compiler writes.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/WarpShuffle.h"
#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;
using tilegpu::LinearLayout;

namespace {

class WarpShuffleTest : public ::testing::Test {
protected:
  WarpShuffleTest() {
    context.loadDialect<TileDialect, tilegpu::TileGPUDialect>();
  }

  LinearLayout layout(const std::string &type) {
    auto tensor = dyn_cast_or_null<RankedTensorType>(parseType(type, &context));
    EXPECT_TRUE(tensor) << type;
    return tilegpu::getLinearLayout(tensor);
  }

  MLIRContext context;
};

/// Runs `plan` in every lane of every warp; the count of result registers
/// that received the wrong element.
int64_t misdelivered(const LinearLayout &src, const LinearLayout &dst,
                     const WarpShufflePlan &plan) {
  int64_t wrong = 0;
  for (int64_t warp = 0; warp < src.getNumWarps(); ++warp)
    for (int64_t k = 0; k < plan.getNumRounds(); ++k)
      for (int64_t lane = 0; lane < src.getNumLanes(); ++lane) {
        int64_t from =
            flipBits(plan.sourceLaneMasks, lane) ^ plan.sourceLaneXor[k];
        int64_t sent = plan.sendBase[k] ^ flipBits(plan.sendMasks, from);
        int64_t filled = k ^ flipBits(plan.receiveMasks, lane);
        if (src.apply(sent, from, warp) != dst.apply(filled, lane, warp))
          ++wrong;
      }
  return wrong;
}

constexpr const char *kAccumulator =
    "tensor<64x64xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], "
    "instrShape = [16, 64, 8]}>>";
constexpr const char *kTf32Operand =
    "tensor<64x64xf32, #tilegpu.dot_op<{opIdx = 0, parent = "
    "#tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, "
    "8]}>, kWidth = 1}>>";

TEST_F(WarpShuffleTest, AccumulatorToTf32Operand) {
  // Lightning Attention's (q k^T) as the A of the next tf32 wgmma: each
  // lane's two adjacent accumulator columns go to two lanes, which the
  // plan serves with one select on each side.
  LinearLayout src = layout(kAccumulator), dst = layout(kTf32Operand);
  std::optional<WarpShufflePlan> plan = planWarpShuffle(src, dst);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->getNumRounds(), src.getNumRegisters());
  EXPECT_EQ(misdelivered(src, dst, *plan), 0);
  EXPECT_EQ(plan->getNumSendSelectBits() + plan->getNumReceiveSelectBits(), 2u);
  EXPECT_TRUE(planCheapWarpShuffle(src, dst, 32));
  // 16-bit elements go through shared memory, 16 bytes an access.
  EXPECT_FALSE(planCheapWarpShuffle(src, dst, 16));
  // And back.
  std::optional<WarpShufflePlan> back = planWarpShuffle(dst, src);
  ASSERT_TRUE(back);
  EXPECT_EQ(misdelivered(dst, src, *back), 0);
}

TEST_F(WarpShuffleTest, BlockedLayoutsWithinWarps) {
  // Every pair of 32x32 blocked layouts with four warps along rows: within
  // a warp they hold the same 8 rows, so each pair has a plan.
  std::vector<std::string> layouts;
  for (auto [rows, cols] : {std::pair{1, 32}, {2, 16}, {4, 8}, {8, 4}})
    for (auto [order, size] :
         {std::pair{"[1, 0]", "[1, 1]"}, {"[0, 1]", "[1, 1]"}})
      layouts.push_back("tensor<32x32xi32, #tilegpu.blocked<{sizePerThread = " +
                        std::string(size) + ", threadsPerWarp = [" +
                        std::to_string(rows) + ", " + std::to_string(cols) +
                        "], warpsPerCTA = [4, 1], order = " + order + "}>>");
  int64_t planned = 0;
  for (const std::string &a : layouts)
    for (const std::string &b : layouts) {
      LinearLayout src = layout(a), dst = layout(b);
      std::optional<WarpShufflePlan> plan = planWarpShuffle(src, dst);
      if (!plan)
        continue;
      ++planned;
      EXPECT_EQ(misdelivered(src, dst, *plan), 0) << a << " -> " << b;
    }
  // Only pairs whose warps hold the same rows: the same threadsPerWarp[0].
  EXPECT_EQ(planned, 4 * 2 * 2);
}

TEST_F(WarpShuffleTest, ElementsThatChangeWarpAreRefused) {
  LinearLayout rows = layout("tensor<64x64xf32, #tilegpu.blocked<{"
                             "sizePerThread = [1, 4], threadsPerWarp = [2, "
                             "16], warpsPerCTA = [4, 1], order = [1, 0]}>>");
  LinearLayout cols = layout("tensor<64x64xf32, #tilegpu.blocked<{"
                             "sizePerThread = [1, 4], threadsPerWarp = [2, "
                             "16], warpsPerCTA = [1, 4], order = [1, 0]}>>");
  EXPECT_FALSE(planWarpShuffle(rows, cols));
  // Copies too: two rows over four warps of one row each.
  LinearLayout copies = layout("tensor<2x32xf32, #tilegpu.blocked<{"
                               "sizePerThread = [1, 1], threadsPerWarp = [1, "
                               "32], warpsPerCTA = [4, 1], order = [1, 0]}>>");
  EXPECT_FALSE(planWarpShuffle(copies, copies));
}

} // namespace
