//===- ReduceOps.cpp - Reductions per thread ------------------------------===//
//
// A reduction combines in three steps, following the layout's bases along
// the reduced axis: the registers of one thread, then the lanes of a warp
// with butterfly shuffles (one per lane bit), then the warps through shared
// memory (one partial per warp, read back by every thread).
//
//===----------------------------------------------------------------------===//

#include "CrossWarpExchange.h"
#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

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
          next.push_back(
              applyCombiner(rewriter, combiner, level[i], level[i + 1]));
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
        acc = applyCombiner(rewriter, combiner, acc, other);
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
      Value warpIndex = gatherBits(rewriter, loc, tid.warp, warpAxisBits);
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
      SmallVector<Type> elements;
      for (Value src : op.getSrcs())
        elements.push_back(getElementTypeOrSelf(src.getType()));
      CrossWarpExchange exchange(rewriter, loc, op, *offset, elements,
                                 warps * outputs);
      for (auto [reg, acc] : llvm::enumerate(accs)) {
        Value index = arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, warpIndex,
                                  i32Constant(rewriter, loc, outputs)),
            outIndex[reg]);
        for (unsigned k = 0; k < numOperands; ++k)
          exchange.write(rewriter, k, index, acc[k], writer);
      }
      exchange.publish(rewriter);
      for (auto [reg, acc] : llvm::enumerate(accs)) {
        SmallVector<Value> total;
        for (int64_t w = 0; w < warps; ++w) {
          Value index = arith::AddIOp::create(
              rewriter, loc, i32Constant(rewriter, loc, w * outputs),
              outIndex[reg]);
          SmallVector<Value> values;
          for (unsigned k = 0; k < numOperands; ++k)
            values.push_back(exchange.read(rewriter, k, index));
          total = w == 0 ? values
                         : applyCombiner(rewriter, combiner, total, values);
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

} // namespace

void mlir::tile::populateReducePatterns(ThreadTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ReducePattern>(converter, patterns.getContext());
}
