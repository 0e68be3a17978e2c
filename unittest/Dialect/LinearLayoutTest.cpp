//===- LinearLayoutTest.cpp - Layouts as GF(2) maps -----------------------===//

#include "tile/Dialect/TileGPU/IR/LinearLayout.h"

#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <tuple>

using namespace mlir::tilegpu;
using Basis = LinearLayout::Basis;
using llvm::ArrayRef;
using llvm::SmallVector;

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
  LinearLayout layout = LinearLayout::blocked({1024}, {4}, {32}, {4}, {0});
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
  EXPECT_EQ(t.apply(3, 9, 2),
            (Basis{rows.apply(3, 9, 2)[1], rows.apply(3, 9, 2)[0]}));
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

TEST(LinearLayoutTest, WgmmaAccumulator) {
  // 128x128 over two warpgroups stacked along M, m64n128 instructions.
  LinearLayout acc = LinearLayout::mmaAccumulator({128, 128}, {8, 1}, 128);
  EXPECT_EQ(acc.getNumRegisters(), 64);
  // Lane 5 is group 1, thread-in-group 1; warp 1 owns rows 16..31.
  EXPECT_EQ(acc.apply(0, 5, 1), (Basis{17, 2}));
  EXPECT_EQ(acc.apply(1, 5, 1), (Basis{17, 3}));
  EXPECT_EQ(acc.apply(2, 5, 1), (Basis{25, 2}));
  EXPECT_EQ(acc.apply(4, 5, 1), (Basis{17, 10}));
  // PTX's d[i]: row 8*((i/2)%2) + lane/4, col 8*(i/4) + 2*(lane%4) + i%2.
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t lane = 0; lane < 32; ++lane) {
      Basis expected{16 * 6 + 8 * ((i / 2) % 2) + lane / 4,
                     8 * (i / 4) + 2 * (lane % 4) + i % 2};
      ASSERT_EQ(acc.apply(i, lane, 6), expected) << i << " " << lane;
    }
  std::multiset<int64_t> held = heldElements(acc);
  EXPECT_EQ(std::set<int64_t>(held.begin(), held.end()).size(), 128u * 128);
  EXPECT_EQ(held.size(), 128u * 128);
}

TEST(LinearLayoutTest, AdjacentRowsPermuteEachSixteenRowGroup) {
  // The same 128x128 wgmma accumulator with adjacentRows: where the plain
  // layout puts instruction row m, this one puts row 2 (m mod 8) + m / 8
  // of the same 16-row group, for every register, lane and warp; and A's
  // fragment (dot_op opIdx 0) follows its rows the same way, so the
  // product is the plain one with its rows permuted.
  LinearLayout plain = LinearLayout::mmaAccumulator({128, 128}, {8, 1}, 128);
  LinearLayout adjacent =
      LinearLayout::mmaAccumulator({128, 128}, {8, 1}, 128, true);
  auto permuted = [](Basis at) {
    int64_t m = at[0] % 16;
    return Basis{at[0] - m + 2 * (m % 8) + m / 8, at[1]};
  };
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < plain.getNumRegisters(); ++r)
        ASSERT_EQ(adjacent.apply(r, lane, w), permuted(plain.apply(r, lane, w)))
            << r << " " << lane << " " << w;
  // A thread's two rows are neighbours: lane 5 holds rows 34 and 35 of
  // warp 2's group.
  EXPECT_EQ(adjacent.apply(0, 5, 2), (Basis{34, 2}));
  EXPECT_EQ(adjacent.apply(2, 5, 2), (Basis{35, 2}));
  LinearLayout a = LinearLayout::mmaOperand({128, 32}, 0, {8, 1}, 2);
  LinearLayout aAdjacent =
      LinearLayout::mmaOperand({128, 32}, 0, {8, 1}, 2, true);
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < a.getNumRegisters(); ++r)
        ASSERT_EQ(aAdjacent.apply(r, lane, w), permuted(a.apply(r, lane, w)));
  // B's fragment has no M rows: unchanged.
  LinearLayout b = LinearLayout::mmaOperand({32, 64}, 1, {4, 1}, 2);
  LinearLayout bAdjacent =
      LinearLayout::mmaOperand({32, 64}, 1, {4, 1}, 2, true);
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t r = 0; r < b.getNumRegisters(); ++r)
      ASSERT_EQ(bAdjacent.apply(r, lane, 0), b.apply(r, lane, 0));
  std::multiset<int64_t> held = heldElements(adjacent);
  EXPECT_EQ(std::set<int64_t>(held.begin(), held.end()).size(), 128u * 128);
}

