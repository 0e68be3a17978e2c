//===- Occupancy.h - CTAs per SM from registers and shared memory -*- C++
//-*-===//
//
// How many CTAs of a kernel an sm_90 SM holds at once, from the registers
// per thread ptxas allocated, the threads per CTA and the shared memory per
// CTA; and the register cap that would fit one CTA more where registers,
// not shared memory or threads, are what stops it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_OCCUPANCY_H
#define TILE_TARGET_OCCUPANCY_H

#include <cstdint>
#include <optional>

namespace mlir {
namespace tile {

struct SMLimits {
  int64_t registers = 65536;
  int64_t sharedBytes = 233472;
  /// The driver keeps this much shared memory per CTA.
  int64_t reservedSharedPerCTA = 1024;
  int64_t threads = 2048;
  int64_t ctas = 32;
  /// Registers are allocated per thread in multiples of this.
  int64_t registerGranule = 8;
  int64_t maxRegistersPerThread = 255;
};

/// CTAs per SM allowed by each resource, and the least of them.
struct Occupancy {
  int64_t byRegisters, bySharedMemory, byThreads;
  int64_t ctas() const;
};

Occupancy getOccupancy(int64_t registersPerThread, int64_t threadsPerCTA,
                       int64_t sharedBytesPerCTA, const SMLimits &sm = {});

/// The registers per thread that would let one CTA more share the SM, when
/// registers alone hold it back and the cap takes at most `maxSqueeze`
/// (a fraction) of what the kernel uses now; none otherwise.
std::optional<int64_t> getOccupancyRegisterCap(int64_t registersPerThread,
                                               int64_t threadsPerCTA,
                                               int64_t sharedBytesPerCTA,
                                               double maxSqueeze = 0.1,
                                               const SMLimits &sm = {});

} // namespace tile
} // namespace mlir

#endif // TILE_TARGET_OCCUPANCY_H
