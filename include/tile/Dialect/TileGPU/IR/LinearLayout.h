//===- LinearLayout.h - Layouts as linear maps over GF(2) -------*- C++ -*-===//
//
// A layout says which (register, lane, warp) of a CTA holds which element of
// a tensor. For every layout tile uses, that map is linear over GF(2): each
// bit of the register, lane and warp index contributes a fixed coordinate
// vector (its *basis*), and the coordinates of an element are the XOR of the
// bases of the bits that are set. Blocked and slice layouts are constructors
// of this one representation, so broadcasting, layout conversion and
// vectorization are questions about bases rather than a list of cases.
//
// Sizes must be powers of two. A zero basis means the bit does not move the
// element: lanes or warps with that bit set hold copies (broadcast).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILEGPU_IR_LINEARLAYOUT_H
#define TILE_DIALECT_TILEGPU_IR_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace tilegpu {

class LinearLayout {
public:
  enum InDim : unsigned { Register = 0, Lane = 1, Warp = 2 };
  static constexpr unsigned kNumInDims = 3;
  using Basis = llvm::SmallVector<int64_t, 4>;

  LinearLayout() = default;
  /// `bases[d][i]` is the coordinate vector of bit i of input dimension d.
  LinearLayout(llvm::ArrayRef<int64_t> shape,
               std::array<llvm::SmallVector<Basis>, kNumInDims> bases);

  /// Triton's blocked layout of a tensor of `shape`.
  static LinearLayout blocked(llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<unsigned> sizePerThread,
                              llvm::ArrayRef<unsigned> threadsPerWarp,
                              llvm::ArrayRef<unsigned> warpsPerCTA,
                              llvm::ArrayRef<unsigned> order);

  /// The accumulator of an mma over a rank-2 tensor. Each warp owns a
  /// 16-row slab of an `instrN`-column instruction tile: register bits are
  /// column 1, row 8 and then columns 8.. instrN/2, lanes are columns 2, 4
  /// and rows 1, 2, 4 (the mma.sync m16n8 and wgmma m64nN fragments agree
  /// on this). Warps stack along M first (`warpsPerCTA[0]`, four per wgmma
  /// warpgroup), then along N; what is left repeats in registers, N
  /// repetitions before M repetitions. `adjacentRows` rotates the four row
  /// bits of each 16-row group (row m becomes 2 (m mod 8) + m / 8): the
  /// register bit then steps one row and the lanes two, four and eight.
  static LinearLayout mmaAccumulator(llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<unsigned> warpsPerCTA,
                                     unsigned instrN,
                                     bool adjacentRows = false);

  /// An mma.sync (m16n8kK) register operand: A (`opIdx` 0, MxK) or B (1,
  /// KxN) for the accumulator `mmaAccumulator(.., warpsPerCTA, 8)`. Each
  /// 32-bit register holds `kWidth` consecutive K elements (2 for 16-bit
  /// types, 4 for 8-bit, 1 for tf32). Warps along the other operand's
  /// dimension hold copies. `adjacentRows` permutes A's rows as
  /// mmaAccumulator's (B has none to permute).
  static LinearLayout mmaOperand(llvm::ArrayRef<int64_t> shape, unsigned opIdx,
                                 llvm::ArrayRef<unsigned> warpsPerCTA,
                                 unsigned kWidth, bool adjacentRows = false);

  /// Shared-memory layouts map an element *offset* in the buffer (the
  /// register dimension; lanes and warps are unused) to coordinates.
  ///
  /// Row-major along `order` with the classic ldmatrix XOR swizzle: in row
  /// r (of the slower dimension) the `vec`-element chunk index is XORed
  /// with (r / perPhase) % maxPhase, so 8 rows read column-wise hit
  /// distinct banks. vec = perPhase = maxPhase = 1 is unswizzled.
  static LinearLayout sharedSwizzled(llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<unsigned> order,
                                     unsigned vec, unsigned perPhase,
                                     unsigned maxPhase);

  /// The layout wgmma and TMA read (rank 2): the contiguous dimension
  /// (`order[0]`) is cut into atoms of `swizzleBytes` (32, 64 or 128)
  /// bytes; each atom column holds every row, `swizzleBytes` apart, and
  /// within it the 16-byte chunk index (address bits 4..) is XORed with
  /// address bits 7.. . Atom columns follow one another.
  static LinearLayout sharedNVMMA(llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<unsigned> order,
                                  unsigned elementBits, unsigned swizzleBytes);

  /// For a bijective shared layout: the offset of coordinate bit `bit` of
  /// output dimension `dim`, for each dim and bit, so that
  /// offset(coords) is the XOR of the entries of coords' set bits.
  /// std::nullopt when the map is not invertible.
  std::optional<llvm::SmallVector<llvm::SmallVector<int64_t>>>
  invertOffsets() const;

  /// This layout with output dimension `dim` removed. Registers that then
  /// hold the same element are merged; lanes and warps keep their copies.
  LinearLayout sliced(unsigned dim) const;

