//===- AllocationTest.cpp - Shared buffers live beside a loop -------------===//
//
// The pipeliner asks how much shared memory a loop's other buffers take
// while it runs, to know whether its staged copies fit beside them. Buffers
// the body fills and reads one after the other share their bytes; the
// answer is the most live at once, not their sum.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;

namespace {

// A 16 KiB buffer read in every step, and two 64 KiB ones that each step
// fills and reads in turn.
constexpr const char *kLoop = R"(
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #tilegpu.shared<{order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @f(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %held = tilegpu.local_alloc {test.id = "held"} : () -> !tilegpu.memdesc<64x64xf32, #shared>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf32, #shared>
      %x = tilegpu.local_load %a : !tilegpu.memdesc<128x128xf32, #shared> -> tensor<128x128xf32, #blocked>
      %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf32, #shared>
      %y = tilegpu.local_load %b : !tilegpu.memdesc<128x128xf32, #shared> -> tensor<128x128xf32, #blocked>
      %h = tilegpu.local_load %held : !tilegpu.memdesc<64x64xf32, #shared> -> tensor<64x64xf32, #blocked>
    }
    return
  }
}
)";

class AllocationTest : public ::testing::Test {
protected:
  AllocationTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect, scf::SCFDialect,
                        TileDialect, tilegpu::TileGPUDialect>();
    module = parseSourceString<ModuleOp>(kLoop, &context);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(AllocationTest, BuffersFilledInTurnShareTheirBytes) {
  ASSERT_TRUE(module);
  auto function = *module->getOps<func::FuncOp>().begin();
  scf::ForOp loop = *function.getOps<scf::ForOp>().begin();
  SharedMemoryAllocation allocation(function);
  auto none = [](Operation *) { return false; };
  EXPECT_EQ(allocation.peakBufferBytesDuring(loop, none), (64 + 16) * 1024);
  // What the allocation itself gives the function agrees.
  EXPECT_EQ(allocation.getTotalBytes(), (64 + 16) * 1024);
  auto notHeld = [](Operation *op) { return op->hasAttr("test.id"); };
  EXPECT_EQ(allocation.peakBufferBytesDuring(loop, notHeld), 64 * 1024);
}

TEST_F(AllocationTest, OnlyBuffersLiveDuringTheOpCount) {
  ASSERT_TRUE(module);
  auto function = *module->getOps<func::FuncOp>().begin();
  SharedMemoryAllocation allocation(function);
  // The constant before the loop runs beside no buffer yet.
  Operation *first = &function.getBody().front().front();
  EXPECT_EQ(allocation.peakBufferBytesDuring(first,
                                             [](Operation *) { return false; }),
            0);
}
} // namespace
