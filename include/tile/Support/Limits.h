//===- Limits.h - Launch limits shared by the compiler and Python -*- C++
//-*-===//
//
// One home for a limit that both a pass and the Python API check, so that
// the two never disagree (the API rejects at the call with the argument's
// name; the pass still verifies IR that tile-opt reads). Header-only, no
// MLIR, so the bindings can include it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_LIMITS_H
#define TILE_SUPPORT_LIMITS_H

#include <string_view>

namespace tile {

/// The GPU architectures tile compiles for: sm_80 and later parts that the
/// NVPTX back end of LLVM 22 handles at the PTX version tile emits (8.0).
/// Anything else is refused before a pass runs: LLVM aborts the process on
/// a target it cannot select for (sm_100 needs a newer PTX; "sm_9" is not
/// an architecture).
constexpr const char *kSupportedTargets[] = {"sm_80", "sm_86", "sm_87",
                                             "sm_89", "sm_90", "sm_90a"};

constexpr bool isSupportedTarget(std::string_view target) {
  for (const char *supported : kSupportedTargets)
    if (target == supported)
      return true;
  return false;
}

/// Warps one CTA may have (1024 threads): num_warps is a power of two up to
/// this.
constexpr int kMaxNumWarps = 32;

/// Pipeline depth a loop or a launch may ask for. Triton takes any count,
/// and a pipeline deeper than shared memory holds fails with
/// OutOfResources; so does tile's, checked before its buffers are built
/// (the pipeliner), so this bound only keeps a hostile `tile.num_stages`
/// far from overflowing the stage arithmetic.
constexpr int kMaxNumStages = 1024;

/// The most elements a block may hold: python/tile/language/dtypes.py's
/// TILE_MAX_TENSOR_NUMEL (Triton's TRITON_MAX_TENSOR_NUMEL).
constexpr long long kMaxTensorNumel = 1ll << 20;

/// Registers one thread may hold of a tensor: the largest block spread over
/// a single warp. A layout that repeats a tensor across each thread beyond
/// that (a hostile `sizePerThread`) would unroll into millions of values
/// and exhaust the compiler's memory.
constexpr long long kMaxRegistersPerThread = kMaxTensorNumel / 32;

} // namespace tile

#endif // TILE_SUPPORT_LIMITS_H
