//===- MatrixLanes.h - Walking ldmatrix/stmatrix as PTX defines them ------===//
//
// The ldmatrix and stmatrix tests check a plan against the instructions'
// definitions: each instruction's lanes supply the addresses of its four
// 8x8 matrices' rows, then each lane's words are checked element by element.
// This walks the warps, instructions and lanes of such a plan.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTEST_ANALYSIS_MATRIXLANES_H
#define TILE_UNITTEST_ANALYSIS_MATRIXLANES_H

#include "tile/Analysis/SharedAccess.h"

#include <gtest/gtest.h>

namespace mlir {
namespace tile {

/// Calls `check(warp, first, rowAddress, lane, threadBase)` for every warp,
/// instruction (its first register) and lane of a plan whose lane offsets
/// are `laneOffsets`: rowAddress[m][r] is the offset lane 8m + r supplies
/// (row r of matrix m), threadBase the lane's own offset in the map. Row
/// addresses must be multiples of `rowAlignment` elements (16 bytes).
template <typename Check>
void forEachMatrixLane(const SharedAccessMap &map,
                       ArrayRef<int64_t> laneOffsets,
                       ArrayRef<int64_t> firstRegisters, int64_t rowAlignment,
                       Check check) {
  int64_t numWarps = int64_t(1) << map.warpOffsets.size();
  for (int64_t warp = 0; warp < numWarps; ++warp) {
    int64_t warpBase = xorOfBits(map.warpOffsets, warp);
    for (int64_t first : firstRegisters) {
      int64_t rowAddress[4][8];
      for (int64_t lane = 0; lane < 32; ++lane) {
        int64_t address = xorOfBits(laneOffsets, lane) ^ warpBase ^
                          map.registerOffsets[first];
        EXPECT_EQ(address % rowAlignment, 0) << "rows start 16-byte aligned";
        rowAddress[lane / 8][lane % 8] = address;
      }
      for (int64_t lane = 0; lane < 32; ++lane)
        check(warp, first, rowAddress, lane,
              xorOfBits(map.laneOffsets, lane) ^ warpBase);
    }
  }
}

} // namespace tile
} // namespace mlir

#endif // TILE_UNITTEST_ANALYSIS_MATRIXLANES_H
