//===- PingPong.cpp - Consumer warpgroups take turns on the tensor cores --===//
//
// Two consumer warpgroups running attention in lockstep reach their softmax
// together, and the tensor cores idle meanwhile. Ordering their dots in
// turns staggers them: while warpgroup 0 issues P*V and the next Q*K^T,
// warpgroup 1 computes its softmax, and the other way round.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUPINGPONG
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// Named barriers 0 and 1 are the CTA's and the consumers'.
constexpr int32_t kFirstTurnBarrier = 2;

/// Whether a warpgroup_dot_wait lies between `from` and `to` in `body`,
/// going forward and around the back edge when `to` does not follow.
bool waitBetween(Block *body, Operation *from, Operation *to) {
  bool wraps = !from->isBeforeInBlock(to);
  for (Operation *op = from->getNextNode(); op != to;) {
    if (isa<WarpGroupDotWaitOp>(op))
      return true;
    op = op->getNextNode();
    if (!op) {
      if (!wraps)
        return false;
      op = &body->front();
    }
  }
  return false;
}

struct PingPongPass : tilegpu::impl::TileGPUPingPongBase<PingPongPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    int numWarps = TileGPUDialect::getNumWarps(module);
    if (numWarps % 4 != 0 || numWarps / 4 < 2)
      return;
    int32_t warpgroups = numWarps / 4;
    module.walk([&](WarpSpecializeOp specialize) {
      Region &consumers = specialize.getConsumers();
      consumers.walk([&](scf::ForOp loop) {
        if (loop->hasAttr(TileDialect::getWarpSpecializeAttrName()))
          takeTurns(loop, warpgroups);
      });
      // The last warpgroup hands warpgroup 0 the first turn.
      if (consumers.walk([](TurnWaitOp) { return WalkResult::interrupt(); })
              .wasInterrupted()) {
        OpBuilder b(&consumers.front(), consumers.front().begin());
        TurnInitOp::create(b, specialize.getLoc(), warpgroups,
                           kFirstTurnBarrier);
      }
    });
  }

  void takeTurns(scf::ForOp loop, int32_t warpgroups) {
    Block *body = loop.getBody();
    // A warpgroup waiting for its turn never reaches a consumer barrier
    // that the other one waits at.
    if (loop->walk([](BarrierOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
    SmallVector<WarpGroupDotOp> dots;
    for (auto dot : body->getOps<WarpGroupDotOp>())
      if (dot.getIsAsync())
        dots.push_back(dot);
    // One dot a turn would only serialise the warpgroups' MMAs (a K loop):
    // turns pay where other work sits between runs of dots.
    size_t n = dots.size();
    if (n < 2 || n != size_t(llvm::range_size(body->getOps<WarpGroupDotOp>())))
      return;
    // A turn starts at a dot with a wait between it and the previous one
    // (in the previous iteration, for the first), and ends at a dot with a
    // wait before the next. With no wait at all there are no turns.
    SmallVector<bool> startsTurn;
    for (size_t i = 0; i < n; ++i)
      startsTurn.push_back(waitBetween(body, dots[(i + n - 1) % n], dots[i]));
    if (llvm::none_of(startsTurn, [](bool starts) { return starts; }))
      return;
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    for (size_t i = 0; i < n; ++i) {
      if (startsTurn[i]) {
        b.setInsertionPoint(dots[i]);
        TurnWaitOp::create(b, loc, warpgroups, kFirstTurnBarrier);
      }
      if (startsTurn[(i + 1) % n]) {
        b.setInsertionPointAfter(dots[i]);
        TurnPassOp::create(b, loc, warpgroups, kFirstTurnBarrier);
      }
    }
    if (!startsTurn.front()) {
      // The first iteration's leading dots end a turn begun before the
      // loop; the last iteration's trailing ones begin a turn ended after.
      b.setInsertionPoint(loop);
      TurnWaitOp::create(b, loc, warpgroups, kFirstTurnBarrier);
      b.setInsertionPointAfter(loop);
      TurnPassOp::create(b, loc, warpgroups, kFirstTurnBarrier);
    }
  }
};

} // namespace
