//===- PipelineScheduleTest.cpp - The pipeliner's buffer-count policy -----===//

#include "tile/Dialect/TileGPU/Transforms/PipelineSchedule.h"

#include <gtest/gtest.h>

using namespace mlir::tilegpu;

namespace {

PipelineBudget carried(int stages, int64_t perStage, int64_t others = 0) {
  PipelineBudget budget;
  budget.numStages = stages;
  budget.hasCarriedDot = true;
  budget.bytesPerStage = perStage;
  budget.otherBytes = others;
  return budget;
}

TEST(PipelineScheduleTest, NoCarriedDotKeepsOneBufferPerStage) {
  PipelineBudget budget;
  budget.numStages = 4;
  // Even a stage too large for any extra buffer changes nothing.
  budget.bytesPerStage = 100000;
  PipelineSchedule s = choosePipelineSchedule(budget);
  EXPECT_EQ(s.numBuffers, 4);
  EXPECT_FALSE(s.lateCopies);
  EXPECT_FALSE(s.syncCarriedDots);
}

TEST(PipelineScheduleTest, CarriedDotGetsAnExtraBufferWhenItFits) {
  // A 128x64 fp16 K tile plus a 64x128 V tile: 32 KiB a stage, 4 buffers
  // fit 232448 bytes and one CTA per SM either way.
  PipelineSchedule s = choosePipelineSchedule(carried(3, 32768, 32768));
  EXPECT_EQ(s.numBuffers, 4);
  EXPECT_FALSE(s.lateCopies);
}

TEST(PipelineScheduleTest, ExtraBufferThatDoesNotFit) {
  // 4 x 64 KiB > 232448: late copies at 3+ stages ...
  PipelineSchedule three = choosePipelineSchedule(carried(3, 65536));
  EXPECT_EQ(three.numBuffers, 3);
  EXPECT_TRUE(three.lateCopies);
  EXPECT_FALSE(three.syncCarriedDots);
  // ... and synchronous carried dots at 2 (no iteration to hide them in).
  PipelineSchedule two = choosePipelineSchedule(carried(2, 80000));
  EXPECT_EQ(two.numBuffers, 2);
  EXPECT_FALSE(two.lateCopies);
  EXPECT_TRUE(two.syncCarriedDots);
}

TEST(PipelineScheduleTest, ExtraBufferThatCostsTheSecondCTA) {
  // 24 KiB a stage and a 16 KiB Q: 3 buffers + Q + 1 KiB reserved =
  // 89 KiB, two CTAs on a 228 KiB SM; 4 buffers = 113 KiB... still two.
  EXPECT_EQ(ctasPerSM(carried(3, 24576, 16384), 4), 2);
  EXPECT_EQ(choosePipelineSchedule(carried(3, 24576, 16384)).numBuffers, 4);
  // 32 KiB a stage: 3 buffers (113 KiB) fit two CTAs, 4 (145 KiB) one.
  PipelineBudget budget = carried(3, 32768, 16384);
  EXPECT_EQ(ctasPerSM(budget, 3), 2);
  EXPECT_EQ(ctasPerSM(budget, 4), 1);
  PipelineSchedule s = choosePipelineSchedule(budget);
  EXPECT_EQ(s.numBuffers, 3);
  EXPECT_TRUE(s.lateCopies);
  // With 2 stages occupancy is not weighed: the extra buffer is taken.
  EXPECT_EQ(choosePipelineSchedule(carried(2, 32768, 16384)).numBuffers, 3);
}

TEST(PipelineScheduleTest, SharedLimitIsInclusive) {
  PipelineBudget budget = carried(3, 1000);
  budget.maxShared = 4000;
  budget.sharedPerSM = 1 << 20;
  EXPECT_EQ(choosePipelineSchedule(budget).numBuffers, 4);
  budget.maxShared = 3999;
  EXPECT_TRUE(choosePipelineSchedule(budget).lateCopies);
}

} // namespace
