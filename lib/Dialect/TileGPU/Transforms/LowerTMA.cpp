//===- LowerTMA.cpp - Descriptor loads and stores as TMA copies -----------===//
//
// A descriptor load outside a pipelined loop runs start to finish in
// place:
//
//   buffer  = local_alloc              (the descriptor's NVMMA layout)
//   barrier = local_alloc : memdesc<1xi64>
//   init_barrier barrier, 1            (one arrival: the expect below)
//   barrier_expect barrier, <block bytes>
//   async_tma_copy_global_to_local desc[indices] buffer, barrier
//   wait_barrier barrier, 0            (every thread)
//   inval_barrier barrier
//   result = local_load buffer         (unless a dot reads the buffer)
//
// The CTA barriers these need (after the init, before the inval) come
// from tilegpu-insert-barriers, which knows the mbarrier ops' accesses.
// A descriptor store or reduction fills a buffer in the descriptor's
// layout from the value's registers, fences it for the async proxy and
// hands it to one thread's TMA store (or bulk reduction), waited for
// before the buffer is freed.
//
// Inside a loop the wait is deferred: the buffer is allocated once before
// the loop and the TMA unit's read of it is waited for just before the
// next iteration fills it again (and once after the loop), so the copy
// out overlaps the rest of the iteration instead of holding the issuing
// warp, and through the next CTA barrier every other warp, at the store.
// (Warp-specialised loops keep the in-place wait: their consumer groups
// take iterations in turn and would share the buffer.) A buffer kept
// across a loop cannot share its bytes with the loop's own buffers, so
// when the function's buffers then no longer fit, its writes go back to
// buffers of their own with the wait in place (a persistent GEMM whose
// output tile reuses its finished pipeline's buffers keeps fitting).
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPULOWERTMA
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

MemDescType blockBufferType(TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  return MemDescType::get(desc.getContext(), block.getShape(),
                          block.getElementType(), getTMASharedEncoding(desc));
}

int64_t blockBytes(TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  return block.getNumElements() * getSharedElementBytes(block.getElementType());
}

void lowerLoad(DescriptorLoadOp load) {
  OpBuilder b(load);
  Location loc = load.getLoc();
  TensorDescType desc = load.getDesc().getType();
  MemDescType bufferType = blockBufferType(desc);
  // A dot operand staged in exactly the layout the copy writes takes the
  // copy directly.
  LocalAllocOp staging;
  if (load->hasOneUse())
    if (auto alloc = dyn_cast<LocalAllocOp>(*load->user_begin()))
      if (alloc.getType() == bufferType)
        staging = alloc;
  if (staging)
    b.setInsertionPoint(staging);
  Value buffer = LocalAllocOp::create(b, loc, bufferType, Value());
  Value barrier = LocalAllocOp::create(
      b, loc,
      MemDescType::get(b.getContext(), {1}, b.getI64Type(),
                       SharedEncodingAttr::get(b.getContext(), {0})),
      Value());
  Value always = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  InitBarrierOp::create(b, loc, barrier, 1);
  BarrierExpectOp::create(b, loc, barrier, blockBytes(desc), always);
  AsyncTMACopyGlobalToLocalOp::create(b, loc, load.getDesc(), load.getIndices(),
                                      buffer, barrier, always);
  WaitBarrierOp::create(b, loc, barrier,
                        arith::ConstantIntOp::create(b, loc, 0, 32));
  InvalBarrierOp::create(b, loc, barrier);
  LocalDeallocOp::create(b, loc, barrier);
  if (staging) {
    staging.replaceAllUsesWith(buffer);
    staging.erase();
    load.erase();
    return;
  }
  Value value = LocalLoadOp::create(b, loc, load.getType(), buffer);
  LocalDeallocOp::create(b, loc, buffer);
  load.replaceAllUsesWith(value);
  load.erase();
}

/// The loop a descriptor write's buffer can live across: the innermost
/// scf.for around `op` with nothing but scf.if between them, outside any
/// warp_specialize.
scf::ForOp loopToHoistInto(Operation *op) {
  if (op->getParentOfType<WarpSpecializeOp>())
    return {};
  Operation *parent = op->getParentOp();
  while (isa_and_nonnull<scf::IfOp>(parent))
    parent = parent->getParentOp();
  return dyn_cast_or_null<scf::ForOp>(parent);
}

/// A descriptor write whose buffer lives across its loop: the ops that
/// keep it there, so that it can be given a buffer of its own again.
struct DeferredWrite {
  LocalAllocOp buffer;
  AsyncTMAStoreWaitOp waitBeforeFill, waitAfterLoop;
  LocalStoreOp fill;
  AsyncTMACopyLocalToGlobalOp copy;
  LocalDeallocOp deallocAfterLoop;
};

