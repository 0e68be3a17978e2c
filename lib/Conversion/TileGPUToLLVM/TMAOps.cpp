//===- TMAOps.cpp - mbarriers and TMA copies as PTX -----------------------===//
//
// One thread (threadIdx.x == 0) initialises the mbarriers, arms them and
// issues the TMA copies; every thread waits. The instructions are inline
// PTX: each is predicated on the electing thread, which the NVVM ops of
// MLIR 22 cannot express.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tile/Analysis/Allocation.h"
#include "tile/Dialect/TileGPU/IR/TMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// True (i1) in thread 0 of the CTA, and-ed with `pred` when given.
Value electedThread(OpBuilder &b, Location loc, Operation *op,
                    Value pred = {}) {
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            getThreadId(b, op).linear, i32Constant(b, loc, 0));
  return pred ? arith::AndIOp::create(b, loc, first, pred) : first;
}

/// A shared-memory pointer as the 32-bit address PTX's shared state space
/// takes.
Value sharedAddress(OpBuilder &b, Location loc, Value ptr) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
}

/// The descriptor (a kernel parameter, after ConvertTileToLLVM a generic
/// pointer to the CUtensorMap) as a 64-bit address.
Value descriptorAddress(OpBuilder &b, Location loc, Value desc) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value ptr =
      UnrealizedConversionCastOp::create(b, loc, ptrType, desc).getResult(0);
  return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
}

/// How many mbarriers a memdesc<1xi64> or memdesc<Nx1xi64> holds.
int64_t barrierCount(MemDescType type) { return type.getShape().front(); }

/// A 32-bit shared address plus a constant.
Value offsetBy(OpBuilder &b, Location loc, Value address, int64_t bytes) {
  if (bytes == 0)
    return address;
  return arith::AddIOp::create(b, loc, address, i32Constant(b, loc, bytes));
}

void emitPredicated(OpBuilder &b, Location loc, StringRef ptx,
                    StringRef constraints, ValueRange operands) {
  emitInlineAsm(b, loc, TypeRange(), operands, ptx, constraints,
                /*hasSideEffects=*/true);
}

struct InitBarrierPattern : OpConversionPattern<InitBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InitBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = sharedAddress(rewriter, loc, adaptor.getBarrier().front());
    Value pred = electedThread(rewriter, loc, op);
    for (int64_t i = 0; i < barrierCount(op.getBarrier().getType()); ++i)
      emitPredicated(rewriter, loc,
                     "@$0 mbarrier.init.shared::cta.b64 [$1], " +
                         std::to_string(op.getCount()) + ";",
                     "b,r", {pred, offsetBy(rewriter, loc, base, 8 * i)});
    rewriter.eraseOp(op);
    return success();
  }
};

struct InvalBarrierPattern : OpConversionPattern<InvalBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InvalBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = sharedAddress(rewriter, loc, adaptor.getBarrier().front());
    Value pred = electedThread(rewriter, loc, op);
    for (int64_t i = 0; i < barrierCount(op.getBarrier().getType()); ++i)
      emitPredicated(rewriter, loc, "@$0 mbarrier.inval.shared::cta.b64 [$1];",
                     "b,r", {pred, offsetBy(rewriter, loc, base, 8 * i)});
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierExpectPattern : OpConversionPattern<BarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = sharedAddress(rewriter, loc, adaptor.getBarrier().front());
    Value pred = electedThread(rewriter, loc, op, adaptor.getPred().front());
    emitPredicated(rewriter, loc,
                   "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], " +
                       std::to_string(op.getBytes()) + ";",
                   "b,r", {pred, bar});
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitBarrierPattern : OpConversionPattern<WaitBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WaitBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = sharedAddress(rewriter, loc, adaptor.getBarrier().front());
    // try_wait suspends for a while before failing; the label is local to
    // the braces, so the block may be emitted many times.
    emitPredicated(rewriter, loc,
                   "{\n"
                   ".reg .pred done;\n"
                   "wait:\n"
                   "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
                   "@!done bra.uni wait;\n"
                   "}",
                   "r,r", {bar, adaptor.getPhase().front()});
    rewriter.eraseOp(op);
    return success();
  }
};

