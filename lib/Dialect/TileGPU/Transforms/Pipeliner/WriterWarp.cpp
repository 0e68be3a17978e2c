//===- WriterWarp.cpp - A warp of the producer issues the loop's TMA writes
//-===//
//
// A TMA store or bulk reduction in the body of a warp-specialised loop
// would otherwise stop the consumers every iteration: they fill a buffer,
// synchronise, one thread issues the copy and all wait until the TMA unit
// has read the buffer before anyone may fill it again. The fused attention
// backward adds a 32 KiB fp32 dQ tile into memory each iteration this way.
// Handed to the writer warp (the second warp of the producer warpgroup),
// the write becomes, per iteration k with buffer b = k % count and round
// r = k / count:
//
//   consumers: wait drained[b] at parity r^1 (the first round passes),
//              fill buffer b, fence it for the async proxy, arrive on
//              written[b] (every consumer thread);
//   writer:    wait written[b] at parity r, issue the copy out of buffer b,
//              wait until the TMA unit has read it, arrive on drained[b]
//              (all 32 lanes; lane 0's arrival comes after its wait).
//
// The consumers then only stall when `count` copies are still being read,
// FlashAttention-3's dQ writer in compiler form.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

namespace {

/// The descriptor `write` writes through.
Value descOf(Operation *write) {
  if (auto store = dyn_cast<DescriptorStoreOp>(write))
    return store.getDesc();
  return cast<DescriptorReduceOp>(write).getDesc();
}

/// The block coordinates of `write`.
ValueRange indicesOf(Operation *write) {
  if (auto store = dyn_cast<DescriptorStoreOp>(write))
    return store.getIndices();
  return cast<DescriptorReduceOp>(write).getIndices();
}

/// The tile `write` writes, as given to it.
Value writtenTile(Operation *write) {
  if (auto store = dyn_cast<DescriptorStoreOp>(write))
    return store.getSrc();
  return cast<DescriptorReduceOp>(write).getSrc();
}

/// The tile to fill the buffer with.
Value sourceOf(Operation *write) {
  Value src = writtenTile(write);
  // The buffer fill takes any layout: skip a conversion into the write's.
  if (auto convert = src.getDefiningOp<ConvertLayoutOp>())
    return convert.getSrc();
  return src;
}

MemDescType bufferArrayType(Operation *write, int64_t count) {
  auto desc = cast<TensorDescType>(descOf(write).getType());
  RankedTensorType block = desc.getBlockType();
  SmallVector<int64_t> shape{count};
  llvm::append_range(shape, block.getShape());
  return MemDescType::get(write->getContext(), shape, block.getElementType(),
                          getTMASharedEncoding(desc));
}

/// The buffer (i32) that iteration `iv` of a loop from `lower` by `step`
/// writes, and the parity (i32) of its round through the `count` buffers.
std::pair<Value, Value> bufferAndParity(OpBuilder &b, Location loc, Value iv,
                                        Value lower, Value step,
                                        int64_t count) {
  Value k = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, lower), step);
  Value n = arith::ConstantIntOp::create(b, loc, count, 32);
  Value buffer = arith::RemSIOp::create(b, loc, k, n);
  Value parity =
      arith::AndIOp::create(b, loc, arith::DivSIOp::create(b, loc, k, n),
                            arith::ConstantIntOp::create(b, loc, 1, 32));
  return {buffer, parity};
}

/// Adds to `ops` the body ops of `loop` that compute `value` and to
/// `outside` the values from before the loop they read; fails unless all
/// are pure scalar ops of the body block.
bool collectIndexOps(scf::ForOp loop, Value value,
                     llvm::SetVector<Operation *> &ops,
                     SmallVectorImpl<Value> &outside) {
  if (value == loop.getInductionVar())
    return true;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (loop->isAncestor(arg.getOwner()->getParentOp()))
      return false;
    outside.push_back(value);
    return true;
  }
  Operation *def = value.getDefiningOp();
  if (!loop->isAncestor(def)) {
    outside.push_back(value);
    return true;
  }
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      !isMemoryEffectFree(def) ||
      !llvm::all_of(def->getResultTypes(), [](Type type) {
        return !isa<RankedTensorType, MemDescType>(type);
      }))
    return false;
  if (ops.contains(def))
    return true;
  for (Value operand : def->getOperands())
    if (!collectIndexOps(loop, operand, ops, outside))
      return false;
  ops.insert(def);
  return true;
}

} // namespace

