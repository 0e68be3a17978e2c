//===- IntToFloatByBits.cpp - Narrow-range int-to-float without I2F -------===//
//
// The float 2^p, p the mantissa width, has a zero mantissa; or-ing an
// integer 0 <= u < 2^p into its low bits gives the float 2^p + u exactly.
// So an integer v known to lie in [min, max], max - min < 2^p, converts as
//
//   u = v - min;  f = bitcast(bits(2^p) | ext(u));  r = f - (2^p - min)
//
// with one integer subtraction (which LLVM merges with the masks and
// shifts that produced v: a signed nibble `(x << 4) >> 4` becomes
// `(x & 15) ^ 8`), one or, and one float subtraction, all full-rate, in
// place of the quarter-rate I2F. Every step is exact, so the result is the
// one sitofp/uitofp rounds to. The bounds come from MLIR's integer range
// analysis.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Dialect/TileGPU/Transforms/IntToFloatByBits.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUINTTOFLOATBYBITS
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// A constant of `type` (a scalar or a tensor of it) shaped like `like`.
Value constantLike(OpBuilder &b, Location loc, Type like, TypedAttr value) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(tensor.clone(value.getType()), value));
  return arith::ConstantOp::create(b, loc, value);
}

Type withElement(Type like, Type element) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return tensor.clone(element);
  return element;
}

/// Rewrites `op` (sitofp or uitofp) by bits when `range` allows it.
void rewriteByBits(Operation *op, const ConstantIntRanges &range,
                   bool isSigned) {
  Value input = op->getOperand(0);
  // Scalars and ranked tensors (tile's IR); not vectors or unranked ones.
  if (isa<ShapedType>(input.getType()) &&
      !isa<RankedTensorType>(input.getType()))
    return;
  auto intType = cast<IntegerType>(getElementTypeOrSelf(input.getType()));
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(op->getResult(0)));
  if (!floatType || intType.getWidth() > 32)
    return;
  int64_t lo, hi;
  if (isSigned) {
    lo = range.smin().getSExtValue();
    hi = range.smax().getSExtValue();
  } else {
    lo = range.umin().getZExtValue();
    hi = range.umax().getZExtValue();
  }
  std::optional<IntToFloatByBits> plan =
      planIntToFloatByBits(lo, hi, floatType.getFloatSemantics());
  if (!plan)
    return;

  OpBuilder b(op);
  Location loc = op->getLoc();
  Type inType = input.getType();
  unsigned width = floatType.getWidth();
  auto bitsType = b.getIntegerType(width);
  Type bitsLike = withElement(inType, bitsType);
  auto bitsConstant = [&](const APInt &value) {
    return constantLike(b, loc, bitsLike, b.getIntegerAttr(bitsType, value));
  };
  Value v = input;
  if (intType.getWidth() < width)
    v = arith::ExtUIOp::create(b, loc, bitsLike, v);
  else if (intType.getWidth() > width)
    v = arith::TruncIOp::create(b, loc, bitsLike, v);
  Value bits;
  if (plan->flip) {
    Value field = arith::AndIOp::create(b, loc, v, bitsConstant(plan->mask));
    bits = arith::XOrIOp::create(b, loc, field, bitsConstant(plan->combine));
  } else {
    if (!plan->low.isZero())
      v = arith::SubIOp::create(b, loc, v, bitsConstant(plan->low));
    Value field = arith::AndIOp::create(b, loc, v, bitsConstant(plan->mask));
    bits = arith::OrIOp::create(b, loc, field, bitsConstant(plan->combine));
  }
  Value shifted = arith::BitcastOp::create(
      b, loc, op->getResult(0).getType(), bits);
  Value result = arith::SubFOp::create(
      b, loc, shifted,
      constantLike(b, loc, op->getResult(0).getType(),
                   b.getFloatAttr(floatType, plan->offset)));
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

} // namespace

std::optional<IntToFloatByBits>
mlir::tilegpu::planIntToFloatByBits(int64_t lo, int64_t hi,
                                    const llvm::fltSemantics &semantics) {
  if (&semantics != &APFloat::BFloat() &&
      &semantics != &APFloat::IEEEhalf() &&
      &semantics != &APFloat::IEEEsingle())
    return std::nullopt;
  unsigned width = APFloat::getSizeInBits(semantics);
  unsigned p = APFloat::semanticsPrecision(semantics) - 1;
  // u = v - lo must fit the mantissa, and v itself must be exact.
  int64_t limit = int64_t(1) << p;
  if (lo > hi || hi - lo >= limit || lo < -limit || hi > limit)
    return std::nullopt;
  bool lost = false;
  APFloat offset(static_cast<double>(limit - lo));
  offset.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
  if (lost)
    return std::nullopt;
  APFloat base(static_cast<double>(limit));
  base.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  uint64_t mask = llvm::PowerOf2Ceil(span) - 1;
  bool flip = lo < 0 && lo == -static_cast<int64_t>((mask + 1) / 2);
  APInt magic = base.bitcastToAPInt();
  return IntToFloatByBits{
      APInt(width, mask), flip, APInt(width, lo, /*isSigned=*/true),
      flip ? magic | APInt(width, -lo) : magic, offset};
}

namespace {

struct IntToFloatByBitsPass
    : tilegpu::impl::TileGPUIntToFloatByBitsBase<IntToFloatByBitsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    DataFlowSolver solver;
    solver.load<dataflow::DeadCodeAnalysis>();
    solver.load<dataflow::SparseConstantPropagation>();
    solver.load<dataflow::IntegerRangeAnalysis>();
    // An optimisation: without ranges, every conversion stays as it is.
    if (failed(solver.initializeAndRun(module)))
      return;
    SmallVector<std::pair<Operation *, ConstantIntRanges>> conversions;
    module.walk([&](Operation *op) {
      if (!isa<arith::SIToFPOp, arith::UIToFPOp>(op))
        return;
      auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(
          op->getOperand(0));
      if (!lattice || lattice->getValue().isUninitialized())
        return;
      conversions.push_back({op, lattice->getValue().getValue()});
    });
    for (auto [op, range] : conversions)
      rewriteByBits(op, range, isa<arith::SIToFPOp>(op));
  }
};

} // namespace
