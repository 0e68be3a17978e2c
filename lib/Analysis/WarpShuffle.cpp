//===- WarpShuffle.cpp - Layout conversions inside a warp -----------------===//
//
// Notation: the conversion maps a result (register r, lane l) to the operand
// (register, lane) holding the same element, a GF(2)-linear map with blocks
//   operand register = Arr r ^ Arl l,   operand lane = Alr r ^ All l.
// Shuffling result register r in every lane at once works when All is
// invertible (each lane reads a distinct lane). When it is not (a lane bit
// only moves the element between registers of one thread), round k fills
// register k ^ Q l instead, Q chosen so that C = All ^ Alr Q is invertible:
// lane l then reads lane C l ^ Alr k, and the sender s recovers which l
// reads it, so which register to send, as l = C^-1 (s ^ Alr k).
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/WarpShuffle.h"
#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using tilegpu::LinearLayout;

namespace {

/// A linear map over GF(2) by its columns: the image of each input bit.
struct BitMatrix {
  SmallVector<uint64_t> columns;

  uint64_t apply(uint64_t input) const {
    uint64_t image = 0;
    for (auto [bit, column] : llvm::enumerate(columns))
      if ((input >> bit) & 1)
        image ^= column;
    return image;
  }
};

/// The inverse of the square map `m` of `bits` bits, if it has one.
std::optional<BitMatrix> invert(const BitMatrix &m, unsigned bits) {
  std::optional<SmallVector<uint64_t>> columns =
      tilegpu::invertBitMatrix(m.columns, bits);
  if (!columns)
    return std::nullopt;
  return BitMatrix{std::move(*columns)};
}

bool hasBroadcast(const LinearLayout &layout) {
  for (unsigned dim = 0; dim < LinearLayout::kNumInDims; ++dim)
    if (layout.getBroadcastMask(LinearLayout::InDim(dim)))
      return true;
  return false;
}

/// `m` by rows: for each output bit, the mask of the input bits whose
/// parity gives it (what flipBits reads).
SmallVector<uint64_t> rowMasks(const BitMatrix &m, unsigned outputBits) {
  SmallVector<uint64_t> masks(outputBits, 0);
  for (auto [input, column] : llvm::enumerate(m.columns))
    for (unsigned bit = 0; bit < outputBits; ++bit)
      if ((column >> bit) & 1)
        masks[bit] |= uint64_t(1) << input;
  return masks;
}

} // namespace

int64_t mlir::tile::flipBits(ArrayRef<uint64_t> masks, int64_t lane) {
  int64_t bits = 0;
  for (auto [bit, mask] : llvm::enumerate(masks))
    if (llvm::popcount(uint64_t(lane) & mask) & 1)
      bits |= int64_t(1) << bit;
  return bits;
}

unsigned WarpShufflePlan::getNumSendSelectBits() const {
  return llvm::count_if(sendMasks, [](uint64_t m) { return m != 0; });
}

unsigned WarpShufflePlan::getNumReceiveSelectBits() const {
  return llvm::count_if(receiveMasks, [](uint64_t m) { return m != 0; });
}

