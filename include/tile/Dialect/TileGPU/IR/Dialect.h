//===- Dialect.h - The TileGPU dialect --------------------------*- C++ -*-===//
//
// Tile programs whose tensors carry a layout over the CTA's threads.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILEGPU_IR_DIALECT_H
#define TILE_DIALECT_TILEGPU_IR_DIALECT_H

#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/LinearLayout.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "tile/Dialect/TileGPU/IR/TileGPUAttrInterfaces.h.inc"
#include "tile/Dialect/TileGPU/IR/TileGPUDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUTypes.h.inc"

namespace mlir {
namespace tilegpu {

/// The CTA's shared memory.
struct SharedMemory : public SideEffects::Resource::Base<SharedMemory> {
  StringRef getName() final { return "<TileGPUSharedMemory>"; }
};

/// The distributed encoding of a tensor type, or null.
DistributedEncoding getDistributedEncoding(Type type);

/// Emits an error and fails when some tensor in `root` has no distributed
/// layout: the passes after convert-tile-to-tilegpu need one on every tensor.
LogicalResult verifyTensorsHaveLayouts(Operation *root);

/// The linear layout of a tensor type with a distributed encoding.
LinearLayout getLinearLayout(RankedTensorType type);

/// The NVMMA layout TMA copies of `desc`'s blocks use in shared memory
/// (row-major, the swizzle of tile/Support/TMA.h), or null when
/// such blocks cannot be copied: TMA lowering handles rank-2 blocks whose
/// rows are a multiple of 32 bytes, in a multiple of 8 rows.
NVMMASharedEncodingAttr getTMASharedEncoding(tile::TensorDescType desc);

/// Why `desc`'s blocks cannot be copied, for diagnostics.
std::string describeTMALimits(tile::TensorDescType desc);

} // namespace tilegpu
} // namespace mlir

#define GET_OP_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUOps.h.inc"

#endif // TILE_DIALECT_TILEGPU_IR_DIALECT_H
