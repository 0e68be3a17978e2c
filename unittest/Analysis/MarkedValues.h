//===- MarkedValues.h - Values that a test's IR names with test.id --------===//
//
// Analysis tests parse a small function and look at the values whose ops
// carry `{test.id = "<name>"}`.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_UNITTEST_ANALYSIS_MARKEDVALUES_H
#define TILE_UNITTEST_ANALYSIS_MARKEDVALUES_H

#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

namespace mlir {
namespace tile {

/// The first result of the op in `module` marked `{test.id = "<name>"}`
/// (a failed expectation and a null value if there is none).
inline Value findMarked(ModuleOp module, StringRef name) {
  Value found;
  module->walk([&](Operation *op) {
    if (auto attr = op->getAttrOfType<StringAttr>("test.id"))
      if (attr.getValue() == name)
        found = op->getResult(0);
  });
  EXPECT_TRUE(found) << "no op marked " << name.str();
  return found;
}

} // namespace tile
} // namespace mlir

#endif // TILE_UNITTEST_ANALYSIS_MARKEDVALUES_H
