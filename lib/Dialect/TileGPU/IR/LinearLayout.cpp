//===- LinearLayout.cpp - Layouts as linear maps over GF(2) ---------------===//

#include "tile/Dialect/TileGPU/IR/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

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
