//===- TileGPUOps.cpp - TileGPU op verifiers and folds --------------------===//
//
// Layout conversions, shared-memory buffers, warpgroup dots, async copies,
// mbarriers, TMA copies, warp specialisation and its turns.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tilegpu;

#define GET_OP_CLASSES
#include "tile/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

void TileGPUDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
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
    bool halves = operand && operand.getKWidth() == 2 &&
                  tile::getElementBitWidth(element) == 16;
    bool tf32 = operand && operand.getKWidth() == 1 && element.isF32();
    if (!operand || operand.getOpIdx() != 0 || operand.getParent() != mma ||
        (!halves && !tf32))
      return emitOpError(
          "A in registers must be 16-bit with a #tilegpu.dot_op layout "
          "(opIdx 0, kWidth 2), or f32 with kWidth 1, of the accumulator's "
          "mma");
  }
  if (bType.getElementType() != element)
    return emitOpError("A and B must have the same element type");
  if (!supportsTypes(element, cType.getElementType(), getInputPrecision()))
    return emitOpError() << "wgmma does not take " << element
                         << " operands with a " << cType.getElementType()
                         << " accumulator"
                         << (element.isF32() ? " (fp32 needs tf32 precision)"
                                             : "");
  int64_t imprecise = getMaxNumImpreciseAcc();
  if (imprecise < 0)
    return emitOpError("maxNumImpreciseAcc must be non-negative");
  if (imprecise > 0 && !tile::isFp8(element))
    return emitOpError("maxNumImpreciseAcc applies only to fp8 operands");
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
    Attribute encoding = tensor.getEncoding();
    // A swapped product's accumulator is carried transposed, in the same
    // registers.
    if (auto permuted = dyn_cast_or_null<PermutedEncodingAttr>(encoding))
      encoding = permuted.getParent();
    // A register A operand of an MMA in flight, kept live until the wait.
    if (auto operand = dyn_cast_or_null<DotOperandEncodingAttr>(encoding))
      if (operand.getOpIdx() == 0 && operand.getParent().getVersion() == 3 &&
          (tile::getElementBitWidth(tensor.getElementType()) == 16 ||
           tensor.getElementType().isF32()))
        continue;
    auto mma = dyn_cast_or_null<MmaEncodingAttr>(encoding);
    if (!mma || mma.getVersion() != 3)
      return emitOpError() << "accumulator " << input.getType()
                           << " must have a version-3 #tilegpu.mma layout "
                              "(or a permutation of one), or be a 16-bit or "
                              "f32 register A operand of one";
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
  // The producer and the writer have no layouts of their own: they may
  // only move data.
  for (auto [region, name] :
       {std::pair<Region *, StringRef>{&getProducer(), "producer"},
        {&getWriter(), "writer"}}) {
    WalkResult walk = region->walk([&](Operation *op) {
      auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
      if (llvm::any_of(op->getResultTypes(), isTensor) ||
          llvm::any_of(op->getOperandTypes(), isTensor) ||
          isa<LocalAllocOp, WarpGroupDotOp, BarrierOp>(op)) {
        op->emitOpError("cannot run in the ")
            << name
            << " of a warp_specialize: it holds scalars, mbarriers and "
               "asynchronous copies only";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
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
