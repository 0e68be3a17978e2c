//===- TransposedByteMatricesTest.cpp - ldmatrix.trans reads of bytes -----===//
//
// matchTransposedByteMatrices decides that a thread's bytes come from
// `ldmatrix.x4.trans.b16`. Checked here against the instruction's own
// definition: every byte each lane receives, from the row addresses the
// plan makes the lanes supply, must be the byte the tensor layout puts in
// that register.
//
//===----------------------------------------------------------------------===//

#include "MatrixLanes.h"
#include "tile/Analysis/SharedAccess.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

class TransposedByteMatricesTest : public ::testing::Test {
protected:
  TransposedByteMatricesTest() { context.loadDialect<TileGPUDialect>(); }

  /// Packed weights (k pairs x weight columns, bytes) as the transposed A
  /// operand of a swapped product: `rows` x `cols` i8 in the dot_op layout
  /// of `mma`, permuted.
  RankedTensorType packedWeights(MmaEncodingAttr mma, int64_t rows,
                                 int64_t cols) {
    auto operand = DotOperandEncodingAttr::get(&context, 0, mma, 2);
    const int32_t swap[] = {1, 0};
    auto permuted = PermutedEncodingAttr::getTransposed(
        cast<DistributedEncoding>(operand), swap);
    return RankedTensorType::get({rows, cols}, IntegerType::get(&context, 8),
                                 permuted);
  }

  MemDescType buffer(ArrayRef<int64_t> shape, unsigned vec, unsigned perPhase,
                     unsigned maxPhase) {
    return MemDescType::get(
        &context, shape, IntegerType::get(&context, 8),
        SharedEncodingAttr::get(&context, vec, perPhase, maxPhase, {1, 0}));
  }

  /// The access map of the M=16 decode kernel's packed weights (64 k
  /// pairs x 64 columns, four warps, one wgmma m64n16 operand) in a buffer
  /// with the swizzle (vec, perPhase, maxPhase).
  SharedAccessMap decodeMap(bool adjacentRows, unsigned vec, unsigned perPhase,
                            unsigned maxPhase) {
    auto mma =
        MmaEncodingAttr::get(&context, 3, {4, 1}, {16, 16, 16}, adjacentRows);
    FailureOr<SharedAccessMap> map = composeAccessMap(
        packedWeights(mma, 64, 64), buffer({64, 64}, vec, perPhase, maxPhase));
    EXPECT_TRUE(succeeded(map));
    return succeeded(map) ? *map : SharedAccessMap();
  }

  /// Runs ldmatrix.x4.trans.b16 as PTX defines it on the addresses the
  /// plan gives each lane and checks every byte against the access map.
  void expectExactReads(const SharedAccessMap &map,
                        const TransposedByteMatrices &plan) {
    int64_t covered = 0;
    forEachMatrixLane(
        map, plan.laneOffsets, plan.firstRegisters, /*rowAlignment=*/16,
        [&](int64_t warp, int64_t first, const int64_t(&rowAddress)[4][8],
            int64_t lane, int64_t threadBase) {
          for (int64_t j = 0; j < 4; ++j)
            for (int64_t b = 0; b < 4; ++b) {
              // Lane t gets the b16 at column t/4 of rows 2(t%4), +1.
              int64_t delivered = rowAddress[j][2 * (lane % 4) + b / 2] +
                                  2 * (lane / 4) + b % 2;
              int64_t reg =
                  first | plan.wordRegisters[j] | plan.byteRegisters[b];
              EXPECT_EQ(delivered, threadBase ^ map.registerOffsets[reg])
                  << "warp " << warp << " lane " << lane << " register " << reg;
              ++covered;
            }
        });
    int64_t numWarps = int64_t(1) << map.warpOffsets.size();
    // Every register of every thread, once.
    EXPECT_EQ(covered, numWarps * 32 * int64_t(map.registerOffsets.size()));
  }

  MLIRContext context;
};

TEST_F(TransposedByteMatricesTest, AdjacentRowsDecodeOperand) {
  for (auto [vec, perPhase, maxPhase] :
       {std::tuple{1u, 1u, 1u}, std::tuple{16u, 2u, 4u},
        std::tuple{16u, 1u, 8u}}) {
    SharedAccessMap map =
        decodeMap(/*adjacentRows=*/true, vec, perPhase, maxPhase);
    std::optional<TransposedByteMatrices> plan =
        matchTransposedByteMatrices(map);
    ASSERT_TRUE(plan);
    // 32 bytes a thread: two ldmatrix.x4.
    EXPECT_EQ(plan->firstRegisters.size(), 2u);
    expectExactReads(map, *plan);
  }
}

TEST_F(TransposedByteMatricesTest, AdjacentRowsTwoWarpgroups) {
  // The 4096-row kernel's: 32 k pairs x 256 columns over eight warps.
  auto mma = MmaEncodingAttr::get(&context, 3, {8, 1}, {16, 128, 16},
                                  /*adjacentRows=*/true);
  RankedTensorType tensor = packedWeights(mma, 32, 256);
  FailureOr<SharedAccessMap> map =
      composeAccessMap(tensor, buffer({32, 256}, 16, 1, 8));
  ASSERT_TRUE(succeeded(map));
  std::optional<TransposedByteMatrices> plan =
      matchTransposedByteMatrices(*map);
  ASSERT_TRUE(plan);
  expectExactReads(*map, *plan);
}

TEST_F(TransposedByteMatricesTest, PlainRowsAreNotByteBlocks) {
  // Rows r and r + 8 of a lane are 8 bytes apart: no 2x2 blocks.
  EXPECT_FALSE(
      matchTransposedByteMatrices(decodeMap(/*adjacentRows=*/false, 16, 2, 4)));
}

TEST_F(TransposedByteMatricesTest, ChunksSmallerThanARowAreRejected) {
  // A swizzle of 8-byte chunks breaks the 16 contiguous bytes of a row.
  EXPECT_FALSE(
      matchTransposedByteMatrices(decodeMap(/*adjacentRows=*/true, 8, 1, 8)));
}

TEST_F(TransposedByteMatricesTest, WavefrontsOfTheMatrixRows) {
  // Each matrix is 8 rows of 16 bytes, one wavefront when they fall in
  // distinct banks. The decode operand's 64-byte rows: unswizzled, rows
  // k and k + 2 are 128 bytes apart, one bank group, so 4 wavefronts a
  // matrix; XOR-swizzling 16-byte chunks by row pair spreads them. A load
  // of i8 is counted by its ldmatrix rows, of i16 (not a byte) by its
  // accesses.
  Type i8 = IntegerType::get(&context, 8);
  SharedWavefronts plain = measureLoadWavefronts(decodeMap(true, 1, 1, 1), i8);
  SharedWavefronts swizzled =
      measureLoadWavefronts(decodeMap(true, 16, 2, 4), i8);
  // Two instructions of four matrices.
  EXPECT_EQ(swizzled.conflictFree, 8);
  EXPECT_EQ(swizzled.actual, 8);
  EXPECT_EQ(plain.conflictFree, 8);
  EXPECT_EQ(plain.actual, 4 * 8);
  SharedAccessMap map = decodeMap(true, 16, 2, 4);
  EXPECT_FALSE(matchMatrixLoads(map, IntegerType::get(&context, 16)));
  EXPECT_TRUE(matchMatrixLoads(map, i8));
}

} // namespace
