//===- TileDialect.cpp - Tile dialect registration, types and attributes --===//

#include "tile/Dialect/Tile/IR/Dialect.h"
#include "tile/Support/Limits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tile/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"

namespace {
/// @jit functions reach the IR as private func.funcs that the inliner folds
/// into their callers before layouts are assigned; every Tile op (and the
/// combiner regions of reduce and scan) may be inlined anywhere, since none
/// of them depends on the function or region it sits in.
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    return true;
  }
  bool isLegalToInline(Region *dest, Region *src, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileInlinerInterface>();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointeeType, int addressSpace) {
  if (!isa<FloatType, IntegerType, PointerType>(pointeeType))
    return emitError() << "pointee must be a scalar integer, float or pointer, "
                          "got "
                       << pointeeType;
  if (addressSpace < 0)
    return emitError() << "address space must be non-negative, got "
                       << addressSpace;
  return success();
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType blockType) {
  if (blockType.getEncoding())
    return emitError() << "a descriptor's block type has no layout";
  if (!isa<FloatType, IntegerType>(blockType.getElementType()))
    return emitError() << "descriptor elements must be integers or floats, got "
                       << blockType.getElementType();
  if (blockType.getRank() < 1 || blockType.getRank() > 5)
    return emitError() << "descriptor blocks have rank 1 to 5, got "
                       << blockType.getRank();
  for (auto [i, dim] : llvm::enumerate(blockType.getShape())) {
    if (dim <= 0 || !llvm::isPowerOf2_64(dim))
      return emitError() << "descriptor block dimensions must be powers of "
                            "two, got "
                         << dim;
    // The TMA box limit; the innermost dimension is copied in swizzle-wide
    // pieces, so only the outer ones are bounded.
    if (i + 1 < size_t(blockType.getRank()) && dim > 256)
      return emitError() << "descriptor block dimension " << i << " is " << dim
                         << ", more than the 256 a TMA box allows";
  }
  return success();
}

Type mlir::tile::getPointeeTypeLike(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    Type pointee = getPointeeTypeLike(tensor.getElementType());
    if (!pointee)
      return {};
    return tensor.clone(pointee);
  }
  if (auto ptr = dyn_cast<PointerType>(type))
    return ptr.getPointeeType();
  return {};
}

Type mlir::tile::getI1TypeLike(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}

bool mlir::tile::isFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

unsigned mlir::tile::getElementBitWidth(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<PointerType>(element))
    return 64;
  return element.getIntOrFloatBitWidth();
}

//===----------------------------------------------------------------------===//
// Attributes on kernels and kernel arguments
//===----------------------------------------------------------------------===//

static LogicalResult verifyPowerOfTwoHint(Operation *op, NamedAttribute attr,
                                          Type argType) {
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value)
    return op->emitError() << "'" << attr.getName().strref()
                           << "' must be an integer attribute";
  int64_t v = value.getInt();
  if (v <= 0 || !llvm::isPowerOf2_64(v))
    return op->emitError() << "'" << attr.getName().strref()
                           << "' must be a positive power of two, got " << v;
  if (!isa<IntegerType, PointerType>(getElementTypeOrSelf(argType)))
    return op->emitError() << "'" << attr.getName().strref()
                           << "' applies to integer and pointer arguments, "
                              "not "
                           << argType;
  return success();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != getDivisibilityAttrName() && name != getContiguityAttrName())
    return op->emitError() << "unknown tile argument attribute '" << name
                           << "'";
  Region &region = op->getRegion(regionIndex);
  if (region.empty())
    return success();
  Type argType = region.front().getArgument(argIndex).getType();
  return verifyPowerOfTwoHint(op, attr, argType);
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == getKernelAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError() << "'" << name << "' only applies to func.func";
    if (func.getFunctionType().getNumResults() != 0)
      return op->emitError() << "a tile kernel must not return values";
    return success();
  }
  if (name == getNumStagesAttrName()) {
    auto stages = dyn_cast<IntegerAttr>(attr.getValue());
    if (!stages || stages.getInt() < 1 ||
        stages.getInt() > ::tile::kMaxNumStages)
      return op->emitError()
             << "'" << name << "' must be an integer attribute in [1, "
             << ::tile::kMaxNumStages << "]";
    if (!isa<scf::ForOp>(op))
      return op->emitError() << "'" << name << "' only applies to scf.for";
    return success();
  }
  if (name == getWarpSpecializeAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    if (!isa<scf::ForOp>(op))
      return op->emitError() << "'" << name << "' only applies to scf.for";
    return success();
  }
  return op->emitError() << "unknown tile attribute '" << name << "'";
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}
