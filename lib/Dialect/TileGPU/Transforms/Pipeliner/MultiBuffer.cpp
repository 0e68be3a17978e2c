//===- MultiBuffer.cpp - Multi-buffered dot operands and their copies -----===//
//
// One allocation of N copies per staged operand, named by
// tilegpu.memdesc_index at an i32 stage index that the loop carries; the
// copies into a stage are cp.async (one commit group per stage) or TMA
// (arming the stage's mbarrier, whose parity flips each time the index
// wraps). Copies past the loop's end are masked off (cp.async writes
// zeros there, as the masked load's zero `other` would).
//
//===----------------------------------------------------------------------===//

#include "Pipeliner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;
using namespace mlir::tilegpu::pipeliner;

void MultiBufferRewriter::createBuffers() {
  for (StagedLoad &staged : plan.loads) {
    MemDescType single = staged.alloc.getType();
    SmallVector<int64_t> shape{numBuffers};
    llvm::append_range(shape, single.getShape());
    buffers.push_back(LocalAllocOp::create(
        rewriter, loop.getLoc(),
        MemDescType::get(loop.getContext(), shape, single.getElementType(),
                         single.getEncoding()),
        Value()));
  }
}

Value MultiBufferRewriter::createBarrierArray() {
  return LocalAllocOp::create(
      rewriter, loop.getLoc(),
      MemDescType::get(loop.getContext(), {numBuffers, 1},
                       rewriter.getI64Type(),
                       SharedEncodingAttr::get(loop.getContext(), {0})),
      Value());
}

void MultiBufferRewriter::addStageIndices(bool fills) {
  Type i32 = rewriter.getI32Type();
  Value first = constant(distance, i32), zero = constant(0, i32);
  bool tma = plan.hasTMA();
  SmallVector<Value> inits{first, constant(firstReadStage, i32)};
  if (!fills)
    inits.erase(inits.begin());
  if (tma)
    inits.push_back(zero);
  FailureOr<LoopLikeOpInterface> replaced =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, inits,
              /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &b, Location loc,
                  ArrayRef<BlockArgument> args) -> SmallVector<Value> {
                if (!fills)
                  return {nextIndex(b, loc, args[0]),
                          nextParity(b, loc, args[0], args[1])};
                SmallVector<Value> yields{nextIndex(b, loc, args[0]),
                                          nextIndex(b, loc, args[1])};
                if (tma)
                  yields.push_back(nextParity(b, loc, args[1], args[2]));
                return yields;
              });
  loop = cast<scf::ForOp>(replaced->getOperation());
  unsigned numArgs = loop.getRegionIterArgs().size();
  unsigned base = numArgs - inits.size();
  if (fills)
    fillStage = loop.getRegionIterArg(base++);
  readStage = loop.getRegionIterArg(base);
  if (tma)
    phase = loop.getRegionIterArg(base + 1);
}

void MultiBufferRewriter::emitCopies(IRMapping &mapping, Value iv, Value stage,
                                     Value inRange) {
  Location loc = loop.getLoc();
  for (Operation *op : plan.addressOps)
    rewriter.clone(*op, mapping);
  if (!inRange)
    inRange = isBefore(rewriter, loop, iv, loop.getUpperBound());
  if (plan.hasTMA())
    BarrierExpectOp::create(rewriter, loc, barrierOf(stage), tmaBytesPerStage(),
                            inRange);
  for (auto [staged, buffer] : llvm::zip(plan.loads, buffers)) {
    auto viewOf = [&, buffer = buffer, type = staged.alloc.getType()] {
      return MemDescIndexOp::create(rewriter, loc, type, buffer, stage);
    };
    if (auto load = dyn_cast<DescriptorLoadOp>(staged.load)) {
      Value view = viewOf();
      SmallVector<Value> indices;
      for (Value index : load.getIndices())
        indices.push_back(mapping.lookupOrDefault(index));
      AsyncTMACopyGlobalToLocalOp::create(
          rewriter, loc, mapping.lookupOrDefault(load.getDesc()), indices, view,
          barrierOf(stage), inRange);
      continue;
    }
    auto load = cast<LoadOp>(staged.load);
    auto ptrType = cast<RankedTensorType>(load.getPtr().getType());
    Type maskType = ptrType.clone(rewriter.getI1Type());
    Value mask = SplatOp::create(rewriter, loc, maskType, inRange);
    if (Value loadMask = load.getMask())
      mask = arith::AndIOp::create(rewriter, loc,
                                   mapping.lookupOrDefault(loadMask), mask);
    AsyncCopyGlobalToLocalOp::create(
        rewriter, loc, mapping.lookupOrDefault(load.getPtr()), viewOf(), mask);
  }
  if (plan.hasCpAsync())
    AsyncCommitGroupOp::create(rewriter, loc);
}

