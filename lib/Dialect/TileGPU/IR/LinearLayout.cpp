//===- LinearLayout.cpp - Layouts as linear maps over GF(2) ---------------===//

#include "tile/Dialect/TileGPU/IR/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

#include <array>

using namespace mlir::tilegpu;
using llvm::ArrayRef;
using llvm::SmallVector;

LinearLayout::LinearLayout(ArrayRef<int64_t> shape,
                           std::array<SmallVector<Basis>, kNumInDims> bases)
    : shape(shape.begin(), shape.end()), bases(std::move(bases)) {}

static LinearLayout::Basis unitBasis(unsigned rank, unsigned dim,
                                     int64_t value) {
  LinearLayout::Basis basis(rank, 0);
  basis[dim] = value;
  return basis;
}

LinearLayout LinearLayout::blocked(ArrayRef<int64_t> shape,
                                   ArrayRef<unsigned> sizePerThread,
                                   ArrayRef<unsigned> threadsPerWarp,
                                   ArrayRef<unsigned> warpsPerCTA,
                                   ArrayRef<unsigned> order) {
  unsigned rank = shape.size();
  std::array<SmallVector<Basis>, kNumInDims> bases;
  SmallVector<int64_t> covered(rank, 1);
  // A bit adds a basis while the tile is still smaller than the tensor. Past
  // the tensor, a register bit is dropped (it would only duplicate) while a
  // lane or warp bit stays with a zero basis: those threads hold copies.
  auto addBits = [&](InDim in, unsigned dim, unsigned count) {
    for (unsigned i = 0, e = llvm::Log2_32(count); i < e; ++i) {
      if (covered[dim] < shape[dim]) {
        bases[in].push_back(unitBasis(rank, dim, covered[dim]));
        covered[dim] *= 2;
      } else if (in != Register) {
        bases[in].push_back(Basis(rank, 0));
      }
    }
  };
  for (unsigned dim : order)
    addBits(Register, dim, sizePerThread[dim]);
  for (unsigned dim : order)
    addBits(Lane, dim, threadsPerWarp[dim]);
  for (unsigned dim : order)
    addBits(Warp, dim, warpsPerCTA[dim]);
  // A tensor larger than the CTA's tile repeats it in more registers.
  for (unsigned dim : order)
    while (covered[dim] < shape[dim]) {
      bases[Register].push_back(unitBasis(rank, dim, covered[dim]));
      covered[dim] *= 2;
    }
  return LinearLayout(shape, std::move(bases));
}

namespace {
/// Adds bases for a layout whose every basis is one power of two along one
/// dimension. A value past the tensor's extent moves nothing: a register
/// bit is dropped, a lane or warp bit stays with a zero basis (copies).
struct BasisBuilder {
  llvm::ArrayRef<int64_t> shape;
  std::array<SmallVector<LinearLayout::Basis>, LinearLayout::kNumInDims> bases;

  void add(LinearLayout::InDim in, unsigned dim, int64_t value) {
    if (value < shape[dim])
      bases[in].push_back(unitBasis(shape.size(), dim, value));
    else if (in != LinearLayout::Register)
      bases[in].push_back(LinearLayout::Basis(shape.size(), 0));
  }
  void zero(LinearLayout::InDim in) {
    bases[in].push_back(LinearLayout::Basis(shape.size(), 0));
  }
  /// Register bits along `dim` from `from` until the extent is covered.
  void repeat(unsigned dim, int64_t from) {
    for (int64_t v = from; v < shape[dim]; v *= 2)
      add(LinearLayout::Register, dim, v);
  }
  LinearLayout build() { return LinearLayout(shape, std::move(bases)); }
};
} // namespace

namespace {
/// The rows that an mma fragment's register bit and its three lane bits
/// step within a 16-row group: 8 and 1, 2, 4, or with `adjacentRows` (the
/// group's row bits rotated) 1 and 2, 4, 8.
struct FragmentRows {
  int64_t registerRow;
  std::array<int64_t, 3> laneRows;
};

FragmentRows fragmentRows(bool adjacentRows) {
  if (adjacentRows)
    return {1, {2, 4, 8}};
  return {8, {1, 2, 4}};
}
} // namespace

