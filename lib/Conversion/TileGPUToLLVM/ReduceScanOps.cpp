//===- ReduceScanOps.cpp - Reductions and scans per thread ----------------===//
//
// A reduction combines in three steps, following the layout's bases along
// the reduced axis: the registers of one thread, then the lanes of a warp
// with butterfly shuffles (one per lane bit), then the warps through shared
// memory (one partial per warp, read back by every thread).
//
// A scan goes the same three levels when the layout allows (blocked
// layouts do): registers, lanes with shuffles, warps through shared memory,
// then the registers that wrap around the axis. Other layouts write the
// tensor to shared memory and scan each row serially in one thread.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tile/Analysis/Allocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// Applies the combiner region to (lhs..., rhs...).
SmallVector<Value> combine(OpBuilder &b, Region &combiner, ValueRange lhs,
                           ValueRange rhs) {
  Block &block = combiner.front();
  IRMapping mapping;
  unsigned n = lhs.size();
  for (unsigned i = 0; i < n; ++i) {
    mapping.map(block.getArgument(i), lhs[i]);
    mapping.map(block.getArgument(n + i), rhs[i]);
  }
  for (Operation &op : block.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

struct ReducePattern : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    for (Value src : op.getSrcs())
      if (cast<RankedTensorType>(src.getType()).getEncoding() !=
          srcType.getEncoding())
        return op.emitError("reduce operands must share one layout");
    LinearLayout layout = getLinearLayout(srcType);
    unsigned numOperands = op.getSrcs().size();
    bool scalarResult = srcType.getRank() == 1;
    LinearLayout outLayout =
        scalarResult ? LinearLayout() : layout.sliced(axis);
    Region &combiner = op.getCombineOp();

    // 1. Within the thread: registers that differ only along the axis.
    auto keyOf = [&](LinearLayout::Basis coords) {
      coords[axis] = 0;
      return coords;
    };
    std::map<LinearLayout::Basis, SmallVector<SmallVector<Value>>> along;
    for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg) {
      SmallVector<Value> values;
      for (unsigned k = 0; k < numOperands; ++k)
        values.push_back(adaptor.getSrcs()[k][reg]);
      along[keyOf(layout.applyOne(LinearLayout::Register, reg))].push_back(
          values);
    }
    // Neighbours pairwise, level by level: log2(n) dependent combines
    // instead of n - 1 (a 64x128 softmax row max per thread: 5, not 31),
    // in the same left-to-right order, so associativity is all it needs.
    std::map<LinearLayout::Basis, SmallVector<Value>> partial;
    for (auto &[key, level] : along) {
      while (level.size() > 1) {
        SmallVector<SmallVector<Value>> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2)
          next.push_back(combine(rewriter, combiner, level[i], level[i + 1]));
        if (level.size() % 2)
          next.push_back(level.back());
        level = std::move(next);
      }
      partial.emplace(key, level.front());
    }
    // Result registers in the order of the result layout.
    SmallVector<SmallVector<Value>> accs;
    int64_t outRegisters = scalarResult ? 1 : outLayout.getNumRegisters();
    for (int64_t reg = 0; reg < outRegisters; ++reg) {
      LinearLayout::Basis key(layout.getRank(), 0);
      if (!scalarResult) {
        LinearLayout::Basis out =
            outLayout.applyOne(LinearLayout::Register, reg);
        for (unsigned d = 0, o = 0; d < layout.getRank(); ++d)
          key[d] = d == axis ? 0 : out[o++];
      }
      auto it = partial.find(key);
      if (it == partial.end())
        return op.emitError("reduce: layout not understood");
      accs.push_back(it->second);
    }

    // 2. Across the lanes of a warp.
    for (auto [bit, basis] :
         llvm::enumerate(layout.getBases(LinearLayout::Lane))) {
      if (basis[axis] == 0)
        continue;
      for (auto &acc : accs) {
        SmallVector<Value> other;
        for (Value v : acc)
          other.push_back(shuffleXor(rewriter, loc, v, 1 << bit));
        acc = combine(rewriter, combiner, acc, other);
      }
    }

    // 3. Across warps, through shared memory.
    SmallVector<unsigned> warpAxisBits;
    for (auto [bit, basis] :
         llvm::enumerate(layout.getBases(LinearLayout::Warp)))
      if (basis[axis] != 0)
        warpAxisBits.push_back(bit);
    if (!warpAxisBits.empty()) {
      FailureOr<int64_t> offset = getScratchOffset(op);
      if (failed(offset))
        return failure();
      ThreadId tid = getThreadId(rewriter, op);
      int64_t warps = int64_t(1) << warpAxisBits.size();
      int64_t outputs = srcType.getNumElements() / srcType.getShape()[axis];
      // This warp's position along the axis, from its axis bits.
      Value warpIndex = i32Constant(rewriter, loc, 0);
      for (auto [k, bit] : llvm::enumerate(warpAxisBits)) {
        Value set = arith::AndIOp::create(
            rewriter, loc,
            arith::ShRUIOp::create(rewriter, loc, tid.warp,
                                   i32Constant(rewriter, loc, bit)),
            i32Constant(rewriter, loc, 1));
        warpIndex = arith::OrIOp::create(
            rewriter, loc, warpIndex,
            arith::ShLIOp::create(rewriter, loc, set,
                                  i32Constant(rewriter, loc, k)));
      }
      // One writer per warp and output: lanes along the axis hold the same
      // partial after step 2, and broadcast copies hold it too.
      uint64_t laneMask = layout.getBroadcastMask(LinearLayout::Lane);
      for (auto [bit, basis] :
           llvm::enumerate(layout.getBases(LinearLayout::Lane)))
        if (basis[axis] != 0)
          laneMask |= uint64_t(1) << bit;
      Value writer = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(rewriter, loc, tid.lane,
                                i32Constant(rewriter, loc, laneMask)),
          i32Constant(rewriter, loc, 0));
      if (uint64_t warpMask = layout.getBroadcastMask(LinearLayout::Warp))
        writer = arith::AndIOp::create(
            rewriter, loc, writer,
            arith::CmpIOp::create(
                rewriter, loc, arith::CmpIPredicate::eq,
                arith::AndIOp::create(rewriter, loc, tid.warp,
                                      i32Constant(rewriter, loc, warpMask)),
                i32Constant(rewriter, loc, 0)));
      // Output index of each result register in this thread.
      SmallVector<Value> outIndex;
      if (scalarResult) {
        outIndex.push_back(i32Constant(rewriter, loc, 0));
      } else {
        SmallVector<int64_t> outShape(srcType.getShape());
        outShape.erase(outShape.begin() + axis);
        for (auto &coords : emitCoordinates(rewriter, loc, outLayout, tid))
          outIndex.push_back(emitLinearIndex(rewriter, loc, coords, outShape));
      }
      auto ptrType = LLVM::LLVMPointerType::get(getContext(), 3);
      int64_t operandOffset = *offset;
      SmallVector<Value> bases;
      for (unsigned k = 0; k < numOperands; ++k) {
        Type element = getElementTypeOrSelf(op.getSrcs()[k].getType());
        bases.push_back(getSharedPointer(
            rewriter, loc, op, i32Constant(rewriter, loc, operandOffset)));
        operandOffset += warps * outputs * getSharedElementBytes(element);
      }
      auto slot = [&](unsigned k, Value index) -> Value {
        Type storage =
            storageType(getElementTypeOrSelf(op.getSrcs()[k].getType()));
        return LLVM::GEPOp::create(rewriter, loc, ptrType, storage, bases[k],
                                   ValueRange{index});
      };
      for (auto [reg, acc] : llvm::enumerate(accs)) {
        Value index = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, warpIndex,
                                  i32Constant(rewriter, loc, outputs)),
            outIndex[reg]);
        for (unsigned k = 0; k < numOperands; ++k)
          storeShared(rewriter, loc, slot(k, index), acc[k], writer);
      }
      emitBarrier(rewriter, loc);
      for (auto [reg, acc] : llvm::enumerate(accs)) {
        SmallVector<Value> total;
        for (int64_t w = 0; w < warps; ++w) {
          Value index = arith::AddIOp::create(
              rewriter, loc, i32Constant(rewriter, loc, w * outputs),
              outIndex[reg]);
          SmallVector<Value> values;
          for (unsigned k = 0; k < numOperands; ++k)
            values.push_back(
                loadShared(rewriter, loc, slot(k, index),
                           getElementTypeOrSelf(op.getSrcs()[k].getType())));
          total = w == 0 ? values : combine(rewriter, combiner, total, values);
        }
        acc = total;
      }
    }

    SmallVector<SmallVector<Value>> results(numOperands);
    for (auto &acc : accs)
      for (unsigned k = 0; k < numOperands; ++k)
        results[k].push_back(acc[k]);
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

