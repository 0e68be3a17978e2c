//===- WarpSpecializeOps.cpp - Producer and consumer warps as branches ----===//
//
// A warp_specialize becomes
//
//   if (warp < producer_warps) {
//     setmaxnreg.dec producer_registers
//     if (warp == 0) { producer } else if (warp == 1) { writer }
//   } else {
//     setmaxnreg.inc consumer_registers
//     consumers
//   }
//
// The branches split the CTA at warpgroup boundaries, so every warp of a
// warpgroup executes the same (aligned) setmaxnreg. Only one producer warp
// runs the copies (and a second one the writer's stores, if any); the
// others give their registers back and leave.
//
// Turns between consumer warpgroups are named barriers: warpgroup g waits
// on barrier first + g with 2 * 128 threads (its own sync, the previous
// warpgroup's arrive) and passes by arriving on the next one's.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

static void setRegisterBudget(OpBuilder &b, Location loc, StringRef direction,
                              int32_t registers) {
  emitInlineAsm(b, loc, TypeRange(), ValueRange(),
                ("setmaxnreg." + direction + ".sync.aligned.u32 " +
                 std::to_string(registers) + ";")
                    .str(),
                "", /*hasSideEffects=*/true);
}

/// Moves the ops of `region`'s block, but its terminator, before `before`.
static void inlineBefore(Region &region, Operation *before) {
  Block &block = region.front();
  before->getBlock()->getOperations().splice(
      before->getIterator(), block.getOperations(), block.begin(),
      std::prev(block.end()));
}

namespace {

/// Threads at each turn barrier: one warpgroup syncs, the one before it
/// arrives.
constexpr int kTurnThreads = 2 * 4 * TileGPUDialect::kThreadsPerWarp;

/// The consumer warpgroup (i32) this thread is in.
Value consumerWarpgroup(OpBuilder &b, Operation *op) {
  return arith::ShRUIOp::create(b, op->getLoc(), getThreadId(b, op).warp,
                                i32Constant(b, op->getLoc(), 2));
}

/// The named barrier (i32) of warpgroup `(g + shift) % warpgroups` for the
/// consumer warpgroup g this thread is in.
template <typename TurnOp>
Value turnBarrier(OpBuilder &b, TurnOp op, int shift) {
  Location loc = op.getLoc();
  Value group = consumerWarpgroup(b, op);
  if (shift != 0) {
    Value shifted =
        arith::AddIOp::create(b, loc, group, i32Constant(b, loc, shift));
    group = arith::RemUIOp::create(b, loc, shifted,
                                   i32Constant(b, loc, op.getWarpgroups()));
  }
  return arith::AddIOp::create(b, loc, group,
                               i32Constant(b, loc, op.getFirstBarrier()));
}

struct TurnInitPattern : OpConversionPattern<TurnInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TurnInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value group = consumerWarpgroup(rewriter, op);
    Value last = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, group,
        i32Constant(rewriter, loc, op.getWarpgroups() - 1));
    emitInlineAsm(rewriter, loc, TypeRange(), ValueRange{last},
                  "@$0 bar.arrive " + std::to_string(op.getFirstBarrier()) +
                      ", " + std::to_string(kTurnThreads) + ";",
                  "b", /*hasSideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// turn_wait: `bar.sync` on this warpgroup's barrier; turn_pass:
/// `bar.arrive` on the next one's.
template <typename TurnOp>
struct TurnBarrierPattern : OpConversionPattern<TurnOp> {
  TurnBarrierPattern(const TypeConverter &converter, MLIRContext *context,
                     StringRef instruction, int shift)
      : OpConversionPattern<TurnOp>(converter, context),
        instruction(instruction), shift(shift) {}

  LogicalResult
  matchAndRewrite(TurnOp op, typename TurnOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value id = turnBarrier(rewriter, op, shift);
    std::string barrier =
        instruction + " $0, " + std::to_string(kTurnThreads) + ";";
    // ptxas moves arithmetic across a bar.sync within a basic block: the
    // softmax a turn's wait follows would slide under it and wait for the
    // other warpgroup's turn (measured: 21% of the consumers' stall
    // samples on an EX2 behind the hoisted wait). A wait alone in a block
    // keeps its place; the block's back edge (barrier ids never exceed 15)
    // is never taken.
    if constexpr (std::is_same_v<TurnOp, TurnWaitOp>)
      barrier = "{\n.reg .pred again;\nsetp.gt.u32 again, $0, 15;\n"
                "turn_wait:\n" +
                barrier + "\n@again bra.uni turn_wait;\n}";
    emitInlineAsm(rewriter, op.getLoc(), TypeRange(), ValueRange{id}, barrier,
                  "r", /*hasSideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }

  std::string instruction;
  int shift;
};

} // namespace

void mlir::tile::populateTurnPatterns(ThreadTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<TurnInitPattern>(converter, context);
  patterns.add<TurnBarrierPattern<TurnWaitOp>>(converter, context, "bar.sync",
                                               0);
  patterns.add<TurnBarrierPattern<TurnPassOp>>(converter, context, "bar.arrive",
                                               1);
}

void mlir::tile::lowerWarpSpecialize(ModuleOp module) {
  SmallVector<WarpSpecializeOp> ops;
  module.walk([&](WarpSpecializeOp op) { ops.push_back(op); });
  for (WarpSpecializeOp op : ops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    // The warp-uniform index: ptxas sees each side taken by whole warps.
    Value warp = getThreadId(b, op).warp;
    Value isProducer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp,
                              i32Constant(b, loc, op.getProducerWarps()));
    auto sides = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);

    b.setInsertionPointToStart(sides.thenBlock());
    setRegisterBudget(b, loc, "dec", op.getProducerRegisters());
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                        i32Constant(b, loc, 0));
    bool writes = !op.getWriter().empty();
    auto producer = scf::IfOp::create(b, loc, first, /*withElse=*/writes);
    inlineBefore(op.getProducer(), producer.thenBlock()->getTerminator());
    if (writes) {
      b.setInsertionPointToStart(producer.elseBlock());
      Value second = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           warp, i32Constant(b, loc, 1));
      auto writer = scf::IfOp::create(b, loc, second, /*withElse=*/false);
      inlineBefore(op.getWriter(), writer.thenBlock()->getTerminator());
    }

    b.setInsertionPointToStart(sides.elseBlock());
    setRegisterBudget(b, loc, "inc", op.getConsumerRegisters());
    inlineBefore(op.getConsumers(), sides.elseBlock()->getTerminator());
    op.erase();
  }
  module.walk([](Operation *op) { op->removeAttr(kPartitionThreadAttr); });
}
