//===- SwapDotOperands.cpp - Computed B operands become wgmma's A ---------===//
//
// A weight-only quantised GEMM loads activations (A) and packed weights,
// unpacks and scales the weights in registers and multiplies: B is made in
// registers. wgmma takes only its A operand from registers, so as written
// B is stored to shared memory in every iteration and each MMA must finish
// before the next store, serialising the loop. The transposed product
//   D^T = B^T * A^T + C^T
// puts the computed tile where wgmma reads registers and the loaded one
// where it reads shared memory (filled ahead by the pipeliner). The
// hand-written kernels of the Marlin/Machete family do this by hand; here
// it is a rewrite:
//
//   tile.dot %a, %b, %c   ->   %bt = tile.trans %b     (N x K)
//                              %at = tile.trans %a     (K x M)
//                              %ct = tile.trans %c     (N x M)
//                              %dt = tile.dot %bt, %at, %ct
//                              %d  = tile.trans %dt    (M x N)
//
// Each transposition keeps every element in its thread (`#tilegpu.permuted`
// layouts): it costs nothing, and tilegpu-remove-layout-conversions then
// moves the register operand's conversion back to the narrowest tile (the
// packed weights) and keeps the accumulator in the transposed mma layout
// across the loop.
//
// Only where it pays off: sm_90a, 16-bit operands (wgmma's register A),
// B computed elementwise from something, A loaded, and a wgmma tiling for
// the N x M product (N >= 64, so a skinny M down to 8 still gets one).
// Also a product with both operands loaded whose M x N has no wgmma tiling
// (M < 64) while N x M has: on mma.sync its loads would not be copied
// ahead; swapped, both are (the weights as a register load).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/Transforms/MmaSelection.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUSWAPDOTOPERANDS
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// A tile the kernel computes elementwise (converts, unpacks, scales).
bool madeInRegisters(Value operand) {
  Operation *def = arrivingOperand(operand).getDefiningOp();
  if (!def || isa<arith::ConstantOp>(def))
    return false;
  StringRef dialect = def->getDialect()->getNamespace();
  return dialect == "arith" || dialect == "math" ||
         isa<FpToFpOp, BitcastOp>(def);
}

/// A tile read from global memory, which the pipeliner can copy ahead.
bool loadedFromMemory(Value operand) {
  Operation *def = arrivingOperand(operand).getDefiningOp();
  return isa_and_nonnull<LoadOp, DescriptorLoadOp>(def);
}

bool paysOff(DotOp dot, int numWarps) {
  auto aType = cast<RankedTensorType>(dot.getA().getType());
  auto bType = cast<RankedTensorType>(dot.getB().getType());
  auto cType = cast<RankedTensorType>(dot.getC().getType());
  Type element = aType.getElementType();
  if (cType.getRank() != 2 || bType.getElementType() != element ||
      !(element.isF16() || element.isBF16()) ||
      !cType.getElementType().isF32())
    return false;
  int64_t M = cType.getDimSize(0), N = cType.getDimSize(1);
  int64_t K = aType.getDimSize(1);
  auto wgmmaFor = [&](int64_t rows, int64_t cols) {
    return static_cast<bool>(pickWgmmaLayout(
        dot.getContext(), rows, cols, K, element, cType.getElementType(),
        dot.getInputPrecision(), numWarps));
  };
  if (!loadedFromMemory(dot.getA()))
    return false;
  // A computed B goes to wgmma's register A; a loaded B swaps only when
  // the product itself has no wgmma tiling (M < 64: a skinny or decode
  // product, on mma.sync otherwise) and the transposed one has.
  if (madeInRegisters(dot.getB()))
    return wgmmaFor(N, M);
  return loadedFromMemory(dot.getB()) && !wgmmaFor(M, N) && wgmmaFor(N, M);
}

/// `tile.trans` of a rank-2 `value`, in the layout that keeps every element
/// in its thread.
Value transposed(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  const int32_t order[] = {1, 0};
  auto encoding = PermutedEncodingAttr::getTransposed(
      cast<DistributedEncoding>(type.getEncoding()), order);
  auto resultType =
      RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                            type.getElementType(), encoding);
  return TransOp::create(b, loc, resultType, value, order);
}

void swapOperands(DotOp dot) {
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  Value bt = transposed(b, loc, dot.getB());
  Value at = transposed(b, loc, dot.getA());
  Value ct = transposed(b, loc, dot.getC());
  auto swapped =
      DotOp::create(b, loc, ct.getType(), bt, at, ct, dot.getInputPrecision(),
                    dot.getMaxNumImpreciseAcc());
  Value back = transposed(b, loc, swapped);
  assert(back.getType() == dot.getType() && "permutations compose back");
  dot.replaceAllUsesWith(back);
  dot.erase();
}

struct SwapDotOperandsPass
    : tilegpu::impl::TileGPUSwapDotOperandsBase<SwapDotOperandsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(module)))
      return signalPassFailure();
    auto target =
        module->getAttrOfType<StringAttr>(TileGPUDialect::getTargetAttrName());
    if (!target || !hasWgmma(target.getValue()))
      return;
    int numWarps = TileGPUDialect::getNumWarps(module);
    SmallVector<DotOp> dots;
    module.walk([&](DotOp dot) {
      if (paysOff(dot, numWarps))
        dots.push_back(dot);
    });
    for (DotOp dot : dots)
      swapOperands(dot);
  }
};

} // namespace