/// How the scan axis sits in a layout, when the parallel scan applies:
/// every basis that moves along the axis moves along it alone, each
/// position bit comes from one basis, and in order of significance they
/// are registers, then lanes, then warps, then registers again (a blocked
/// layout wrapping around the axis).
struct AxisBits {
  SmallVector<unsigned> lowRegisters, lanes, warps, highRegisters;
};

std::optional<AxisBits> splitAxis(const LinearLayout &layout, unsigned axis) {
  struct Bit {
    int64_t value;
    LinearLayout::InDim dim;
    unsigned index;
  };
  SmallVector<Bit> bits;
  for (auto dim :
       {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (auto [i, basis] : llvm::enumerate(layout.getBases(dim))) {
      bool off = false;
      for (unsigned d = 0; d < basis.size(); ++d)
        off |= d != axis && basis[d] != 0;
      if (basis[axis] == 0)
        continue;
      if (off)
        return std::nullopt;
      bits.push_back({basis[axis], dim, static_cast<unsigned>(i)});
    }
  llvm::sort(bits,
             [](const Bit &a, const Bit &b) { return a.value < b.value; });
  if ((int64_t(1) << bits.size()) != layout.getShape()[axis])
    return std::nullopt;
  AxisBits split;
  unsigned phase = 0; // low registers, lanes, warps, high registers
  for (auto [k, bit] : llvm::enumerate(bits)) {
    if (bit.value != int64_t(1) << k)
      return std::nullopt;
    unsigned want = bit.dim == LinearLayout::Lane   ? 1
                    : bit.dim == LinearLayout::Warp ? 2
                    : phase == 0                    ? 0
                                                    : 3;
    if (want < phase)
      return std::nullopt;
    phase = want;
    SmallVector<unsigned> &list = want == 0   ? split.lowRegisters
                                  : want == 1 ? split.lanes
                                  : want == 2 ? split.warps
                                              : split.highRegisters;
    list.push_back(bit.index);
  }
  return split;
}

/// The number formed by bits `bits` of `index` (bit k of the result is bit
/// bits[k] of index).
int64_t gatherBits(int64_t index, ArrayRef<unsigned> bits) {
  int64_t out = 0;
  for (auto [k, bit] : llvm::enumerate(bits))
    out |= ((index >> bit) & 1) << k;
  return out;
}

Value gatherBits(OpBuilder &b, Location loc, Value index,
                 ArrayRef<unsigned> bits) {
  Value out = i32Constant(b, loc, 0);
  for (auto [k, bit] : llvm::enumerate(bits)) {
    Value set = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, index, i32Constant(b, loc, bit)),
        i32Constant(b, loc, 1));
    out = arith::OrIOp::create(
        b, loc, out,
        arith::ShLIOp::create(b, loc, set, i32Constant(b, loc, k)));
  }
  return out;
}

