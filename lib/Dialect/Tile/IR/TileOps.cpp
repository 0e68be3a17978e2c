//===- TileOps.cpp - Tile op verifiers, folders and builders --------------===//
//
// One section per family of ops in TileOps.td (shapes, memory, dot,
// reduce/scan, casts, elementwise extensions), in the order they are
// declared there.
//
// Why this file is long: it is the C++ half of the Tile dialect's one
// TileOps.td (36 ops, each with a verifier and some with folders); ODS
// emits their classes into one TileOps.cpp.inc, and each section here is
// short. Split it by family if a family grows past a few hundred lines.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/Dialect.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The shape of a tensor, or the empty shape of a scalar.
static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

static bool isScalar(Type type) { return !isa<RankedTensorType>(type); }

/// Scalars match scalars, tensors match tensors of the same shape.
static bool haveSameShape(Type a, Type b) {
  return isScalar(a) == isScalar(b) && shapeOf(a) == shapeOf(b);
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

static LogicalResult verifyElementTypesMatch(Operation *op, Type src,
                                             Type result) {
  if (getElementTypeOrSelf(src) != getElementTypeOrSelf(result))
    return op->emitOpError("result element type ")
           << getElementTypeOrSelf(result)
           << " must match the operand element type "
           << getElementTypeOrSelf(src);
  return success();
}

/// Every dimension of every tile is a power of two, so that it maps onto the
/// lanes and warps of a CTA without remainder.
static LogicalResult verifyPowerOfTwoShape(Operation *op, Type type) {
  for (int64_t dim : shapeOf(type))
    if (dim <= 0 || !llvm::isPowerOf2_64(dim))
      return op->emitOpError("tensor dimensions must be powers of two, got ")
             << type;
  return success();
}

bool mlir::tile::isZeroConstant(Value value) {
  if (!value)
    return false;
  if (auto splat = value.getDefiningOp<SplatOp>())
    return isZeroConstant(splat.getSrc());
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// Folds shared by the ops that only rearrange elements: a no-op changes
/// nothing, and a rearranged splat constant is a splat of the new shape.
static OpFoldResult foldRearrangement(Value src, Attribute srcAttr,
                                      Type resultType) {
  if (src.getType() == resultType)
    return src;
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(srcAttr))
    return splat.resizeSplat(cast<ShapedType>(resultType));
  return {};
}

static LogicalResult verifyResultShape(Operation *op, RankedTensorType result,
                                       ArrayRef<int64_t> expected) {
  if (result.getShape() != expected)
    return op->emitOpError("result shape ")
           << shapeStr(result.getShape()) << " must be " << shapeStr(expected);
  return success();
}

//===----------------------------------------------------------------------===//
// make_range
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  auto type = getType();
  if (type.getRank() != 1)
    return emitOpError("result must be a 1-D tensor, got ") << type;
  if (start < 0)
    return emitOpError("start must be non-negative, got ") << start;
  if (end <= start)
    return emitOpError("end (")
           << end << ") must be greater than start (" << start << ")";
  if (type.getDimSize(0) != end - start)
    return emitOpError("result length ")
           << type.getDimSize(0)
           << " must equal end - start = " << (end - start);
  if (!llvm::isPowerOf2_64(end - start))
    return emitOpError("range length must be a power of two, got ")
           << (end - start);
  return success();
}

//===----------------------------------------------------------------------===//
// splat / broadcast / expand_dims / reshape / trans
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getSrc().getType())
    return emitOpError("result element type ")
           << getType().getElementType() << " must be the operand type "
           << getSrc().getType();
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto value = dyn_cast_if_present<TypedAttr>(adaptor.getSrc());
  if (!value || isa<PointerType>(getType().getElementType()))
    return {};
  return SplatElementsAttr::get(getType(), value);
}

