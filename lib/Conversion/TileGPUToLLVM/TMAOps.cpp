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
#include "tile/Support/TMA.h"

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

/// `@p <instruction> [barrier]<suffix>;` in thread 0 for each mbarrier of a
/// memdesc<1xi64> or memdesc<Nx1xi64>.
void emitPerBarrier(OpBuilder &b, Operation *op, Value barrier,
                    MemDescType type, StringRef instruction, StringRef suffix) {
  Location loc = op->getLoc();
  Value base = sharedAddress(b, loc, barrier);
  Value pred = electedThread(b, loc, op);
  std::string ptx = ("@$0 " + instruction + " [$1]" + suffix + ";").str();
  for (int64_t i = 0; i < barrierCount(type); ++i)
    emitPredicated(b, loc, ptx, "b,r", {pred, offsetBy(b, loc, base, 8 * i)});
}

struct InitBarrierPattern : OpConversionPattern<InitBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InitBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitPerBarrier(rewriter, op, adaptor.getBarrier().front(),
                   op.getBarrier().getType(), "mbarrier.init.shared::cta.b64",
                   ", " + std::to_string(op.getCount()));
    rewriter.eraseOp(op);
    return success();
  }
};

struct InvalBarrierPattern : OpConversionPattern<InvalBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InvalBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitPerBarrier(rewriter, op, adaptor.getBarrier().front(),
                   op.getBarrier().getType(), "mbarrier.inval.shared::cta.b64",
                   "");
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

struct ArriveBarrierPattern : OpConversionPattern<ArriveBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArriveBarrierOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar = sharedAddress(rewriter, loc, adaptor.getBarrier().front());
    emitPredicated(rewriter, loc,
                   "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];", "b,r",
                   {adaptor.getPred().front(), bar});
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

/// The box copies of one block, one per swizzle atom along the rows: the
/// atom's place in the buffer at `base` and its first column, `col` on.
SmallVector<std::pair<Value, Value>> atomCopies(OpBuilder &b, Location loc,
                                                TensorDescType desc, Value base,
                                                Value col) {
  RankedTensorType block = desc.getBlockType();
  unsigned bytes = getSharedElementBytes(block.getElementType());
  int64_t rows = block.getShape()[0], cols = block.getShape()[1];
  int64_t boxCols = ::tile::tma::getTMABoxInner(cols, bytes);
  SmallVector<std::pair<Value, Value>> copies;
  for (int64_t c = 0; c < cols; c += boxCols) {
    Value atom = c == 0
                     ? base
                     : LLVM::GEPOp::create(
                           b, loc, base.getType(), b.getI8Type(), base,
                           ArrayRef<LLVM::GEPArg>{int32_t(c * rows * bytes)});
    Value atomCol =
        c == 0 ? col
               : arith::AddIOp::create(b, loc, col, i32Constant(b, loc, c));
    copies.push_back({atom, atomCol});
  }
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
    Value row = adaptor.getIndices()[0].front();
    for (auto [dst, atomCol] :
         atomCopies(rewriter, loc, descType, adaptor.getResult().front(),
                    adaptor.getIndices()[1].front())) {
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

/// The bulk reduction's operation for an RMW kind (the verifier admitted
/// only kinds the TMA unit has).
std::string reductionName(RMWOp kind) {
  switch (kind) {
  case RMWOp::Add:
  case RMWOp::FAdd:
    return "add";
  case RMWOp::Max:
  case RMWOp::UMax:
    return "max";
  case RMWOp::Min:
  case RMWOp::UMin:
    return "min";
  case RMWOp::And:
    return "and";
  case RMWOp::Or:
    return "or";
  case RMWOp::Xor:
    return "xor";
  case RMWOp::Xchg:
    break;
  }
  llvm_unreachable("no bulk reduction for an exchange");
}

struct TMAStorePattern : OpConversionPattern<AsyncTMACopyLocalToGlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncTMACopyLocalToGlobalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value desc = descriptorAddress(rewriter, loc, adaptor.getDesc().front());
    Value pred = electedThread(rewriter, loc, op);
    Value row = adaptor.getIndices()[0].front();
    // A reduction combines the block into memory; the element type, and
    // so min/max's signedness, is the tensor map's.
    std::string instruction = "cp.async.bulk.tensor.2d.global.shared::cta.";
    if (auto reduce = op.getReduceAttr())
      instruction = "cp.reduce.async.bulk.tensor.2d.global.shared::cta." +
                    reductionName(reduce.getValue()) + ".tile.";
    for (auto [src, atomCol] : atomCopies(rewriter, loc, op.getDesc().getType(),
                                          adaptor.getSrc().front(),
                                          adaptor.getIndices()[1].front())) {
      emitPredicated(
          rewriter, loc,
          "@$0 " + instruction + "bulk_group [$1, {$2, $3}], [$4];",
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
               ArriveBarrierPattern, WaitBarrierPattern, TMALoadPattern,
               TMAStorePattern, TMAStoreWaitPattern>(converter,
                                                     patterns.getContext());
}
