//===- AxisInfo.h - Contiguity, divisibility, constancy ---------*- C++ -*-===//
//
// For every integer or pointer value, per dimension:
//  - contiguity: the length of runs of consecutive values (step 1) along the
//    dimension, starting at multiples of it;
//  - divisibility: the largest power of two dividing the first value of each
//    run (for pointers, in bytes: the alignment);
//  - constancy: the length of runs of equal values.
// These are what decide how wide a vectorised load or store may be. The
// facts come from make_range, splat and constants, the argument attributes
// tile.divisibility / tile.contiguity and tile.hint ops (the kernel's
// tl.multiple_of / max_contiguous / max_constancy, which replace what is
// derived), and propagate through arithmetic and
// addptr. A loop-carried value gets what its initial and yielded values
// share (a fixed point over the loop body). Values the analysis cannot see
// through (loads) get the trivial facts [1, 1, 1].
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_AXISINFO_H
#define TILE_ANALYSIS_AXISINFO_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
namespace scf {
class ForOp;
} // namespace scf
namespace tile {

struct AxisInfo {
  using Vec = SmallVector<int64_t, 4>;
  Vec contiguity, divisibility, constancy;
  /// The value, when every element is the same known constant.
  std::optional<int64_t> constant;

  /// Rank of the value (0-d values use one dimension of size 1).
  unsigned getRank() const { return contiguity.size(); }
  /// Facts that say nothing, for a value of `rank`.
  static AxisInfo unknown(unsigned rank);
  bool operator==(const AxisInfo &o) const {
    return contiguity == o.contiguity && divisibility == o.divisibility &&
           constancy == o.constancy && constant == o.constant;
  }
};

/// Largest power of two dividing `value`, capped; 0 gives the cap.
int64_t highestPowerOf2Divisor(int64_t value);

class AxisInfoAnalysis {
public:
  /// Analyses every value defined in `root`'s regions.
  explicit AxisInfoAnalysis(Operation *root);

  /// The facts about `value`; unknown facts for values not analysed.
  AxisInfo getAxisInfo(Value value) const;

  /// The widest access, in elements, that one thread may make to the
  /// pointer tensor `ptr` along dimension `dim`: limited by contiguity and
  /// by alignment. Not limited by the layout.
  int64_t getPtrVectorLimit(Value ptr, unsigned dim) const;

  /// How many consecutive elements along `dim` share one mask value.
  int64_t getMaskConstancy(Value mask, unsigned dim) const;

private:
  void visitRegion(Region &region);
  void visitFunction(FunctionOpInterface function);
  void visitLoop(scf::ForOp loop);
  void visit(Operation *op);
  llvm::DenseMap<Value, AxisInfo> facts;
};

/// Registers per vector access for a memory op on the pointer tensor `ptr`
/// with `mask` (may be null): limited by the layout, contiguity, alignment,
/// the mask's constancy and 16 bytes.
unsigned vectorWidth(Value ptr, Value mask, const AxisInfoAnalysis &axisInfo);

} // namespace tile
} // namespace mlir

#endif // TILE_ANALYSIS_AXISINFO_H
