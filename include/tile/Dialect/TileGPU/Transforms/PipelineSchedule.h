//===- PipelineSchedule.h - How many buffers a pipelined loop gets --*- C++
//-*-===//
//
// The pipeliner's buffer-count policy, apart from the IR so that it can be
// tested on its own. Copies always run `numStages - 1` iterations ahead; the
// question is how many copies of each staged operand that takes:
//
// - A dot that is waited for within its iteration has finished with its
//   buffer when the next iteration starts: `numStages` buffers suffice.
// - A carried async dot (its result only goes to the next iteration, which
//   waits for it there) still reads its buffer during the next iteration,
//   so it wants one buffer more. When that does not fit in `maxShared`, or
//   would leave one CTA per SM where `numStages` buffers leave two or more
//   (a lone CTA has nobody to overlap its non-MMA work with: attention with
//   64-row blocks, for one), 3+ stages keep `numStages` buffers and start
//   each iteration's copies late, once the previous iteration's dots are
//   retired; with 2 stages the carried dots become synchronous instead.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILEGPU_TRANSFORMS_PIPELINESCHEDULE_H
#define TILE_DIALECT_TILEGPU_TRANSFORMS_PIPELINESCHEDULE_H

#include <cstdint>

namespace mlir {
namespace tilegpu {

/// What the buffer-count policy looks at, in bytes where it is a size.
struct PipelineBudget {
  int numStages = 3;
  /// Whether some async dot's result is only carried to the next iteration.
  bool hasCarriedDot = false;
  /// One buffer of every staged operand together.
  int64_t bytesPerStage = 0;
  /// The function's other shared buffers (operands staged once).
  int64_t otherBytes = 0;
  int64_t maxShared = 232448;
  int64_t sharedPerSM = 233472;
};

/// What the policy decides.
struct PipelineSchedule {
  int64_t numBuffers = 0;
  /// Each iteration's copies wait until the previous iteration's dots are
  /// retired, instead of starting at the top of the body.
  bool lateCopies = false;
  /// The carried dots must run synchronously (nothing else is safe).
  bool syncCarriedDots = false;
};

/// Shared memory the driver reserves per CTA on sm_80+.
constexpr int64_t kReservedSharedPerCTA = 1024;

/// CTAs of one SM that `buffers` copies of a stage leave room for.
inline int64_t ctasPerSM(const PipelineBudget &budget, int64_t buffers) {
  return budget.sharedPerSM / (buffers * budget.bytesPerStage +
                               budget.otherBytes + kReservedSharedPerCTA);
}

inline PipelineSchedule choosePipelineSchedule(const PipelineBudget &budget) {
  PipelineSchedule schedule;
  int stages = budget.numStages;
  schedule.numBuffers = stages;
  if (!budget.hasCarriedDot)
    return schedule;
  bool extraFits = (stages + 1) * budget.bytesPerStage <= budget.maxShared;
  bool extraCostsOccupancy = stages >= 3 && ctasPerSM(budget, stages + 1) < 2 &&
                             ctasPerSM(budget, stages) >= 2;
  if (extraFits && !extraCostsOccupancy)
    schedule.numBuffers = stages + 1;
  else if (stages >= 3)
    schedule.lateCopies = true;
  else
    schedule.syncCarriedDots = true;
  return schedule;
}

} // namespace tilegpu
} // namespace mlir

#endif // TILE_DIALECT_TILEGPU_TRANSFORMS_PIPELINESCHEDULE_H
