//===- Dialect.h - The Tile dialect -----------------------------*- C++ -*-===//
//
// Block-level tensor programs, as emitted by the Python front end.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_DIALECT_H
#define TILE_DIALECT_TILE_IR_DIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"
#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.h.inc"

namespace mlir {
namespace tile {

/// Memory reached through `!tile.ptr` values.
struct GlobalMemory : public SideEffects::Resource::Base<GlobalMemory> {
  StringRef getName() final { return "<TileGlobalMemory>"; }
};

/// For a pointer, its pointee; for a tensor of pointers, the tensor of the
/// same shape whose elements are the pointees. Other types map to null.
Type getPointeeTypeLike(Type type);

/// i1, or a tensor of i1 with the shape of `type` when it is a tensor.
Type getI1TypeLike(Type type);

/// Number of bits of a scalar element; pointers are 64 bits wide.
unsigned getElementBitWidth(Type type);

/// The fp8 formats tile supports (e4m3fn, e5m2).
bool isFp8(Type type);

/// True when `value` is a constant (or a splat of one) whose elements are
/// all zero; +0.0 and -0.0 both count.
bool isZeroConstant(Value value);

} // namespace tile
} // namespace mlir

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILE_DIALECT_TILE_IR_DIALECT_H