SmallVector<HandedOffWrite>
pipeliner::findHandedOffWrites(scf::ForOp loop,
                               SmallVectorImpl<Value> &outsideInputs) {
  SmallVector<HandedOffWrite> writes;
  for (Operation &op : *loop.getBody()) {
    if (!isa<DescriptorStoreOp, DescriptorReduceOp>(op) ||
        !getTMASharedEncoding(cast<TensorDescType>(descOf(&op).getType())))
      continue;
    // The descriptor is followed like a coordinate: one the body picks
    // (a select between two) is picked again by the writer.
    llvm::SetVector<Operation *> ops;
    SmallVector<Value> outside;
    SmallVector<Value> inputs{descOf(&op)};
    llvm::append_range(inputs, indicesOf(&op));
    bool computable = llvm::all_of(inputs, [&](Value input) {
      return collectIndexOps(loop, input, ops, outside);
    });
    if (!computable)
      continue;
    HandedOffWrite write{&op, ops.takeVector()};
    llvm::sort(write.indexOps, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    writes.push_back(std::move(write));
    llvm::append_range(outsideInputs, outside);
  }
  return writes;
}

int64_t pipeliner::writeBufferBytes(const HandedOffWrite &write) {
  return bufferBytes(bufferArrayType(write.write, 1));
}

WriterWarp::WriterWarp(RewriterBase &rewriter, Location loc,
                       SmallVector<HandedOffWrite> writes, int64_t count,
                       int consumerThreads)
    : writes(std::move(writes)), count(count) {
  MLIRContext *context = rewriter.getContext();
  auto barrierType =
      MemDescType::get(context, {count, 1}, rewriter.getI64Type(),
                       SharedEncodingAttr::get(context, {0}));
  for (HandedOffWrite &write : this->writes) {
    buffers.push_back(LocalAllocOp::create(
        rewriter, loc, bufferArrayType(write.write, count), Value()));
    written.push_back(
        LocalAllocOp::create(rewriter, loc, barrierType, Value()));
    InitBarrierOp::create(rewriter, loc, written.back(), consumerThreads);
    drained.push_back(
        LocalAllocOp::create(rewriter, loc, barrierType, Value()));
    InitBarrierOp::create(rewriter, loc, drained.back(),
                          TileGPUDialect::kThreadsPerWarp);
  }
}

Value WriterWarp::view(OpBuilder &b, Location loc, Value array, Value index) {
  auto type = cast<MemDescType>(array.getType());
  return MemDescIndexOp::create(
      b, loc,
      MemDescType::get(b.getContext(), type.getShape().drop_front(),
                       type.getElementType(), type.getEncoding()),
      array, index);
}

void WriterWarp::rewriteConsumers(RewriterBase &rewriter, scf::ForOp loop) {
  for (auto [i, write] : llvm::enumerate(writes)) {
    Operation *op = write.write;
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    auto [buffer, parity] =
        bufferAndParity(rewriter, loc, loop.getInductionVar(),
                        loop.getLowerBound(), loop.getStep(), count);
    Value passed = arith::XOrIOp::create(
        rewriter, loc, parity,
        arith::ConstantIntOp::create(rewriter, loc, 1, 32));
    WaitBarrierOp::create(rewriter, loc,
                          view(rewriter, loc, drained[i], buffer), passed);
    LocalStoreOp::create(rewriter, loc, sourceOf(op),
                         view(rewriter, loc, buffers[i], buffer));
    // Each thread's generic-proxy writes become visible to the TMA unit
    // before its arrival says the tile is there.
    FenceAsyncSharedOp::create(rewriter, loc);
    ArriveBarrierOp::create(rewriter, loc,
                            view(rewriter, loc, written[i], buffer),
                            arith::ConstantIntOp::create(rewriter, loc, 1, 1));
    Value original = writtenTile(op);
    rewriter.eraseOp(op);
    if (auto convert = original.getDefiningOp<ConvertLayoutOp>())
      if (convert->use_empty())
        rewriter.eraseOp(convert);
  }
}

void WriterWarp::emitWriter(RewriterBase &rewriter, scf::ForOp loop,
                            IRMapping &scalars) {
  Location loc = loop.getLoc();
  scf::ForOp::create(
      rewriter, loc, scalars.lookupOrDefault(loop.getLowerBound()),
      scalars.lookupOrDefault(loop.getUpperBound()),
      scalars.lookupOrDefault(loop.getStep()), ValueRange(),
      [&](OpBuilder &b, Location, Value iv, ValueRange) {
        IRMapping mapping = scalars;
        mapping.map(loop.getInductionVar(), iv);
        for (auto [i, write] : llvm::enumerate(writes)) {
          for (Operation *op : write.indexOps)
            b.clone(*op, mapping);
          Location at = write.write->getLoc();
          auto [buffer, parity] = bufferAndParity(
              b, at, iv, scalars.lookupOrDefault(loop.getLowerBound()),
              scalars.lookupOrDefault(loop.getStep()), count);
          WaitBarrierOp::create(b, at, view(b, at, written[i], buffer), parity);
          SmallVector<Value> indices;
          for (Value index : indicesOf(write.write))
            indices.push_back(mapping.lookupOrDefault(index));
          RMWOpAttr reduce;
          if (auto reduction = dyn_cast<DescriptorReduceOp>(write.write))
            reduce = reduction.getKindAttr();
          AsyncTMACopyLocalToGlobalOp::create(
              b, at, mapping.lookupOrDefault(descOf(write.write)), indices,
              view(b, at, buffers[i], buffer), reduce);
          AsyncTMAStoreWaitOp::create(b, at, 0);
          ArriveBarrierOp::create(b, at, view(b, at, drained[i], buffer),
                                  arith::ConstantIntOp::create(b, at, 1, 1));
        }
        scf::YieldOp::create(b, loc);
      });
}

void WriterWarp::deallocate(RewriterBase &rewriter, Location loc) {
  for (SmallVector<Value> *values : {&buffers, &written, &drained})
    for (Value value : *values)
      LocalDeallocOp::create(rewriter, loc, value);
}
