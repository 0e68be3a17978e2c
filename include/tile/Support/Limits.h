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

namespace tile {

/// Warps one CTA may have (1024 threads): num_warps is a power of two up to
/// this.
constexpr int kMaxNumWarps = 32;

/// Pipeline depth a loop or a launch may ask for. Each stage is a buffer of
/// every staged operand in shared memory, so a few suffice; the bound keeps a
/// hostile `tile.num_stages` from making the pipeliner allocate without end.
constexpr int kMaxNumStages = 16;

} // namespace tile

#endif // TILE_SUPPORT_LIMITS_H
