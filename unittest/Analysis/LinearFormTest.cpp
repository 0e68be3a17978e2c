//===- LinearFormTest.cpp - Integer scalars as linear forms ---------------===//
//
// Each test parses a small function and compares the forms of the values
// that `test.id` markers name.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/LinearForm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

#include "MarkedValues.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class LinearFormTest : public ::testing::Test {
protected:
  LinearFormTest() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect>();
  }

  /// Parses `body` as the body of `func @f(%a: i32, %b: i32, %c: i8)`.
  void parse(StringRef body) {
    std::string text = "func.func @f(%a: i32, %b: i32, %c: i8) {\n" +
                       body.str() + "\n  return\n}\n";
    module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << text;
  }

  /// The result of the op marked `{test.id = "<name>"}`.
  Value marked(StringRef name) { return findMarked(*module, name); }

  Value argument(unsigned index) {
    auto function = *module->getOps<func::FuncOp>().begin();
    return function.getArgument(index);
  }

  LinearForm form(StringRef name) {
    std::optional<LinearForm> result = LinearForm::of(marked(name));
    EXPECT_TRUE(result.has_value());
    return result.value_or(LinearForm(0));
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(LinearFormTest, ReassociatesSumsAndScaledTerms) {
  // (a + 3) * 4 - 12 + b and b + 4 * a are the same form.
  parse(R"(
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %c12 = arith.constant 12 : i32
    %s = arith.addi %a, %c3 : i32
    %m = arith.muli %s, %c4 : i32
    %d = arith.subi %m, %c12 : i32
    %x = arith.addi %d, %b {test.id = "x"} : i32
    %t = arith.muli %c4, %a : i32
    %y = arith.addi %b, %t {test.id = "y"} : i32
    %z = arith.addi %y, %c3 {test.id = "z"} : i32
  )");
  EXPECT_EQ(form("x"), form("y"));
  EXPECT_NE(form("x"), form("z"));
}

TEST_F(LinearFormTest, CancelledTermsAndWrapAround) {
  // (a + b) - a is b; 2^31 * 2 wraps to 0 in 32 bits, so a * 2^31 * 2 is 0.
  parse(R"(
    %s = arith.addi %a, %b : i32
    %x = arith.subi %s, %a {test.id = "x"} : i32
    %big = arith.constant -2147483648 : i32
    %c2 = arith.constant 2 : i32
    %m = arith.muli %a, %big : i32
    %w = arith.muli %m, %c2 {test.id = "w"} : i32
    %c0 = arith.constant 0 : i32
    %zero = arith.addi %c0, %c0 {test.id = "zero"} : i32
  )");
  EXPECT_EQ(form("x"), LinearForm::term(argument(1), 32));
  EXPECT_EQ(form("w"), form("zero"));
  EXPECT_TRUE(form("w").isConstant());
}

TEST_F(LinearFormTest, ProductsOfTwoTermsStayOpaque) {
  // a * b is a term of its own: equal to itself, not to a + b or to b * a
  // (another value, which the form does not know to be the same product).
  parse(R"(
    %p = arith.muli %a, %b {test.id = "p"} : i32
    %q = arith.muli %b, %a {test.id = "q"} : i32
    %s = arith.addi %a, %b {test.id = "s"} : i32
    %c0 = arith.constant 0 : i32
    %p0 = arith.addi %p, %c0 {test.id = "p0"} : i32
  )");
  EXPECT_EQ(form("p"), form("p0"));
  EXPECT_NE(form("p"), form("q"));
  EXPECT_NE(form("p"), form("s"));
}

TEST_F(LinearFormTest, SubstitutesAValue) {
  // a + b + 64 with a replaced by 0 - 64 (a loop's step before its first
  // iteration) is b.
  parse(R"(
    %c64 = arith.constant 64 : i32
    %s = arith.addi %a, %b : i32
    %x = arith.addi %s, %c64 {test.id = "x"} : i32
  )");
  llvm::SmallDenseMap<Value, LinearForm> substitute;
  substitute.try_emplace(argument(0), LinearForm::constant(32, -64));
  std::optional<LinearForm> result = LinearForm::of(marked("x"), substitute);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, LinearForm::term(argument(1), 32));
}

TEST_F(LinearFormTest, WidthsDifferAndNonIntegersHaveNoForm) {
  // An i8 constant and an i32 one of the same value are different forms;
  // a float has none.
  parse(R"(
    %c5 = arith.constant {test.id = "i8"} 5 : i8
    %d5 = arith.constant {test.id = "i32"} 5 : i32
    %f = arith.constant {test.id = "f"} 1.0 : f32
  )");
  EXPECT_NE(form("i8"), form("i32"));
  EXPECT_EQ(form("i8").getOffset(), 5u);
  EXPECT_FALSE(LinearForm::of(marked("f")).has_value());
}

} // namespace
