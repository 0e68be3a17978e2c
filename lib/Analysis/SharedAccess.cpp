//===- SharedAccess.cpp - Registers to shared-memory offsets --------------===//

#include "tile/Analysis/SharedAccess.h"
#include "tile/Analysis/Allocation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

FailureOr<SharedAccessMap>
mlir::tile::composeAccessMap(RankedTensorType tensorType,
                             MemDescType bufferType) {
  LinearLayout shared = bufferType.getEncoding().toLinearLayout(
      bufferType.getShape(), getElementBitWidth(bufferType.getElementType()));
  auto inverse = shared.invertOffsets();
  if (!inverse)
    return failure();
  LinearLayout dist = getLinearLayout(tensorType);
  auto offsetOf = [&](ArrayRef<int64_t> coords) {
    int64_t offset = 0;
    for (auto [dim, c] : llvm::enumerate(coords))
      for (unsigned bit = 0; (c >> bit) != 0; ++bit)
        if ((c >> bit) & 1)
          offset ^= (*inverse)[dim][bit];
    return offset;
  };
  SharedAccessMap map;
  for (int64_t reg = 0; reg < dist.getNumRegisters(); ++reg)
    map.registerOffsets.push_back(
        offsetOf(dist.applyOne(LinearLayout::Register, reg)));
  for (const LinearLayout::Basis &basis : dist.getBases(LinearLayout::Lane))
    map.laneOffsets.push_back(offsetOf(basis));
  for (const LinearLayout::Basis &basis : dist.getBases(LinearLayout::Warp))
    map.warpOffsets.push_back(offsetOf(basis));

  // The widest run of registers at consecutive offsets that every thread
  // starts at a multiple of its length: up to 16 bytes.
  unsigned bytes = getSharedElementBytes(bufferType.getElementType());
  unsigned vec = 1;
  ArrayRef<LinearLayout::Basis> regBases =
      dist.getBases(LinearLayout::Register);
  for (unsigned bit = 0; bit < regBases.size(); ++bit) {
    unsigned next = vec * 2;
    if (next * bytes > 16 ||
        map.registerOffsets[int64_t(1) << bit] != int64_t(vec))
      break;
    auto aligned = [&](int64_t offset) { return offset % next == 0; };
    bool ok = llvm::all_of(map.laneOffsets, aligned) &&
              llvm::all_of(map.warpOffsets, aligned);
    for (unsigned other = bit + 1; other < regBases.size(); ++other)
      ok = ok && aligned(map.registerOffsets[int64_t(1) << other]);
    if (!ok)
      break;
    vec = next;
  }
  map.vec = vec;
  return map;
}

namespace {
constexpr int64_t kBanks = 32, kBankBytes = 4;

/// The 4-byte words one phase of a warp's shared-memory access touches.
class Phase {
public:
  void touch(int64_t byte, int64_t length) {
    for (int64_t word = byte / kBankBytes;
         word <= (byte + length - 1) / kBankBytes; ++word) {
      wordsPerBank[word % kBanks].insert(word);
      words.insert(word);
    }
  }

  /// Its wavefronts: as many as the most distinct words one bank serves,
  /// and without conflicts, its words spread over the banks.
  void addTo(SharedWavefronts &total) const {
    int64_t most = 0;
    for (auto &entry : wordsPerBank)
      most = std::max<int64_t>(most, entry.second.size());
    total.actual += most;
    total.conflictFree += (int64_t(words.size()) + kBanks - 1) / kBanks;
  }

private:
  llvm::DenseMap<int64_t, llvm::DenseSet<int64_t>> wordsPerBank;
  llvm::DenseSet<int64_t> words;
};

} // namespace

int64_t mlir::tile::xorOfBits(ArrayRef<int64_t> offsets, int64_t index) {
  int64_t result = 0;
  for (auto [bit, offset] : llvm::enumerate(offsets))
    if ((index >> bit) & 1)
      result ^= offset;
  return result;
}