TEST(LinearLayoutTest, RegisterRepresentativesFollowConstancy) {
  // A 128x64 wgmma accumulator (m64n64, two warpgroups): each thread holds
  // 16 columns, in pairs (register bit 0: +1 column) of 8-column groups
  // (bits 2-4: +8, +16, +32), and two rows (bit 1: +8 rows).
  LinearLayout acc = LinearLayout::mmaAccumulator({128, 64}, {8, 1}, 64);
  ASSERT_EQ(acc.getNumRegisters(), 32);
  // Values constant along 16 columns: bits 0 and 2 (+1, +8) stay within a
  // block, bits 1, 3, 4 (+8 rows, +16, +32 columns) do not.
  SmallVector<int64_t> reps = acc.getRegisterRepresentatives({1, 16});
  for (int64_t reg = 0; reg < 32; ++reg)
    EXPECT_EQ(reps[reg], reg & ~int64_t(0b101)) << reg;
  // Whatever the lane and warp, registers sharing a representative hold
  // elements of one aligned 16-column block of one row.
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t reg = 0; reg < 32; ++reg) {
      Basis mine = acc.apply(reg, lane, 3);
      Basis theirs = acc.apply(reps[reg], lane, 3);
      EXPECT_EQ(mine[0], theirs[0]);
      EXPECT_EQ(mine[1] / 16, theirs[1] / 16);
    }
  // No constancy: every register stands for itself; constant everywhere:
  // register 0 holds every value.
  reps = acc.getRegisterRepresentatives({1, 1});
  for (int64_t reg = 0; reg < 32; ++reg)
    EXPECT_EQ(reps[reg], reg);
  reps = acc.getRegisterRepresentatives({128, 64});
  for (int64_t reg = 0; reg < 32; ++reg)
    EXPECT_EQ(reps[reg], 0);
  // A constancy that is not a power of two is not trusted.
  reps = acc.getRegisterRepresentatives({1, 24});
  EXPECT_EQ(reps[1], 1);
}

TEST(LinearLayoutTest, MmaRepeatsNBeforeM) {
  // One warpgroup, 128x64 with m64n32: two N and two M repetitions.
  LinearLayout acc = LinearLayout::mmaAccumulator({128, 64}, {4, 1}, 32);
  EXPECT_EQ(acc.getNumRegisters(), 64);
  EXPECT_EQ(acc.applyOne(LinearLayout::Register, 16), (Basis{0, 32}));
  EXPECT_EQ(acc.applyOne(LinearLayout::Register, 32), (Basis{64, 0}));
}

TEST(LinearLayoutTest, MmaSyncOperands) {
  // m16n8k16 fp16 on 2x2 warps over a 32x16 A and a 16x16 B.
  LinearLayout a = LinearLayout::mmaOperand({32, 16}, 0, {2, 2}, 2);
  // a0,a1: (lane/4, 2*(lane%4) + i); a2,a3: row + 8; a4..a7: col + 8.
  EXPECT_EQ(a.apply(0, 6, 0), (Basis{1, 4}));
  EXPECT_EQ(a.apply(1, 6, 0), (Basis{1, 5}));
  EXPECT_EQ(a.apply(2, 6, 0), (Basis{9, 4}));
  EXPECT_EQ(a.apply(4, 6, 0), (Basis{1, 12}));
  EXPECT_EQ(a.apply(0, 6, 1), (Basis{17, 4}));
  // The two warps along N need the same A.
  EXPECT_EQ(a.apply(3, 9, 2), a.apply(3, 9, 0));
  LinearLayout b = LinearLayout::mmaOperand({16, 16}, 1, {2, 2}, 2);
  // b0,b1: (2*(lane%4) + i, lane/4); b2,b3: k + 8.
  EXPECT_EQ(b.apply(0, 6, 0), (Basis{4, 1}));
  EXPECT_EQ(b.apply(1, 6, 0), (Basis{5, 1}));
  EXPECT_EQ(b.apply(2, 6, 0), (Basis{12, 1}));
  EXPECT_EQ(b.apply(0, 6, 2), (Basis{4, 9}));
  EXPECT_EQ(b.apply(0, 6, 1), b.apply(0, 6, 0));
  // tf32 (one element per register, k8) and int8 (four, k32).
  LinearLayout tf32 = LinearLayout::mmaOperand({16, 8}, 0, {1, 1}, 1);
  EXPECT_EQ(tf32.apply(1, 5, 0), (Basis{9, 1}));
  EXPECT_EQ(tf32.apply(2, 5, 0), (Basis{1, 5}));
  LinearLayout s8 = LinearLayout::mmaOperand({32, 16}, 1, {1, 1}, 4);
  EXPECT_EQ(s8.apply(3, 5, 0), (Basis{7, 1}));
  EXPECT_EQ(s8.apply(4, 5, 0), (Basis{20, 1}));
}

