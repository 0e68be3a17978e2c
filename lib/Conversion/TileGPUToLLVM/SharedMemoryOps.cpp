//===- SharedMemoryOps.cpp - local_alloc/load/store through linear maps ---===//
//
// Each thread's shared-memory offsets come from composing the buffer's
// layout with the tensor's (tile/Analysis/SharedAccess.h).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/SharedAccess.h"
#include "tile/Support/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// XOR of the offsets of the set bits of `index` (i32).
Value xorOfBits(OpBuilder &b, Location loc, Value index,
                ArrayRef<int64_t> offsets, Value acc) {
  for (auto [bit, offset] : llvm::enumerate(offsets)) {
    if (offset == 0)
      continue;
    Value set = arith::AndIOp::create(b, loc, index,
                                      i32Constant(b, loc, int64_t(1) << bit));
    Value isSet = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, set,
                                        i32Constant(b, loc, 0));
    Value term = arith::SelectOp::create(
        b, loc, isSet, i32Constant(b, loc, offset), i32Constant(b, loc, 0));
    acc = arith::XOrIOp::create(b, loc, acc, term);
  }
  return acc;
}

/// A pointer per `constants` entry into `buffer`: the thread's base (the
/// XOR of the lane and warp offsets of its index bits) XOR the constant.
SmallVector<Value> emitPointers(OpBuilder &b, Location loc, Operation *op,
                                Value buffer, ArrayRef<int64_t> laneOffsets,
                                ArrayRef<int64_t> warpOffsets,
                                ArrayRef<int64_t> constants, Type elementType) {
  ThreadId tid = getThreadId(b, op);
  Value base = xorOfBits(b, loc, tid.lane, laneOffsets, i32Constant(b, loc, 0));
  base = xorOfBits(b, loc, tid.warp, warpOffsets, base);
  // Register bits the thread base can never have are added rather than
  // XORed: that part becomes an immediate of the access, and only the
  // distinct overlapping parts (swizzle bits) cost an XOR each.
  int64_t threadBits = 0;
  for (int64_t offset : laneOffsets)
    threadBits |= offset;
  for (int64_t offset : warpOffsets)
    threadBits |= offset;
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Type storage = storageType(elementType);
  llvm::DenseMap<int64_t, Value> rowPointers;
  SmallVector<Value> ptrs;
  for (int64_t constant : constants) {
    int64_t overlapping = constant & threadBits;
    Value &row = rowPointers[overlapping];
    if (!row) {
      Value offset = overlapping == 0
                         ? base
                         : arith::XOrIOp::create(
                               b, loc, base, i32Constant(b, loc, overlapping));
      row = LLVM::GEPOp::create(b, loc, ptrType, storage, buffer,
                                ValueRange{offset});
    }
    int64_t disjoint = constant & ~threadBits;
    ptrs.push_back(
        disjoint == 0
            ? row
            : LLVM::GEPOp::create(b, loc, ptrType, storage, row,
                                  ArrayRef<LLVM::GEPArg>{int32_t(disjoint)}));
  }
  return ptrs;
}

/// Element pointers of each vector access: the first register of each run.
SmallVector<Value> emitAccessPointers(OpBuilder &b, Location loc, Operation *op,
                                      Value buffer, const SharedAccessMap &map,
                                      Type elementType) {
  SmallVector<int64_t> firsts;
  for (size_t reg = 0; reg < map.registerOffsets.size(); reg += map.vec)
    firsts.push_back(map.registerOffsets[reg]);
  return emitPointers(b, loc, op, buffer, map.laneOffsets, map.warpOffsets,
                      firsts, elementType);
}

/// Each lane's row address for ldmatrix/stmatrix: per instruction, the
/// offset of its first register, XOR the row the plan's lane offsets give
/// the lane.
SmallVector<Value>
emitMatrixRowPointers(OpBuilder &b, Location loc, Operation *op, Value buffer,
                      const SharedAccessMap &map, ArrayRef<int64_t> laneOffsets,
                      ArrayRef<int64_t> firstRegisters, Type elementType) {
  SmallVector<int64_t> firsts;
  for (int64_t reg : firstRegisters)
    firsts.push_back(map.registerOffsets[reg]);
  return emitPointers(b, loc, op, buffer, laneOffsets, map.warpOffsets, firsts,
                      elementType);
}

