//===- TileGPUDialect.cpp - TileGPU dialect, attributes, types, ops -------===//

#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Dialect/TileGPU/IR/TMA.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
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

#include "tile/Dialect/TileGPU/IR/TileGPUAttrInterfaces.cpp.inc"
#include "tile/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
#define GET_OP_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

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
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
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
        !llvm::isPowerOf2_64(value.getInt()) || value.getInt() > 32)
      return op->emitError() << "'" << name
                             << "' must be a power-of-two integer in [1, 32] "
                                "on a module";
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
  return op->emitError() << "unknown TileGPU attribute '" << name << "'";
}

//===----------------------------------------------------------------------===//
// Encodings
//===----------------------------------------------------------------------===//

static LogicalResult
verifyPermutation(function_ref<InFlightDiagnostic()> emitError,
                  ArrayRef<unsigned> order, StringRef what) {
  SmallVector<bool> seen(order.size(), false);
  for (unsigned d : order) {
    if (d >= order.size() || seen[d])
      return emitError() << what << " must be a permutation of [0, "
                         << order.size() << ")";
    seen[d] = true;
  }
  return success();
}

LogicalResult BlockedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0)
    return emitError() << "blocked layout must have rank >= 1";
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << "blocked layout fields must all have rank " << rank;
  for (ArrayRef<unsigned> field : {sizePerThread, threadsPerWarp, warpsPerCTA})
    for (unsigned v : field)
      if (v == 0 || !llvm::isPowerOf2_32(v))
        return emitError() << "blocked layout sizes must be powers of two";
  unsigned threads = 1;
  for (unsigned v : threadsPerWarp)
    threads *= v;
  if (threads != TileGPUDialect::kThreadsPerWarp)
    return emitError() << "threadsPerWarp must multiply to "
                       << TileGPUDialect::kThreadsPerWarp << ", got "
                       << threads;
  return verifyPermutation(emitError, order, "order");
}

LinearLayout
BlockedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return LinearLayout::blocked(shape, getSizePerThread(), getThreadsPerWarp(),
                               getWarpsPerCTA(), getOrder());
}

unsigned BlockedEncodingAttr::getRank() const { return getOrder().size(); }

BlockedEncodingAttr BlockedEncodingAttr::getDefault(MLIRContext *context,
                                                    ArrayRef<int64_t> shape,
                                                    int numWarps) {
  SmallVector<unsigned> order;
  for (unsigned d = shape.size(); d-- > 0;)
    order.push_back(d);
  return getFilling(context, shape, order, /*perThread=*/1, numWarps);
}

BlockedEncodingAttr BlockedEncodingAttr::getFilling(MLIRContext *context,
                                                    ArrayRef<int64_t> shape,
                                                    ArrayRef<unsigned> order,
                                                    unsigned perThread,
                                                    int numWarps) {
  unsigned rank = shape.size();
  SmallVector<unsigned> sizePerThread(rank, 1), threadsPerWarp(rank, 1),
      warpsPerCTA(rank, 1);
  sizePerThread[order[0]] = perThread;
  unsigned lanesLeft = TileGPUDialect::kThreadsPerWarp;
  unsigned warpsLeft = numWarps;
  for (unsigned d : order) {
    int64_t extent = std::max<int64_t>(shape[d] / sizePerThread[d], 1);
    unsigned lanes = std::min<int64_t>(lanesLeft, extent);
    threadsPerWarp[d] = lanes;
    lanesLeft /= lanes;
    extent = std::max<int64_t>(extent / lanes, 1);
    unsigned warps = std::min<int64_t>(warpsLeft, extent);
    warpsPerCTA[d] = warps;
    warpsLeft /= warps;
  }
  threadsPerWarp[order.back()] *= lanesLeft;
  warpsPerCTA[order.back()] *= warpsLeft;
  return BlockedEncodingAttr::get(context, sizePerThread, threadsPerWarp,
                                  warpsPerCTA, order);
}

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, DistributedEncoding parent) {
  if (!parent)
    return emitError() << "slice parent must be a distributed layout";
  if (parent.getRank() < 2)
    return emitError() << "slice parent must have rank >= 2";
  if (dim >= parent.getRank())
    return emitError() << "slice dim " << dim << " is out of range for a rank-"
                       << parent.getRank() << " parent";
  return success();
}

