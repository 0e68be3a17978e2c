//===- WarpSpecializeOps.cpp - Producer and consumer warps as branches ----===//
//
// A warp_specialize becomes
//
//   if (warp < producer_warps) {
//     setmaxnreg.dec producer_registers
//     if (warp == 0) { producer }
//   } else {
//     setmaxnreg.inc consumer_registers
//     consumers
//   }
//
// The branches split the CTA at warpgroup boundaries, so every warp of a
// warpgroup executes the same (aligned) setmaxnreg. Only one producer warp
// runs the copies; the others give their registers back and leave.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

void mlir::tile::lowerWarpSpecialize(ModuleOp module) {
  SmallVector<WarpSpecializeOp> ops;
  module.walk([&](WarpSpecializeOp op) { ops.push_back(op); });
  for (WarpSpecializeOp op : ops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value warp = arith::ShRUIOp::create(b, loc, tid, i32Constant(b, loc, 5));
    Value isProducer =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warp,
                              i32Constant(b, loc, op.getProducerWarps()));
    auto sides = scf::IfOp::create(b, loc, isProducer, /*withElse=*/true);

    b.setInsertionPointToStart(sides.thenBlock());
    setRegisterBudget(b, loc, "dec", op.getProducerRegisters());
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warp,
                                        i32Constant(b, loc, 0));
    auto producer = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    inlineBefore(op.getProducer(), producer.thenBlock()->getTerminator());

    b.setInsertionPointToStart(sides.elseBlock());
    setRegisterBudget(b, loc, "inc", op.getConsumerRegisters());
    inlineBefore(op.getConsumers(), sides.elseBlock()->getTerminator());
    op.erase();
  }
}
