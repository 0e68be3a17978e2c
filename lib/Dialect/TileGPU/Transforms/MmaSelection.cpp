//===- MmaSelection.cpp - Which tensor-core instruction a dot gets --------===//

#include "tile/Dialect/TileGPU/Transforms/MmaSelection.h"

#include "tile/Support/Target.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

bool mlir::tilegpu::hasWgmma(StringRef target) { return target == "sm_90a"; }

bool mlir::tilegpu::hasMmaSync(StringRef target) {
  return ::tile::getSmVersion(target) >= 80;
}

MmaEncodingAttr mlir::tilegpu::pickWgmmaLayout(MLIRContext *context,
                                               int64_t M, int64_t N, int64_t K,
                                               Type operand, Type acc,
                                               InputPrecision precision,
                                               int numWarps) {
  if (numWarps % 4 != 0 || M < 64 ||
      !WarpGroupDotOp::supportsTypes(operand, acc, precision))
    return {};
  int64_t instrK = WarpGroupDotOp::getInstrK(operand);
  if (K % instrK != 0)
    return {};
  int64_t groups = numWarps / 4;
  int64_t groupsM = std::min<int64_t>(groups, M / 64);
  int64_t groupsN = groups / groupsM;
  int64_t instrN = std::min<int64_t>(256, N / groupsN);
  if (instrN < 8)
    return {};
  return MmaEncodingAttr::get(context, 3,
                              {unsigned(4 * groupsM), unsigned(groupsN)},
                              {16, unsigned(instrN), unsigned(instrK)});
}

Value mlir::tilegpu::arrivingOperand(Value operand) {
  if (auto convert = operand.getDefiningOp<ConvertLayoutOp>())
    return convert.getSrc();
  return operand;
}
