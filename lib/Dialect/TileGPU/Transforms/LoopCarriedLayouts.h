//===- LoopCarriedLayouts.h - Carried values in their converted layouts ---===//
//
// Internal to TileGPUTransforms: the rules of RemoveLayoutConversions that
// change what a loop carries or an scf.if yields (LoopCarriedLayouts.cpp),
// and the per-op recomputation they share with its rewrites.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_LOOPCARRIEDLAYOUTS_H
#define TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_LOOPCARRIEDLAYOUTS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::tilegpu::layouts {

/// `op` recomputed with its tensor results in `encoding`. Operands follow
/// into the same layout, except that an expand_dims operand takes the
/// slice of it.
Operation *cloneInLayout(OpBuilder &b, Operation *op, Attribute encoding);

/// A loop-carried value converted to one layout in the body is carried in
/// that layout. True if the loop changed.
bool carryInConvertedLayout(scf::ForOp loop);

/// A loop-carried tensor converted to several layouts and advanced by one
/// elementwise op is carried in each of them. True if the loop was
/// replaced.
bool carryInEachConvertedLayout(scf::ForOp loop);

/// An scf.if result both branches yield as conversions out of one layout
/// is yielded in that layout. True if the op changed.
bool yieldInSourceLayout(scf::IfOp ifOp);

} // namespace mlir::tilegpu::layouts

#endif // TILE_LIB_DIALECT_TILEGPU_TRANSFORMS_LOOPCARRIEDLAYOUTS_H