LinearLayout SliceEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  return getParent().toLinearLayout(parentShape).sliced(getDim());
}

unsigned SliceEncodingAttr::getRank() const {
  return getParent().getRank() - 1;
}

LogicalResult
SharedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           unsigned vec, unsigned perPhase, unsigned maxPhase,
                           ArrayRef<unsigned> order) {
  if (order.empty())
    return emitError() << "shared layout must have rank >= 1";
  for (unsigned v : {vec, perPhase, maxPhase})
    if (v == 0 || !llvm::isPowerOf2_32(v))
      return emitError() << "shared layout swizzle parameters must be powers "
                            "of two";
  return verifyPermutation(emitError, order, "order");
}

// `<{order = [1, 0]}>`, or with the swizzle first:
// `<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>`.
Attribute SharedEncodingAttr::parse(AsmParser &parser, Type) {
  unsigned vec = 1, perPhase = 1, maxPhase = 1;
  SmallVector<unsigned> order;
  if (parser.parseLess() || parser.parseLBrace())
    return {};
  if (succeeded(parser.parseOptionalKeyword("vec"))) {
    if (parser.parseEqual() || parser.parseInteger(vec) ||
        parser.parseComma() || parser.parseKeyword("perPhase") ||
        parser.parseEqual() || parser.parseInteger(perPhase) ||
        parser.parseComma() || parser.parseKeyword("maxPhase") ||
        parser.parseEqual() || parser.parseInteger(maxPhase) ||
        parser.parseComma())
      return {};
  }
  if (parser.parseKeyword("order") || parser.parseEqual() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&] { return parser.parseInteger(order.emplace_back()); }) ||
      parser.parseRBrace() || parser.parseGreater())
    return {};
  return parser.getChecked<SharedEncodingAttr>(parser.getContext(), vec,
                                               perPhase, maxPhase, order);
}

void SharedEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{";
  if (getVec() != 1 || getPerPhase() != 1 || getMaxPhase() != 1)
    printer << "vec = " << getVec() << ", perPhase = " << getPerPhase()
            << ", maxPhase = " << getMaxPhase() << ", ";
  printer << "order = [";
  llvm::interleaveComma(getOrder(), printer);
  printer << "]}>";
}

LinearLayout SharedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape,
                                                unsigned) const {
  return LinearLayout::sharedSwizzled(shape, getOrder(), getVec(),
                                      getPerPhase(), getMaxPhase());
}

int64_t SharedEncodingAttr::getAlignment() const { return 16; }

LogicalResult
SharedEncodingAttr::verifyBuffer(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, unsigned) const {
  if (getOrder().size() != shape.size())
    return emitError() << "memdesc of rank " << shape.size()
                       << " has a shared layout of rank " << getOrder().size();
  if (getMaxPhase() > 1 &&
      int64_t(getVec()) * getMaxPhase() > shape[getOrder()[0]])
    return emitError() << "swizzle of " << getMaxPhase() << " chunks of "
                       << getVec() << " elements does not fit a row of "
                       << shape[getOrder()[0]];
  return success();
}

LogicalResult
NVMMASharedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned swizzle, ArrayRef<unsigned> order) {
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "nvmma_shared swizzle must be 32, 64 or 128 bytes";
  if (order.size() != 2)
    return emitError() << "nvmma_shared layout must have rank 2";
  return verifyPermutation(emitError, order, "order");
}

LinearLayout
NVMMASharedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape,
                                        unsigned elementBits) const {
  return LinearLayout::sharedNVMMA(shape, getOrder(), elementBits,
                                   getSwizzle());
}

int64_t NVMMASharedEncodingAttr::getAlignment() const {
  // The swizzle pattern repeats every eight rows of an atom.
  return 8 * getSwizzle();
}