/// Byte registers read by `ldmatrix.x4.trans.b16`, four 2x2 byte blocks
/// per instruction, where the scalar path would take one `ld.shared.b8`
/// per byte (the packed int4 weights of a swapped quantised dot, in the
/// `adjacentRows` mma layout that makes each lane's bytes such blocks).
SmallVector<Value>
loadTransposedByteMatrices(OpBuilder &b, Location loc, Operation *op,
                           Value buffer, const SharedAccessMap &map,
                           const TransposedByteMatrices &plan,
                           Type elementType) {
  SmallVector<Value> ptrs =
      emitMatrixRowPointers(b, loc, op, buffer, map, plan.laneOffsets,
                            plan.firstRegisters, elementType);
  MLIRContext *context = b.getContext();
  Type i32 = b.getI32Type();
  auto words = LLVM::LLVMStructType::getLiteral(context, {i32, i32, i32, i32});
  auto bytes = VectorType::get(4, b.getI8Type());
  SmallVector<Value> values(map.registerOffsets.size());
  for (auto [first, ptr] : llvm::zip(plan.firstRegisters, ptrs)) {
    Value loaded = NVVM::LdMatrixOp::create(
        b, loc, words, ptr, /*num=*/4, NVVM::MMALayout::col,
        NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
        NVVM::LdStMatrixEltType::B16);
    for (auto [j, wordRegister] : llvm::enumerate(plan.wordRegisters)) {
      Value word = LLVM::ExtractValueOp::create(b, loc, loaded, j);
      Value split = LLVM::BitcastOp::create(b, loc, bytes, word);
      for (auto [k, byteRegister] : llvm::enumerate(plan.byteRegisters))
        values[first | wordRegister | byteRegister] =
            fromStorage(b, loc,
                        LLVM::ExtractElementOp::create(b, loc, split,
                                                       i32Constant(b, loc, k)),
                        elementType);
    }
  }
  return values;
}

/// Whether the module around `op` targets sm_90 or later (stmatrix).
bool hasMatrixStores(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto target = module ? module->getAttrOfType<StringAttr>(
                             TileGPUDialect::getTargetAttrName())
                       : StringAttr();
  return target && ::tile::getSmVersion(target.getValue()) >= 90;
}

/// 16-bit registers written by `stmatrix.x4[.trans].b16`, eight a thread
/// per instruction, where the run-wise path takes one 4-byte store per
/// register pair (an accumulator fragment's pairs are 4 bytes apart at
/// most, and a transposed one's not adjacent at all).
void storeMatrices(OpBuilder &b, Location loc, Operation *op, ValueRange values,
                   Value buffer, const SharedAccessMap &map,
                   const MatrixStores &plan, Type elementType) {
  SmallVector<Value> ptrs =
      emitMatrixRowPointers(b, loc, op, buffer, map, plan.laneOffsets,
                            plan.firstRegisters, elementType);
  MLIRContext *context = b.getContext();
  auto halves = VectorType::get(2, storageType(elementType));
  for (auto [first, ptr] : llvm::zip(plan.firstRegisters, ptrs)) {
    SmallVector<Value> words;
    for (int64_t wordRegister : plan.wordRegisters) {
      Value word = LLVM::PoisonOp::create(b, loc, halves);
      const int64_t regs[] = {first | wordRegister,
                              first | wordRegister | plan.pairRegister};
      for (auto [half, reg] : llvm::enumerate(regs))
        word = LLVM::InsertElementOp::create(b, loc, word,
                                             toStorage(b, loc, values[reg]),
                                             i32Constant(b, loc, half));
      words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), word));
    }
    NVVM::StMatrixOp::create(b, loc, ptr, words,
                             plan.transposed ? NVVM::MMALayout::col
                                             : NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  }
}

/// Moves the insertion point into an `if` that only the owners of
/// `layout`'s elements enter (no-op when no thread holds a copy). The
/// caller keeps an InsertionGuard.
void enterOwnersOnly(OpBuilder &b, Location loc, Operation *op,
                     const LinearLayout &layout) {
  if (Value owner = emitOwnerPredicate(b, loc, layout, getThreadId(b, op))) {
    auto ifOp = scf::IfOp::create(b, loc, owner, /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
}

struct LocalAllocPattern : OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<int64_t> offset = getScratchOffset(op);
    if (failed(offset))
      return failure();
    Location loc = op.getLoc();
    Value buffer = getSharedPointer(rewriter, loc, op,
                                    i32Constant(rewriter, loc, *offset));
    if (op.getSrc() &&
        failed(storeTensor(rewriter, loc, op, adaptor.getSrc(),
                           cast<RankedTensorType>(op.getSrc().getType()),
                           buffer, op.getType())))
      return failure();
    rewriter.replaceOp(op, buffer);
    return success();
  }
};

