//===- RegisterLoadBuffer.cpp - The buffer a register load is copied into -===//
//
// A load the loop uses in registers is copied ahead into shared memory and
// read back where it was. Which layout that buffer gets decides the bank
// conflicts of both the copies and the reads; this file chooses it.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/SharedAccess.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

/// The buffer a load used in registers is copied into: row-major in the
/// order of its blocked layout, so that each thread reads back the very
/// vectors its copy wrote (conflict-free, as the global access was
/// coalesced). When the tile is read back in other layouts (`readTypes`:
/// packed weights bound for a dot operand's registers, whose threads read
/// down columns, or a tile read as two dots' operands and as itself), its
/// rows are XOR-swizzled in chunks of the copies' vectors where that takes
/// fewer shared-memory wavefronts, copies and reads together, than the
/// plain rows.
MemDescType
pipeliner::registerLoadBuffer(tile::LoadOp load,
                              ArrayRef<RankedTensorType> readTypes) {
  MLIRContext *context = load.getContext();
  auto type = cast<RankedTensorType>(load.getType());
  ArrayRef<unsigned> order =
      cast<BlockedEncodingAttr>(type.getEncoding()).getOrder();
  auto withEncoding = [&](SharedEncodingAttr encoding) {
    return MemDescType::get(context, type.getShape(), type.getElementType(),
                            encoding);
  };
  MemDescType plain = withEncoding(SharedEncodingAttr::get(context, order));
  FailureOr<SharedAccessMap> plainWrite = composeAccessMap(type, plain);
  if (readTypes.empty() || type.getRank() != 2 || failed(plainWrite))
    return plain;
  unsigned bytes = getSharedElementBytes(type.getElementType());
  unsigned vec = plainWrite->vec;
  auto wavefronts = [&](MemDescType buffer) -> std::optional<int64_t> {
    FailureOr<SharedAccessMap> write = composeAccessMap(type, buffer);
    // A swizzle must not split the copies' vectors.
    if (failed(write) || write->vec != vec)
      return std::nullopt;
    int64_t total = measureSharedWavefronts(*write, bytes).actual;
    for (RankedTensorType readType : readTypes) {
      FailureOr<SharedAccessMap> read = composeAccessMap(readType, buffer);
      if (failed(read))
        return std::nullopt;
      // Read as the lowering reads it (ldmatrix rows for the packed int4
      // weights of a swapped dot).
      total += measureLoadWavefronts(*read, type.getElementType()).actual;
    }
    return total;
  };
  std::optional<int64_t> best = wavefronts(plain);
  if (!best)
    return plain;
  MemDescType chosen = plain;
  int64_t rowLength = type.getDimSize(order[0]);
  int64_t rows = type.getDimSize(order[1]);
  for (unsigned perPhase = 1; perPhase < rows; perPhase *= 2)
    for (unsigned maxPhase = 2;
         maxPhase * vec <= rowLength && perPhase * maxPhase <= rows;
         maxPhase *= 2) {
      MemDescType candidate = withEncoding(
          SharedEncodingAttr::get(context, vec, perPhase, maxPhase, order));
      std::optional<int64_t> cost = wavefronts(candidate);
      if (cost && *cost < *best) {
        best = cost;
        chosen = candidate;
      }
    }
  return chosen;
}