/// `index` with the bits `bits` replaced by those of `field`.
Value scatterBits(OpBuilder &b, Location loc, Value index, Value field,
                  ArrayRef<unsigned> bits) {
  int64_t mask = 0;
  for (unsigned bit : bits)
    mask |= int64_t(1) << bit;
  Value out = arith::AndIOp::create(b, loc, index, i32Constant(b, loc, ~mask));
  for (auto [k, bit] : llvm::enumerate(bits)) {
    Value set = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, field, i32Constant(b, loc, k)),
        i32Constant(b, loc, 1));
    out = arith::OrIOp::create(
        b, loc, out,
        arith::ShLIOp::create(b, loc, set, i32Constant(b, loc, bit)));
  }
  return out;
}

SmallVector<Value> selectValues(OpBuilder &b, Location loc, Value cond,
                                ValueRange ifTrue, ValueRange ifFalse) {
  SmallVector<Value> out;
  for (auto [t, f] : llvm::zip(ifTrue, ifFalse))
    out.push_back(arith::SelectOp::create(b, loc, cond, t, f));
  return out;
}

/// The scan in three levels, like a reduction: each thread scans its
/// registers along the axis, the lanes scan the thread totals with
/// shuffles (Hillis-Steele), the warps exchange their totals through
/// shared memory, and registers that wrap around the axis take the totals
/// of the chunks before them. Combining always puts the earlier (in scan
/// order) value on the left, so the combiner need only be associative.
LogicalResult scanInParallel(ScanOp op, ArrayRef<ValueRange> srcs,
                             const AxisBits &split,
                             ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  unsigned axis = op.getAxis();
  bool reverse = op.getReverse();
  auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
  LinearLayout layout = getLinearLayout(srcType);
  unsigned numOperands = srcs.size();
  Region &combiner = op.getCombineOp();
  ThreadId tid = getThreadId(rewriter, op);

  int64_t lowCount = int64_t(1) << split.lowRegisters.size();
  int64_t laneCount = int64_t(1) << split.lanes.size();
  int64_t warpCount = int64_t(1) << split.warps.size();
  int64_t chunkCount = int64_t(1) << split.highRegisters.size();
  uint64_t axisRegisterMask = 0;
  for (unsigned bit : split.lowRegisters)
    axisRegisterMask |= uint64_t(1) << bit;
  for (unsigned bit : split.highRegisters)
    axisRegisterMask |= uint64_t(1) << bit;

  // values[reg] = the operands' values at register reg.
  SmallVector<SmallVector<Value>> values(layout.getNumRegisters());
  for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg)
    for (unsigned k = 0; k < numOperands; ++k)
      values[reg].push_back(srcs[k][reg]);

  // Groups: registers of one row (same non-axis register bits) and one
  // chunk, in scan order.
  std::map<std::pair<int64_t, int64_t>, SmallVector<int64_t>> groups;
  for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg) {
    int64_t row = reg & ~axisRegisterMask;
    int64_t chunk = gatherBits(reg, split.highRegisters);
    if (reverse)
      chunk = chunkCount - 1 - chunk;
    groups[{row, chunk}].push_back(reg);
  }
  for (auto &[key, regs] : groups) {
    llvm::sort(regs, [&](int64_t a, int64_t b) {
      int64_t pa = gatherBits(a, split.lowRegisters);
      int64_t pb = gatherBits(b, split.lowRegisters);
      return reverse ? pa > pb : pa < pb;
    });
    assert(static_cast<int64_t>(regs.size()) == lowCount);
    (void)lowCount;
  }

  // Where `order` (this lane's or warp's place in scan order) is not the
  // first, `before` goes in front of each register of the group.
  auto prependUnlessFirst = [&](Value order, ValueRange before,
                                ArrayRef<int64_t> regs) {
    Value has = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge,
                                      order, i32Constant(rewriter, loc, 1));
    for (int64_t reg : regs)
      values[reg] = selectValues(
          rewriter, loc, has, combine(rewriter, combiner, before, values[reg]),
          values[reg]);
  };

  // 1. Within the thread.
  std::map<std::pair<int64_t, int64_t>, SmallVector<Value>> totals;
  for (auto &[key, regs] : groups) {
    for (size_t i = 1; i < regs.size(); ++i)
      values[regs[i]] =
          combine(rewriter, combiner, values[regs[i - 1]], values[regs[i]]);
    totals[key] = values[regs.back()];
  }

  // 2. Across the lanes along the axis.
  if (!split.lanes.empty()) {
    Value q = gatherBits(rewriter, loc, tid.lane, split.lanes);
    // This lane's place in scan order.
    Value order =
        reverse
            ? Value(arith::SubIOp::create(
                  rewriter, loc, i32Constant(rewriter, loc, laneCount - 1), q))
            : q;
    // The lane `distance` places earlier in scan order.
    auto earlierLane = [&](int64_t distance) {
      Value field =
          reverse
              ? Value(arith::AddIOp::create(
                    rewriter, loc, q, i32Constant(rewriter, loc, distance)))
              : Value(arith::SubIOp::create(
                    rewriter, loc, q, i32Constant(rewriter, loc, distance)));
      field = arith::AndIOp::create(rewriter, loc, field,
                                    i32Constant(rewriter, loc, laneCount - 1));
      return scatterBits(rewriter, loc, tid.lane, field, split.lanes);
    };
    Value lastLane = scatterBits(
        rewriter, loc, tid.lane,
        i32Constant(rewriter, loc, reverse ? 0 : laneCount - 1), split.lanes);
    for (auto &[key, regs] : groups) {
      SmallVector<Value> running = totals[key];
      for (int64_t distance = 1; distance < laneCount; distance *= 2) {
        Value src = earlierLane(distance);
        SmallVector<Value> earlier;
        for (Value v : running)
          earlier.push_back(shuffleIdx(rewriter, loc, v, src));
        Value has =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sge,
                                  order, i32Constant(rewriter, loc, distance));
        running = selectValues(rewriter, loc, has,
                               combine(rewriter, combiner, earlier, running),
                               running);
      }
      // Everything before this lane, applied to its registers.
      Value src = earlierLane(1);
      SmallVector<Value> before;
      for (Value v : running)
        before.push_back(shuffleIdx(rewriter, loc, v, src));
      prependUnlessFirst(order, before, regs);
      SmallVector<Value> total;
      for (Value v : running)
        total.push_back(shuffleIdx(rewriter, loc, v, lastLane));
      totals[key] = total;
    }
  }

  // 3. Across the warps along the axis, through shared memory.
  if (!split.warps.empty()) {
    FailureOr<int64_t> offset = getScratchOffset(op);
    if (failed(offset))
      return failure();
    auto ptrType = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
    SmallVector<Value> bases;
    SmallVector<Type> elements;
    int64_t operandOffset = *offset;
    for (Value src : op.getSrcs()) {
      Type element = getElementTypeOrSelf(src.getType());
      elements.push_back(element);
      bases.push_back(getSharedPointer(
          rewriter, loc, op, i32Constant(rewriter, loc, operandOffset)));
      operandOffset +=
          srcType.getNumElements() * getSharedElementBytes(element);
    }
    SmallVector<int64_t> rowShape(srcType.getShape());
    rowShape.erase(rowShape.begin() + axis);
    auto coordinates = emitCoordinates(rewriter, loc, layout, tid);
    // Slot of (row, chunk, warp in scan order).
    auto slot = [&](unsigned k, Value row, int64_t chunk, Value warp) {
      Value index = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(
              rewriter, loc,
              arith::AddIOp::create(
                  rewriter, loc,
                  arith::MulIOp::create(rewriter, loc, row,
                                        i32Constant(rewriter, loc, chunkCount)),
                  i32Constant(rewriter, loc, chunk)),
              i32Constant(rewriter, loc, warpCount)),
          warp);
      return LLVM::GEPOp::create(rewriter, loc, ptrType,
                                 storageType(elements[k]), bases[k],
                                 ValueRange{index});
    };
    Value w = gatherBits(rewriter, loc, tid.warp, split.warps);
    Value order =
        reverse
            ? Value(arith::SubIOp::create(
                  rewriter, loc, i32Constant(rewriter, loc, warpCount - 1), w))
            : w;
    // One writer per warp and row: the last lane in scan order, and no
    // broadcast copy.
    Value writer = emitOwnerPredicate(rewriter, loc, layout, tid);
    if (!split.lanes.empty()) {
      Value q = gatherBits(rewriter, loc, tid.lane, split.lanes);
      Value last = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, q,
          i32Constant(rewriter, loc, reverse ? 0 : laneCount - 1));
      writer = writer
                   ? Value(arith::AndIOp::create(rewriter, loc, writer, last))
                   : last;
    }
    std::map<int64_t, Value> rowIndex;
    for (auto &[key, regs] : groups) {
      SmallVector<Value> coords(coordinates[regs.front()]);
      coords.erase(coords.begin() + axis);
      Value row = emitLinearIndex(rewriter, loc, coords, rowShape);
      rowIndex[key.first] = row;
      for (unsigned k = 0; k < numOperands; ++k)
        storeShared(rewriter, loc, slot(k, row, key.second, order),
                    totals[key][k], writer);
    }
    emitBarrier(rewriter, loc);
    for (auto &[key, regs] : groups) {
      Value row = rowIndex[key.first];
      SmallVector<SmallVector<Value>> warpTotals;
      for (int64_t m = 0; m < warpCount; ++m) {
        SmallVector<Value> t;
        for (unsigned k = 0; k < numOperands; ++k)
          t.push_back(loadShared(
              rewriter, loc,
              slot(k, row, key.second, i32Constant(rewriter, loc, m)),
              elements[k]));
        warpTotals.push_back(t);
      }
      // The warps before this one, in scan order.
      SmallVector<Value> before = warpTotals[0];
      for (int64_t m = 1; m < warpCount - 1; ++m) {
        Value take =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                  order, i32Constant(rewriter, loc, m));
        before = selectValues(
            rewriter, loc, take,
            combine(rewriter, combiner, before, warpTotals[m]), before);
      }
      prependUnlessFirst(order, before, regs);
      SmallVector<Value> total = warpTotals[0];
      for (int64_t m = 1; m < warpCount; ++m)
        total = combine(rewriter, combiner, total, warpTotals[m]);
      totals[key] = total;
    }
  }

  // 4. Registers wrapping around the axis: chunk c follows chunks < c.
  if (!split.highRegisters.empty()) {
    std::map<int64_t, SmallVector<Value>> carry;
    for (auto &[key, regs] : groups) {
      auto [row, chunk] = key;
      if (chunk == 0) {
        carry[row] = totals[key];
        continue;
      }
      for (int64_t reg : regs)
        values[reg] = combine(rewriter, combiner, carry[row], values[reg]);
      carry[row] = combine(rewriter, combiner, carry[row], totals[key]);
    }
  }

  SmallVector<SmallVector<Value>> results(numOperands);
  for (auto &regValues : values)
    for (unsigned k = 0; k < numOperands; ++k)
      results[k].push_back(regValues[k]);
  rewriter.replaceOpWithMultiple(op, results);
  return success();
}