/// The box copies of one block: per swizzle atom along the rows, the
/// byte offset in the buffer and the element offset along dimension 1.
SmallVector<std::pair<int64_t, int64_t>> atomCopies(TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  unsigned bytes = getSharedElementBytes(block.getElementType());
  int64_t rows = block.getShape()[0], cols = block.getShape()[1];
  int64_t boxCols = getTMABoxInner(cols, bytes);
  SmallVector<std::pair<int64_t, int64_t>> copies;
  for (int64_t col = 0; col < cols; col += boxCols)
    copies.push_back({col * rows * bytes, col});
  return copies;
}

struct TMALoadPattern : OpConversionPattern<AsyncTMACopyGlobalToLocalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncTMACopyGlobalToLocalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TensorDescType descType = op.getDesc().getType();
    Value desc = descriptorAddress(rewriter, loc, adaptor.getDesc().front());
    Value bar = sharedAddress(rewriter, loc, adaptor.getBarrier().front());
    Value pred = electedThread(rewriter, loc, op, adaptor.getPred().front());
    Value base = adaptor.getResult().front();
    Value row = adaptor.getIndices()[0].front();
    Value col = adaptor.getIndices()[1].front();
    for (auto [byteOffset, colOffset] : atomCopies(descType)) {
      Value dst = LLVM::GEPOp::create(
          rewriter, loc, base.getType(), rewriter.getI8Type(), base,
          ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)});
      Value atomCol =
          colOffset == 0
              ? col
              : arith::AddIOp::create(rewriter, loc, col,
                                      i32Constant(rewriter, loc, colOffset));
      // Coordinates go innermost first.
      emitPredicated(
          rewriter, loc,
          "@$0 cp.async.bulk.tensor.2d.shared::cluster.global."
          "mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];",
          "b,r,l,r,r,r",
          {pred, sharedAddress(rewriter, loc, dst), desc, atomCol, row, bar});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStorePattern : OpConversionPattern<AsyncTMACopyLocalToGlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncTMACopyLocalToGlobalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value desc = descriptorAddress(rewriter, loc, adaptor.getDesc().front());
    Value pred = electedThread(rewriter, loc, op);
    Value base = adaptor.getSrc().front();
    Value row = adaptor.getIndices()[0].front();
    Value col = adaptor.getIndices()[1].front();
    for (auto [byteOffset, colOffset] : atomCopies(op.getDesc().getType())) {
      Value src = LLVM::GEPOp::create(
          rewriter, loc, base.getType(), rewriter.getI8Type(), base,
          ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)});
      Value atomCol =
          colOffset == 0
              ? col
              : arith::AddIOp::create(rewriter, loc, col,
                                      i32Constant(rewriter, loc, colOffset));
      emitPredicated(
          rewriter, loc,
          "@$0 cp.async.bulk.tensor.2d.global.shared::cta."
          "bulk_group [$1, {$2, $3}], [$4];",
          "b,l,r,r,r",
          {pred, desc, atomCol, row, sharedAddress(rewriter, loc, src)});
    }
    emitPredicated(rewriter, loc, "@$0 cp.async.bulk.commit_group;", "b",
                   {pred});
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreWaitPattern : OpConversionPattern<AsyncTMAStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncTMAStoreWaitOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Threads that issued no store have no group to wait for.
    emitPredicated(rewriter, op.getLoc(),
                   "cp.async.bulk.wait_group.read " +
                       std::to_string(op.getPending()) + ";",
                   "", {});
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTMAPatterns(ThreadTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<InitBarrierPattern, InvalBarrierPattern, BarrierExpectPattern,
               WaitBarrierPattern, TMALoadPattern, TMAStorePattern,
               TMAStoreWaitPattern>(converter, patterns.getContext());
}
