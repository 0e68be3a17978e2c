//===- LinearLayoutTest.cpp - Layouts as GF(2) maps -----------------------===//

#include "tile/Dialect/TileGPU/IR/LinearLayout.h"

#include <gtest/gtest.h>
#include <set>

using namespace mlir::tilegpu;
using Basis = LinearLayout::Basis;

namespace {

/// Every (register, lane, warp) of `layout` and the element it holds.
std::multiset<int64_t> heldElements(const LinearLayout &layout) {
  std::multiset<int64_t> held;
  for (int64_t w = 0; w < layout.getNumWarps(); ++w)
    for (int64_t l = 0; l < layout.getNumLanes(); ++l)
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
        held.insert(layout.linearIndex(layout.apply(r, l, w)));
  return held;
}

TEST(LinearLayoutTest, BlockedOneDimensional) {
  // 4 per thread, 32 lanes, 4 warps: 512 elements, twice over for 1024.
  LinearLayout layout =
      LinearLayout::blocked({1024}, {4}, {32}, {4}, {0});
  EXPECT_EQ(layout.getNumRegisters(), 8);
  EXPECT_EQ(layout.getNumLanes(), 32);
  EXPECT_EQ(layout.getNumWarps(), 4);
  EXPECT_EQ(layout.apply(0, 0, 0), Basis{0});
  EXPECT_EQ(layout.apply(1, 0, 0), Basis{1});
  EXPECT_EQ(layout.apply(0, 1, 0), Basis{4});
  EXPECT_EQ(layout.apply(0, 0, 1), Basis{128});
  // Register bit 2 wraps around the CTA tile.
  EXPECT_EQ(layout.apply(4, 0, 0), Basis{512});
  EXPECT_EQ(layout.apply(5, 3, 2), Basis{512 + 1 + 12 + 256});
  EXPECT_EQ(layout.getContiguousRegisters(0), 4u);
  EXPECT_EQ(layout.getBroadcastMask(LinearLayout::Lane), 0u);
  // Every element exactly once.
  std::multiset<int64_t> held = heldElements(layout);
  EXPECT_EQ(held.size(), 1024u);
  EXPECT_EQ(std::set<int64_t>(held.begin(), held.end()).size(), 1024u);
}

TEST(LinearLayoutTest, SmallTensorsAreBroadcast) {
  // 64 elements over 128 threads: warps 2 and 3 hold copies of 0 and 1.
  LinearLayout layout = LinearLayout::blocked({64}, {1}, {32}, {4}, {0});
  EXPECT_EQ(layout.getNumRegisters(), 1);
  EXPECT_EQ(layout.getBroadcastMask(LinearLayout::Warp), 2u);
  EXPECT_EQ(layout.apply(0, 5, 3), layout.apply(0, 5, 1));
  std::multiset<int64_t> held = heldElements(layout);
  for (int64_t i = 0; i < 64; ++i)
    EXPECT_EQ(held.count(i), 2u) << i;
}

TEST(LinearLayoutTest, TwoDimensionalOrder) {
  // Row-major (order [1, 0]): lanes run along columns first.
  LinearLayout rows =
      LinearLayout::blocked({32, 32}, {1, 4}, {4, 8}, {4, 1}, {1, 0});
  EXPECT_EQ(rows.apply(1, 0, 0), (Basis{0, 1}));
  EXPECT_EQ(rows.apply(0, 1, 0), (Basis{0, 4}));
  EXPECT_EQ(rows.apply(0, 8, 0), (Basis{1, 0}));
  EXPECT_EQ(rows.apply(0, 0, 1), (Basis{4, 0}));
  EXPECT_EQ(rows.getContiguousRegisters(1), 4u);
  EXPECT_EQ(rows.getContiguousRegisters(0), 1u);
  // The transposed map swaps the coordinates of every element.
  LinearLayout t = rows.transposed({1, 0});
  EXPECT_EQ(t.getShape(), (llvm::ArrayRef<int64_t>{32, 32}));
  EXPECT_EQ(t.apply(3, 9, 2), (Basis{rows.apply(3, 9, 2)[1],
                                     rows.apply(3, 9, 2)[0]}));
}

TEST(LinearLayoutTest, SlicingDropsADimension) {
  LinearLayout parent =
      LinearLayout::blocked({16, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  LinearLayout rows = parent.sliced(1);
  EXPECT_EQ(rows.getRank(), 1u);
  EXPECT_EQ(rows.getShape()[0], 16);
  // Each thread holds its row: the row of (lane, warp) in the parent.
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t l = 0; l < 32; ++l)
      EXPECT_EQ(rows.apply(0, l, w)[0], parent.apply(0, l, w)[0]);
  // The lanes that differed only in the column now hold copies.
  EXPECT_NE(rows.getBroadcastMask(LinearLayout::Lane), 0u);
}

TEST(LinearLayoutTest, MapRegistersBetweenLayouts) {
  LinearLayout a = LinearLayout::blocked({256}, {2}, {32}, {4}, {0});
  // Same threads, registers in the same place: the identity.
  auto same = a.mapRegistersTo(a);
  ASSERT_TRUE(same);
  for (int64_t r = 0; r < a.getNumRegisters(); ++r)
    EXPECT_EQ((*same)[r], r);
  // A layout that gives elements to other threads needs shared memory.
  LinearLayout b = LinearLayout::blocked({256}, {1}, {32}, {4}, {0});
  EXPECT_FALSE(a.mapRegistersTo(b));
}

} // namespace
