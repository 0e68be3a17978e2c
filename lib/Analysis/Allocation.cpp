//===- Allocation.cpp - Shared-memory needs and offsets -------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/WarpShuffle.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

unsigned mlir::tile::getSharedElementBytes(Type elementType) {
  return std::max(1u, getElementBitWidth(elementType) / 8);
}

int64_t mlir::tile::getExchangeSlotBytes(int64_t slots, Type elementType) {
  return llvm::alignTo(slots * getSharedElementBytes(elementType), 16);
}

static int64_t tensorBytes(Type type) {
  auto tensor = cast<ShapedType>(type);
  return tensor.getNumElements() *
         getSharedElementBytes(tensor.getElementType());
}

std::optional<SmallVector<int64_t>>
mlir::tile::getRegisterMapping(Operation *op) {
  if (op->getNumOperands() < 1 || op->getNumResults() != 1)
    return std::nullopt;
  auto srcType = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto dstType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!srcType || !dstType || !getDistributedEncoding(srcType) ||
      !getDistributedEncoding(dstType))
    return std::nullopt;
  LinearLayout src = getLinearLayout(srcType), dst = getLinearLayout(dstType);
  using Basis = LinearLayout::Basis;
  return llvm::TypeSwitch<Operation *, std::optional<SmallVector<int64_t>>>(op)
      .Case([&](ConvertLayoutOp) { return dst.mapRegistersTo(src); })
      .Case([&](BroadcastOp) {
        ArrayRef<int64_t> srcShape = srcType.getShape();
        return dst.mapRegistersTo(src, [&](ArrayRef<int64_t> c) {
          Basis s(c);
          for (unsigned d = 0; d < s.size(); ++d)
            if (srcShape[d] == 1)
              s[d] = 0;
          return s;
        });
      })
      .Case([&](ExpandDimsOp expand) {
        unsigned axis = expand.getAxis();
        return dst.mapRegistersTo(src, [&](ArrayRef<int64_t> c) {
          Basis s(c);
          s.erase(s.begin() + axis);
          return s;
        });
      })
      .Case([&](TransOp trans) {
        ArrayRef<int32_t> order = trans.getOrder();
        return dst.mapRegistersTo(src, [&](ArrayRef<int64_t> c) {
          Basis s(c.size(), 0);
          for (unsigned i = 0; i < c.size(); ++i)
            s[order[i]] = c[i];
          return s;
        });
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Warps whose index bits move along `axis` of `layout`.
static int64_t warpsAlong(const LinearLayout &layout, unsigned axis) {
  int64_t warps = 1;
  for (const LinearLayout::Basis &basis : layout.getBases(LinearLayout::Warp))
    if (basis[axis] != 0)
      warps *= 2;
  return warps;
}

SmallVector<unsigned>
mlir::tile::getConversionRoundBits(RankedTensorType srcType,
                                   RankedTensorType dstType) {
  int64_t bytes = tensorBytes(srcType);
  if (bytes <= kConversionScratchLimit)
    return {};
  unsigned count = 0;
  while ((bytes >> count) > kConversionScratchLimit)
    ++count;
  return chooseConversionRoundBits(getLinearLayout(srcType),
                                   getLinearLayout(dstType), count);
}

int64_t mlir::tile::getScratchBytes(Operation *op) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([&](ConvertLayoutOp convert) -> int64_t {
        auto srcType = cast<RankedTensorType>(convert.getSrc().getType());
        if (getRegisterMapping(convert) ||
            getConversionShufflePlan(srcType, convert.getType()))
          return 0;
        return tensorBytes(srcType) >>
               getConversionRoundBits(
                   srcType, cast<RankedTensorType>(convert.getType()))
                   .size();
      })
      .Case<BroadcastOp, ExpandDimsOp, TransOp>([&](Operation *op) -> int64_t {
        if (getRegisterMapping(op))
          return 0;
        return tensorBytes(op->getOperand(0).getType());
      })
      .Case<ReshapeOp, JoinOp, SplitOp, CatOp>([&](Operation *op) {
        int64_t bytes = 0;
        for (Value operand : op->getOperands())
          bytes += tensorBytes(operand.getType());
        return bytes;
      })
      .Case([&](ReduceOp reduce) -> int64_t {
        int64_t bytes = 0;
        for (auto [src, result] :
             llvm::zip(reduce.getSrcs(), reduce.getResult())) {
          auto srcType = cast<RankedTensorType>(src.getType());
          int64_t warps =
              warpsAlong(getLinearLayout(srcType), reduce.getAxis());
          if (warps == 1)
            continue;
          int64_t outputs =
              srcType.getNumElements() / srcType.getShape()[reduce.getAxis()];
          bytes += getExchangeSlotBytes(warps * outputs,
                                        srcType.getElementType());
        }
        return bytes;
      })
      .Case([&](ScanOp scan) {
        int64_t bytes = 0;
        for (Value src : scan.getSrcs()) {
          auto type = cast<ShapedType>(src.getType());
          bytes += getExchangeSlotBytes(type.getNumElements(),
                                        type.getElementType());
        }
        return bytes;
      })
      .Case([&](DotOp dot) -> int64_t {
        // mma.sync takes its operands in registers; the FMA dot stages
        // them in shared memory.
        if (isa<MmaEncodingAttr>(
                cast<RankedTensorType>(dot.getType()).getEncoding()))
          return 0;
        return tensorBytes(dot.getA().getType()) +
               tensorBytes(dot.getB().getType());
      })
      .Case([&](HistogramOp histogram) {
        return tensorBytes(histogram.getType());
      })
      .Case([&](GatherOp gather) {
        // The whole source, so that any index reaches any element.
        return tensorBytes(gather.getSrc().getType());
      })
      .Case<AtomicRMWOp, AtomicCASOp>([&](Operation *op) -> int64_t {
        // A scalar atomic runs in one thread; the others read its result.
        if (isa<RankedTensorType>(op->getResult(0).getType()) ||
            op->getResult(0).use_empty())
          return 0;
        return 8;
      })
      .Case([&](LocalAllocOp alloc) { return tensorBytes(alloc.getType()); })
      .Default([](Operation *) { return 0; });
}

namespace {
struct Interval {
  Operation *owner;
  int64_t bytes, alignment;
  int64_t start, end; // op indices, inclusive
};
} // namespace

SharedMemoryAllocation::SharedMemoryAllocation(Operation *function) {
  // Number ops in program order; a buffer live across a loop iteration
  // stays live to the end of the loop.
  int64_t next = 0;
  function->walk<WalkOrder::PreOrder>(
      [&](Operation *op) { index[op] = next++; });
  auto lastIndexIn = [&](Operation *op) { return lastIndexInside(op); };
  // An async warpgroup_dot reads its shared operands until something
  // retires it: a warpgroup_dot_wait leaving no more dots pending than were
  // issued after it, or a synchronous warpgroup_dot (which waits for all).
  // Dots and waits nested in other ops are not counted, since they may not
  // run: counting fewer later dots only finds a later wait. With no such
  // wait in its block, the read stays pending past the block's end: in a
  // loop that is the rest of the body and the next iteration's start, so
  // the whole loop, and then on until a wait after it.
  auto asyncReadRange = [&](WarpGroupDotOp dot) {
    std::pair<int64_t, int64_t> range{index[dot], index[dot]};
    int64_t issuedAfter = 0;
    for (Operation *from = dot; from != function; from = from->getParentOp()) {
      for (Operation *op = from->getNextNode(); op; op = op->getNextNode()) {
        auto later = dyn_cast<WarpGroupDotOp>(op);
        auto wait = dyn_cast<WarpGroupDotWaitOp>(op);
        if ((later && !later.getIsAsync()) ||
            (wait && wait.getPendings() <= issuedAfter)) {
          range.second = std::max(range.second, index[op]);
          return range;
        }
        issuedAfter += later != nullptr;
      }
      Operation *parent = from->getParentOp();
      if (isa<LoopLikeOpInterface>(parent)) {
        range.first = std::min(range.first, index[parent]);
        range.second = std::max(range.second, lastIndexIn(parent));
      }
    }
    range.second = lastIndexIn(function);
    return range;
  };
  SmallVector<Interval> intervals;
  function->walk([&](Operation *op) {
    int64_t bytes = getScratchBytes(op);
    if (bytes == 0)
      return;
    int64_t alignment = 16;
    if (auto alloc = dyn_cast<LocalAllocOp>(op))
      alignment = std::max<int64_t>(
          alignment, alloc.getType().getEncoding().getAlignment());
    Interval interval{op, (bytes + 15) / 16 * 16, alignment, index[op],
                      index[op]};
    if (isa<LocalAllocOp>(op)) {
      // Views (memdesc_trans, memdesc_index) read the buffer where they
      // are used.
      SmallVector<Operation *> users;
      SmallVector<Value> worklist{op->getResult(0)};
      while (!worklist.empty())
        for (Operation *user : worklist.pop_back_val().getUsers()) {
          users.push_back(user);
          if (isa<MemDescTransOp, MemDescIndexOp>(user))
            worklist.push_back(user->getResult(0));
        }
      auto freedInside = [&](WarpSpecializeOp specialize) {
        return llvm::any_of(users, [&](Operation *user) {
          return isa<LocalDeallocOp>(user) &&
                 specialize.getConsumers().isAncestor(user->getParentRegion());
        });
      };
      for (Operation *user : users) {
        int64_t end = index[user];
        // Uses inside a loop that does not contain the alloc extend the
        // buffer's life to the loop's end.
        for (Operation *loop = user->getParentOp(); loop && loop != function;
             loop = loop->getParentOp())
          if (isa<LoopLikeOpInterface>(loop) && !loop->isAncestor(op))
            end = std::max(end, lastIndexIn(loop));
        // The two sides of a warp_specialize run at once: a buffer from
        // outside that either uses lives through the whole op, unless the
        // consumers free it inside (a pipeline's buffers: once they have
        // waited for its last copies, the producer is done with them).
        if (auto specialize = user->getParentOfType<WarpSpecializeOp>())
          if (!specialize->isAncestor(op) && !freedInside(specialize))
            end = std::max(end, lastIndexIn(specialize));
        interval.end = std::max(interval.end, end);
        if (auto dot = dyn_cast<WarpGroupDotOp>(user);
            dot && dot.getIsAsync()) {
          auto [start, readEnd] = asyncReadRange(dot);
          interval.start = std::min(interval.start, start);
          interval.end = std::max(interval.end, readEnd);
        }
      }
    }
    intervals.push_back(interval);
  });
  // Largest first, each at the lowest offset that overlaps no buffer live at
  // the same time.
  std::stable_sort(
      intervals.begin(), intervals.end(),
      [](const Interval &a, const Interval &b) { return a.bytes > b.bytes; });
  SmallVector<std::pair<Interval, int64_t>> placed;
  for (const Interval &interval : intervals) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (auto &[other, offset] : placed)
      if (other.start <= interval.end && interval.start <= other.end)
        busy.push_back({offset, offset + other.bytes});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [begin, end] : busy) {
      offset = llvm::alignTo(offset, interval.alignment);
      if (offset + interval.bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    offset = llvm::alignTo(offset, interval.alignment);
    placed.push_back({interval, offset});
    offsets[interval.owner] = offset;
    liveRanges[interval.owner] = {interval.start, interval.end};
    totalBytes = std::max(totalBytes, offset + interval.bytes);
  }
}

std::optional<int64_t> SharedMemoryAllocation::getOffset(Operation *op) const {
  auto it = offsets.find(op);
  if (it == offsets.end())
    return std::nullopt;
  return it->second;
}

int64_t SharedMemoryAllocation::lastIndexInside(Operation *op) const {
  int64_t last = index.lookup(op);
  op->walk(
      [&](Operation *inner) { last = std::max(last, index.lookup(inner)); });
  return last;
}

int64_t SharedMemoryAllocation::peakBufferBytesDuring(
    Operation *op, llvm::function_ref<bool(Operation *)> exclude) const {
  int64_t first = index.lookup(op), last = lastIndexInside(op);
  SmallVector<std::tuple<int64_t, int64_t, int64_t>> ranges;
  for (auto [buffer, range] : liveRanges) {
    auto alloc = dyn_cast<LocalAllocOp>(buffer);
    if (!alloc || exclude(buffer) || range.first > last || range.second < first)
      continue;
    ranges.push_back({std::max(range.first, first),
                      std::min(range.second, last),
                      tensorBytes(alloc.getType())});
  }
  // Live ranges are intervals: the most bytes live at once are live at
  // the start of one of them.
  int64_t peak = 0;
  for (auto [point, unusedEnd, unusedBytes] : ranges) {
    int64_t bytes = 0;
    for (auto [start, end, size] : ranges)
      if (start <= point && point <= end)
        bytes += size;
    peak = std::max(peak, bytes);
  }
  return peak;
}