LogicalResult NVMMASharedEncodingAttr::verifyBuffer(
    function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
    unsigned elementBits) const {
  if (shape.size() != 2)
    return emitError() << "nvmma_shared buffer must have rank 2";
  int64_t rowBytes = shape[getOrder()[0]] * elementBits / 8;
  if (rowBytes % getSwizzle() != 0)
    return emitError() << "nvmma_shared rows of " << rowBytes
                       << " bytes are not a multiple of the " << getSwizzle()
                       << "-byte swizzle";
  if (shape[getOrder()[1]] % 8 != 0)
    return emitError() << "nvmma_shared buffer needs a multiple of 8 rows";
  return success();
}

LogicalResult
MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned version, ArrayRef<unsigned> warpsPerCTA,
                        ArrayRef<unsigned> instrShape) {
  if (version != 2 && version != 3)
    return emitError() << "mma version must be 2 (mma.sync) or 3 (wgmma)";
  if (warpsPerCTA.size() != 2 || instrShape.size() != 3)
    return emitError() << "mma layout needs 2 warpsPerCTA and 3 instrShape "
                          "entries";
  for (unsigned w : warpsPerCTA)
    if (w == 0 || !llvm::isPowerOf2_32(w))
      return emitError() << "mma warpsPerCTA must be powers of two";
  if (instrShape[0] != 16)
    return emitError() << "mma instructions cover 16 rows per warp";
  if (version == 2 && instrShape[1] != 8)
    return emitError() << "mma.sync instructions are 8 columns wide";
  if (version == 3) {
    if (warpsPerCTA[0] % 4 != 0)
      return emitError() << "wgmma needs warpsPerCTA[0] to be a multiple of "
                            "4 (whole warpgroups along M)";
    if (instrShape[1] < 8 || instrShape[1] > 256 ||
        !llvm::isPowerOf2_32(instrShape[1]))
      return emitError() << "wgmma N must be a power of two in [8, 256]";
  }
  return success();
}

LinearLayout MmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return LinearLayout::mmaAccumulator(shape, getWarpsPerCTA(),
                                      getInstrShape()[1]);
}

unsigned MmaEncodingAttr::getRank() const { return 2; }

LogicalResult
DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned opIdx, MmaEncodingAttr parent,
                               unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "dot_op opIdx must be 0 (A) or 1 (B)";
  if (!parent)
    return emitError() << "dot_op parent must be an mma layout";
  if (kWidth != 1 && kWidth != 2 && kWidth != 4)
    return emitError() << "dot_op kWidth must be 1, 2 or 4";
  return success();
}

LinearLayout
DotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<unsigned> warps(getParent().getWarpsPerCTA());
  return LinearLayout::mmaOperand(shape, getOpIdx(), warps, getKWidth());
}

unsigned DotOperandEncodingAttr::getRank() const { return 2; }

DistributedEncoding mlir::tilegpu::getDistributedEncoding(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  return dyn_cast_or_null<DistributedEncoding>(tensor.getEncoding());
}

LogicalResult mlir::tilegpu::verifyTensorsHaveLayouts(Operation *root) {
  auto laidOut = [](Type type) {
    return !isa<RankedTensorType>(type) || getDistributedEncoding(type);
  };
  WalkResult result = root->walk([&](Operation *op) {
    bool ok = llvm::all_of(op->getResultTypes(), laidOut);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        ok = ok && llvm::all_of(block.getArgumentTypes(), laidOut);
    if (ok)
      return WalkResult::advance();
    op->emitError("tensor without a TileGPU layout; run "
                  "convert-tile-to-tilegpu first");
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LinearLayout mlir::tilegpu::getLinearLayout(RankedTensorType type) {
  return cast<DistributedEncoding>(type.getEncoding())
      .toLinearLayout(type.getShape());
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

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// A tensor operand or result of a TileGPU op must say where its data is.
static LogicalResult verifyDistributed(Operation *op, Type type,
                                       StringRef what) {
  auto tensor = cast<RankedTensorType>(type);
  DistributedEncoding encoding = getDistributedEncoding(tensor);
  if (!encoding)
    return op->emitOpError() << what << " must have a distributed layout";
  if (encoding.getRank() != tensor.getRank())
    return op->emitOpError()
           << what << " has rank " << tensor.getRank()
           << " but its layout has rank " << encoding.getRank();
  for (int64_t dim : tensor.getShape())
    if (!llvm::isPowerOf2_64(dim))
      return op->emitOpError() << what << " dimensions must be powers of two";
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  if (failed(verifyDistributed(*this, getSrc().getType(), "source")) ||
      failed(verifyDistributed(*this, getType(), "result")))
    return failure();
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

namespace {
/// convert(convert(x)) is one conversion.
struct FoldConvertChain : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getSrcMutable().assign(inner.getSrc()); });
    return success();
  }
};

/// A conversion of a splat or a constant is the splat or constant in the
/// new layout.
struct ConvertOfSplat : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    if (auto splat = op.getSrc().getDefiningOp<tile::SplatOp>()) {
      rewriter.replaceOpWithNewOp<tile::SplatOp>(op, op.getType(),
                                                 splat.getSrc());
      return success();
    }
    auto constant = op.getSrc().getDefiningOp<arith::ConstantOp>();
    auto dense =
        constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
    if (!dense || !dense.isSplat())
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(),
                                                   dense.reshape(op.getType()));
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<FoldConvertChain, ConvertOfSplat>(context);
}

