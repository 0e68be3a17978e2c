//===- LinearForm.h - Integer scalars as linear forms over SSA values -----===//
//
// An integer scalar written as sum(coefficient * term) + constant, where the
// terms are the values the form does not look through. add, sub and
// multiplication by a constant are ring operations modulo 2^width, so two
// values with equal forms are equal whatever wraps: passes use it to prove
// that two address computations name the same block (the pipeline's load
// one step before a loop's first iteration, say).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_LINEARFORM_H
#define TILE_ANALYSIS_LINEARFORM_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <map>
#include <optional>

namespace mlir {
namespace tile {

class LinearForm {
public:
  explicit LinearForm(unsigned width) : width(width) {}

  /// The form of `value`, an integer scalar of at most 64 bits, looking
  /// through constants, `arith.addi`, `arith.subi` and `arith.muli` with a
  /// constant side; `substitute` values are replaced by the given forms (a
  /// loop's induction variable by its value before the first iteration).
  static std::optional<LinearForm>
  of(Value value, const llvm::SmallDenseMap<Value, LinearForm> &substitute);
  static std::optional<LinearForm> of(Value value);

  static LinearForm constant(unsigned width, int64_t value);
  static LinearForm term(Value value, unsigned width);

  /// this + scale * other.
  LinearForm plus(const LinearForm &other, int64_t scale = 1) const;
  LinearForm times(int64_t scale) const;

  bool operator==(const LinearForm &other) const {
    return width == other.width && offset == other.offset &&
           coefficients == other.coefficients;
  }
  bool operator!=(const LinearForm &other) const { return !(*this == other); }

  /// The constant part, modulo 2^width.
  uint64_t getOffset() const { return offset; }
  /// Whether the form has no term.
  bool isConstant() const { return coefficients.empty(); }

private:
  static std::optional<LinearForm>
  build(Value value, unsigned width,
        const llvm::SmallDenseMap<Value, LinearForm> &substitute,
        unsigned depth);
  uint64_t wrap(uint64_t value) const;

  unsigned width;
  uint64_t offset = 0;
  /// Keyed by the term's opaque pointer: equal forms have equal maps.
  std::map<const void *, uint64_t> coefficients;
};

} // namespace tile
} // namespace mlir

#endif // TILE_ANALYSIS_LINEARFORM_H