struct ScanPattern : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    for (Value src : op.getSrcs())
      if (cast<RankedTensorType>(src.getType()).getEncoding() !=
          cast<RankedTensorType>(op.getSrcs()[0].getType()).getEncoding())
        return op.emitError("scan operands must share one layout");
    if (std::optional<AxisBits> split = splitAxis(
            getLinearLayout(cast<RankedTensorType>(op.getSrcs()[0].getType())),
            op.getAxis()))
      return scanInParallel(op, adaptor.getSrcs(), *split, rewriter);
    // Any other layout: through shared memory, one thread per row.
    Location loc = op.getLoc();
    FailureOr<int64_t> offset = getScratchOffset(op);
    if (failed(offset))
      return failure();
    unsigned axis = op.getAxis();
    auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
    ArrayRef<int64_t> shape = srcType.getShape();
    LinearLayout layout = getLinearLayout(srcType);
    unsigned numOperands = op.getSrcs().size();
    ThreadId tid = getThreadId(rewriter, op);
    auto ptrType = LLVM::LLVMPointerType::get(getContext(), 3);

    SmallVector<Type> elements, storages;
    SmallVector<Value> bases;
    int64_t operandOffset = *offset;
    for (Value src : op.getSrcs()) {
      Type element = getElementTypeOrSelf(src.getType());
      elements.push_back(element);
      storages.push_back(storageType(element));
      bases.push_back(getSharedPointer(
          rewriter, loc, op, i32Constant(rewriter, loc, operandOffset)));
      operandOffset +=
          srcType.getNumElements() * getSharedElementBytes(element);
    }
    auto slot = [&](OpBuilder &b, unsigned k, Value index) -> Value {
      return LLVM::GEPOp::create(b, loc, ptrType, storages[k], bases[k],
                                 ValueRange{index});
    };

    // Write every element at its row-major position.
    Value owner = emitOwnerPredicate(rewriter, loc, layout, tid);
    auto coords = emitCoordinates(rewriter, loc, layout, tid);
    SmallVector<Value> indices;
    for (auto &c : coords)
      indices.push_back(emitLinearIndex(rewriter, loc, c, shape));
    for (auto [reg, index] : llvm::enumerate(indices))
      for (unsigned k = 0; k < numOperands; ++k)
        storeShared(rewriter, loc, slot(rewriter, k, index),
                    adaptor.getSrcs()[k][reg], owner);
    emitBarrier(rewriter, loc);

    // One thread per row scans it in place.
    int64_t axisLen = shape[axis], inner = 1;
    for (unsigned d = axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
    int64_t rows = srcType.getNumElements() / axisLen;
    int64_t threads = int64_t(TileGPUDialect::getNumWarps(op)) *
                      TileGPUDialect::kThreadsPerWarp;
    auto rowLoop = scf::ForOp::create(rewriter, loc, tid.linear,
                                      i32Constant(rewriter, loc, rows),
                                      i32Constant(rewriter, loc, threads));
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(rowLoop.getBody());
      Value row = rowLoop.getInductionVar();
      Value outer = arith::DivUIOp::create(rewriter, loc, row,
                                           i32Constant(rewriter, loc, inner));
      Value in = arith::RemUIOp::create(rewriter, loc, row,
                                        i32Constant(rewriter, loc, inner));
      Value rowBase = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, outer,
                                i32Constant(rewriter, loc, axisLen * inner)),
          in);
      auto indexAt = [&](OpBuilder &b, int64_t step) -> Value {
        return arith::AddIOp::create(b, loc, rowBase,
                                     i32Constant(b, loc, step * inner));
      };
      bool reverse = op.getReverse();
      auto position = [&](int64_t i) { return reverse ? axisLen - 1 - i : i; };
      SmallVector<Value> acc;
      for (unsigned k = 0; k < numOperands; ++k)
        acc.push_back(loadShared(
            rewriter, loc, slot(rewriter, k, indexAt(rewriter, position(0))),
            elements[k]));
      // The serial walk along the row, as a loop carrying the running value.
      auto walk =
          scf::ForOp::create(rewriter, loc, i32Constant(rewriter, loc, 1),
                             i32Constant(rewriter, loc, axisLen),
                             i32Constant(rewriter, loc, 1), acc);
      rewriter.setInsertionPointToStart(walk.getBody());
      Value i = walk.getInductionVar();
      Value pos =
          reverse
              ? Value(arith::SubIOp::create(
                    rewriter, loc, i32Constant(rewriter, loc, axisLen - 1), i))
              : i;
      Value index = arith::AddIOp::create(
          rewriter, loc, rowBase,
          arith::MulIOp::create(rewriter, loc, pos,
                                i32Constant(rewriter, loc, inner)));
      SmallVector<Value> current;
      for (unsigned k = 0; k < numOperands; ++k)
        current.push_back(
            loadShared(rewriter, loc, slot(rewriter, k, index), elements[k]));
      SmallVector<Value> next = combine(rewriter, op.getCombineOp(),
                                        walk.getRegionIterArgs(), current);
      for (unsigned k = 0; k < numOperands; ++k)
        storeShared(rewriter, loc, slot(rewriter, k, index), next[k], Value());
      scf::YieldOp::create(rewriter, loc, next);
    }
    emitBarrier(rewriter, loc);

    SmallVector<SmallVector<Value>> results(numOperands);
    for (Value index : indices)
      for (unsigned k = 0; k < numOperands; ++k)
        results[k].push_back(
            loadShared(rewriter, loc, slot(rewriter, k, index), elements[k]));
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

} // namespace

void mlir::tile::populateReduceScanPatterns(ThreadTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<ReducePattern, ScanPattern>(converter, patterns.getContext());
}
