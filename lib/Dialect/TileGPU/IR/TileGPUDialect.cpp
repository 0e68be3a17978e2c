//===- TileGPUDialect.cpp - The TileGPU dialect and its module attributes -===//
//
// The dialect's registration, the aliases its layouts print under, and the
// module attributes the passes read (warps, target, shared memory). Its
// attributes, types and ops have a file each, as their .td files do.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Support/Limits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

#include "tile/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"

namespace {
/// Prints layouts as `#blocked`, `#slice`, `#shared` aliases: they repeat on
/// every tensor type.
struct TileGPUOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr))
      os << "blocked";
    else if (isa<SliceEncodingAttr>(attr))
      os << "slice";
    else if (isa<PermutedEncodingAttr>(attr))
      os << "permuted";
    else if (isa<SharedEncodingAttr>(attr))
      os << "shared";
    else if (isa<NVMMASharedEncodingAttr>(attr))
      os << "nvmma";
    else if (isa<MmaEncodingAttr>(attr))
      os << "mma";
    else if (isa<DotOperandEncodingAttr>(attr))
      os << "dot_op";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addInterfaces<TileGPUOpAsmInterface>();
  registerAttributes();
  registerTypes();
  registerOps();
}

int TileGPUDialect::getNumWarps(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(getNumWarpsAttrName()))
      return attr.getInt();
  return 4;
}

int TileGPUDialect::getLaunchWarps(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  int extra = 0;
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(getExtraWarpsAttrName()))
      extra = attr.getInt();
  return getNumWarps(op) + extra;
}

LogicalResult TileGPUDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == getNumWarpsAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value || value.getInt() <= 0 ||
        !llvm::isPowerOf2_64(value.getInt()) ||
        value.getInt() > ::tile::kMaxNumWarps)
      return op->emitError()
             << "'" << name << "' must be a power-of-two integer in [1, "
             << ::tile::kMaxNumWarps << "] on a module";
    return success();
  }
  if (name == getExtraWarpsAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value || value.getInt() <= 0 ||
        value.getInt() % 4 != 0)
      return op->emitError() << "'" << name
                             << "' must be a positive multiple of 4 on a "
                                "module";
    return success();
  }
  if (name == getTargetAttrName()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value || !value.getValue().starts_with("sm_"))
      return op->emitError()
             << "'" << name << "' must be a string like \"sm_90a\" on a module";
    return success();
  }
  if (name == getSharedAttrName() || name == getOffsetAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getInt() < 0)
      return op->emitError()
             << "'" << name << "' must be a non-negative integer";
    return success();
  }
  if (name == getStagedRegisterLoadsAttrName()) {
    if (!isa<ModuleOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute "
                                                "on a module";
    return success();
  }
  return op->emitError() << "unknown TileGPU attribute '" << name << "'";
}
