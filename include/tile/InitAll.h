//===- InitAll.h - Register tile's dialects and passes ----------*- C++ -*-===//

#ifndef TILE_INITALL_H
#define TILE_INITALL_H

namespace mlir {
class DialectRegistry;

namespace tile {

/// Registers the Tile dialect and every upstream dialect tile IR may contain.
void registerAllDialects(DialectRegistry &registry);

/// Registers tile's passes and the upstream passes tile-opt exposes.
void registerAllPasses();

} // namespace tile
} // namespace mlir

#endif // TILE_INITALL_H