LogicalResult BroadcastOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  if (srcType.getRank() != resultType.getRank())
    return emitOpError("operand rank ")
           << srcType.getRank() << " must equal result rank "
           << resultType.getRank() << "; use tile.expand_dims first";
  for (auto [i, dims] :
       llvm::enumerate(llvm::zip(srcType.getShape(), resultType.getShape()))) {
    auto [from, to] = dims;
    if (from != to && from != 1)
      return emitOpError("dimension ")
             << i << " of size " << from << " cannot be broadcast to " << to;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  return foldRearrangement(getSrc(), adaptor.getSrc(), getType());
}

LogicalResult ExpandDimsOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError("axis ") << axis << " is out of range for a rank-"
                                << srcType.getRank() << " operand";
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  return verifyResultShape(*this, resultType, expected);
}

LogicalResult ReshapeOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  if (srcType.getNumElements() != resultType.getNumElements())
    return emitOpError("cannot reshape ")
           << srcType.getNumElements() << " elements into "
           << resultType.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  return foldRearrangement(getSrc(), adaptor.getSrc(), getType());
}

LogicalResult HintOp::verify() {
  auto tensor = dyn_cast<RankedTensorType>(getSrc().getType());
  size_t rank = tensor ? tensor.getRank() : 1;
  if (!getDivisibility() && !getContiguity() && !getConstancy())
    return emitOpError("needs at least one of divisibility, contiguity and "
                       "constancy");
  for (auto [name, values] :
       {std::pair{"divisibility", getDivisibility()},
        std::pair{"contiguity", getContiguity()},
        std::pair{"constancy", getConstancy()}}) {
    if (!values)
      continue;
    if (values->size() != rank)
      return emitOpError() << name << " has " << values->size()
                           << " entries for a value of rank " << rank;
    for (int64_t v : *values)
      if (v <= 0)
        return emitOpError() << name << " entries must be positive, got "
                             << v;
  }
  return success();
}