struct LocalStorePattern : OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(storeTensor(rewriter, op.getLoc(), op, adaptor.getSrc(),
                           cast<RankedTensorType>(op.getSrc().getType()),
                           adaptor.getBuffer().front(),
                           op.getBuffer().getType())))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadPattern : OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> values =
        loadTensor(rewriter, op.getLoc(), op, op.getType(),
                   adaptor.getBuffer().front(), op.getBuffer().getType());
    if (failed(values))
      return failure();
    rewriter.replaceOpWithMultiple(op, {*values});
    return success();
  }
};

/// A transposed view is the same bytes: the layout in its type is what
/// tells readers (wgmma descriptors) how to walk them.
struct MemDescTransPattern : OpConversionPattern<MemDescTransOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MemDescTransOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc().front());
    return success();
  }
};

/// Buffer `index` of a multi-buffer starts `index` buffer sizes further on.
struct MemDescIndexPattern : OpConversionPattern<MemDescIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType bufferType = op.getType();
    int64_t bytes = getSharedElementBytes(bufferType.getElementType());
    for (int64_t dim : bufferType.getShape())
      bytes *= dim;
    Value offset =
        arith::MulIOp::create(rewriter, loc, adaptor.getIndex().front(),
                              i32Constant(rewriter, loc, bytes));
    Value pointer = LLVM::GEPOp::create(
        rewriter, loc, adaptor.getSrc().front().getType(), rewriter.getI8Type(),
        adaptor.getSrc().front(), ValueRange{offset});
    rewriter.replaceOp(op, pointer);
    return success();
  }
};

struct LocalDeallocPattern : OpConversionPattern<LocalDeallocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LocalDeallocOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Lifetimes were settled by the allocation pass.
    rewriter.eraseOp(op);
    return success();
  }
};