static LogicalResult verifyBufferMatches(Operation *op, Type tensorType,
                                         MemDescType buffer) {
  auto tensor = cast<RankedTensorType>(tensorType);
  if (tensor.getShape() != buffer.getShape() ||
      tensor.getElementType() != buffer.getElementType())
    return op->emitOpError() << "tensor " << tensorType
                             << " does not match buffer " << Type(buffer);
  return verifyDistributed(op, tensorType, "tensor");
}

LogicalResult LocalAllocOp::verify() {
  if (!getSrc())
    return success();
  return verifyBufferMatches(*this, getSrc().getType(), getType());
}

namespace {
/// Any distributed layout can fill a buffer: storing from the converted
/// tensor's source saves the conversion.
struct AllocFromConvertSource : OpRewritePattern<LocalAllocOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LocalAllocOp op,
                                PatternRewriter &rewriter) const override {
    auto convert =
        op.getSrc() ? op.getSrc().getDefiningOp<ConvertLayoutOp>() : nullptr;
    if (!convert)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getSrcMutable().assign(convert.getSrc()); });
    return success();
  }
};
} // namespace

void LocalAllocOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<AllocFromConvertSource>(context);
}

LogicalResult LocalDeallocOp::verify() {
  if (!getBuffer().getDefiningOp<LocalAllocOp>())
    return emitOpError("buffer must come from tilegpu.local_alloc");
  return success();
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getShape().size() != result.getShape().size() + 1 ||
      src.getShape().drop_front() != result.getShape() ||
      src.getElementType() != result.getElementType() ||
      src.getEncoding() != result.getEncoding())
    return emitOpError() << "result " << Type(result)
                         << " must be one buffer of " << Type(src);
  int64_t bytes =
      std::max(1u, tile::getElementBitWidth(result.getElementType()) / 8);
  for (int64_t dim : result.getShape())
    bytes *= dim;
  // Single-element buffers (an array of mbarriers) are never accessed in
  // vectors wider than themselves, so they need only pack evenly.
  int64_t alignment = result.getEncoding().getAlignment();
  bool single =
      llvm::all_of(result.getShape(), [](int64_t d) { return d == 1; });
  if (single && bytes < alignment ? alignment % bytes != 0
                                  : bytes % alignment != 0)
    return emitOpError() << "buffers of " << bytes
                         << " bytes break the layout's "
                         << result.getEncoding().getAlignment()
                         << "-byte alignment";
  return success();
}

MemDescType MemDescTransOp::getTransposedType(MemDescType src) {
  auto layout = dyn_cast<NVMMASharedEncodingAttr>(src.getEncoding());
  if (!layout || src.getShape().size() != 2)
    return {};
  SmallVector<unsigned> order;
  for (unsigned dim : layout.getOrder())
    order.push_back(1 - dim);
  return MemDescType::get(src.getContext(),
                          llvm::to_vector(llvm::reverse(src.getShape())),
                          src.getElementType(),
                          NVMMASharedEncodingAttr::get(
                              src.getContext(), layout.getSwizzle(), order));
}