LogicalResult TransOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  ArrayRef<int32_t> order = getOrder();
  if (static_cast<int64_t>(order.size()) != srcType.getRank())
    return emitOpError("order has ") << order.size() << " entries for a rank-"
                                     << srcType.getRank() << " operand";
  SmallVector<bool> seen(order.size(), false);
  SmallVector<int64_t> expected;
  for (int32_t d : order) {
    if (d < 0 || d >= srcType.getRank() || seen[d])
      return emitOpError("order must be a permutation of [0, ")
             << srcType.getRank() << ")";
    seen[d] = true;
    expected.push_back(srcType.getDimSize(d));
  }
  return verifyResultShape(*this, resultType, expected);
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  // The identity permutation (when it keeps the layout too: the two may
  // differ only by a register renaming, which a conversion must show).
  if (llvm::equal(getOrder(), llvm::seq<int32_t>(0, getOrder().size())) &&
      getSrc().getType() == getType())
    return getSrc();
  // trans(trans(x, p), q) == trans(x, p o q).
  if (auto inner = getSrc().getDefiningOp<TransOp>()) {
    SmallVector<int32_t> composed;
    for (int32_t d : getOrder())
      composed.push_back(inner.getOrder()[d]);
    setOrder(composed);
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  // A square transposition keeps the type but not the value: only a splat
  // folds.
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// cat / join / split
//===----------------------------------------------------------------------===//

LogicalResult CatOp::verify() {
  auto srcType = cast<RankedTensorType>(getLhs().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  SmallVector<int64_t> expected(srcType.getShape());
  expected[0] *= 2;
  return verifyResultShape(*this, resultType, expected);
}

LogicalResult JoinOp::verify() {
  auto srcType = cast<RankedTensorType>(getLhs().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  SmallVector<int64_t> expected(srcType.getShape());
  expected.push_back(2);
  return verifyResultShape(*this, resultType, expected);
}

LogicalResult SplitOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto resultType = cast<RankedTensorType>(getOutLHS().getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  if (srcType.getShape().back() != 2)
    return emitOpError("the last dimension of the operand must be 2, got ")
           << srcType;
  return verifyResultShape(*this, resultType, srcType.getShape().drop_back());
}

//===----------------------------------------------------------------------===//
// addptr / load / store / atomics
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  if (!haveSameShape(getPtr().getType(), getOffset().getType()))
    return emitOpError("offset type ")
           << getOffset().getType() << " must have the shape of pointer type "
           << getPtr().getType();
  return success();
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (isZeroConstant(getOffset()))
    return getPtr();
  return {};
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError("'other' requires a mask");
  return success();
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       GlobalMemory::get());
  // A volatile load must neither be removed nor reordered with other memory
  // accesses, which a write effect guarantees.
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}

/// `indices` address a block of `desc`, and `value` (the loaded or
/// stored tensor) has the block's shape and element type.
static LogicalResult verifyDescriptorAccess(Operation *op, TensorDescType desc,
                                            ValueRange indices,
                                            RankedTensorType value) {
  RankedTensorType block = desc.getBlockType();
  if (indices.size() != size_t(block.getRank()))
    return op->emitOpError("needs ")
           << block.getRank() << " indices for a rank-" << block.getRank()
           << " descriptor, got " << indices.size();
  if (value.getShape() != block.getShape() ||
      value.getElementType() != block.getElementType())
    return op->emitOpError("tensor type ")
           << value << " does not match the descriptor's block " << block;
  return success();
}

LogicalResult DescriptorLoadOp::verify() {
  return verifyDescriptorAccess(*this, getDesc().getType(), getIndices(),
                                getType());
}

LogicalResult DescriptorStoreOp::verify() {
  return verifyDescriptorAccess(*this, getDesc().getType(), getIndices(),
                                getSrc().getType());
}

/// The reductions a TMA bulk tensor reduction has for `element`.
static bool isTMAReduction(RMWOp kind, Type element) {
  unsigned bits = getElementBitWidth(element);
  bool integer = isa<IntegerType>(element) && (bits == 32 || bits == 64);
  bool half = element.isF16() || element.isBF16();
  switch (kind) {
  case RMWOp::Add:
    return integer;
  case RMWOp::FAdd:
    return element.isF32() || half;
  case RMWOp::Max:
  case RMWOp::Min:
  case RMWOp::UMax:
  case RMWOp::UMin:
    return integer || half;
  case RMWOp::And:
  case RMWOp::Or:
  case RMWOp::Xor:
    return integer;
  case RMWOp::Xchg:
    return false;
  }
  return false;
}

LogicalResult DescriptorReduceOp::verify() {
  if (failed(verifyDescriptorAccess(*this, getDesc().getType(), getIndices(),
                                    getSrc().getType())))
    return failure();
  Type element = getSrc().getType().getElementType();
  if (!isTMAReduction(getKind(), element))
    return emitOpError("the TMA unit has no '")
           << stringifyRMWOp(getKind()) << "' reduction of " << element;
  return success();
}

static LogicalResult verifyAtomicElementType(Operation *op, RMWOp kind,
                                             Type element) {
  switch (kind) {
  case RMWOp::FAdd:
    if (!isa<FloatType>(element))
      return op->emitOpError("fadd needs a floating-point pointee, got ")
             << element;
    if (!element.isF16() && !element.isBF16() && !element.isF32() &&
        !element.isF64())
      return op->emitOpError("fadd supports f16, bf16, f32 and f64, got ")
             << element;
    return success();
  case RMWOp::Xchg:
    if (getElementBitWidth(element) < 16)
      return op->emitOpError("xchg needs a pointee of at least 16 bits, got ")
             << element;
    return success();
  case RMWOp::Max:
  case RMWOp::Min:
    // Signed integer or float max/min (the float form is lowered through the
    // integer ordering of the bit patterns).
    if (!isa<IntegerType, FloatType>(element) || element.isInteger(1))
      return op->emitOpError("max/min need an integer or float pointee, got ")
             << element;
    return success();
  default:
    if (!isa<IntegerType>(element) || element.isInteger(1))
      return op->emitOpError("'")
             << stringifyRMWOp(kind) << "' needs an integer pointee, got "
             << element;
    if (getElementBitWidth(element) < 32)
      return op->emitOpError("'")
             << stringifyRMWOp(kind)
             << "' needs a 32- or 64-bit integer pointee, got " << element;
    return success();
  }
}

LogicalResult AtomicRMWOp::verify() {
  return verifyAtomicElementType(*this, getRmwOp(),
                                 getElementTypeOrSelf(getVal().getType()));
}

LogicalResult AtomicCASOp::verify() {
  Type element = getElementTypeOrSelf(getVal().getType());
  unsigned bits = getElementBitWidth(element);
  if (bits != 16 && bits != 32 && bits != 64)
    return emitOpError("compare-and-swap needs a 16-, 32- or 64-bit "
                       "pointee, got ")
           << element;
  return success();
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto aType = cast<RankedTensorType>(getA().getType());
  auto bType = cast<RankedTensorType>(getB().getType());
  auto cType = cast<RankedTensorType>(getC().getType());
  int64_t rank = aType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("operands must be 2-D (or 3-D with a batch "
                       "dimension), got ")
           << aType;
  if (bType.getRank() != rank || cType.getRank() != rank)
    return emitOpError("a, b and c must have the same rank");
  ArrayRef<int64_t> a = aType.getShape(), b = bType.getShape(),
                    c = cType.getShape();
  if (rank == 3 && (a[0] != b[0] || a[0] != c[0]))
    return emitOpError("batch dimensions differ: ")
           << a[0] << ", " << b[0] << ", " << c[0];
  int64_t m = a[rank - 2], k = a[rank - 1], kb = b[rank - 2], n = b[rank - 1];
  if (k != kb)
    return emitOpError("reduction dimensions differ: a is ")
           << shapeStr(a) << " and b is " << shapeStr(b);
  if (c[rank - 2] != m || c[rank - 1] != n)
    return emitOpError("accumulator shape ")
           << shapeStr(c) << " must be " << shapeStr({m, n});
  if (k < 16)
    return emitOpError("the reduction dimension must be at least 16, got ")
           << k;

  Type aElt = aType.getElementType(), bElt = bType.getElementType(),
       cElt = cType.getElementType();
  // fp8 operands may mix e4m3 and e5m2; all other operands must agree.
  if (aElt != bElt && !(isFp8(aElt) && isFp8(bElt)))
    return emitOpError("operand element types differ: ")
           << aElt << " and " << bElt;
  if (isa<IntegerType>(aElt)) {
    if (!aElt.isInteger(8) || !cElt.isInteger(32))
      return emitOpError("an integer dot takes i8 operands and an i32 "
                         "accumulator, got ")
             << aElt << " and " << cElt;
  } else if (!isa<FloatType>(cElt)) {
    return emitOpError("a floating-point dot needs a floating-point "
                       "accumulator, got ")
           << cElt;
  }
  if (getInputPrecision() != InputPrecision::IEEE && !aElt.isF32())
    return emitOpError("input precision '")
           << stringifyInputPrecision(getInputPrecision())
           << "' applies only to f32 operands, got " << aElt;
  int64_t maxImprecise = getMaxNumImpreciseAccAttr().getInt();
  if (maxImprecise < 0)
    return emitOpError("maxNumImpreciseAcc must be non-negative");
  if (maxImprecise > 0 && !isFp8(aElt))
    return emitOpError("maxNumImpreciseAcc applies only to fp8 operands");
  return success();
}

//===----------------------------------------------------------------------===//
// reduce / scan
//===----------------------------------------------------------------------===//

/// Checks the operands share a shape and that `axis` names one of their
/// dimensions.
static LogicalResult verifyReduceLikeOperands(Operation *op, ValueRange srcs,
                                              int64_t axis) {
  if (srcs.empty())
    return op->emitOpError("needs at least one operand");
  auto first = cast<RankedTensorType>(srcs.front().getType());
  for (Value src : srcs)
    if (cast<RankedTensorType>(src.getType()).getShape() != first.getShape())
      return op->emitOpError("all operands must have the same shape");
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError("axis ")
           << axis << " is out of range for rank " << first.getRank();
  return success();
}

/// The combiner takes (acc..., new...) scalars and returns the combined
/// scalars through its terminator.
static LogicalResult verifyCombiner(Operation *op, Region &region,
                                    ValueRange srcs) {
  Block &block = region.front();
  size_t n = srcs.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError("combiner must take ")
           << 2 * n << " arguments, got " << block.getNumArguments();
  for (auto [i, src] : llvm::enumerate(srcs)) {
    Type element = getElementTypeOrSelf(src.getType());
    if (block.getArgument(i).getType() != element ||
        block.getArgument(i + n).getType() != element)
      return op->emitOpError("combiner arguments ")
             << i << " and " << i + n << " must have type " << element;
  }
  Operation *terminator = block.getTerminator();
  if (terminator->getNumOperands() != n)
    return op->emitOpError("combiner must return ")
           << n << " values, got " << terminator->getNumOperands();
  for (auto [i, src] : llvm::enumerate(srcs)) {
    Type element = getElementTypeOrSelf(src.getType());
    if (terminator->getOperand(i).getType() != element)
      return op->emitOpError("combiner result ")
             << i << " must have type " << element;
  }
  return success();
}

LogicalResult ReduceOp::verify() {
  if (failed(
          verifyReduceLikeOperands(*this, getSrcs(), getAxisAttr().getInt())))
    return failure();
  if (getResult().size() != getSrcs().size())
    return emitOpError("must have one result per operand");
  for (auto [src, result] : llvm::zip(getSrcs(), getResult())) {
    auto srcType = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + getAxis());
    Type expected =
        shape.empty()
            ? srcType.getElementType()
            : Type(RankedTensorType::get(shape, srcType.getElementType()));
    // Layout encodings (TileGPU) may differ; shape and element type may not.
    auto resultTensor = dyn_cast<RankedTensorType>(result.getType());
    if (resultTensor && !shape.empty() &&
        resultTensor.getShape() == ArrayRef<int64_t>(shape) &&
        resultTensor.getElementType() == srcType.getElementType())
      continue;
    if (result.getType() != expected)
      return emitOpError("result type ")
             << result.getType() << " must be " << expected;
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner(*this, getCombineOp(), getSrcs());
}

LogicalResult ScanOp::verify() {
  if (failed(
          verifyReduceLikeOperands(*this, getSrcs(), getAxisAttr().getInt())))
    return failure();
  if (getResult().getTypes() != getSrcs().getTypes())
    return emitOpError("result types must equal the operand types");
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner(*this, getCombineOp(), getSrcs());
}

LogicalResult GatherOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto indexType = cast<RankedTensorType>(getIndices().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (failed(verifyElementTypesMatch(*this, srcType, resultType)))
    return failure();
  int64_t rank = srcType.getRank();
  if (indexType.getRank() != rank)
    return emitOpError("indices must have the rank of the source (")
           << rank << "), got " << indexType;
  int64_t axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indexType.getShape()[d] != srcType.getShape()[d])
      return emitOpError("indices and source differ in dimension ")
             << d << ", which is not the gather axis: " << indexType << " vs "
             << srcType;
  if (failed(verifyResultShape(*this, resultType, indexType.getShape())))
    return failure();
  // The lowering reads index register i for result register i.
  if (resultType.getEncoding() != indexType.getEncoding())
    return emitOpError("the result must have the layout of the indices");
  return success();
}

