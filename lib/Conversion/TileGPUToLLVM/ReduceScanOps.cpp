//===- ReduceScanOps.cpp - Reductions and scans per thread ----------------===//
//
// A reduction combines in three steps, following the layout's bases along
// the reduced axis: the registers of one thread, then the lanes of a warp
// with butterfly shuffles (one per lane bit), then the warps through shared
// memory (one partial per warp, read back by every thread).
//
// A scan writes the tensor to shared memory, scans each row serially in one
// thread (rows in parallel), and reads the result back: correct for every
// layout, and the place a warp-parallel scan will go.
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
    LinearLayout outLayout = scalarResult ? LinearLayout() : layout.sliced(axis);
    Region &combiner = op.getCombineOp();

    // 1. Within the thread: registers that differ only along the axis.
    auto keyOf = [&](LinearLayout::Basis coords) {
      coords[axis] = 0;
      return coords;
    };
    std::map<LinearLayout::Basis, SmallVector<Value>> partial;
    for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg) {
      SmallVector<Value> values;
      for (unsigned k = 0; k < numOperands; ++k)
        values.push_back(adaptor.getSrcs()[k][reg]);
      auto key = keyOf(layout.applyOne(LinearLayout::Register, reg));
      auto it = partial.find(key);
      if (it == partial.end())
        partial.emplace(key, values);
      else
        it->second = combine(rewriter, combiner, it->second, values);
    }
    // Result registers in the order of the result layout.
    SmallVector<SmallVector<Value>> accs;
    int64_t outRegisters = scalarResult ? 1 : outLayout.getNumRegisters();
    for (int64_t reg = 0; reg < outRegisters; ++reg) {
      LinearLayout::Basis key(layout.getRank(), 0);
      if (!scalarResult) {
        LinearLayout::Basis out = outLayout.applyOne(LinearLayout::Register, reg);
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
    for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Warp)))
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
      for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Lane)))
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

struct ScanPattern : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScanOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
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
      bases.push_back(getSharedPointer(rewriter, loc, op,
                                       i32Constant(rewriter, loc, operandOffset)));
      operandOffset += srcType.getNumElements() * getSharedElementBytes(element);
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
    auto rowLoop = scf::ForOp::create(
        rewriter, loc, tid.linear, i32Constant(rewriter, loc, rows),
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
        acc.push_back(loadShared(rewriter, loc,
                                 slot(rewriter, k, indexAt(rewriter, position(0))),
                                 elements[k]));
      // The serial walk along the row, as a loop carrying the running value.
      auto walk = scf::ForOp::create(rewriter, loc, i32Constant(rewriter, loc, 1),
                                     i32Constant(rewriter, loc, axisLen),
                                     i32Constant(rewriter, loc, 1), acc);
      rewriter.setInsertionPointToStart(walk.getBody());
      Value i = walk.getInductionVar();
      Value pos = reverse ? Value(arith::SubIOp::create(
                                rewriter, loc,
                                i32Constant(rewriter, loc, axisLen - 1), i))
                          : i;
      Value index = arith::AddIOp::create(
          rewriter, loc, rowBase,
          arith::MulIOp::create(rewriter, loc, pos,
                                i32Constant(rewriter, loc, inner)));
      SmallVector<Value> current;
      for (unsigned k = 0; k < numOperands; ++k)
        current.push_back(loadShared(rewriter, loc, slot(rewriter, k, index),
                                     elements[k]));
      SmallVector<Value> next =
          combine(rewriter, op.getCombineOp(), walk.getRegionIterArgs(), current);
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
