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

namespace {

/// How a conversion to `type` is done by bits: the float's width and
/// mantissa bits, or none for other float types.
std::optional<std::pair<unsigned, unsigned>> magicOf(FloatType type) {
  if (type.isBF16() || type.isF16() || type.isF32())
    return std::make_pair(type.getWidth(), type.getFPMantissaWidth() - 1);
  return std::nullopt;
}

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
  std::optional<std::pair<unsigned, unsigned>> magic = magicOf(floatType);
  if (!magic)
    return;
  auto [width, p] = *magic;
  int64_t lo, hi;
  if (isSigned) {
    lo = range.smin().getSExtValue();
    hi = range.smax().getSExtValue();
  } else {
    lo = range.umin().getZExtValue();
    hi = range.umax().getZExtValue();
  }
  // u = v - min must fit the mantissa, and v itself must be exact.
  int64_t limit = int64_t(1) << p;
  if (hi - lo >= limit || lo < -limit || hi > limit)
    return;
  // The offset 2^p - min, exactly representable in the float type.
  APFloat offset(static_cast<double>(limit - lo));
  bool lost = false;
  offset.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                 &lost);
  if (lost)
    return;

  OpBuilder b(op);
  Location loc = op->getLoc();
  Type inType = input.getType();
  // bits = bits(2^p) | (v - min), computed in the float's width and
  // masked to the bits u needs: the mask is a no-op given the range, but it
  // tells LLVM which bits of v matter, so that it drops the shifts that
  // isolated them. For a full signed b-bit range, v - min is the flip of
  // bit b-1 of those bits, and the or and the flip are one xor with
  // bits(2^p) | 2^(b-1): two ops in all (an and and an xor).
  uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  uint64_t mask = llvm::PowerOf2Ceil(span) - 1;
  auto bitsType = b.getIntegerType(width);
  Type bitsLike = withElement(inType, bitsType);
  auto bitsConstant = [&](const APInt &value) {
    return constantLike(b, loc, bitsLike, b.getIntegerAttr(bitsType, value));
  };
  APFloat base(static_cast<double>(limit));
  base.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
               &lost);
  APInt magicBits = base.bitcastToAPInt();
  Value v = input;
  if (intType.getWidth() < width)
    v = arith::ExtUIOp::create(b, loc, bitsLike, v);
  else if (intType.getWidth() > width)
    v = arith::TruncIOp::create(b, loc, bitsLike, v);
  Value bits;
  bool signedField = lo < 0 && lo == -static_cast<int64_t>((mask + 1) / 2);
  if (signedField) {
    Value field = arith::AndIOp::create(b, loc, v,
                                        bitsConstant(APInt(width, mask)));
    bits = arith::XOrIOp::create(
        b, loc, field, bitsConstant(magicBits | APInt(width, -lo)));
  } else {
    if (lo != 0)
      v = arith::SubIOp::create(b, loc, v,
                                bitsConstant(APInt(width, lo, true)));
    Value field = arith::AndIOp::create(b, loc, v,
                                        bitsConstant(APInt(width, mask)));
    bits = arith::OrIOp::create(b, loc, field, bitsConstant(magicBits));
  }
  Value shifted = arith::BitcastOp::create(
      b, loc, op->getResult(0).getType(), bits);
  Value result = arith::SubFOp::create(
      b, loc, shifted,
      constantLike(b, loc, op->getResult(0).getType(),
                   b.getFloatAttr(floatType, offset)));
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

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
