//===- SharedWavefrontsTest.cpp - Bank conflicts of shared accesses -------===//
//
// measureSharedWavefronts is what the pipeliner compares buffer layouts by, so
// it must see a conflict where the banks do: whole rows of words take one
// wavefront, columns of a plain buffer one per row, and the swizzles that
// spread them back to one.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/SharedAccess.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

class SharedWavefrontsTest : public ::testing::Test {
protected:
  SharedWavefrontsTest() { context.loadDialect<TileGPUDialect>(); }

  /// A 32x32 f32 tensor one warp holds one element per lane per register,
  /// its lanes along `laneDim`.
  RankedTensorType oneWarpTensor(unsigned laneDim) {
    SmallVector<unsigned> threads{1, 1};
    threads[laneDim] = 32;
    SmallVector<unsigned> order{laneDim, 1 - laneDim};
    auto blocked =
        BlockedEncodingAttr::get(&context, {1, 1}, threads, {1, 1}, order);
    return RankedTensorType::get({32, 32}, Float32Type::get(&context), blocked);
  }

  MemDescType buffer(ArrayRef<int64_t> shape, Type element, unsigned vec,
                     unsigned perPhase, unsigned maxPhase) {
    return MemDescType::get(
        &context, shape, element,
        SharedEncodingAttr::get(&context, vec, perPhase, maxPhase, {1, 0}));
  }

  int64_t wavefronts(RankedTensorType tensor, MemDescType buffer) {
    FailureOr<SharedAccessMap> map = composeAccessMap(tensor, buffer);
    EXPECT_TRUE(succeeded(map));
    return measureSharedWavefronts(
               *map, getElementBitWidth(tensor.getElementType()) / 8)
        .actual;
  }

  MLIRContext context;
};

TEST_F(SharedWavefrontsTest, RowsOfWordsTakeOneWavefrontEach) {
  Type f32 = Float32Type::get(&context);
  EXPECT_EQ(wavefronts(oneWarpTensor(1), buffer({32, 32}, f32, 1, 1, 1)), 32);
}

TEST_F(SharedWavefrontsTest, ColumnsOfAPlainBufferConflict) {
  // The 32 lanes read down the rows, each its own row's 32 consecutive
  // floats as 8 vectors of 16 bytes. A vector access goes in 4 phases of 8
  // lanes, and those 8 lanes' rows (128 bytes apart) share their banks: 8
  // wavefronts a phase, 32 an access, where conflict-free would be 4.
  Type f32 = Float32Type::get(&context);
  EXPECT_EQ(wavefronts(oneWarpTensor(0), buffer({32, 32}, f32, 1, 1, 1)),
            8 * 4 * 8);
}

TEST_F(SharedWavefrontsTest, SwizzledColumnsSpreadOverTheBanks) {
  // Row r XORs its word index with r: a column's 32 words fall in 32 banks
  // (one float at a time now: a row's floats are no longer consecutive).
  Type f32 = Float32Type::get(&context);
  EXPECT_EQ(wavefronts(oneWarpTensor(0), buffer({32, 32}, f32, 1, 1, 32)), 32);
  // Rows still read whole (a permutation within each row).
  EXPECT_EQ(wavefronts(oneWarpTensor(1), buffer({32, 32}, f32, 1, 1, 32)), 32);
}

TEST_F(SharedWavefrontsTest, SixteenByteVectorsGoInQuarterWarps) {
  // 4 floats per lane along rows of 128 floats: each access is 512
  // contiguous bytes, four wavefronts (a quarter-warp each), whatever the
  // layout of the rows.
  auto blocked =
      BlockedEncodingAttr::get(&context, {1, 4}, {1, 32}, {1, 1}, {1, 0});
  auto tensor =
      RankedTensorType::get({4, 128}, Float32Type::get(&context), blocked);
  Type f32 = Float32Type::get(&context);
  EXPECT_EQ(wavefronts(tensor, buffer({4, 128}, f32, 1, 1, 1)), 4 * 4);
}

TEST_F(SharedWavefrontsTest, LanesReadingOneWordShareIt) {
  // Every lane of a warp reads element (r, 0): one word, one wavefront.
  auto blocked =
      BlockedEncodingAttr::get(&context, {1, 1}, {1, 32}, {1, 1}, {1, 0});
  auto tensor =
      RankedTensorType::get({32, 1}, Float32Type::get(&context), blocked);
  Type f32 = Float32Type::get(&context);
  EXPECT_EQ(wavefronts(tensor, buffer({32, 1}, f32, 1, 1, 1)), 32);
}

TEST_F(SharedWavefrontsTest, PackedWeightsIntoASwappedDotOperand) {
  // int8 weights (64 k x 64 n, 64-byte rows) read into the transposed
  // wgmma A operand: a quad's four lanes take rows 0, 2, 4, 6, 128 bytes
  // apart, one bank. Swizzling 16-byte chunks every two rows spreads them.
  auto mma = MmaEncodingAttr::get(&context, 3, {4, 1}, {16, 16, 16});
  auto operand = DotOperandEncodingAttr::get(&context, 0, mma, 2);
  const int32_t swap[] = {1, 0};
  auto permuted = PermutedEncodingAttr::getTransposed(
      cast<DistributedEncoding>(operand), swap);
  Type i8 = IntegerType::get(&context, 8);
  auto tensor = RankedTensorType::get({64, 64}, i8, permuted);
  int64_t plain = wavefronts(tensor, buffer({64, 64}, i8, 1, 1, 1));
  int64_t swizzled = wavefronts(tensor, buffer({64, 64}, i8, 16, 2, 4));
  EXPECT_EQ(plain, 4 * swizzled);
  // One wavefront per byte load once spread.
  FailureOr<SharedAccessMap> map =
      composeAccessMap(tensor, buffer({64, 64}, i8, 16, 2, 4));
  ASSERT_TRUE(succeeded(map));
  EXPECT_EQ(swizzled, int64_t(map->registerOffsets.size() / map->vec));
}

} // namespace
