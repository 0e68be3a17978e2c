//===- MatrixStoresTest.cpp - stmatrix writes of 16-bit registers ---------===//
//
// matchMatrixStores decides that a thread's 16-bit registers go to shared
// memory by `stmatrix.x4[.trans].b16`. Checked here against the
// instruction's own definition: every element each lane hands over, at the
// row addresses the plan makes the lanes supply, must land where the
// tensor layout puts that register.
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

class MatrixStoresTest : public ::testing::Test {
protected:
  MatrixStoresTest() { context.loadDialect<TileGPUDialect>(); }

  /// A wgmma accumulator of `rows` x `cols` f16 over `warps`.
  RankedTensorType accumulator(int64_t rows, int64_t cols,
                               ArrayRef<unsigned> warps, unsigned instrN) {
    auto mma = MmaEncodingAttr::get(&context, 3, warps, {16, instrN, 16});
    return RankedTensorType::get({rows, cols}, Float16Type::get(&context), mma);
  }

  FailureOr<SharedAccessMap> mapInto(RankedTensorType tensor,
                                     Attribute encoding) {
    return composeAccessMap(tensor,
                            MemDescType::get(&context, tensor.getShape(),
                                             tensor.getElementType(),
                                             cast<SharedLayout>(encoding)));
  }

  /// Runs stmatrix.x4 as PTX defines it on the addresses the plan gives
  /// each lane and checks every element against the access map.
  void expectExactStores(const SharedAccessMap &map, const MatrixStores &plan) {
    int64_t covered = 0;
    forEachMatrixLane(
        map, plan.laneOffsets, plan.firstRegisters, /*rowAlignment=*/8,
        [&](int64_t warp, int64_t first, const int64_t(&rowAddress)[4][8],
            int64_t lane, int64_t threadBase) {
          for (int64_t m = 0; m < 4; ++m)
            for (int64_t half = 0; half < 2; ++half) {
              int64_t written =
                  plan.transposed
                      ? rowAddress[m][2 * (lane % 4) + half] + lane / 4
                      : rowAddress[m][lane / 4] + 2 * (lane % 4) + half;
              int64_t reg = first | plan.wordRegisters[m] |
                            (half ? plan.pairRegister : 0);
              EXPECT_EQ(written, threadBase ^ map.registerOffsets[reg])
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

TEST_F(MatrixStoresTest, AccumulatorIntoTMARows) {
  // A matmul epilogue: 128 x 256 f16 from two warpgroups into the 128-byte
  // swizzled rows a TMA store reads.
  FailureOr<SharedAccessMap> map =
      mapInto(accumulator(128, 256, {8, 1}, 256),
              NVMMASharedEncodingAttr::get(&context, 128, {1, 0}));
  ASSERT_TRUE(succeeded(map));
  std::optional<MatrixStores> plan =
      matchMatrixStores(*map, Float16Type::get(&context));
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->transposed);
  // 128 registers a thread: 16 instructions of 8.
  EXPECT_EQ(plan->firstRegisters.size(), 16u);
  expectExactStores(*map, *plan);
}

TEST_F(MatrixStoresTest, TransposedTileStagedForWgmma) {
  // Attention's dS^T: a 128 x 64 accumulator, permuted to 64 x 128 and
  // stored M-major as a wgmma A operand. Its pairs stay adjacent in the
  // buffer, so the plain form applies.
  auto mma = MmaEncodingAttr::get(&context, 3, {8, 1}, {16, 64, 16});
  const int32_t swap[] = {1, 0};
  auto permuted = PermutedEncodingAttr::getTransposed(
      cast<DistributedEncoding>(Attribute(mma)), swap);
  auto tensor =
      RankedTensorType::get({64, 128}, Float16Type::get(&context), permuted);
  FailureOr<SharedAccessMap> map =
      mapInto(tensor, NVMMASharedEncodingAttr::get(&context, 128, {0, 1}));
  ASSERT_TRUE(succeeded(map));
  std::optional<MatrixStores> plan =
      matchMatrixStores(*map, Float16Type::get(&context));
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->transposed);
  expectExactStores(*map, *plan);
}

TEST_F(MatrixStoresTest, AccumulatorColumnMajorIsTransposed) {
  // The same fragment stored column-major: a lane's pair lies in two rows
  // of the buffer, which is what .trans writes.
  for (unsigned swizzle : {128u, 64u, 32u, 0u}) {
    Attribute encoding =
        swizzle
            ? Attribute(NVMMASharedEncodingAttr::get(&context, swizzle, {0, 1}))
            : Attribute(SharedEncodingAttr::get(&context, {0, 1}));
    FailureOr<SharedAccessMap> map =
        mapInto(accumulator(128, 128, {4, 2}, 64), encoding);
    ASSERT_TRUE(succeeded(map));
    std::optional<MatrixStores> plan =
        matchMatrixStores(*map, BFloat16Type::get(&context));
    ASSERT_TRUE(plan) << "swizzle " << swizzle;
    EXPECT_TRUE(plan->transposed);
    expectExactStores(*map, *plan);
  }
}

TEST_F(MatrixStoresTest, OnlySixteenBitElementsInWholeRows) {
  Type f16 = Float16Type::get(&context);
  RankedTensorType acc = accumulator(128, 128, {8, 1}, 128);
  // Four-byte elements: not b16 matrices.
  auto f32 = RankedTensorType::get(acc.getShape(), Float32Type::get(&context),
                                   acc.getEncoding());
  FailureOr<SharedAccessMap> wide =
      mapInto(f32, NVMMASharedEncodingAttr::get(&context, 128, {1, 0}));
  ASSERT_TRUE(succeeded(wide));
  EXPECT_FALSE(matchMatrixStores(*wide, Float32Type::get(&context)));
  // A swizzle of 4-byte chunks splits the 16 bytes of a matrix row.
  FailureOr<SharedAccessMap> split =
      mapInto(acc, SharedEncodingAttr::get(&context, 2, 1, 8, {1, 0}));
  ASSERT_TRUE(succeeded(split));
  EXPECT_FALSE(matchMatrixStores(*split, f16));
  // A blocked tile (eight consecutive elements a thread) is not fragments.
  auto blocked =
      BlockedEncodingAttr::get(&context, {1, 8}, {2, 16}, {8, 1}, {1, 0});
  FailureOr<SharedAccessMap> rows =
      mapInto(RankedTensorType::get({128, 128}, f16, blocked),
              NVMMASharedEncodingAttr::get(&context, 128, {1, 0}));
  ASSERT_TRUE(succeeded(rows));
  EXPECT_FALSE(matchMatrixStores(*rows, f16));
}

} // namespace