std::optional<TransposedByteMatrices>
mlir::tile::matchTransposedByteMatrices(const SharedAccessMap &map) {
  auto rowStep = [](int64_t offset) { return offset % 16 == 0; };
  // Lanes: bits 0-1 pick the row pair, bits 2-4 the byte pair in a row.
  ArrayRef<int64_t> lanes = map.laneOffsets;
  if (lanes.size() != 5 || !rowStep(lanes[0]) || !rowStep(lanes[1]) ||
      lanes[0] == 0 || lanes[1] == 0 || lanes[2] != 2 || lanes[3] != 4 ||
      lanes[4] != 8 || !llvm::all_of(map.warpOffsets, rowStep))
    return std::nullopt;
  // Registers: one bit is the byte's neighbour; the first three others are
  // the next row of the pair and the second to fourth matrices; the rest
  // count instructions.
  int64_t numRegisters = map.registerOffsets.size();
  if (numRegisters < 16 || !llvm::isPowerOf2_64(numRegisters))
    return std::nullopt;
  std::optional<int64_t> neighbour;
  SmallVector<int64_t> rowBits;
  for (int64_t bit = 1; bit < numRegisters; bit <<= 1) {
    int64_t offset = map.registerOffsets[bit];
    if (offset == 1 && !neighbour)
      neighbour = bit;
    else if (offset != 0 && rowStep(offset))
      rowBits.push_back(bit);
    else
      return std::nullopt;
  }
  if (!neighbour || rowBits.size() < 3)
    return std::nullopt;
  int64_t nextRow = rowBits[0], matrix1 = rowBits[1], matrix2 = rowBits[2];
  TransposedByteMatrices plan;
  plan.laneOffsets = {map.registerOffsets[nextRow], lanes[0], lanes[1],
                      map.registerOffsets[matrix1],
                      map.registerOffsets[matrix2]};
  plan.wordRegisters = {0, matrix1, matrix2, matrix1 | matrix2};
  plan.byteRegisters = {0, *neighbour, nextRow, nextRow | *neighbour};
  int64_t used = *neighbour | nextRow | matrix1 | matrix2;
  for (int64_t reg = 0; reg < numRegisters; ++reg)
    if ((reg & used) == 0)
      plan.firstRegisters.push_back(reg);
  return plan;
}

SharedWavefronts mlir::tile::measureSharedWavefronts(const SharedAccessMap &map,
                                                     unsigned elementBytes,
                                                     unsigned vec) {
  if (vec == 0)
    vec = map.vec;
  constexpr int64_t kLanes = 32;
  int64_t accessBytes = int64_t(vec) * elementBytes;
  int64_t lanesPerPhase =
      std::clamp<int64_t>(kBanks * kBankBytes / accessBytes, 1, kLanes);
  // Lanes past the map's bits repeat the first ones: broadcast copies.
  SharedWavefronts total;
  for (size_t first = 0; first < map.registerOffsets.size(); first += vec) {
    int64_t base = map.registerOffsets[first];
    for (int64_t lanes = 0; lanes < kLanes; lanes += lanesPerPhase) {
      Phase phase;
      for (int64_t lane = lanes; lane < lanes + lanesPerPhase; ++lane)
        phase.touch((base ^ xorOfBits(map.laneOffsets, lane)) * elementBytes,
                    accessBytes);
      phase.addTo(total);
    }
  }
  return total;
}

SharedWavefronts mlir::tile::measureTransposedByteMatricesWavefronts(
    const SharedAccessMap &map, const TransposedByteMatrices &plan) {
  constexpr int64_t kRowBytes = 16;
  SharedWavefronts total;
  for (int64_t first : plan.firstRegisters)
    for (int64_t matrix = 0; matrix < 4; ++matrix) {
      Phase phase;
      for (int64_t row = 0; row < 8; ++row)
        phase.touch(map.registerOffsets[first] ^
                        xorOfBits(plan.laneOffsets, 8 * matrix + row),
                    kRowBytes);
      phase.addTo(total);
    }
  return total;
}

std::optional<TransposedByteMatrices>
mlir::tile::matchMatrixLoads(const SharedAccessMap &map, Type elementType) {
  if (getElementBitWidth(elementType) != 8 ||
      getSharedElementBytes(elementType) != 1)
    return std::nullopt;
  return matchTransposedByteMatrices(map);
}