LinearLayout LinearLayout::mmaAccumulator(ArrayRef<int64_t> shape,
                                          ArrayRef<unsigned> warpsPerCTA,
                                          unsigned instrN, bool adjacentRows) {
  FragmentRows rows16 = fragmentRows(adjacentRows);
  BasisBuilder b{shape, {}};
  b.add(Register, 1, 1);
  b.add(Register, 0, rows16.registerRow);
  for (int64_t col = 8; col < instrN; col *= 2)
    b.add(Register, 1, col);
  b.add(Lane, 1, 2);
  b.add(Lane, 1, 4);
  for (int64_t row : rows16.laneRows)
    b.add(Lane, 0, row);
  int64_t rows = 16, cols = instrN;
  for (unsigned i = 0, e = llvm::Log2_32(warpsPerCTA[0]); i < e; ++i, rows *= 2)
    b.add(Warp, 0, rows);
  for (unsigned i = 0, e = llvm::Log2_32(warpsPerCTA[1]); i < e; ++i, cols *= 2)
    b.add(Warp, 1, cols);
  b.repeat(1, cols);
  b.repeat(0, rows);
  return b.build();
}

LinearLayout LinearLayout::mmaOperand(ArrayRef<int64_t> shape, unsigned opIdx,
                                      ArrayRef<unsigned> warpsPerCTA,
                                      unsigned kWidth, bool adjacentRows) {
  // B's fragment rows are N columns of the product: never permuted.
  FragmentRows rows16 = fragmentRows(opIdx == 0 && adjacentRows);
  BasisBuilder b{shape, {}};
  unsigned kDim = opIdx == 0 ? 1 : 0, otherDim = 1 - kDim;
  for (int64_t k = 1; k < kWidth; k *= 2)
    b.add(Register, kDim, k);
  if (opIdx == 0)
    b.add(Register, otherDim, rows16.registerRow);
  b.add(Register, kDim, 4 * kWidth);
  b.add(Lane, kDim, kWidth);
  b.add(Lane, kDim, 2 * kWidth);
  for (int64_t i : rows16.laneRows)
    b.add(Lane, otherDim, i);
  // A is split over the warps along M, B over those along N; the warps
  // along the other dimension need the same operand.
  int64_t other = opIdx == 0 ? 16 : 8;
  for (unsigned w = 0; w < 2; ++w)
    for (unsigned i = 0, e = llvm::Log2_32(warpsPerCTA[w]); i < e; ++i) {
      if (w != opIdx) {
        b.zero(Warp);
        continue;
      }
      b.add(Warp, otherDim, other);
      other *= 2;
    }
  b.repeat(kDim, 8 * kWidth);
  b.repeat(otherDim, other);
  return b.build();
}

LinearLayout LinearLayout::sharedSwizzled(ArrayRef<int64_t> shape,
                                          ArrayRef<unsigned> order,
                                          unsigned vec, unsigned perPhase,
                                          unsigned maxPhase) {
  BasisBuilder b{shape, {}};
  unsigned col = order[0];
  b.repeat(col, 1);
  if (order.size() > 1) {
    unsigned row = order[1];
    for (int64_t r = 1; r < shape[row]; r *= 2) {
      Basis basis = unitBasis(shape.size(), row, r);
      basis[col] = ((r / perPhase) % maxPhase) * vec % shape[col];
      b.bases[Register].push_back(basis);
    }
  }
  // drop_begin past the end of a rank-1 order would walk off it.
  for (unsigned d : order.drop_front(std::min<size_t>(2, order.size())))
    b.repeat(d, 1);
  return b.build();
}

LinearLayout LinearLayout::sharedNVMMA(ArrayRef<int64_t> shape,
                                       ArrayRef<unsigned> order,
                                       unsigned elementBits,
                                       unsigned swizzleBytes) {
  BasisBuilder b{shape, {}};
  unsigned col = order[0], row = order[1];
  int64_t atomCols =
      std::min<int64_t>(swizzleBytes * 8 / elementBits, shape[col]);
  for (int64_t c = 1; c < atomCols; c *= 2)
    b.add(Register, col, c);
  unsigned rowBits = llvm::Log2_32(swizzleBytes);
  unsigned chunkBits = llvm::Log2_32(swizzleBytes / 16);
  for (unsigned j = 0; (int64_t(1) << j) < shape[row]; ++j) {
    Basis basis = unitBasis(shape.size(), row, int64_t(1) << j);
    unsigned addressBit = j + rowBits;
    if (addressBit >= 7 && addressBit < 7 + chunkBits)
      basis[col] = (int64_t(16) << (addressBit - 7)) * 8 / elementBits;
    b.bases[Register].push_back(basis);
  }
  b.repeat(col, atomCols);
  return b.build();
}

