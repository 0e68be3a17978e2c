//===- tile-opt.cpp - The tile compiler's pass driver ---------------------===//

#include "tile/API/Compiler.h"

int main(int argc, char **argv) { return tile::runTileOpt(argc, argv); }
