//===- TileGPUAttrs.cpp - TileGPU layouts (encodings) ---------------------===//
//
// The distributed layouts (blocked, slice, mma, dot operand) and shared
// layouts (shared, nvmma): their verifiers, custom syntax, and the helpers
// that find a tensor's layout; plus the shared layout a TMA copy writes.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/IR/Dialect.h"
#include "tile/Support/Limits.h"
#include "tile/Support/TMA.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

#include "tile/Dialect/TileGPU/IR/TileGPUAttrInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"

void TileGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
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

static bool isIdentity(ArrayRef<unsigned> order) {
  for (auto [i, d] : llvm::enumerate(order))
    if (d != i)
      return false;
  return true;
}

LogicalResult
PermutedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             ArrayRef<unsigned> order,
                             DistributedEncoding parent) {
  if (!parent)
    return emitError() << "permuted parent must be a distributed layout";
  if (isa<PermutedEncodingAttr>(parent))
    return emitError() << "permuted parent must not be permuted itself "
                          "(compose the orders)";
  if (order.size() != parent.getRank())
    return emitError() << "permuted order has " << order.size()
                       << " entries for a rank-" << parent.getRank()
                       << " parent";
  SmallVector<bool> seen(order.size(), false);
  for (unsigned d : order) {
    if (d >= order.size() || seen[d])
      return emitError() << "permuted order must be a permutation of [0, "
                         << order.size() << ")";
    seen[d] = true;
  }
  if (isIdentity(order))
    return emitError() << "permuted order must not be the identity (use "
                          "the parent)";
  return success();
}

LinearLayout
PermutedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  ArrayRef<unsigned> order = getOrder();
  SmallVector<int64_t> parentShape(shape.size());
  for (auto [i, d] : llvm::enumerate(order))
    parentShape[d] = shape[i];
  return getParent().toLinearLayout(parentShape).transposed(order);
}

unsigned PermutedEncodingAttr::getRank() const { return getOrder().size(); }

DistributedEncoding
PermutedEncodingAttr::getTransposed(DistributedEncoding encoding,
                                    ArrayRef<int32_t> order) {
  SmallVector<unsigned> composed(order.begin(), order.end());
  DistributedEncoding parent = encoding;
  if (auto permuted = dyn_cast<PermutedEncodingAttr>(encoding)) {
    // Result dim i is x's dim order[i], which is the parent's
    // permuted.order[order[i]].
    for (auto [i, d] : llvm::enumerate(order))
      composed[i] = permuted.getOrder()[d];
    parent = permuted.getParent();
  }
  if (isIdentity(composed))
    return parent;
  return PermutedEncodingAttr::get(encoding.getContext(), composed, parent);
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
                        ArrayRef<unsigned> instrShape, bool adjacentRows) {
  if (version != 2 && version != 3)
    return emitError() << "mma version must be 2 (mma.sync) or 3 (wgmma)";
  if (warpsPerCTA.size() != 2 || instrShape.size() != 3)
    return emitError() << "mma layout needs 2 warpsPerCTA and 3 instrShape "
                          "entries";
  for (unsigned w : warpsPerCTA)
    if (w == 0 || !llvm::isPowerOf2_32(w))
      return emitError() << "mma warpsPerCTA must be powers of two";
  // Checked one factor at a time: the product of two large factors wraps.
  if (warpsPerCTA[0] > unsigned(::tile::kMaxNumWarps) ||
      warpsPerCTA[1] > unsigned(::tile::kMaxNumWarps) / warpsPerCTA[0])
    return emitError() << "mma warpsPerCTA must multiply to at most "
                       << ::tile::kMaxNumWarps << " warps";
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
                                      getInstrShape()[1], getAdjacentRows());
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
  return LinearLayout::mmaOperand(shape, getOpIdx(), warps, getKWidth(),
                                  getParent().getAdjacentRows());
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

//===----------------------------------------------------------------------===//
// The layout of TMA copies
//===----------------------------------------------------------------------===//

NVMMASharedEncodingAttr
mlir::tilegpu::getTMASharedEncoding(tile::TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  if (block.getRank() != 2 || block.getShape()[0] % 8 != 0)
    return {};
  unsigned bits = block.getElementType().getIntOrFloatBitWidth();
  if (bits < 8)
    return {};
  unsigned swizzle =
      ::tile::tma::getNVMMASwizzleBytes(block.getShape()[1] * bits / 8);
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