std::optional<SmallVector<uint64_t>>
mlir::tilegpu::invertBitMatrix(ArrayRef<uint64_t> columns, unsigned bits) {
  if (columns.size() != bits || bits > 64)
    return std::nullopt;
  // Rows of (image, combination of inputs giving it); Gauss-Jordan.
  SmallVector<std::pair<uint64_t, uint64_t>> rows;
  for (auto [i, column] : llvm::enumerate(columns))
    rows.push_back({column, uint64_t(1) << i});
  for (unsigned bit = 0; bit < bits; ++bit) {
    auto pivot = llvm::find_if(llvm::drop_begin(rows, bit),
                               [&](auto &r) { return (r.first >> bit) & 1; });
    if (pivot == rows.end())
      return std::nullopt;
    std::swap(rows[bit], *pivot);
    for (unsigned i = 0; i < rows.size(); ++i)
      if (i != bit && ((rows[i].first >> bit) & 1)) {
        rows[i].first ^= rows[bit].first;
        rows[i].second ^= rows[bit].second;
      }
  }
  // Row `bit` now maps exactly output bit `bit`.
  SmallVector<uint64_t> inverse;
  for (auto &row : rows)
    inverse.push_back(row.second);
  return inverse;
}

std::optional<SmallVector<SmallVector<int64_t>>>
LinearLayout::invertOffsets() const {
  // Coordinates flatten to one bit vector: dimension 0's bits lowest.
  SmallVector<unsigned> firstBit;
  unsigned totalBits = 0;
  for (int64_t size : shape) {
    firstBit.push_back(totalBits);
    totalBits += llvm::Log2_64(size);
  }
  const SmallVector<Basis> &offsets = bases[Register];
  if (offsets.size() != totalBits || totalBits > 63)
    return std::nullopt;
  SmallVector<uint64_t> images;
  for (const Basis &basis : offsets) {
    uint64_t image = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      image |= uint64_t(basis[d]) << firstBit[d];
    images.push_back(image);
  }
  std::optional<SmallVector<uint64_t>> inverse =
      invertBitMatrix(images, totalBits);
  if (!inverse)
    return std::nullopt;
  SmallVector<SmallVector<int64_t>> result;
  for (unsigned d = 0; d < shape.size(); ++d) {
    SmallVector<int64_t> perBit;
    for (unsigned bit = firstBit[d], e = bit + llvm::Log2_64(shape[d]); bit < e;
         ++bit)
      perBit.push_back(int64_t((*inverse)[bit]));
    result.push_back(std::move(perBit));
  }
  return result;
}

LinearLayout LinearLayout::sliced(unsigned dim) const {
  SmallVector<int64_t> newShape(shape.begin(), shape.end());
  newShape.erase(newShape.begin() + dim);
  std::array<SmallVector<Basis>, kNumInDims> newBases;
  for (unsigned in = 0; in < kNumInDims; ++in) {
    for (const Basis &basis : bases[in]) {
      Basis reduced(basis);
      reduced.erase(reduced.begin() + dim);
      bool isZero = llvm::all_of(reduced, [](int64_t c) { return c == 0; });
      if (in == Register && isZero)
        continue;
      newBases[in].push_back(std::move(reduced));
    }
  }
  return LinearLayout(newShape, std::move(newBases));
}

LinearLayout LinearLayout::transposed(ArrayRef<unsigned> perm) const {
  SmallVector<int64_t> newShape;
  for (unsigned p : perm)
    newShape.push_back(shape[p]);
  std::array<SmallVector<Basis>, kNumInDims> newBases;
  for (unsigned in = 0; in < kNumInDims; ++in)
    for (const Basis &basis : bases[in]) {
      Basis permuted;
      for (unsigned p : perm)
        permuted.push_back(basis[p]);
      newBases[in].push_back(std::move(permuted));
    }
  return LinearLayout(newShape, std::move(newBases));
}

