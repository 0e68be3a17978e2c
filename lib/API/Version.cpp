//===- Version.cpp - tile::version() --------------------------------------===//
//
// Alone in its file so that a new commit recompiles only this.
//
//===----------------------------------------------------------------------===//

#include "tile/API/Compiler.h"

#include "tile/API/Version.inc"

const char *tile::version() { return TILE_VERSION_STRING; }
