//===- OptMain.cpp - The tile-opt driver ----------------------------------===//
//
// tile-opt lives in libtile so that the executable is a one-line main: it
// needs no LLVM or MLIR symbols from outside the library.
//
//===----------------------------------------------------------------------===//

#include "tile/API/Compiler.h"
#include "tile/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int ::tile::runTileOpt(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllDialects(registry);
  mlir::tile::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tile-opt: the tile compiler's pass driver\n", registry));
}