LinearLayout::Basis LinearLayout::applyOne(InDim dim, int64_t index) const {
  Basis coords(shape.size(), 0);
  for (auto [bit, basis] : llvm::enumerate(bases[dim]))
    if (index & (int64_t(1) << bit))
      for (unsigned d = 0; d < coords.size(); ++d)
        coords[d] ^= basis[d];
  return coords;
}

LinearLayout::Basis LinearLayout::apply(int64_t reg, int64_t lane,
                                        int64_t warp) const {
  Basis coords = applyOne(Register, reg);
  Basis l = applyOne(Lane, lane), w = applyOne(Warp, warp);
  for (unsigned d = 0; d < coords.size(); ++d)
    coords[d] ^= l[d] ^ w[d];
  return coords;
}

uint64_t LinearLayout::getBroadcastMask(InDim dim) const {
  uint64_t mask = 0;
  for (auto [bit, basis] : llvm::enumerate(bases[dim]))
    if (llvm::all_of(basis, [](int64_t c) { return c == 0; }))
      mask |= uint64_t(1) << bit;
  return mask;
}

std::optional<SmallVector<int64_t>> LinearLayout::mapRegistersTo(
    const LinearLayout &other,
    llvm::function_ref<Basis(ArrayRef<int64_t>)> toOther) const {
  for (InDim in : {Lane, Warp}) {
    if (getNumBits(in) != other.getNumBits(in))
      return std::nullopt;
    for (auto [mine, theirs] : llvm::zip(bases[in], other.bases[in]))
      if (toOther(mine) != theirs)
        return std::nullopt;
  }
  std::map<SmallVector<int64_t, 4>, int64_t> otherRegister;
  for (int64_t reg = 0; reg < other.getNumRegisters(); ++reg)
    otherRegister.emplace(other.applyOne(Register, reg), reg);
  SmallVector<int64_t> mapping;
  for (int64_t reg = 0; reg < getNumRegisters(); ++reg) {
    auto it = otherRegister.find(toOther(applyOne(Register, reg)));
    if (it == otherRegister.end())
      return std::nullopt;
    mapping.push_back(it->second);
  }
  return mapping;
}

std::optional<SmallVector<int64_t>>
LinearLayout::mapRegistersTo(const LinearLayout &other) const {
  if (shape != other.shape)
    return std::nullopt;
  return mapRegistersTo(other, [](ArrayRef<int64_t> c) { return Basis(c); });
}

unsigned LinearLayout::getContiguousRegisters(unsigned dim) const {
  unsigned count = 1;
  for (const Basis &basis : bases[Register]) {
    if (basis != unitBasis(shape.size(), dim, count))
      break;
    count *= 2;
  }
  return count;
}

std::optional<unsigned> LinearLayout::getFastestDim() const {
  if (bases[Register].empty())
    return std::nullopt;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (bases[Register][0][d] != 0)
      return d;
  return std::nullopt;
}

SmallVector<int64_t>
LinearLayout::getRegisterRepresentatives(ArrayRef<int64_t> constancy) const {
  int64_t redundant = 0;
  for (auto [bit, basis] : llvm::enumerate(bases[Register])) {
    bool withinBlocks = true;
    for (auto [d, offset] : llvm::enumerate(basis))
      withinBlocks &= offset == 0 || (d < constancy.size() &&
                                      llvm::isPowerOf2_64(constancy[d]) &&
                                      offset < constancy[d]);
    if (withinBlocks)
      redundant |= int64_t(1) << bit;
  }
  SmallVector<int64_t> representatives;
  for (int64_t reg = 0; reg < getNumRegisters(); ++reg)
    representatives.push_back(reg & ~redundant);
  return representatives;
}

int64_t LinearLayout::linearIndex(ArrayRef<int64_t> coords) const {
  int64_t index = 0;
  for (auto [c, size] : llvm::zip(coords, shape))
    index = index * size + c;
  return index;
}

