//===- TileTypesTest.cpp - Tile type helpers ------------------------------===//

#include "tile/Dialect/Tile/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::tile;

namespace {

class TileTypesTest : public ::testing::Test {
protected:
  TileTypesTest() { context.loadDialect<TileDialect>(); }
  MLIRContext context;
  Builder b{&context};
};

TEST_F(TileTypesTest, PointerDefaultsToGlobalMemory) {
  auto ptr = PointerType::get(b.getF32Type());
  EXPECT_EQ(ptr.getPointeeType(), b.getF32Type());
  EXPECT_EQ(ptr.getAddressSpace(), 1);
  auto shared = PointerType::get(b.getF16Type(), 3);
  EXPECT_EQ(shared.getAddressSpace(), 3);
  EXPECT_NE(Type(ptr), Type(PointerType::get(b.getF32Type(), 3)));
}

TEST_F(TileTypesTest, PointeeOfScalarAndTensor) {
  auto ptr = PointerType::get(b.getBF16Type());
  EXPECT_EQ(getPointeeTypeLike(ptr), b.getBF16Type());
  auto tensor = RankedTensorType::get({16, 32}, ptr);
  EXPECT_EQ(getPointeeTypeLike(tensor),
            RankedTensorType::get({16, 32}, b.getBF16Type()));
  // Not a pointer at all.
  EXPECT_FALSE(getPointeeTypeLike(b.getI32Type()));
  EXPECT_FALSE(getPointeeTypeLike(RankedTensorType::get({4}, b.getF32Type())));
}

TEST_F(TileTypesTest, MaskTypeFollowsShape) {
  EXPECT_EQ(getI1TypeLike(b.getF32Type()), b.getI1Type());
  auto tensor = RankedTensorType::get({8, 4}, b.getF32Type());
  EXPECT_EQ(getI1TypeLike(tensor),
            RankedTensorType::get({8, 4}, b.getI1Type()));
}

TEST_F(TileTypesTest, ElementBitWidth) {
  EXPECT_EQ(getElementBitWidth(b.getF16Type()), 16u);
  EXPECT_EQ(getElementBitWidth(RankedTensorType::get({4}, b.getI8Type())), 8u);
  // Pointers are 64-bit addresses whatever they point to.
  auto ptr = PointerType::get(b.getI8Type());
  EXPECT_EQ(getElementBitWidth(ptr), 64u);
  EXPECT_EQ(getElementBitWidth(RankedTensorType::get({4}, ptr)), 64u);
}

TEST_F(TileTypesTest, PointerVerifierRejectsTensors) {
  std::string message;
  auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto bad = PointerType::getChecked(
      emit, Type(RankedTensorType::get({4}, b.getF32Type())), 1);
  EXPECT_FALSE(bad);
  EXPECT_NE(message.find("pointee must be a scalar"), std::string::npos);
}

} // namespace
