//===- TileOpsTest.cpp - Building, verifying and folding Tile ops ---------===//

#include "tile/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;

namespace {

class TileOpsTest : public ::testing::Test {
protected:
  TileOpsTest() : builder(&context), loc(builder.getUnknownLoc()) {
    context.loadDialect<TileDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    // Verifier failures are expected in some tests; keep them off stderr.
    handler.emplace(&context, [](Diagnostic &) { return success(); });
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
  std::optional<ScopedDiagnosticHandler> handler;
};

TEST_F(TileOpsTest, VectorAddBuildsAndVerifies) {
  auto f32 = builder.getF32Type();
  auto ptr = PointerType::get(f32);
  auto func = func::FuncOp::create(
      builder, loc, "add",
      builder.getFunctionType({ptr, builder.getI32Type()}, {}));
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  auto range = MakeRangeOp::create(
      builder, loc, RankedTensorType::get({128}, builder.getI32Type()),
      /*start=*/0, /*end=*/128);
  auto ptrs = SplatOp::create(builder, loc, RankedTensorType::get({128}, ptr),
                              entry->getArgument(0));
  auto addr = AddPtrOp::create(builder, loc, ptrs.getType(), ptrs, range);
  auto n = SplatOp::create(builder, loc,
                           RankedTensorType::get({128}, builder.getI32Type()),
                           entry->getArgument(1));
  auto mask =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, range, n);
  auto load = LoadOp::create(builder, loc, getPointeeTypeLike(addr.getType()),
                             addr, mask, Value(), CacheModifier::None,
                             EvictionPolicy::Normal, false);
  StoreOp::create(builder, loc, addr, load, mask, CacheModifier::None,
                  EvictionPolicy::Normal);
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(load.getType(), RankedTensorType::get({128}, f32));
}

TEST_F(TileOpsTest, MakeRangeVerifierCatchesBadLength) {
  auto range = MakeRangeOp::create(
      builder, loc, RankedTensorType::get({64}, builder.getI32Type()), 0, 128);
  EXPECT_TRUE(failed(verify(range)));
}

TEST_F(TileOpsTest, SplatOfConstantFolds) {
  auto c =
      arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(1.5));
  auto type = RankedTensorType::get({4, 4}, builder.getF32Type());
  Value folded = builder.createOrFold<SplatOp>(loc, type, c);
  auto constant = folded.getDefiningOp<arith::ConstantOp>();
  ASSERT_TRUE(constant);
  auto attr = dyn_cast<SplatElementsAttr>(constant.getValue());
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getSplatValue<APFloat>().convertToFloat(), 1.5f);
}

TEST_F(TileOpsTest, TransOfTransComposes) {
  auto func = func::FuncOp::create(
      builder, loc, "t",
      builder.getFunctionType(
          {RankedTensorType::get({2, 4, 8}, builder.getF16Type())}, {}));
  builder.setInsertionPointToStart(func.addEntryBlock());
  Value x = func.getArgument(0);
  auto first = TransOp::create(
      builder, loc, RankedTensorType::get({4, 8, 2}, builder.getF16Type()), x,
      ArrayRef<int32_t>{1, 2, 0});
  auto second = TransOp::create(
      builder, loc, RankedTensorType::get({8, 2, 4}, builder.getF16Type()),
      first, ArrayRef<int32_t>{1, 2, 0});
  SmallVector<OpFoldResult> results;
  ASSERT_TRUE(succeeded(second->fold(results)));
  EXPECT_EQ(second.getSrc(), x);
  EXPECT_EQ(second.getOrder(), ArrayRef<int32_t>({2, 0, 1}));
}

TEST_F(TileOpsTest, AddPtrOfZeroFolds) {
  auto func = func::FuncOp::create(
      builder, loc, "p",
      builder.getFunctionType({PointerType::get(builder.getF32Type())}, {}));
  builder.setInsertionPointToStart(func.addEntryBlock());
  Value p = func.getArgument(0);
  auto zero =
      arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(0));
  Value folded = builder.createOrFold<AddPtrOp>(loc, p.getType(), p, zero);
  EXPECT_EQ(folded, p);
  auto one =
      arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(1));
  Value kept = builder.createOrFold<AddPtrOp>(loc, p.getType(), p, one);
  EXPECT_NE(kept, p);
}

TEST_F(TileOpsTest, DotVerifierChecksShapes) {
  auto f16 = builder.getF16Type(), f32 = builder.getF32Type();
  auto func = func::FuncOp::create(
      builder, loc, "d",
      builder.getFunctionType({RankedTensorType::get({64, 32}, f16),
                               RankedTensorType::get({16, 64}, f16),
                               RankedTensorType::get({64, 64}, f32)},
                              {}));
  builder.setInsertionPointToStart(func.addEntryBlock());
  auto dot = DotOp::create(builder, loc, func.getArgument(2).getType(),
                           func.getArgument(0), func.getArgument(1),
                           func.getArgument(2), InputPrecision::IEEE, 0);
  EXPECT_TRUE(failed(verify(dot)));
}

} // namespace
