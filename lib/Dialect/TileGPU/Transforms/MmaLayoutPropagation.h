//===- MmaLayoutPropagation.h - Values follow a dot's accumulator layout -===//
//
// Internal to TileGPUTransforms: the layout classification that
// RemoveLayoutConversions' rewrites share with the propagation that runs
// first, and the propagation itself.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_MMALAYOUTPROPAGATION_H
#define TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_MMALAYOUTPROPAGATION_H

#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tilegpu::layouts {

/// Side-effect-free, region-free ops whose tensor operands and results all
/// share one shape: recomputing them in another layout is per element.
bool isElementwise(Operation *op);

/// An mma layout or a slice or permutation of one (a dot's accumulator and
/// its row/column reductions).
bool isMmaLike(Attribute encoding);

/// An mma operand's register layout, or a permutation of one.
bool isDotOperandLike(Attribute encoding);

/// The layout of a tensor whose transposition by `order` has `encoding`.
Attribute untransposed(Attribute encoding, ArrayRef<int32_t> order);

/// The encoding of a ranked tensor value, null for anything else.
Attribute encodingOf(Value value);

/// Moves everything computed from a dot's accumulator into the
/// accumulator's layout (see MmaLayoutPropagation.cpp). True if anything
/// moved.
bool propagateMmaLayouts(ModuleOp module);

} // namespace mlir::tilegpu::layouts

#endif // TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_MMALAYOUTPROPAGATION_H