void MultiBufferRewriter::replaceStagedLoads() {
  for (auto [staged, buffer] : llvm::zip(plan.loads, buffers)) {
    rewriter.setInsertionPoint(staged.alloc);
    Value view = MemDescIndexOp::create(
        rewriter, loop.getLoc(), staged.alloc.getType(), buffer, readStage);
    rewriter.replaceOp(staged.alloc, view);
    rewriter.eraseOp(staged.load);
  }
}

void MultiBufferRewriter::eraseDeadAddressOps() {
  for (Operation *op : llvm::reverse(plan.addressOps))
    if (op->use_empty())
      rewriter.eraseOp(op);
}

Value MultiBufferRewriter::nextIndex(OpBuilder &b, Location loc, Value index) {
  Type i32 = b.getI32Type();
  Value plusOne = arith::AddIOp::create(
      b, loc, index, arith::ConstantIntOp::create(b, loc, i32, 1));
  Value wraps = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, plusOne,
      arith::ConstantIntOp::create(b, loc, i32, numBuffers));
  return arith::SelectOp::create(
      b, loc, wraps, arith::ConstantIntOp::create(b, loc, i32, 0), plusOne);
}

Value MultiBufferRewriter::previousIndex(OpBuilder &b, Location loc,
                                         Value index) {
  Type i32 = b.getI32Type();
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                            arith::ConstantIntOp::create(b, loc, i32, 0));
  return arith::SelectOp::create(
      b, loc, isFirst,
      arith::ConstantIntOp::create(b, loc, i32, numBuffers - 1),
      arith::SubIOp::create(b, loc, index,
                            arith::ConstantIntOp::create(b, loc, i32, 1)));
}

Value MultiBufferRewriter::nextParity(OpBuilder &b, Location loc, Value index,
                                      Value phase) {
  Type i32 = b.getI32Type();
  Value last = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, index,
      arith::ConstantIntOp::create(b, loc, i32, numBuffers - 1));
  Value flipped = arith::XOrIOp::create(
      b, loc, phase, arith::ConstantIntOp::create(b, loc, i32, 1));
  return arith::SelectOp::create(b, loc, last, flipped, phase);
}

Value MultiBufferRewriter::barrierIn(Value array, Value stage) {
  auto type = cast<MemDescType>(array.getType());
  return MemDescIndexOp::create(rewriter, loop.getLoc(),
                                MemDescType::get(loop.getContext(), {1},
                                                 type.getElementType(),
                                                 type.getEncoding()),
                                array, stage);
}

Value MultiBufferRewriter::constant(int64_t value, Type type) {
  return arith::ConstantOp::create(rewriter, loop.getLoc(), type,
                                   rewriter.getIntegerAttr(type, value));
}

int64_t MultiBufferRewriter::tmaBytesPerStage() {
  int64_t bytes = 0;
  for (StagedLoad &staged : plan.loads)
    if (staged.isTMA())
      bytes += bufferBytes(staged.alloc.getType());
  return bytes;
}