LogicalResult MapElementwiseOp::verify() {
  if (getPack() < 1)
    return emitOpError("pack must be at least 1, got ") << getPack();
  if (getSrcs().empty() || getResult().empty())
    return emitOpError("needs at least one operand and one result");
  auto shapeType = cast<RankedTensorType>(getSrcs().front().getType());
  auto sameShape = [&](Type t) {
    auto tensor = cast<RankedTensorType>(t);
    return tensor.getShape() == shapeType.getShape() &&
           tensor.getEncoding() == shapeType.getEncoding();
  };
  if (!llvm::all_of(getSrcs().getTypes(), sameShape) ||
      !llvm::all_of(getResult().getTypes(), sameShape))
    return emitOpError("operands and results must share one shape and layout");
  return success();
}

LogicalResult MapElementwiseOp::verifyRegions() {
  Block &block = getScalarOp().front();
  int64_t pack = getPack();
  auto expect = [&](TypeRange tensors, TypeRange scalars,
                    StringRef what) -> LogicalResult {
    if (scalars.size() != tensors.size() * pack)
      return emitOpError("the region must ")
             << what << " " << tensors.size() * pack << " scalars ("
             << tensors.size() << " x pack " << pack << "), got "
             << scalars.size();
    for (auto [i, scalar] : llvm::enumerate(scalars)) {
      Type element = getElementTypeOrSelf(tensors[i / pack]);
      if (scalar != element)
        return emitOpError("region ")
               << what << " scalar " << i << " must be " << element << ", got "
               << scalar;
    }
    return success();
  };
  if (failed(expect(getSrcs().getTypes(), block.getArgumentTypes(), "take")))
    return failure();
  return expect(getResult().getTypes(),
                block.getTerminator()->getOperandTypes(), "yield");
}