  /// The same map with output dimensions renamed: result dimension i is
  /// this layout's dimension `perm[i]`.
  LinearLayout transposed(llvm::ArrayRef<unsigned> perm) const;

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  llvm::ArrayRef<Basis> getBases(InDim dim) const { return bases[dim]; }
  unsigned getNumBits(InDim dim) const { return bases[dim].size(); }
  int64_t getNumRegisters() const { return int64_t(1) << getNumBits(Register); }
  int64_t getNumLanes() const { return int64_t(1) << getNumBits(Lane); }
  int64_t getNumWarps() const { return int64_t(1) << getNumBits(Warp); }

  /// Coordinates of the element held in register `reg` of lane `lane` of
  /// warp `warp`.
  Basis apply(int64_t reg, int64_t lane, int64_t warp) const;
  /// The same, for one input dimension with the others zero.
  Basis applyOne(InDim dim, int64_t index) const;

  /// Mask of the bits of `dim` whose basis is zero: setting them yields a
  /// copy. A thread is the *owner* of its elements when its lane and warp
  /// have none of these bits set.
  uint64_t getBroadcastMask(InDim dim) const;

  /// For each register of this layout, the register of `other` holding the
  /// element at the same coordinates in the same thread; std::nullopt when
  /// the two layouts place threads differently (data must cross threads).
  std::optional<llvm::SmallVector<int64_t>>
  mapRegistersTo(const LinearLayout &other) const;

  /// The general form: `toOther` maps this layout's coordinates to
  /// `other`'s and must be linear (drop, zero or permute dimensions). Used
  /// for broadcast, expand_dims and trans, which move no data across
  /// threads when the layouts agree on lanes and warps.
  std::optional<llvm::SmallVector<int64_t>> mapRegistersTo(
      const LinearLayout &other,
      llvm::function_ref<Basis(llvm::ArrayRef<int64_t>)> toOther) const;

  /// How many consecutive registers hold consecutive elements along `dim`,
  /// starting at register 0: the widest vector a thread can access.
  unsigned getContiguousRegisters(unsigned dim) const;

  /// The dimension register 1 moves along from register 0: where a
  /// thread's elements are contiguous. None without registers.
  std::optional<unsigned> getFastestDim() const;

  /// For each register, the lowest register of the same thread that holds
  /// the same value of a tensor whose values repeat in aligned blocks of
  /// `constancy[d]` elements along each dimension d (powers of two): a
  /// register bit that only moves within such a block (or not at all)
  /// never changes the value, whatever the lane and warp add.
  llvm::SmallVector<int64_t>
  getRegisterRepresentatives(llvm::ArrayRef<int64_t> constancy) const;

  /// Row-major linear index of `coords` in a tensor of this shape.
  int64_t linearIndex(llvm::ArrayRef<int64_t> coords) const;

  bool operator==(const LinearLayout &other) const {
    return shape == other.shape && bases == other.bases;
  }
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }
  std::string str() const;

private:
  llvm::SmallVector<int64_t, 4> shape;
  std::array<llvm::SmallVector<Basis>, kNumInDims> bases;
};

/// The inverse of a square linear map over GF(2) of `bits` bits, given and
/// returned by its columns (the image of each input bit); std::nullopt when
/// it is singular.
std::optional<llvm::SmallVector<uint64_t>>
invertBitMatrix(llvm::ArrayRef<uint64_t> columns, unsigned bits);

/// A layout conversion too large for one scratch buffer moves its data in
/// rounds: round r holds the elements whose chosen bits of the row-major
/// element index read r. Any choice of bits partitions the tensor into
/// self-contained rounds (both layouts agree on an element's index); the
/// choice only sets the cost. A bit that no lane or warp basis of a layout
/// moves is a register bit there: that side picks each round's registers at
/// compile time. A bit moved by warps splits a round between whole warps; a
/// bit moved by lanes, between threads of a warp.
///
/// `count` index bits (all there are, if fewer) that number the rounds most
/// cheaply, most significant first. A side costs nothing when all the bits
/// are its register bits, more when warps move one, most when lanes do; the
/// choice minimises the two sides' cost, then takes the bits each moves
/// least, then the most significant.
llvm::SmallVector<unsigned> chooseConversionRoundBits(const LinearLayout &src,
                                                      const LinearLayout &dst,
                                                      unsigned count);

/// The round of `layout`'s register `reg` in lane 0 of warp 0: its element's
/// `indexBits` gathered, the first at bit 0. Layouts are linear, so element
/// (reg, lane, warp) is in round getRegisterRound(reg) XOR the round of
/// (0, lane, warp).
int64_t getRegisterRound(const LinearLayout &layout, int64_t reg,
                         llvm::ArrayRef<unsigned> indexBits);

/// Whether a lane or warp basis of `layout` moves one of `indexBits`: then a
/// thread's rounds depend on which thread it is.
bool threadsMoveIndexBits(const LinearLayout &layout,
                          llvm::ArrayRef<unsigned> indexBits);

} // namespace tilegpu
} // namespace mlir

#endif // TILE_DIALECT_TILEGPU_IR_LINEARLAYOUT_H
