//===- OccupancyTest.cpp - CTAs per SM and the register cap ---------------===//

#include "tile/Target/Occupancy.h"
#include "tile/Target/PTX.h"

#include <gtest/gtest.h>

using namespace mlir::tile;

namespace {

TEST(OccupancyTest, EachResourceLimits) {
  // 8 warps at 139 registers (allocated as 144): 36864 registers a CTA, one
  // per SM; 96 KiB (+1 KiB reserved) of shared memory fits twice; 256
  // threads fit 8 times.
  Occupancy o = getOccupancy(139, 256, 98304);
  EXPECT_EQ(o.byRegisters, 1);
  EXPECT_EQ(o.bySharedMemory, 2);
  EXPECT_EQ(o.byThreads, 8);
  EXPECT_EQ(o.ctas(), 1);
  // 128 registers: exactly two CTAs' worth.
  EXPECT_EQ(getOccupancy(128, 256, 98304).ctas(), 2);
  // Small kernels stop at 32 CTAs.
  EXPECT_EQ(getOccupancy(16, 32, 0).ctas(), 32);
}

TEST(OccupancyTest, CapFitsOneMoreCTA) {
  // Attention 128x32 blocks on 8 warps: 139 registers hold it to one CTA
  // where shared memory allows two; 128 (8% less) fits two.
  EXPECT_EQ(getOccupancyRegisterCap(139, 256, 98304), 128);
  // Shared memory is what limits: no cap.
  EXPECT_EQ(getOccupancyRegisterCap(174, 256, 163840), std::nullopt);
  // The cap would take more than 10% of the registers: none.
  EXPECT_EQ(getOccupancyRegisterCap(168, 256, 98304), std::nullopt);
  EXPECT_EQ(getOccupancyRegisterCap(168, 256, 98304, /*maxSqueeze=*/0.25), 128);
  // Already within the cap: none.
  EXPECT_EQ(getOccupancyRegisterCap(120, 256, 98304), std::nullopt);
  // 4 warps at 168 registers: 3 CTAs by registers, 2 by shared memory.
  EXPECT_EQ(getOccupancyRegisterCap(168, 128, 114688), std::nullopt);
}

TEST(OccupancyTest, ReadsThePtxasReport) {
  CubinInfo info;
  parsePtxasReport(
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 128 registers, used 1 barriers, 8 bytes "
      "cumulative stack size\n",
      info);
  EXPECT_EQ(info.registers, 128);
  EXPECT_EQ(info.spillStoreBytes, 4);
  EXPECT_FALSE(info.wgmmaSerialized);
  EXPECT_FALSE(info.wgmmaInputsWritten);
  CubinInfo none;
  parsePtxasReport("ptxas info    : 0 bytes gmem\n", none);
  EXPECT_EQ(none.registers, 0);
  EXPECT_EQ(none.spillStoreBytes, 0);
  CubinInfo serialized;
  parsePtxasReport(
      "ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async "
      "instructions are serialized due to non wgmma instructions defining "
      "input registers of a wgmma between start and end of the pipeline "
      "stage in the function 'k'\n"
      "ptxas info    : Used 211 registers, used 1 barriers\n",
      serialized);
  EXPECT_TRUE(serialized.wgmmaSerialized);
  EXPECT_TRUE(serialized.wgmmaInputsWritten);
  EXPECT_EQ(serialized.registers, 211);
  CubinInfo starved;
  parsePtxasReport(
      "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async "
      "instructions are serialized due to insufficient register resources "
      "for the function 'k'\n",
      starved);
  EXPECT_TRUE(starved.wgmmaSerialized);
  EXPECT_FALSE(starved.wgmmaInputsWritten);
}

} // namespace