LogicalResult MemDescTransOp::verify() {
  MemDescType expected = getTransposedType(getSrc().getType());
  if (!expected)
    return emitOpError("transposes rank-2 buffers in an NVMMA layout");
  if (getType() != expected)
    return emitOpError() << "result " << Type(getType()) << " must be "
                         << Type(getSrc().getType())
                         << " with its dimensions and order swapped";
  return success();
}

LogicalResult LocalLoadOp::verify() {
  return verifyBufferMatches(*this, getType(), getBuffer().getType());
}

LogicalResult LocalStoreOp::verify() {
  return verifyBufferMatches(*this, getSrc().getType(), getBuffer().getType());
}

LogicalResult BarrierOp::verify() {
  if (!(*this)->getParentOfType<FunctionOpInterface>())
    return emitOpError("must be inside a kernel function");
  return success();
}

int64_t WarpGroupDotOp::getInstrK(Type operandType) {
  return 256 / tile::getElementBitWidth(operandType);
}

bool WarpGroupDotOp::supportsTypes(Type operand, Type acc,
                                   tile::InputPrecision precision) {
  if (operand.isF16() || operand.isBF16() || tile::isFp8(operand))
    return acc.isF32();
  if (operand.isF32())
    return acc.isF32() && precision == tile::InputPrecision::TF32;
  if (operand.isInteger(8))
    return acc.isInteger(32);
  return false;
}

LogicalResult WarpGroupDotOp::verify() {
  auto aType = cast<ShapedType>(getA().getType());
  MemDescType bType = getB().getType();
  auto cType = cast<RankedTensorType>(getC().getType());
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(cType.getEncoding());
  if (!mma || mma.getVersion() != 3)
    return emitOpError("accumulator must have a version-3 #tilegpu.mma layout");
  if (aType.getShape().size() != 2 || bType.getShape().size() != 2 ||
      cType.getRank() != 2)
    return emitOpError("operands must have rank 2");
  int64_t M = cType.getShape()[0], N = cType.getShape()[1];
  int64_t K = aType.getShape()[1];
  if (aType.getShape()[0] != M || bType.getShape()[0] != K ||
      bType.getShape()[1] != N)
    return emitOpError() << "shapes do not compose: " << Type(aType) << " * "
                         << Type(bType) << " -> " << Type(cType);
  Type element = aType.getElementType();
  if (auto aTensor = dyn_cast<RankedTensorType>(aType)) {
    auto operand =
        dyn_cast_or_null<DotOperandEncodingAttr>(aTensor.getEncoding());
    if (!operand || operand.getOpIdx() != 0 || operand.getParent() != mma ||
        operand.getKWidth() != 2 || tile::getElementBitWidth(element) != 16)
      return emitOpError("A in registers must be 16-bit with a #tilegpu.dot_op "
                         "layout (opIdx 0, kWidth 2) of the accumulator's mma");
  }
  if (bType.getElementType() != element)
    return emitOpError("A and B must have the same element type");
  if (!supportsTypes(element, cType.getElementType(), getInputPrecision()))
    return emitOpError() << "wgmma does not take " << element
                         << " operands with a " << cType.getElementType()
                         << " accumulator"
                         << (element.isF32() ? " (fp32 needs tf32 precision)"
                                             : "");
  auto bLayout = dyn_cast<NVMMASharedEncodingAttr>(bType.getEncoding());
  NVMMASharedEncodingAttr aLayout;
  if (auto aBuffer = dyn_cast<MemDescType>(aType))
    aLayout = dyn_cast<NVMMASharedEncodingAttr>(aBuffer.getEncoding());
  if ((isa<MemDescType>(aType) && !aLayout) || !bLayout)
    return emitOpError("A and B need #tilegpu.nvmma_shared layouts");
  if (aLayout && aLayout.getOrder()[0] == 0 &&
      tile::getElementBitWidth(element) != 16)
    return emitOpError("an M-major A (order [0, 1]) needs 16-bit elements; "
                       "wgmma reads other types K-major only");
  bool bIsNMajor = bLayout.getOrder()[0] == 1;
  if (bIsNMajor && tile::getElementBitWidth(element) != 16)
    return emitOpError("an N-major B (order [1, 0]) needs 16-bit elements; "
                       "wgmma reads other types K-major only");
  if (K % getInstrK(element) != 0)
    return emitOpError() << "K = " << K << " is not a multiple of the "
                         << getInstrK(element) << " one wgmma consumes";
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  int64_t instrN = mma.getInstrShape()[1];
  if (M % (16 * warps[0]) != 0 || N % (instrN * warps[1]) != 0)
    return emitOpError() << "a " << M << "x" << N
                         << " accumulator does not cover the warps' "
                         << 16 * warps[0] << "x" << instrN * warps[1]
                         << " tile";
  if (bIsNMajor) {
    int64_t atomCols = bLayout.getSwizzle() * 8 / 16;
    if (instrN % atomCols != 0)
      return emitOpError() << "an N-major B needs wgmma N = " << instrN
                           << " to be a multiple of its " << atomCols
                           << "-column swizzle atom";
  }
  if (int64_t(mma.getNumWarps()) != TileGPUDialect::getNumWarps(*this))
    return emitOpError() << "mma layout uses " << mma.getNumWarps()
                         << " warps but the module has "
                         << TileGPUDialect::getNumWarps(*this);
  return success();
}