/// One cp.async per run of elements that is contiguous both in the
/// thread's global pointers and in the buffer: 4, 8 or 16 bytes. Where the
/// mask is off the source is ignored (the hardware fills zeros); the mask
/// goes in as the `ignore-src` predicate, which ptxas folds into the
/// compares that make it (a source size chosen by select costs a select,
/// and a compare to turn it back into a predicate, per copy).
struct AsyncCopyPattern : OpConversionPattern<AsyncCopyGlobalToLocalOp> {
  AsyncCopyPattern(ThreadTypeConverter &converter, MLIRContext *context,
                   const AxisInfoAnalysis &axisInfo)
      : OpConversionPattern(converter, context), axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(AsyncCopyGlobalToLocalOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    MemDescType bufferType = op.getBuffer().getType();
    Type element = bufferType.getElementType();
    FailureOr<SharedAccessMap> map = composeAccessMap(srcType, bufferType);
    if (failed(map))
      return op->emitError("shared layout is not a bijection");
    unsigned bytes = getSharedElementBytes(element);
    map->vec =
        std::min(map->vec, vectorWidth(op.getSrc(), op.getMask(), axisInfo));
    unsigned accessBytes = map->vec * bytes;
    if (accessBytes < 4)
      return op->emitError() << "cp.async copies 4, 8 or 16 bytes, but "
                                "this layout gives each thread runs of "
                             << accessBytes << " contiguous bytes";
    SmallVector<Value> dsts = emitAccessPointers(
        rewriter, loc, op, adaptor.getBuffer().front(), *map, element);
    OpBuilder::InsertionGuard guard(rewriter);
    enterOwnersOnly(rewriter, loc, op, getLinearLayout(srcType));
    auto globalPtr = LLVM::LLVMPointerType::get(getContext(), 1);
    auto modifier = NVVM::LoadCacheModifierKindAttr::get(
        getContext(), accessBytes == 16 ? NVVM::LoadCacheModifierKind::CG
                                        : NVVM::LoadCacheModifierKind::CA);
    ValueRange ptrs = adaptor.getSrc();
    for (auto [i, dst] : llvm::enumerate(dsts)) {
      Value address = PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                         ptrs[i * map->vec]);
      Value src = LLVM::IntToPtrOp::create(rewriter, loc, globalPtr, address);
      if (!op.getMask()) {
        NVVM::CpAsyncOp::create(rewriter, loc, dst, src,
                                rewriter.getI32IntegerAttr(accessBytes),
                                modifier, Value());
        continue;
      }
      Value ignore = arith::XOrIOp::create(
          rewriter, loc, adaptor.getMask()[i * map->vec],
          arith::ConstantIntOp::create(rewriter, loc, 1, 1));
      Value dstAddress =
          LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(), dst);
      std::string ptx = (accessBytes == 16 ? "cp.async.cg" : "cp.async.ca");
      ptx +=
          ".shared.global [$0], [$1], " + std::to_string(accessBytes) + ", $2;";
      emitInlineAsm(rewriter, loc, TypeRange(), {dstAddress, address, ignore},
                    ptx, "r,l,b", /*hasSideEffects=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }

  const AxisInfoAnalysis &axisInfo;
};

struct AsyncCommitGroupPattern : OpConversionPattern<AsyncCommitGroupOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitPattern : OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

} // namespace

/// Writes a tensor's registers into a buffer (owners only; no barrier).
LogicalResult mlir::tile::storeTensor(OpBuilder &b, Location loc, Operation *op,
                                      ValueRange values,
                                      RankedTensorType tensorType, Value buffer,
                                      MemDescType bufferType) {
  FailureOr<SharedAccessMap> map = composeAccessMap(tensorType, bufferType);
  if (failed(map))
    return op->emitError("shared layout is not a bijection");
  Type element = tensorType.getElementType();
  std::optional<MatrixStores> plan;
  if (hasMatrixStores(op))
    plan = matchMatrixStores(*map, element);
  SmallVector<Value> ptrs;
  if (!plan)
    ptrs = emitAccessPointers(b, loc, op, buffer, *map, element);
  OpBuilder::InsertionGuard guard(b);
  // Owners only: a copy the layout repeats across lanes is never matrix
  // stores (its lane offsets are 0), so a warp enters whole or not at all.
  enterOwnersOnly(b, loc, op, getLinearLayout(tensorType));
  if (plan)
    storeMatrices(b, loc, op, values, buffer, *map, *plan, element);
  unsigned bytes = getSharedElementBytes(element);
  for (auto [i, ptr] : llvm::enumerate(ptrs)) {
    ValueRange run = values.slice(i * map->vec, map->vec);
    if (map->vec == 1) {
      LLVM::StoreOp::create(b, loc, toStorage(b, loc, run[0]), ptr);
      continue;
    }
    auto vecType = VectorType::get(map->vec, storageType(element));
    Value vector = LLVM::PoisonOp::create(b, loc, vecType);
    for (auto [lane, value] : llvm::enumerate(run))
      vector = LLVM::InsertElementOp::create(
          b, loc, vector, toStorage(b, loc, value), i32Constant(b, loc, lane));
    LLVM::StoreOp::create(b, loc, vector, ptr, map->vec * bytes);
  }
  // wgmma and TMA read through the async proxy; each writer orders its
  // generic-proxy stores before them, unless the IR fences right after the
  // store itself (a TMA write's buffer): a second fence would wait again.
  Operation *next = op->getNextNode();
  bool fencedNext =
      isa_and_nonnull<FenceAsyncSharedOp, NVVM::FenceProxyOp>(next);
  if (isa<NVMMASharedEncodingAttr>(bufferType.getEncoding()) && !fencedNext)
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  return success();
}

FailureOr<SmallVector<Value>>
mlir::tile::loadTensor(OpBuilder &b, Location loc, Operation *op,
                       RankedTensorType tensorType, Value buffer,
                       MemDescType bufferType) {
  FailureOr<SharedAccessMap> map = composeAccessMap(tensorType, bufferType);
  if (failed(map))
    return op->emitError("shared layout is not a bijection");
  Type element = tensorType.getElementType();
  unsigned bytes = getSharedElementBytes(element);
  if (std::optional<TransposedByteMatrices> plan =
          matchMatrixLoads(*map, element))
    return loadTransposedByteMatrices(b, loc, op, buffer, *map, *plan, element);
  SmallVector<Value> values;
  for (Value ptr : emitAccessPointers(b, loc, op, buffer, *map, element)) {
    if (map->vec == 1) {
      values.push_back(loadShared(b, loc, ptr, element));
      continue;
    }
    auto vecType = VectorType::get(map->vec, storageType(element));
    Value vector = LLVM::LoadOp::create(b, loc, vecType, ptr, map->vec * bytes);
    for (unsigned lane = 0; lane < map->vec; ++lane)
      values.push_back(
          fromStorage(b, loc,
                      LLVM::ExtractElementOp::create(b, loc, vector,
                                                     i32Constant(b, loc, lane)),
                      element));
  }
  return values;
}

void mlir::tile::populateSharedMemoryOpPatterns(
    ThreadTypeConverter &converter, RewritePatternSet &patterns,
    const AxisInfoAnalysis &axisInfo) {
  patterns.add<LocalAllocPattern, LocalStorePattern, LocalLoadPattern,
               LocalDeallocPattern, MemDescIndexPattern, MemDescTransPattern,
               AsyncCommitGroupPattern, AsyncWaitPattern>(
      converter, patterns.getContext());
  patterns.add<AsyncCopyPattern>(converter, patterns.getContext(), axisInfo);
}