/// Checks that `layout` (offset -> coordinates) and its inverse agree with
/// `offsetOf` on every element of a rank-2 buffer.
void expectOffsets(const LinearLayout &layout,
                   std::function<int64_t(int64_t, int64_t)> offsetOf) {
  auto inverse = layout.invertOffsets();
  ASSERT_TRUE(inverse);
  ArrayRef<int64_t> shape = layout.getShape();
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c = 0; c < shape[1]; ++c) {
      int64_t offset = offsetOf(r, c);
      ASSERT_EQ(layout.applyOne(LinearLayout::Register, offset), (Basis{r, c}))
          << r << " " << c;
      int64_t back = 0;
      for (unsigned bit = 0; (int64_t(1) << bit) < shape[0]; ++bit)
        if ((r >> bit) & 1)
          back ^= (*inverse)[0][bit];
      for (unsigned bit = 0; (int64_t(1) << bit) < shape[1]; ++bit)
        if ((c >> bit) & 1)
          back ^= (*inverse)[1][bit];
      ASSERT_EQ(back, offset) << r << " " << c;
    }
}

TEST(LinearLayoutTest, LdmatrixSwizzle) {
  LinearLayout s = LinearLayout::sharedSwizzled({32, 64}, {1, 0}, 8, 1, 8);
  expectOffsets(s, [](int64_t r, int64_t c) {
    return r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8;
  });
  LinearLayout plain = LinearLayout::sharedSwizzled({16, 8}, {0, 1}, 1, 1, 1);
  expectOffsets(plain, [](int64_t r, int64_t c) { return c * 16 + r; });
}

// A rank-1 buffer (a row of scales a pipelined loop copies ahead) has no
// row dimension to swizzle: its offsets are its indices.
TEST(LinearLayoutTest, RankOneSharedBuffer) {
  LinearLayout s = LinearLayout::sharedSwizzled({128}, {0}, 1, 1, 1);
  std::optional<SmallVector<SmallVector<int64_t>>> inverse =
      s.invertOffsets();
  ASSERT_TRUE(inverse.has_value());
  ASSERT_EQ(inverse->size(), 1u);
  for (unsigned bit = 0; bit < 7; ++bit)
    EXPECT_EQ((*inverse)[0][bit], int64_t(1) << bit);
}

TEST(LinearLayoutTest, NVMMASwizzles) {
  // 128-byte swizzle on fp16 rows of 64: chunk ^= row % 8.
  expectOffsets(LinearLayout::sharedNVMMA({64, 64}, {1, 0}, 16, 128),
                [](int64_t r, int64_t c) {
                  return r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8;
                });
  // Wider than an atom: 128-column rows become two 64-column atom columns.
  expectOffsets(LinearLayout::sharedNVMMA({64, 128}, {1, 0}, 16, 128),
                [](int64_t r, int64_t c) {
                  return (c / 64) * 64 * 64 + r * 64 +
                         (((c % 64) / 8) ^ (r % 8)) * 8 + c % 8;
                });
  // 64-byte swizzle: chunk ^= (row / 2) % 4.
  expectOffsets(LinearLayout::sharedNVMMA({64, 32}, {1, 0}, 16, 64),
                [](int64_t r, int64_t c) {
                  return r * 32 + ((c / 8) ^ ((r / 2) % 4)) * 8 + c % 8;
                });
  // 32-byte swizzle on fp8 (32 per row): chunk ^= (row / 4) % 2, 16 per chunk.
  expectOffsets(LinearLayout::sharedNVMMA({16, 32}, {1, 0}, 8, 32),
                [](int64_t r, int64_t c) {
                  return r * 32 + ((c / 16) ^ ((r / 4) % 2)) * 16 + c % 16;
                });
  // K-major B (KxN with K contiguous): the rows are N.
  expectOffsets(LinearLayout::sharedNVMMA({64, 16}, {0, 1}, 16, 128),
                [](int64_t k, int64_t n) {
                  return n * 64 + ((k / 8) ^ (n % 8)) * 8 + k % 8;
                });
}