LogicalResult WarpGroupDotWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, operands.getTypes());
  return success();
}

LogicalResult WarpGroupDotWaitOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one accumulator");
  for (Value input : getInputs()) {
    auto tensor = cast<RankedTensorType>(input.getType());
    auto mma = dyn_cast_or_null<MmaEncodingAttr>(tensor.getEncoding());
    if (!mma || mma.getVersion() != 3)
      return emitOpError() << "accumulator " << input.getType()
                           << " must have a version-3 #tilegpu.mma layout";
  }
  return success();
}

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto pointer = dyn_cast<tile::PointerType>(src.getElementType());
  MemDescType buffer = getBuffer().getType();
  if (!pointer || pointer.getPointeeType() != buffer.getElementType() ||
      src.getShape() != buffer.getShape())
    return emitOpError() << "source " << Type(src)
                         << " must be pointers to the elements of "
                         << Type(buffer);
  if (getMask() &&
      cast<RankedTensorType>(getMask().getType()).getShape() != src.getShape())
    return emitOpError("mask must have the source's shape");
  return verifyDistributed(*this, src, "source");
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA copies
//===----------------------------------------------------------------------===//

NVMMASharedEncodingAttr
mlir::tilegpu::getTMASharedEncoding(tile::TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  if (block.getRank() != 2 || block.getShape()[0] % 8 != 0)
    return {};
  unsigned bits = block.getElementType().getIntOrFloatBitWidth();
  if (bits < 8)
    return {};
  unsigned swizzle = getNVMMASwizzleBytes(block.getShape()[1] * bits / 8);
  if (swizzle == 0)
    return {};
  return NVMMASharedEncodingAttr::get(desc.getContext(), swizzle, {1, 0});
}

std::string mlir::tilegpu::describeTMALimits(tile::TensorDescType desc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "TMA copies of '" << desc.getBlockType()
     << "' blocks are not supported: blocks must have rank 2, a multiple of 8 "
        "rows and rows of a multiple of 32 bytes";
  return text;
}

/// An mbarrier operand is one 8-byte word of shared memory.
static LogicalResult verifyBarrier(Operation *op, MemDescType barrier) {
  if (barrier.getShape() != ArrayRef<int64_t>{1} ||
      !barrier.getElementType().isInteger(64))
    return op->emitOpError("barrier must be a memdesc<1xi64>, got ")
           << Type(barrier);
  return success();
}

/// One mbarrier or an array of them (memdesc<Nx1xi64>).
static LogicalResult verifyBarrierArray(Operation *op, MemDescType barrier) {
  ArrayRef<int64_t> shape = barrier.getShape();
  if (shape.size() > 2 || shape.back() != 1 ||
      !barrier.getElementType().isInteger(64))
    return op->emitOpError("barrier must be a memdesc<1xi64> or "
                           "memdesc<Nx1xi64>, got ")
           << Type(barrier);
  return success();
}

