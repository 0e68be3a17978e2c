//===- InitAll.cpp - Register tile's dialects and passes ------------------===//

#include "tile/InitAll.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::tile::registerAllDialects(DialectRegistry &registry) {
  registry.insert<TileDialect, tilegpu::TileGPUDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect>();
  // Nested @jit calls are inlined before layouts are assigned.
  func::registerInlinerExtension(registry);
}

void mlir::tile::registerAllPasses() {
  // canonicalize, cse, inline, sccp, symbol-dce, ...
  registerTransformsPasses();
  registerTileConversionPasses();
  tilegpu::registerTileGPUPasses();
  registerPass([] { return createSCFToControlFlowPass(); });
  registerPass([] { return createReconcileUnrealizedCastsPass(); });
}