std::optional<MatrixStores>
mlir::tile::matchMatrixStores(const SharedAccessMap &map, Type elementType) {
  if (getElementBitWidth(elementType) != 16 ||
      getSharedElementBytes(elementType) != 2)
    return std::nullopt;
  // Offsets count 2-byte elements; a row of a matrix is 8 of them.
  auto rowStep = [](int64_t offset) { return offset != 0 && offset % 8 == 0; };
  ArrayRef<int64_t> lanes = map.laneOffsets;
  if (lanes.size() != 5 || !llvm::all_of(map.warpOffsets, [](int64_t offset) {
        return offset % 8 == 0;
      }))
    return std::nullopt;
  // Plain: lane bits 0-1 step along a row, bits 2-4 pick the row.
  // Transposed: bits 0-1 pick the row pair, bits 2-4 step along a row.
  bool plain = lanes[0] == 2 && lanes[1] == 4 && rowStep(lanes[2]) &&
               rowStep(lanes[3]) && rowStep(lanes[4]);
  bool transposed = lanes[2] == 1 && lanes[3] == 2 && lanes[4] == 4 &&
                    rowStep(lanes[0]) && rowStep(lanes[1]);
  if (!plain && !transposed)
    return std::nullopt;
  int64_t numRegisters = map.registerOffsets.size();
  if (numRegisters < 8 || !llvm::isPowerOf2_64(numRegisters))
    return std::nullopt;
  // Registers: one bit pairs a word's halves (plain: the element's
  // neighbour in the row; transposed: the next row), two more pick the
  // second to fourth matrices, the rest count instructions.
  std::optional<int64_t> pair;
  SmallVector<int64_t> rowBits;
  for (int64_t bit = 1; bit < numRegisters; bit <<= 1) {
    int64_t offset = map.registerOffsets[bit];
    if (plain && offset == 1 && !pair)
      pair = bit;
    else if (rowStep(offset))
      rowBits.push_back(bit);
    else
      return std::nullopt;
  }
  if (transposed && !rowBits.empty()) {
    pair = rowBits.front();
    rowBits.erase(rowBits.begin());
  }
  if (!pair || rowBits.size() < 2)
    return std::nullopt;
  ArrayRef<int64_t> reg = map.registerOffsets;
  int64_t matrix1 = rowBits[0], matrix2 = rowBits[1];
  MatrixStores plan;
  plan.transposed = transposed;
  plan.pairRegister = *pair;
  if (plain)
    plan.laneOffsets = {lanes[2], lanes[3], lanes[4], reg[matrix1],
                        reg[matrix2]};
  else
    plan.laneOffsets = {reg[*pair], lanes[0], lanes[1], reg[matrix1],
                        reg[matrix2]};
  plan.wordRegisters = {0, matrix1, matrix2, matrix1 | matrix2};
  int64_t used = *pair | matrix1 | matrix2;
  for (int64_t r = 0; r < numRegisters; ++r)
    if ((r & used) == 0)
      plan.firstRegisters.push_back(r);
  return plan;
}

SharedWavefronts mlir::tile::measureLoadWavefronts(const SharedAccessMap &map,
                                                   Type elementType) {
  if (std::optional<TransposedByteMatrices> plan =
          matchMatrixLoads(map, elementType))
    return measureTransposedByteMatricesWavefronts(map, *plan);
  return measureSharedWavefronts(map, getSharedElementBytes(elementType));
}

/// Integers and floats of at least a byte: what storeTensor/loadTensor
/// move (booleans and pointers take the element-wise path).
static bool isPlainElement(Type type) {
  return (isa<IntegerType>(type) || isa<FloatType>(type)) &&
         getElementBitWidth(type) >= 8;
}

std::optional<MemDescType>
mlir::tile::getConversionScratchLayout(RankedTensorType srcType,
                                       RankedTensorType dstType) {
  if (!isPlainElement(dstType.getElementType()) || dstType.getRank() != 2)
    return std::nullopt;
  LinearLayout layout = getLinearLayout(dstType);
  unsigned rank = dstType.getRank();
  unsigned fast = layout.getFastestDim().value_or(rank - 1);
  SmallVector<unsigned> order{fast};
  for (int d = rank - 1; d >= 0; --d)
    if (unsigned(d) != fast)
      order.push_back(d);
  int64_t bytes = getSharedElementBytes(dstType.getElementType());
  int64_t rowLength = dstType.getShape()[fast];
  int64_t vec = std::min<int64_t>(layout.getContiguousRegisters(fast),
                                  std::max<int64_t>(1, 16 / bytes));
  vec = std::min(vec, rowLength);
  unsigned perPhase = std::max<int64_t>(1, 128 / (rowLength * bytes));
  unsigned maxPhase =
      std::max<int64_t>(1, std::min(128 / (vec * bytes), rowLength / vec));
  auto encoding = SharedEncodingAttr::get(dstType.getContext(), vec, perPhase,
                                          maxPhase, order);
  // Valid by construction: power-of-two dims (distributed tensors) and
  // vec * maxPhase within a row.
  auto type =
      MemDescType::get(dstType.getContext(), dstType.getShape(),
                       dstType.getElementType(), cast<SharedLayout>(encoding));
  if (failed(composeAccessMap(srcType, type)) ||
      failed(composeAccessMap(dstType, type)))
    return std::nullopt;
  return type;
}