LogicalResult InitBarrierOp::verify() {
  return verifyBarrierArray(*this, getBarrier().getType());
}

LogicalResult InvalBarrierOp::verify() {
  return verifyBarrierArray(*this, getBarrier().getType());
}

LogicalResult BarrierExpectOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult WaitBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult ArriveBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult WarpSpecializeOp::verify() {
  if (getProducerWarps() % 4 != 0)
    return emitOpError("producer_warps must be a multiple of 4 (a whole "
                       "warpgroup sets its register budget), got ")
           << getProducerWarps();
  for (int32_t registers : {getProducerRegisters(), getConsumerRegisters()})
    if (registers < 24 || registers > 256 || registers % 8 != 0)
      return emitOpError("register budgets must be multiples of 8 in "
                         "[24, 256], got ")
             << registers;
  if (!isa_and_nonnull<FunctionOpInterface>((*this)->getParentOp()))
    return emitOpError("must be directly inside a kernel function");
  // The producer has no layouts of its own: it may only move data.
  WalkResult walk = getProducer().walk([&](Operation *op) {
    auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
    if (llvm::any_of(op->getResultTypes(), isTensor) ||
        llvm::any_of(op->getOperandTypes(), isTensor) ||
        isa<LocalAllocOp, WarpGroupDotOp>(op)) {
      op->emitOpError("cannot run in the producer of a warp_specialize: it "
                      "holds scalars and asynchronous copies only");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Turns are taken by the consumer warpgroups of a warp_specialize, on
/// named barriers 2..15 (0 is the CTA's, 1 the consumers').
static LogicalResult verifyTurn(Operation *op, int32_t warpgroups,
                                int32_t firstBarrier) {
  Region *region = op->getParentRegion();
  auto specialize = op->getParentOfType<WarpSpecializeOp>();
  if (!specialize || !specialize.getConsumers().isAncestor(region))
    return op->emitOpError("must be inside the consumers of a "
                           "warp_specialize");
  if (firstBarrier + warpgroups > 16)
    return op->emitOpError("needs named barriers ")
           << firstBarrier << ".." << firstBarrier + warpgroups - 1
           << ", past the 16 a CTA has";
  if (TileGPUDialect::getNumWarps(op) != 4 * warpgroups)
    return op->emitOpError("takes turns among ")
           << warpgroups << " warpgroups, but the consumers have "
           << TileGPUDialect::getNumWarps(op) << " warps";
  return success();
}

LogicalResult TurnInitOp::verify() {
  return verifyTurn(*this, getWarpgroups(), getFirstBarrier());
}
LogicalResult TurnWaitOp::verify() {
  return verifyTurn(*this, getWarpgroups(), getFirstBarrier());
}
LogicalResult TurnPassOp::verify() {
  return verifyTurn(*this, getWarpgroups(), getFirstBarrier());
}

/// `buffer` holds one block of `desc` in the layout TMA copies use.
static LogicalResult verifyTMABuffer(Operation *op, tile::TensorDescType desc,
                                     size_t numIndices, MemDescType buffer) {
  RankedTensorType block = desc.getBlockType();
  if (numIndices != size_t(block.getRank()))
    return op->emitOpError("needs ")
           << block.getRank() << " indices, got " << numIndices;
  if (buffer.getShape() != block.getShape() ||
      buffer.getElementType() != block.getElementType())
    return op->emitOpError("buffer ")
           << Type(buffer) << " does not hold a block of " << Type(desc);
  NVMMASharedEncodingAttr expected = getTMASharedEncoding(desc);
  if (!expected)
    return op->emitOpError(describeTMALimits(desc));
  if (buffer.getEncoding() != expected)
    return op->emitOpError("buffer layout must be ")
           << Attribute(expected) << " for TMA copies of this descriptor";
  return success();
}

LogicalResult AsyncTMACopyGlobalToLocalOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier().getType())))
    return failure();
  return verifyTMABuffer(*this, getDesc().getType(), getIndices().size(),
                         getResult().getType());
}

LogicalResult AsyncTMACopyLocalToGlobalOp::verify() {
  return verifyTMABuffer(*this, getDesc().getType(), getIndices().size(),
                         getSrc().getType());
}