TEST(LinearLayoutTest, NVMMATransposeIsAView) {
  // A row-major NxD tile (what TMA writes for attention's K block) read as
  // the DxN tile with D fastest (K-major B of Q*K^T): every element keeps
  // its offset, atoms and swizzle included, for each swizzle width.
  for (auto [rows, cols, swizzle, bits] :
       {std::tuple<int64_t, int64_t, unsigned, unsigned>{64, 128, 128, 16},
        {128, 64, 128, 16},
        {64, 64, 64, 16},
        {32, 64, 32, 16},
        {64, 64, 64, 8},
        {64, 128, 128, 8}}) {
    LinearLayout rowMajor =
        LinearLayout::sharedNVMMA({rows, cols}, {1, 0}, bits, swizzle);
    LinearLayout transposed =
        LinearLayout::sharedNVMMA({cols, rows}, {0, 1}, bits, swizzle);
    for (int64_t offset = 0; offset < rows * cols; ++offset) {
      Basis rc = rowMajor.applyOne(LinearLayout::Register, offset);
      ASSERT_EQ(transposed.applyOne(LinearLayout::Register, offset),
                (Basis{rc[1], rc[0]}))
          << rows << "x" << cols << " swizzle " << swizzle << " @" << offset;
    }
  }
}

} // namespace

namespace {

int64_t roundOfIndex(int64_t index, ArrayRef<unsigned> bits) {
  int64_t round = 0;
  for (auto [k, bit] : llvm::enumerate(bits))
    round |= ((index >> bit) & 1) << k;
  return round;
}

/// The lowering's two claims about `bits` on `layout`: an element's round
/// is its register's round XOR its thread's, and a layout whose lanes and
/// warps leave the bits alone has the same rounds in every thread.
void expectLinearRounds(const LinearLayout &layout, ArrayRef<unsigned> bits) {
  bool threadsMove = threadsMoveIndexBits(layout, bits);
  bool anyThreadRound = false;
  for (int64_t w = 0; w < layout.getNumWarps(); ++w)
    for (int64_t l = 0; l < layout.getNumLanes(); ++l) {
      int64_t thread =
          roundOfIndex(layout.linearIndex(layout.apply(0, l, w)), bits);
      anyThreadRound |= thread != 0;
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
        ASSERT_EQ(
            roundOfIndex(layout.linearIndex(layout.apply(r, l, w)), bits),
            getRegisterRound(layout, r, bits) ^ thread)
            << "register " << r << " lane " << l << " warp " << w;
    }
  EXPECT_EQ(threadsMove, anyThreadRound);
}

} // namespace

TEST(LinearLayoutTest, ConversionRoundsPreferSharedRegisterBits) {
  // 4 per thread to 1 per thread over 65,536 elements: both wrap around
  // their CTA tiles (512 and 128 elements) in registers, so index bits
  // 9-15 are register bits of both; 7 and 8 are warps of the wide layout,
  // registers of the narrow one.
  LinearLayout wide = LinearLayout::blocked({65536}, {4}, {32}, {4}, {0});
  LinearLayout narrow = LinearLayout::blocked({65536}, {1}, {32}, {4}, {0});
  SmallVector<unsigned> shared = chooseConversionRoundBits(wide, narrow, 7);
  EXPECT_EQ(shared, (SmallVector<unsigned>{15, 14, 13, 12, 11, 10, 9}));
  EXPECT_FALSE(threadsMoveIndexBits(wide, shared));
  EXPECT_FALSE(threadsMoveIndexBits(narrow, shared));
  EXPECT_EQ(chooseConversionRoundBits(wide, narrow, 2),
            (SmallVector<unsigned>{15, 14}));
  SmallVector<unsigned> nine = chooseConversionRoundBits(wide, narrow, 9);
  EXPECT_EQ(nine, (SmallVector<unsigned>{15, 14, 13, 12, 11, 10, 9, 8, 7}));
  EXPECT_TRUE(threadsMoveIndexBits(wide, nine));
  EXPECT_FALSE(threadsMoveIndexBits(narrow, nine));
  // Registers 1-3 of the wide layout are its first vector (elements 1-3,
  // round 0); register 4 is element 512 (index bit 9, the seventh chosen).
  EXPECT_EQ(getRegisterRound(wide, 3, shared), 0);
  EXPECT_EQ(getRegisterRound(wide, 4, shared), 1 << 6);
  // More bits than the index has: all of them.
  EXPECT_EQ(chooseConversionRoundBits(wide, narrow, 40).size(), 16u);
  LinearLayout w = LinearLayout::blocked({4096}, {4}, {32}, {4}, {0});
  LinearLayout n = LinearLayout::blocked({4096}, {1}, {32}, {4}, {0});
  for (unsigned count : {1u, 3u, 6u, 12u}) {
    SmallVector<unsigned> bits = chooseConversionRoundBits(w, n, count);
    ASSERT_EQ(bits.size(), count);
    expectLinearRounds(w, bits);
    expectLinearRounds(n, bits);
  }
}

