//===- IntToFloatByBits.h - The arithmetic of int-to-float by bits -*- C++
//-*-===//
//
// What tilegpu-int-to-float-by-bits emits for one conversion, apart from
// the IR so that its exactness can be checked on every value in unit
// tests: for an integer v known to lie in [lo, hi],
//
//   bits = flip ? (ext(v) & mask) ^ combine
//               : ((ext(v) - lo) & mask) | combine
//   result = bitcast<float>(bits) - offset
//
// with ext the zero extension (or truncation) to the float's width.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILEGPU_TRANSFORMS_INTTOFLOATBYBITS_H
#define TILE_DIALECT_TILEGPU_TRANSFORMS_INTTOFLOATBYBITS_H

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace tilegpu {

struct IntToFloatByBits {
  /// Keeps the bits v - lo needs (a no-op given the range; it lets LLVM
  /// drop the shifts that isolated them).
  llvm::APInt mask;
  /// For a full signed b-bit range (lo = -2^(b-1)): v - lo is the flip of
  /// bit b-1 of the masked bits, folded with the or into one xor.
  bool flip = false;
  /// lo in the float's width (the or form subtracts it first).
  llvm::APInt low;
  /// The bits of 2^p (p the mantissa width), with the flipped bit in the
  /// xor form.
  llvm::APInt combine;
  /// 2^p - lo, exact in the float type.
  llvm::APFloat offset;
};

/// The plan for converting integers in [lo, hi] to the float type of
/// `semantics`, or none when the bits cannot hold them exactly (more than
/// 2^p values, a bound beyond +-2^p, or an inexact offset). Only IEEE-like
/// binary formats with an implicit bit: bf16, f16, f32.
std::optional<IntToFloatByBits>
planIntToFloatByBits(int64_t lo, int64_t hi,
                     const llvm::fltSemantics &semantics);

} // namespace tilegpu
} // namespace mlir

#endif // TILE_DIALECT_TILEGPU_TRANSFORMS_INTTOFLOATBYBITS_H