LogicalResult HistogramOp::verify() {
  auto srcType = cast<RankedTensorType>(getSrc().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (srcType.getRank() != 1 || resultType.getRank() != 1)
    return emitOpError("operand and result must be 1-D");
  if (!resultType.getElementType().isInteger(32))
    return emitOpError("bins must be i32, got ") << resultType.getElementType();
  return verifyPowerOfTwoShape(*this, resultType);
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

LogicalResult FpToFpOp::verify() {
  if (!haveSameShape(getSrc().getType(), getType()))
    return emitOpError("operand and result shapes differ");
  auto from = cast<FloatType>(getElementTypeOrSelf(getSrc().getType()));
  auto to = cast<FloatType>(getElementTypeOrSelf(getType()));
  bool narrowing = to.getWidth() < from.getWidth() ||
                   (to.getWidth() == from.getWidth() && to != from);
  if (narrowing && !getRounding())
    return emitOpError("converting ")
           << from << " to " << to << " needs a rounding mode";
  if (!narrowing && getRounding())
    return emitOpError("converting ")
           << from << " to " << to << " is exact; drop the rounding mode";
  return success();
}

OpFoldResult FpToFpOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

LogicalResult BitcastOp::verify() {
  if (!haveSameShape(getSrc().getType(), getType()))
    return emitOpError("operand and result shapes differ");
  unsigned from = getElementBitWidth(getSrc().getType());
  unsigned to = getElementBitWidth(getType());
  if (from != to)
    return emitOpError("cannot bitcast ")
           << from << "-bit elements to " << to << "-bit elements";
  return success();
}

OpFoldResult BitcastOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<BitcastOp>()) {
    if (inner.getSrc().getType() == getType())
      return inner.getSrc();
  }
  return {};
}