TEST(LinearLayoutTest, ConversionRoundsTwoDimensional) {
  // Rows of 4-wide vectors to rows of scalars, and an mma accumulator to
  // the blocked layout a store wants: the rows beyond the CTA tiles are
  // registers of both.
  LinearLayout rows4 = LinearLayout::blocked({64, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  LinearLayout rows1 = LinearLayout::blocked({64, 64}, {1, 1}, {1, 32}, {4, 1}, {1, 0});
  SmallVector<unsigned> rows = chooseConversionRoundBits(rows4, rows1, 2);
  EXPECT_FALSE(threadsMoveIndexBits(rows4, rows));
  EXPECT_FALSE(threadsMoveIndexBits(rows1, rows));
  LinearLayout acc = LinearLayout::mmaAccumulator({128, 64}, {4, 1}, 64);
  LinearLayout store = LinearLayout::blocked({128, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  SmallVector<unsigned> one = chooseConversionRoundBits(acc, store, 1);
  EXPECT_FALSE(threadsMoveIndexBits(acc, one));
  EXPECT_FALSE(threadsMoveIndexBits(store, one));
  for (unsigned count : {1u, 2u, 4u, 8u, 13u}) {
    SmallVector<unsigned> bits = chooseConversionRoundBits(acc, store, count);
    expectLinearRounds(acc, bits);
    expectLinearRounds(store, bits);
  }
}

TEST(LinearLayoutTest, TransposedConversionRoundsSplitByWarp) {
  // Lanes along columns on one side and along rows on the other (as a
  // transposing copy places them at 8 warps): no index bit is a register
  // bit of both. The cheapest rounds are whole warps of one side and whole
  // registers of the other: rows 1-0 and column 7 (index bits 9-7) are
  // warps of byRow and registers of byCol; row 7 and columns 1-0 (bits 15,
  // 1, 0) the other way round. The source splits first.
  LinearLayout byRow = LinearLayout::blocked({256, 256}, {1, 4}, {1, 32}, {4, 2}, {1, 0});
  LinearLayout byCol = LinearLayout::blocked({256, 256}, {4, 1}, {32, 1}, {2, 4}, {0, 1});
  SmallVector<unsigned> cheap = chooseConversionRoundBits(byRow, byCol, 3);
  EXPECT_EQ(cheap, (SmallVector<unsigned>{9, 8, 7}));
  EXPECT_TRUE(threadsMoveIndexBits(byRow, cheap));
  EXPECT_FALSE(threadsMoveIndexBits(byCol, cheap));
  EXPECT_EQ(chooseConversionRoundBits(byCol, byRow, 3),
            (SmallVector<unsigned>{15, 1, 0}));
  LinearLayout byRowLanes(byRow.getShape(),
                          {SmallVector<LinearLayout::Basis>(
                               byRow.getBases(LinearLayout::Register)),
                           SmallVector<LinearLayout::Basis>(
                               byRow.getBases(LinearLayout::Lane)),
                           {}});
  EXPECT_FALSE(threadsMoveIndexBits(byRowLanes, cheap));
  expectLinearRounds(byRow, cheap);
  expectLinearRounds(byCol, cheap);
  // Four bits: both sides split by warps rather than one by lanes.
  SmallVector<unsigned> four = chooseConversionRoundBits(byRow, byCol, 4);
  EXPECT_EQ(four, (SmallVector<unsigned>{15, 9, 8, 7}));
  expectLinearRounds(byRow, four);
  expectLinearRounds(byCol, four);
  // Lanes move every bit of a tensor no larger than one warp's tile.
  LinearLayout tiny = LinearLayout::blocked({32}, {1}, {32}, {1}, {0});
  SmallVector<unsigned> two = chooseConversionRoundBits(tiny, tiny, 2);
  EXPECT_EQ(two, (SmallVector<unsigned>{4, 3}));
  EXPECT_TRUE(threadsMoveIndexBits(tiny, two));
  expectLinearRounds(tiny, two);
}