/// A store, or with `reduce` a reduction, of `src` as the block at
/// `indices`: the value fills a buffer in the descriptor's layout, which
/// one thread hands to the TMA unit. Returns the ops to undo when the
/// buffer was hoisted out of a loop.
std::optional<DeferredWrite> lowerWrite(Operation *op, Value desc,
                                        ValueRange indices, Value src,
                                        RMWOpAttr reduce) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  // The buffer fill takes any layout: skip a conversion into the store's.
  Value original = src;
  if (auto convert = src.getDefiningOp<ConvertLayoutOp>())
    src = convert.getSrc();
  auto descType = cast<TensorDescType>(desc.getType());
  std::optional<DeferredWrite> deferred;
  Value buffer;
  if (scf::ForOp loop = loopToHoistInto(op)) {
    // The previous iteration's copy may still read the buffer.
    OpBuilder outside(loop);
    DeferredWrite write;
    write.buffer =
        LocalAllocOp::create(outside, loc, blockBufferType(descType), Value());
    outside.setInsertionPointAfter(loop);
    write.waitAfterLoop = AsyncTMAStoreWaitOp::create(outside, loc, 0);
    write.deallocAfterLoop = LocalDeallocOp::create(outside, loc, write.buffer);
    write.waitBeforeFill = AsyncTMAStoreWaitOp::create(b, loc, 0);
    write.fill = LocalStoreOp::create(b, loc, src, write.buffer);
    buffer = write.buffer;
    deferred = write;
  } else {
    buffer = LocalAllocOp::create(b, loc, blockBufferType(descType), src);
  }
  // The threads' generic-proxy writes become visible to the TMA unit.
  FenceAsyncSharedOp::create(b, loc);
  auto copy = AsyncTMACopyLocalToGlobalOp::create(b, loc, desc, indices, buffer,
                                                  reduce);
  if (deferred) {
    deferred->copy = copy;
  } else {
    AsyncTMAStoreWaitOp::create(b, loc, 0);
    LocalDeallocOp::create(b, loc, buffer);
  }
  op->erase();
  if (Operation *def = original.getDefiningOp())
    if (isa<ConvertLayoutOp>(def) && def->use_empty())
      def->erase();
  return deferred;
}

/// Gives a hoisted write its own filled buffer again, waited for at once:
/// what lowerWrite makes outside loops.
void undefer(DeferredWrite &write) {
  OpBuilder b(write.fill);
  Location loc = write.fill.getLoc();
  Value buffer =
      LocalAllocOp::create(b, loc, write.buffer.getType(), write.fill.getSrc());
  write.copy.getSrcMutable().assign(buffer);
  b.setInsertionPointAfter(write.copy);
  AsyncTMAStoreWaitOp::create(b, loc, 0);
  LocalDeallocOp::create(b, loc, buffer);
  for (Operation *op :
       {write.fill.getOperation(), write.waitBeforeFill.getOperation(),
        write.deallocAfterLoop.getOperation(),
        write.waitAfterLoop.getOperation(), write.buffer.getOperation()})
    op->erase();
}

struct LowerTMAPass : tilegpu::impl::TileGPULowerTMABase<LowerTMAPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    bool ok = true;
    module.walk([&](Operation *op) {
      if (!isa<DescriptorLoadOp, DescriptorStoreOp, DescriptorReduceOp>(op))
        return;
      auto desc = cast<TensorDescType>(op->getOperand(0).getType());
      if (!getTMASharedEncoding(desc)) {
        op->emitError(describeTMALimits(desc));
        ok = false;
      }
      ops.push_back(op);
    });
    if (!ok)
      return signalPassFailure();
    DenseMap<Operation *, SmallVector<DeferredWrite>> deferred;
    for (Operation *op : ops) {
      Operation *function = op->getParentOfType<FunctionOpInterface>();
      std::optional<DeferredWrite> write;
      if (auto load = dyn_cast<DescriptorLoadOp>(op))
        lowerLoad(load);
      else if (auto store = dyn_cast<DescriptorStoreOp>(op))
        write = lowerWrite(store, store.getDesc(), store.getIndices(),
                           store.getSrc(), RMWOpAttr());
      else if (auto reduce = dyn_cast<DescriptorReduceOp>(op))
        write = lowerWrite(reduce, reduce.getDesc(), reduce.getIndices(),
                           reduce.getSrc(), reduce.getKindAttr());
      if (write)
        deferred[function].push_back(*write);
    }
    for (auto &[function, writes] : deferred) {
      if (tile::SharedMemoryAllocation(function).getTotalBytes() <= maxShared)
        continue;
      for (DeferredWrite &write : writes)
        undefer(write);
    }
  }
};

} // namespace
