//===- InitAll.cpp - Register tile's dialects and passes ------------------===//

#include "tile/InitAll.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::tile::registerAllDialects(DialectRegistry &registry) {
  registry.insert<TileDialect, tilegpu::TileGPUDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect>();
}

void mlir::tile::registerAllPasses() {
  // canonicalize, cse, inline, sccp, symbol-dce, ...
  registerTransformsPasses();
  registerTileConversionPasses();
  tilegpu::registerTileGPUPasses();
}