LogicalResult IntToPtrOp::verify() {
  if (!haveSameShape(getSrc().getType(), getType()))
    return emitOpError("operand and result shapes differ");
  return success();
}

LogicalResult PtrToIntOp::verify() {
  if (!haveSameShape(getSrc().getType(), getType()))
    return emitOpError("operand and result shapes differ");
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise extensions
//===----------------------------------------------------------------------===//

LogicalResult MulhiUIOp::verify() {
  unsigned bits = getElementBitWidth(getType());
  if (bits != 32 && bits != 64)
    return emitOpError("needs 32- or 64-bit integers, got ") << getType();
  return success();
}

/// Elementwise ops with several operands and results need all of them to
/// have the same shape (scalars with scalars).
static LogicalResult verifyElementwiseShapes(Operation *op) {
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type type : types)
    if (!haveSameShape(type, types.front()))
      return op->emitOpError("all operands and results must have the same "
                             "shape, got ")
             << types.front() << " and " << type;
  return success();
}

LogicalResult ExternElementwiseOp::verify() {
  if (getSymbol().empty())
    return emitOpError("needs a symbol name");
  return verifyElementwiseShapes(*this);
}

/// An impure external call (a library function, inline PTX) may read and
/// write any global memory; a pure one has no effect.
static void addOpaqueEffects(
    bool pure,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (pure)
    return;
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addOpaqueEffects(getPure(), effects);
}