std::string LinearLayout::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  const char *names[] = {"register", "lane", "warp"};
  os << "shape [";
  llvm::interleaveComma(shape, os);
  os << "]";
  for (unsigned in = 0; in < kNumInDims; ++in) {
    os << " " << names[in] << ": [";
    llvm::interleaveComma(bases[in], os, [&](const Basis &basis) {
      os << "(";
      llvm::interleaveComma(basis, os);
      os << ")";
    });
    os << "]";
  }
  return text;
}

/// The bits of the row-major index that `basis` sets. Distributed shapes
/// are powers of two, so the index is the concatenation of the
/// coordinates' bits and XOR of bases stays XOR of indices.
static uint64_t indexBitsOf(const LinearLayout &layout,
                            ArrayRef<int64_t> basis) {
  return uint64_t(layout.linearIndex(basis));
}

/// Index bits moved by `layout`'s bases of `dim`.
static uint64_t bitsMovedBy(const LinearLayout &layout,
                            LinearLayout::InDim dim) {
  uint64_t moved = 0;
  for (const LinearLayout::Basis &basis : layout.getBases(dim))
    moved |= indexBitsOf(layout, basis);
  return moved;
}

SmallVector<unsigned>
mlir::tilegpu::chooseConversionRoundBits(const LinearLayout &src,
                                         const LinearLayout &dst,
                                         unsigned count) {
  if (src.getShape() != dst.getShape())
    return {};
  int64_t elements = 1;
  for (int64_t size : src.getShape())
    elements *= size;
  // What a bit costs one side: 0 registers only, 1 warps, 2 lanes.
  struct Side {
    uint64_t lanes, warps;
    int cost(unsigned bit) const {
      return (lanes >> bit) & 1 ? 2 : (warps >> bit) & 1 ? 1 : 0;
    }
  };
  auto sideOf = [](const LinearLayout &layout) {
    return Side{bitsMovedBy(layout, LinearLayout::Lane),
                bitsMovedBy(layout, LinearLayout::Warp)};
  };
  Side srcSide = sideOf(src), dstSide = sideOf(dst);
  struct Candidate {
    int srcCost, dstCost;
    unsigned bit;
  };
  SmallVector<Candidate> candidates;
  for (unsigned bit = 0; (int64_t(1) << bit) < elements; ++bit)
    candidates.push_back({srcSide.cost(bit), dstSide.cost(bit), bit});
  llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
    int costA = a.srcCost + a.dstCost, costB = b.srcCost + b.dstCost;
    return costA != costB ? costA < costB : a.bit > b.bit;
  });
  count = std::min<unsigned>(count, candidates.size());
  // A side pays for its dearest bit, so the choice is the cheapest pair of
  // per-side bounds that admits `count` bits. Among equals, the source side
  // splits first (a store needs no value from the other threads' branch),
  // and two sides split by warps before one splits by lanes.
  static constexpr std::pair<int, int> kBounds[] = {
      {0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {0, 2}, {2, 1}, {1, 2}, {2, 2}};
  for (auto [srcBound, dstBound] : kBounds) {
    SmallVector<unsigned> chosen;
    for (const Candidate &c : candidates)
      if (c.srcCost <= srcBound && c.dstCost <= dstBound &&
          chosen.size() < count)
        chosen.push_back(c.bit);
    if (chosen.size() == count) {
      llvm::sort(chosen, std::greater<unsigned>());
      return chosen;
    }
  }
  llvm_unreachable("the bound 2 + 2 admits every bit");
}

int64_t mlir::tilegpu::getRegisterRound(const LinearLayout &layout,
                                        int64_t reg,
                                        ArrayRef<unsigned> indexBits) {
  uint64_t index = layout.linearIndex(layout.apply(reg, 0, 0));
  int64_t round = 0;
  for (auto [k, bit] : llvm::enumerate(indexBits))
    round |= int64_t((index >> bit) & 1) << k;
  return round;
}

bool mlir::tilegpu::threadsMoveIndexBits(const LinearLayout &layout,
                                         ArrayRef<unsigned> indexBits) {
  uint64_t moved = bitsMovedBy(layout, LinearLayout::Lane) |
                   bitsMovedBy(layout, LinearLayout::Warp);
  return llvm::any_of(indexBits,
                      [&](unsigned bit) { return (moved >> bit) & 1; });
}
