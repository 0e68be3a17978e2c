//===- TileGPUTypes.cpp - The TileGPU memdesc type ------------------------===//
//
// !tilegpu.memdesc<SxMxNxT, #layout>: a buffer in shared memory, or S of
// them (a pipeline's stages) in front of the layout's dimensions.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

//===----------------------------------------------------------------------===//
// Custom directive: the `64x32xf16` of a memdesc.
//===----------------------------------------------------------------------===//

static ParseResult parseShape(AsmParser &parser,
                              SmallVectorImpl<int64_t> &shape,
                              Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShape(AsmPrinter &printer, ArrayRef<int64_t> shape,
                       Type elementType) {
  for (int64_t dim : shape)
    printer << dim << "x";
  printer << elementType;
}

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"

void TileGPUDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  SharedLayout encoding) {
  if (shape.empty())
    return emitError() << "memdesc must have rank >= 1";
  if (!encoding)
    return emitError() << "memdesc needs a shared layout";
  // Leading dimensions beyond the layout's rank count buffers of the
  // trailing shape (a pipeline's stages); the layout applies to each.
  size_t layoutRank = encoding.getOrder().size();
  if (shape.size() < layoutRank)
    return emitError() << "memdesc of rank " << shape.size()
                       << " has a shared layout of rank " << layoutRank;
  ArrayRef<int64_t> bufferShape = shape.take_back(layoutRank);
  for (int64_t dim : shape.drop_back(layoutRank))
    if (dim <= 0)
      return emitError() << "memdesc buffer counts must be positive";
  for (int64_t dim : bufferShape)
    if (dim <= 0 || !llvm::isPowerOf2_64(dim))
      return emitError() << "memdesc dimensions must be positive powers of two";
  return encoding.verifyBuffer(emitError, bufferShape,
                               tile::getElementBitWidth(elementType));
}
