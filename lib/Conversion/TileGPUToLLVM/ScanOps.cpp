//===- ScanOps.cpp - Scans per thread -------------------------------------===//
//
// A scan goes the same three levels as a reduction when the layout allows
// (blocked layouts do): registers, lanes with shuffles, warps through shared
// memory, then the registers that wrap around the axis. Other layouts write
// the tensor to shared memory and scan each row serially in one thread.
//
//===----------------------------------------------------------------------===//

#include "CrossWarpExchange.h"
#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

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

// The number formed by chosen bits of an index, at compile time or run
// time (CrossWarpExchange.h).
using mlir::tile::gatherBits;

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

/// The place of `position` (of `count`) in scan order: reversed for a
/// reverse scan.
Value scanOrder(OpBuilder &b, Location loc, Value position, int64_t count,
                bool reverse) {
  if (!reverse)
    return position;
  return arith::SubIOp::create(b, loc, i32Constant(b, loc, count - 1),
                               position);
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
          rewriter, loc, has,
          applyCombiner(rewriter, combiner, before, values[reg]), values[reg]);
  };

  // 1. Within the thread.
  std::map<std::pair<int64_t, int64_t>, SmallVector<Value>> totals;
  for (auto &[key, regs] : groups) {
    for (size_t i = 1; i < regs.size(); ++i)
      values[regs[i]] = applyCombiner(rewriter, combiner, values[regs[i - 1]],
                                      values[regs[i]]);
    totals[key] = values[regs.back()];
  }

  // 2. Across the lanes along the axis.
  if (!split.lanes.empty()) {
    Value q = gatherBits(rewriter, loc, tid.lane, split.lanes);
    // This lane's place in scan order.
    Value order = scanOrder(rewriter, loc, q, laneCount, reverse);
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
        running = selectValues(
            rewriter, loc, has,
            applyCombiner(rewriter, combiner, earlier, running), running);
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
    SmallVector<Type> elements;
    for (Value src : op.getSrcs())
      elements.push_back(getElementTypeOrSelf(src.getType()));
    CrossWarpExchange exchange(rewriter, loc, op, *offset, elements,
                               srcType.getNumElements());
    SmallVector<int64_t> rowShape(srcType.getShape());
    rowShape.erase(rowShape.begin() + axis);
    auto coordinates = emitCoordinates(rewriter, loc, layout, tid);
    // Slot index of (row, chunk, warp in scan order).
    auto slot = [&](Value row, int64_t chunk, Value warp) -> Value {
      return arith::AddIOp::create(
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
    };
    Value w = gatherBits(rewriter, loc, tid.warp, split.warps);
    Value order = scanOrder(rewriter, loc, w, warpCount, reverse);
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
        exchange.write(rewriter, k, slot(row, key.second, order),
                       totals[key][k], writer);
    }
    exchange.publish(rewriter);
    for (auto &[key, regs] : groups) {
      Value row = rowIndex[key.first];
      SmallVector<SmallVector<Value>> warpTotals;
      for (int64_t m = 0; m < warpCount; ++m) {
        SmallVector<Value> t;
        for (unsigned k = 0; k < numOperands; ++k)
          t.push_back(exchange.read(
              rewriter, k,
              slot(row, key.second, i32Constant(rewriter, loc, m))));
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
            applyCombiner(rewriter, combiner, before, warpTotals[m]), before);
      }
      prependUnlessFirst(order, before, regs);
      SmallVector<Value> total = warpTotals[0];
      for (int64_t m = 1; m < warpCount; ++m)
        total = applyCombiner(rewriter, combiner, total, warpTotals[m]);
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
        values[reg] =
            applyCombiner(rewriter, combiner, carry[row], values[reg]);
      carry[row] = applyCombiner(rewriter, combiner, carry[row], totals[key]);
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

    SmallVector<Type> elements;
    for (Value src : op.getSrcs())
      elements.push_back(getElementTypeOrSelf(src.getType()));
    CrossWarpExchange exchange(rewriter, loc, op, *offset, elements,
                               srcType.getNumElements());

    // Write every element at its row-major position.
    Value owner = emitOwnerPredicate(rewriter, loc, layout, tid);
    auto coords = emitCoordinates(rewriter, loc, layout, tid);
    SmallVector<Value> indices;
    for (auto &c : coords)
      indices.push_back(emitLinearIndex(rewriter, loc, c, shape));
    for (auto [reg, index] : llvm::enumerate(indices))
      for (unsigned k = 0; k < numOperands; ++k)
        exchange.write(rewriter, k, index, adaptor.getSrcs()[k][reg], owner);
    exchange.publish(rewriter);

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
        acc.push_back(
            exchange.read(rewriter, k, indexAt(rewriter, position(0))));
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
        current.push_back(exchange.read(rewriter, k, index));
      SmallVector<Value> next = applyCombiner(
          rewriter, op.getCombineOp(), walk.getRegionIterArgs(), current);
      for (unsigned k = 0; k < numOperands; ++k)
        exchange.write(rewriter, k, index, next[k], Value());
      scf::YieldOp::create(rewriter, loc, next);
    }
    exchange.publish(rewriter);

    SmallVector<SmallVector<Value>> results(numOperands);
    for (Value index : indices)
      for (unsigned k = 0; k < numOperands; ++k)
        results[k].push_back(exchange.read(rewriter, k, index));
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

} // namespace

void mlir::tile::populateScanPatterns(ThreadTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<ScanPattern>(converter, patterns.getContext());
}