std::optional<WarpShufflePlan>
mlir::tile::planWarpShuffle(const LinearLayout &src, const LinearLayout &dst) {
  using In = LinearLayout::InDim;
  if (src.getShape() != dst.getShape() || hasBroadcast(src) ||
      hasBroadcast(dst) || src.getBases(In::Warp) != dst.getBases(In::Warp) ||
      src.getNumLanes() != dst.getNumLanes() ||
      src.getNumRegisters() != dst.getNumRegisters())
    return std::nullopt;
  unsigned regBits = src.getNumBits(In::Register);
  unsigned laneBits = src.getNumBits(In::Lane);
  unsigned warpBits = src.getNumBits(In::Warp);
  // Coordinates flatten to one bit vector, dimension 0's bits lowest.
  SmallVector<unsigned> firstBit;
  unsigned coordBits = 0;
  for (int64_t size : src.getShape()) {
    firstBit.push_back(coordBits);
    coordBits += llvm::Log2_64(size);
  }
  if (coordBits != regBits + laneBits + warpBits || coordBits > 63)
    return std::nullopt;
  auto flatten = [&](ArrayRef<int64_t> coords) {
    uint64_t flat = 0;
    for (auto [d, c] : llvm::enumerate(coords))
      flat |= uint64_t(c) << firstBit[d];
    return flat;
  };
  // The operand layout as a map from (register, lane, warp) bits to
  // coordinate bits, inverted: which operand bits hold a coordinate.
  BitMatrix srcMap;
  for (In dim : {In::Register, In::Lane, In::Warp})
    for (const LinearLayout::Basis &basis : src.getBases(dim))
      srcMap.columns.push_back(flatten(basis));
  std::optional<BitMatrix> whereInSrc = invert(srcMap, coordBits);
  if (!whereInSrc)
    return std::nullopt;
  uint64_t regMask = (uint64_t(1) << regBits) - 1;
  uint64_t laneMask = (uint64_t(1) << laneBits) - 1;
  // The blocks Arr, Alr (columns: result register bits) and Arl, All
  // (columns: result lane bits); no element may change warp.
  BitMatrix arr, alr, arl, all;
  for (In dim : {In::Register, In::Lane}) {
    for (const LinearLayout::Basis &basis : dst.getBases(dim)) {
      uint64_t at = whereInSrc->apply(flatten(basis));
      if (at >> (regBits + laneBits))
        return std::nullopt;
      (dim == In::Register ? arr : arl).columns.push_back(at & regMask);
      (dim == In::Register ? alr : all)
          .columns.push_back((at >> regBits) & laneMask);
    }
  }
  // Q, column by column: the fewest register bits that keep C's columns
  // independent (none where All's own column already is).
  SmallVector<uint64_t> candidates;
  for (uint64_t q = 0; q <= regMask; ++q)
    candidates.push_back(q);
  llvm::stable_sort(candidates, [](uint64_t a, uint64_t b) {
    return llvm::popcount(a) < llvm::popcount(b);
  });
  BitMatrix q, c;
  SmallVector<uint64_t> reduced; // c's columns in echelon form
  auto reduce = [&](uint64_t v) {
    for (uint64_t r : reduced)
      v = std::min(v, v ^ r);
    return v;
  };
  for (uint64_t column : all.columns) {
    bool found = false;
    for (uint64_t candidate : candidates) {
      uint64_t cColumn = column ^ alr.apply(candidate);
      uint64_t rest = reduce(cColumn);
      if (!rest)
        continue;
      reduced.push_back(rest);
      llvm::sort(reduced, std::greater<uint64_t>());
      q.columns.push_back(candidate);
      c.columns.push_back(cColumn);
      found = true;
      break;
    }
    if (!found)
      return std::nullopt;
  }
  std::optional<BitMatrix> cInverse = invert(c, laneBits);
  if (!cInverse)
    return std::nullopt;
  // M = (Arr Q ^ Arl) C^-1: from the sending lane to its register's bits.
  BitMatrix n, m;
  for (auto [qColumn, arlColumn] : llvm::zip(q.columns, arl.columns))
    n.columns.push_back(arr.apply(qColumn) ^ arlColumn);
  for (uint64_t column : cInverse->columns)
    m.columns.push_back(n.apply(column));

  WarpShufflePlan plan;
  for (int64_t k = 0; k <= int64_t(regMask); ++k) {
    uint64_t laneXor = alr.apply(k);
    plan.sourceLaneXor.push_back(laneXor);
    plan.sendBase.push_back(arr.apply(k) ^ m.apply(laneXor));
  }
  plan.sendMasks = rowMasks(m, regBits);
  plan.receiveMasks = rowMasks(q, regBits);
  plan.sourceLaneMasks = rowMasks(c, laneBits);
  return plan;
}

std::optional<WarpShufflePlan>
mlir::tile::planCheapWarpShuffle(const LinearLayout &src,
                                 const LinearLayout &dst, unsigned elementBits,
                                 unsigned maxSelectBits) {
  if (elementBits < 32 || elementBits > 64)
    return std::nullopt;
  std::optional<WarpShufflePlan> plan = planWarpShuffle(src, dst);
  if (!plan || plan->getNumSendSelectBits() + plan->getNumReceiveSelectBits() >
                   maxSelectBits)
    return std::nullopt;
  return plan;
}

std::optional<WarpShufflePlan>
mlir::tile::getConversionShufflePlan(RankedTensorType srcType,
                                     RankedTensorType dstType) {
  if (!tilegpu::getDistributedEncoding(srcType) ||
      !tilegpu::getDistributedEncoding(dstType))
    return std::nullopt;
  return planCheapWarpShuffle(tilegpu::getLinearLayout(srcType),
                              tilegpu::getLinearLayout(dstType),
                              getElementBitWidth(srcType.getElementType()));
}
