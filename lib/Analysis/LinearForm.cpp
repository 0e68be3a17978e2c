//===- LinearForm.cpp - Integer scalars as linear forms over SSA values ---===//

#include "tile/Analysis/LinearForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

std::optional<LinearForm>
LinearForm::of(Value value,
               const llvm::SmallDenseMap<Value, LinearForm> &substitute) {
  auto type = dyn_cast<IntegerType>(value.getType());
  if (!type || type.getWidth() > 64)
    return std::nullopt;
  return build(value, type.getWidth(), substitute, /*depth=*/0);
}

std::optional<LinearForm> LinearForm::of(Value value) {
  return of(value, llvm::SmallDenseMap<Value, LinearForm>());
}

LinearForm LinearForm::constant(unsigned width, int64_t value) {
  LinearForm form(width);
  form.offset = form.wrap(value);
  return form;
}

LinearForm LinearForm::term(Value value, unsigned width) {
  LinearForm form(width);
  form.coefficients[value.getAsOpaquePointer()] = 1;
  return form;
}

LinearForm LinearForm::plus(const LinearForm &other, int64_t scale) const {
  LinearForm sum = *this;
  for (auto [key, coefficient] : other.coefficients) {
    uint64_t &mine = sum.coefficients[key];
    mine = sum.wrap(mine + coefficient * static_cast<uint64_t>(scale));
    if (mine == 0)
      sum.coefficients.erase(key);
  }
  sum.offset = sum.wrap(sum.offset + other.offset * uint64_t(scale));
  return sum;
}

LinearForm LinearForm::times(int64_t scale) const {
  return LinearForm(width).plus(*this, scale);
}

std::optional<LinearForm>
LinearForm::build(Value value, unsigned width,
                  const llvm::SmallDenseMap<Value, LinearForm> &substitute,
                  unsigned depth) {
  if (auto it = substitute.find(value); it != substitute.end())
    return it->second;
  APInt bits;
  if (matchPattern(value, m_ConstantInt(&bits)))
    return constant(width, bits.getSExtValue());
  Operation *def = value.getDefiningOp();
  // Deep chains are not address arithmetic worth proving equal.
  if (!def || depth > 32 ||
      !isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def))
    return term(value, width);
  auto operand = [&](unsigned i) {
    return build(def->getOperand(i), width, substitute, depth + 1);
  };
  std::optional<LinearForm> lhs = operand(0), rhs = operand(1);
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return lhs->plus(*rhs);
  if (isa<arith::SubIOp>(def))
    return lhs->plus(*rhs, -1);
  // A product of two non-constant forms is not linear: a term of its own.
  if (rhs->isConstant())
    return lhs->times(static_cast<int64_t>(rhs->offset));
  if (lhs->isConstant())
    return rhs->times(static_cast<int64_t>(lhs->offset));
  return term(value, width);
}

uint64_t LinearForm::wrap(uint64_t value) const {
  return width >= 64 ? value : value & ((uint64_t(1) << width) - 1);
}
