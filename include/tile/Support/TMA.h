//===- TMA.h - How a descriptor block is laid out and copied ----*- C++ -*-===//
//
// The compiler (which picks the shared layout a TMA copy writes) and the
// runtime (which encodes the CUtensorMap the copy reads) must agree on the
// swizzle and the box; both take them from here. Header-only and free of
// MLIR, and outside the dialect's headers, so that the runtime includes
// nothing of the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_TMA_H
#define TILE_SUPPORT_TMA_H

#include <algorithm>
#include <cstdint>

namespace tile {
namespace tma {

/// The widest NVMMA swizzle (128, 64 or 32 bytes) that divides rows of
/// `rowBytes`; 0 when none does.
inline unsigned getNVMMASwizzleBytes(int64_t rowBytes) {
  for (unsigned swizzle : {128u, 64u, 32u})
    if (rowBytes % swizzle == 0)
      return swizzle;
  return 0;
}

/// Elements of the innermost dimension one TMA copy moves for a block
/// whose rows hold `rowElements` elements of `elementBytes`: one swizzle
/// atom (a copy's rows may not exceed its swizzle span), or the whole row
/// when it has no swizzle.
inline int64_t getTMABoxInner(int64_t rowElements, unsigned elementBytes) {
  unsigned swizzle = getNVMMASwizzleBytes(rowElements * elementBytes);
  if (swizzle == 0)
    return rowElements;
  return std::min<int64_t>(rowElements, swizzle / elementBytes);
}

} // namespace tma
} // namespace tile

#endif // TILE_SUPPORT_TMA_H
