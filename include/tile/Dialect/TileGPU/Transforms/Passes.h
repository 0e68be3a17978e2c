//===- Passes.h - TileGPU transformations -----------------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
#define TILE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H

#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tilegpu {

#define GEN_PASS_DECL
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"

} // namespace tilegpu
} // namespace mlir

#endif // TILE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
