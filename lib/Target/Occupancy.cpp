//===- Occupancy.cpp - CTAs per SM from registers and shared memory -------===//

#include "tile/Target/Occupancy.h"

#include <algorithm>

using namespace mlir::tile;

static int64_t roundUp(int64_t value, int64_t granule) {
  return (value + granule - 1) / granule * granule;
}

int64_t Occupancy::ctas() const {
  return std::min({byRegisters, bySharedMemory, byThreads});
}

Occupancy mlir::tile::getOccupancy(int64_t registersPerThread,
                                   int64_t threadsPerCTA,
                                   int64_t sharedBytesPerCTA,
                                   const SMLimits &sm) {
  Occupancy occupancy;
  int64_t registers =
      roundUp(std::max<int64_t>(registersPerThread, 1), sm.registerGranule) *
      threadsPerCTA;
  occupancy.byRegisters = std::min(sm.ctas, sm.registers / registers);
  occupancy.bySharedMemory = std::min(
      sm.ctas, sm.sharedBytes / (sharedBytesPerCTA + sm.reservedSharedPerCTA));
  occupancy.byThreads = std::min(sm.ctas, sm.threads / threadsPerCTA);
  return occupancy;
}

std::optional<int64_t> mlir::tile::getOccupancyRegisterCap(
    int64_t registersPerThread, int64_t threadsPerCTA,
    int64_t sharedBytesPerCTA, double maxSqueeze, const SMLimits &sm) {
  Occupancy now =
      getOccupancy(registersPerThread, threadsPerCTA, sharedBytesPerCTA, sm);
  int64_t wanted = now.byRegisters + 1;
  if (now.byRegisters >= std::min(now.bySharedMemory, now.byThreads))
    return std::nullopt;
  int64_t cap = sm.registers / (wanted * threadsPerCTA) / sm.registerGranule *
                sm.registerGranule;
  cap = std::min(cap, sm.maxRegistersPerThread);
  if (cap <= 0 || cap >= registersPerThread ||
      double(registersPerThread - cap) > maxSqueeze * registersPerThread)
    return std::nullopt;
  return cap;
}