int64_t ElementwiseInlineAsmOp::elementsPerAsmOperand(Type element,
                                                      int64_t pack) {
  if (!element.isIntOrFloat())
    return 1; // a pointer: one 64-bit operand
  unsigned bits = element.getIntOrFloatBitWidth();
  return bits >= 32 ? 1 : std::min<int64_t>(pack, 32 / bits);
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  if (getNumResults() == 0)
    return emitOpError("needs at least one result");
  int64_t pack = getPackedElementAttr().getInt();
  if (pack < 1 || !llvm::isPowerOf2_64(pack))
    return emitOpError("packed_element must be a positive power of two, got ")
           << pack;
  // Counts the asm operands each value needs, outputs first.
  int64_t outputs = 0, inputs = 0;
  for (auto [isResult, types] :
       {std::make_pair(true, TypeRange(getResultTypes())),
        std::make_pair(false, TypeRange(getArgs().getTypes()))}) {
    for (Type type : types) {
      Type element = getElementTypeOrSelf(type);
      // Pointers may be operands (an "l" address the asm loads or stores
      // through), as in Triton; results are numbers.
      bool pointerOperand = !isResult && isa<PointerType>(element);
      if (!pointerOperand &&
          (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8))
        return emitOpError("operands must be pointers, integers or floats "
                           "of at least 8 bits, and results integers or "
                           "floats of at least 8 bits, got ")
               << element;
      (isResult ? outputs : inputs) +=
          pack / elementsPerAsmOperand(element, pack);
    }
  }
  // The constraint list: `outputs` entries starting with '=', then the
  // inputs, then clobbers ("~{...}").
  SmallVector<StringRef> entries;
  getConstraints().split(entries, ',');
  int64_t written = 0, writtenOutputs = 0;
  for (StringRef entry : entries) {
    entry = entry.trim();
    if (entry.starts_with("~"))
      continue;
    if (written < outputs && !entry.starts_with("="))
      return emitOpError("constraint ")
             << written << " ('" << entry << "') must be an output ('=...')";
    writtenOutputs += entry.starts_with("=");
    ++written;
  }
  if (written != outputs + inputs || writtenOutputs != outputs)
    return emitOpError("constraints name ")
           << written << " operands (" << writtenOutputs
           << " outputs), but the results and arguments need " << outputs
           << " outputs and " << inputs << " inputs (packed_element " << pack
           << ")";
  return verifyElementwiseShapes(*this);
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  addOpaqueEffects(getPure(), effects);
}

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError("isSigned has ")
           << getIsSigned().size() << " entries for " << getArgs().size()
           << " operands";
  return success();
}

LogicalResult DebugBarrierOp::verify() {
  // Outside a kernel there are no threads to wait for.
  if (!(*this)->getParentOfType<FunctionOpInterface>())
    return emitOpError("must be inside a kernel function");
  return success();
}
