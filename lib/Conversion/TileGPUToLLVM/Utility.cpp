//===- Utility.cpp - Helpers for distributing tensors to threads ----------===//

#include "Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

static constexpr StringLiteral kSharedSymbol = "tile_shared";

LLVM::InlineAsmOp
mlir::tile::emitInlineAsm(OpBuilder &b, Location loc, TypeRange results,
                          ValueRange operands, StringRef asmString,
                          StringRef constraints, bool hasSideEffects) {
  return LLVM::InlineAsmOp::create(
      b, loc, results, operands, asmString, constraints, hasSideEffects,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

Value mlir::tile::packIntoWord(OpBuilder &b, Location loc,
                               ArrayRef<Value> elements) {
  if (elements.size() == 1)
    return elements.front();
  Type element = elements.front().getType();
  Value vector = LLVM::PoisonOp::create(
      b, loc, VectorType::get(elements.size(), element));
  for (auto [i, value] : llvm::enumerate(elements))
    vector = LLVM::InsertElementOp::create(b, loc, vector, value,
                                           i32Constant(b, loc, i));
  return LLVM::BitcastOp::create(
      b, loc,
      b.getIntegerType(elements.size() * element.getIntOrFloatBitWidth()),
      vector);
}

Value mlir::tile::packHalves(OpBuilder &b, Location loc, Value lo, Value hi) {
  return packIntoWord(b, loc, {lo, hi});
}

Value mlir::tile::i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

std::optional<WarpPartition> mlir::tile::getWarpPartition(Region *region) {
  for (; region; region = region->getParentRegion()) {
    auto specialize = dyn_cast<WarpSpecializeOp>(region->getParentOp());
    if (!specialize)
      continue;
    int threads = TileGPUDialect::kThreadsPerWarp;
    // The writer is the second producer warp: its lane 0 issues its copies.
    if (region == &specialize.getWriter())
      return WarpPartition{threads, threads};
    if (region != &specialize.getConsumers())
      return std::nullopt;
    return WarpPartition{specialize.getProducerWarps() * threads,
                         TileGPUDialect::getNumWarps(specialize) * threads};
  }
  return std::nullopt;
}

ThreadId mlir::tile::getThreadId(OpBuilder &b, Operation *op) {
  auto function = op->getParentOfType<FunctionOpInterface>();
  Block &entry = function.getFunctionBody().front();
  // Consumers of a warp_specialize count threads from their first warp, so
  // every layout sees only its own partition's warps.
  std::optional<WarpPartition> partition =
      getWarpPartition(op->getParentRegion());
  int64_t offset = partition ? partition->threadOffset : 0;
  auto idsFrom = [](Operation *linear) {
    ThreadId id;
    id.linear = linear->getResult(0);
    for (Operation *user : linear->getUsers()) {
      if (auto lane = dyn_cast<arith::AndIOp>(user))
        id.lane = lane;
      if (isa<arith::ShRUIOp>(user))
        for (Operation *broadcast : user->getUsers())
          if (isa<NVVM::ShflOp>(broadcast))
            id.warp = broadcast->getResult(0);
    }
    return id;
  };
  // Reuse the ids made by an earlier pattern in this function.
  for (Operation &existing : entry) {
    bool match =
        offset == 0
            ? isa<NVVM::ThreadIdXOp>(existing)
            : existing.hasAttr(kPartitionThreadAttr) &&
                  existing.getAttrOfType<IntegerAttr>(kPartitionThreadAttr)
                          .getInt() == offset;
    if (!match)
      continue;
    ThreadId id = idsFrom(&existing);
    if (id.lane && id.warp)
      return id;
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&entry);
  Location loc = function.getLoc();
  Operation *linear = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  if (offset != 0) {
    linear = arith::SubIOp::create(b, loc, linear->getResult(0),
                                   i32Constant(b, loc, offset));
    linear->setAttr(kPartitionThreadAttr, b.getI64IntegerAttr(offset));
  }
  ThreadId id;
  id.linear = linear->getResult(0);
  id.lane = arith::AndIOp::create(b, loc, id.linear, i32Constant(b, loc, 31));
  // Lane 0's warp index, broadcast: ptxas then knows it is warp-uniform
  // and keeps what derives from it (wgmma descriptors of a warpgroup's
  // slab, say) in uniform registers rather than in spilled vector ones.
  Value warp =
      arith::ShRUIOp::create(b, loc, id.linear, i32Constant(b, loc, 5));
  id.warp = NVVM::ShflOp::create(
      b, loc, b.getI32Type(), i32Constant(b, loc, -1), warp,
      i32Constant(b, loc, 0), i32Constant(b, loc, 0x1f), NVVM::ShflKind::idx,
      UnitAttr());
  return id;
}

/// XOR of the bases of the set bits of `index`, per output dimension.
static SmallVector<Value> emitBasesSum(OpBuilder &b, Location loc,
                                       ArrayRef<LinearLayout::Basis> bases,
                                       Value index, unsigned rank) {
  SmallVector<Value> coords(rank, i32Constant(b, loc, 0));
  for (auto [bit, basis] : llvm::enumerate(bases)) {
    for (unsigned d = 0; d < rank; ++d) {
      if (basis[d] == 0)
        continue;
      // ((index >> bit) & 1) * basis, as a shift: bases are powers of two
      // for every layout tile builds; multiply otherwise.
      Value set = arith::AndIOp::create(
          b, loc,
          arith::ShRUIOp::create(b, loc, index, i32Constant(b, loc, bit)),
          i32Constant(b, loc, 1));
      Value term =
          llvm::isPowerOf2_64(basis[d])
              ? Value(arith::ShLIOp::create(
                    b, loc, set, i32Constant(b, loc, llvm::Log2_64(basis[d]))))
              : Value(arith::MulIOp::create(b, loc, set,
                                            i32Constant(b, loc, basis[d])));
      coords[d] = arith::XOrIOp::create(b, loc, coords[d], term);
    }
  }
  return coords;
}

SmallVector<SmallVector<Value>>
mlir::tile::emitCoordinates(OpBuilder &b, Location loc,
                            const LinearLayout &layout, const ThreadId &tid) {
  unsigned rank = layout.getRank();
  SmallVector<Value> lane =
      emitBasesSum(b, loc, layout.getBases(LinearLayout::Lane), tid.lane, rank);
  SmallVector<Value> warp =
      emitBasesSum(b, loc, layout.getBases(LinearLayout::Warp), tid.warp, rank);
  SmallVector<Value> thread;
  for (unsigned d = 0; d < rank; ++d)
    thread.push_back(arith::XOrIOp::create(b, loc, lane[d], warp[d]));
  SmallVector<SmallVector<Value>> result;
  for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg) {
    LinearLayout::Basis fixed = layout.applyOne(LinearLayout::Register, reg);
    SmallVector<Value> coords;
    for (unsigned d = 0; d < rank; ++d)
      coords.push_back(fixed[d] == 0 ? thread[d]
                                     : Value(arith::XOrIOp::create(
                                           b, loc, thread[d],
                                           i32Constant(b, loc, fixed[d]))));
    result.push_back(coords);
  }
  return result;
}

Value mlir::tile::emitOwnerPredicate(OpBuilder &b, Location loc,
                                     const LinearLayout &layout,
                                     const ThreadId &tid) {
  Value predicate;
  auto addTerm = [&](Value index, uint64_t mask) {
    if (mask == 0)
      return;
    Value bits =
        arith::AndIOp::create(b, loc, index, i32Constant(b, loc, mask));
    Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                       i32Constant(b, loc, 0));
    predicate = predicate
                    ? Value(arith::AndIOp::create(b, loc, predicate, zero))
                    : zero;
  };
  addTerm(tid.lane, layout.getBroadcastMask(LinearLayout::Lane));
  addTerm(tid.warp, layout.getBroadcastMask(LinearLayout::Warp));
  return predicate;
}

Value mlir::tile::getSharedPointer(OpBuilder &b, Location loc, Operation *op,
                                   Value byteOffset) {
  auto module = op->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedSymbol);
  auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    global = LLVM::GlobalOp::create(
        b, module.getLoc(), arrayType, /*isConstant=*/false,
        LLVM::Linkage::External, kSharedSymbol, Attribute(),
        // The 128-byte NVMMA swizzle repeats every 1024 bytes.
        /*alignment=*/1024,
        /*addrSpace=*/3);
  }
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptrType, kSharedSymbol);
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), base,
                             ValueRange{byteOffset});
}

FailureOr<int64_t> mlir::tile::getScratchOffset(Operation *op) {
  auto attr =
      op->getAttrOfType<IntegerAttr>(TileGPUDialect::getOffsetAttrName());
  if (!attr)
    return op->emitError("needs shared memory but has no '")
           << TileGPUDialect::getOffsetAttrName()
           << "'; run tilegpu-allocate-shared-memory first";
  return attr.getInt();
}

Type mlir::tile::storageType(Type type) {
  if (type.isInteger(1))
    return IntegerType::get(type.getContext(), 8);
  if (isa<PointerType>(type))
    return IntegerType::get(type.getContext(), 64);
  // LLVM has no fp8 types: their bytes travel as i8.
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 8)
    return IntegerType::get(type.getContext(), 8);
  return type;
}

Value mlir::tile::toStorage(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (type.isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  if (isa<PointerType>(type))
    return PtrToIntOp::create(b, loc, b.getI64Type(), value);
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 8)
    return arith::BitcastOp::create(b, loc, b.getI8Type(), value);
  return value;
}

Value mlir::tile::fromStorage(OpBuilder &b, Location loc, Value value,
                              Type type) {
  // Any non-zero byte is true: global memory may hold bytes tile never wrote.
  if (type.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 arith::ConstantIntOp::create(b, loc, 0, 8));
  if (isa<PointerType>(type))
    return IntToPtrOp::create(b, loc, type, value);
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 8)
    return arith::BitcastOp::create(b, loc, type, value);
  return value;
}

void mlir::tile::storeShared(OpBuilder &b, Location loc, Value ptr, Value value,
                             Value predicate) {
  storeAllShared(b, loc, ptr, value, predicate);
}

void mlir::tile::storeAllShared(OpBuilder &b, Location loc, ValueRange ptrs,
                                ValueRange values, Value predicate) {
  SmallVector<Value> stored;
  for (Value value : values)
    stored.push_back(toStorage(b, loc, value));
  OpBuilder::InsertionGuard guard(b);
  if (predicate) {
    auto ifOp = scf::IfOp::create(b, loc, predicate, /*withElse=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  for (auto [ptr, value] : llvm::zip_equal(ptrs, stored))
    LLVM::StoreOp::create(b, loc, value, ptr);
}

Value mlir::tile::loadShared(OpBuilder &b, Location loc, Value ptr, Type type) {
  Value loaded = LLVM::LoadOp::create(b, loc, storageType(type), ptr);
  return fromStorage(b, loc, loaded, type);
}

void mlir::tile::emitBarrier(OpBuilder &b, Location loc) {
  std::optional<WarpPartition> partition =
      getWarpPartition(b.getInsertionBlock()->getParent());
  if (!partition) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  // The producer warps never reach it: barrier 1, consumers only.
  emitInlineAsm(b, loc, TypeRange(), ValueRange(),
                "bar.sync 1, " + std::to_string(partition->numThreads) + ";",
                "", /*hasSideEffects=*/true);
}

/// shfl.sync of any scalar up to 64 bits wide; `lane` is the xor mask
/// (bfly) or the source lane (idx).
static Value shuffle(OpBuilder &b, Location loc, Value value, Value lane,
                     NVVM::ShflKind kind) {
  Type type = value.getType();
  unsigned bits = getElementBitWidth(type);
  auto shfl = [&](Value word) {
    return NVVM::ShflOp::create(b, loc, b.getI32Type(), i32Constant(b, loc, -1),
                                word, lane, i32Constant(b, loc, 0x1f), kind,
                                UnitAttr());
  };
  if (bits == 64) {
    Value asInt = value;
    if (isa<PointerType>(type))
      asInt = PtrToIntOp::create(b, loc, b.getI64Type(), value);
    else if (!type.isInteger(64))
      asInt = arith::BitcastOp::create(b, loc, b.getI64Type(), value);
    Value lo = arith::TruncIOp::create(b, loc, b.getI32Type(), asInt);
    Value hi = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        arith::ShRUIOp::create(b, loc, asInt,
                               arith::ConstantIntOp::create(b, loc, 32, 64)));
    Value lo2 = arith::ExtUIOp::create(b, loc, b.getI64Type(), shfl(lo));
    Value hi2 = arith::ShLIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, b.getI64Type(), shfl(hi)),
        arith::ConstantIntOp::create(b, loc, 32, 64));
    Value joined = arith::OrIOp::create(b, loc, lo2, hi2);
    if (isa<PointerType>(type))
      return IntToPtrOp::create(b, loc, type, joined);
    if (!type.isInteger(64))
      return arith::BitcastOp::create(b, loc, type, joined);
    return joined;
  }
  // Narrower values travel in the low bits of a 32-bit word.
  Value word = value;
  Type intType = b.getIntegerType(bits);
  if (!type.isInteger())
    word = arith::BitcastOp::create(b, loc, intType, word);
  if (bits < 32)
    word = arith::ExtUIOp::create(b, loc, b.getI32Type(), word);
  Value result = shfl(word);
  if (bits < 32)
    result = arith::TruncIOp::create(b, loc, intType, result);
  if (!type.isInteger())
    result = arith::BitcastOp::create(b, loc, type, result);
  return result;
}

Value mlir::tile::shuffleXor(OpBuilder &b, Location loc, Value value,
                             int laneMask) {
  return shuffle(b, loc, value, i32Constant(b, loc, laneMask),
                 NVVM::ShflKind::bfly);
}

Value mlir::tile::shuffleIdx(OpBuilder &b, Location loc, Value value,
                             Value srcLane) {
  return shuffle(b, loc, value, srcLane, NVVM::ShflKind::idx);
}

Value mlir::tile::emitLinearIndex(OpBuilder &b, Location loc,
                                  ArrayRef<Value> coords,
                                  ArrayRef<int64_t> shape) {
  Value index = i32Constant(b, loc, 0);
  for (auto [c, size] : llvm::zip(coords, shape))
    index = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, index, i32Constant(b, loc, size)),
        c);
  return index;
}

Value mlir::tile::sharedElementPtr(OpBuilder &b, Location loc, Value base,
                                   Type elementType, Value index) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, loc, ptrType, storageType(elementType), base,
                             ValueRange{index});
}

void mlir::tile::writeToShared(
    OpBuilder &b, Location loc, Operation *op, Value base,
    ArrayRef<Value> values, const LinearLayout &layout,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> index, Type elementType) {
  ThreadId tid = getThreadId(b, op);
  Value owner = emitOwnerPredicate(b, loc, layout, tid);
  SmallVector<Value> ptrs;
  for (ArrayRef<Value> coords : emitCoordinates(b, loc, layout, tid))
    ptrs.push_back(
        sharedElementPtr(b, loc, base, elementType, index(b, coords)));
  storeAllShared(b, loc, ptrs, values, owner);
}

SmallVector<Value> mlir::tile::readFromShared(
    OpBuilder &b, Location loc, Operation *op, Value base,
    const LinearLayout &layout,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> index, Type elementType) {
  ThreadId tid = getThreadId(b, op);
  SmallVector<Value> result;
  for (auto &coords : emitCoordinates(b, loc, layout, tid))
    result.push_back(loadShared(
        b, loc, sharedElementPtr(b, loc, base, elementType, index(b, coords)),
        elementType));
  return result;
}

SmallVector<Value> mlir::tile::shuffleThroughShared(
    OpBuilder &b, Location loc, Operation *op, Value base,
    ArrayRef<Value> srcValues, const LinearLayout &srcLayout,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> srcIndex,
    const LinearLayout &dstLayout,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> dstIndex,
    Type elementType) {
  writeToShared(b, loc, op, base, srcValues, srcLayout, srcIndex, elementType);
  emitBarrier(b, loc);
  return readFromShared(b, loc, op, base, dstLayout, dstIndex, elementType);
}

ThreadTypeConverter::ThreadTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion(
      [](RankedTensorType type,
         SmallVectorImpl<Type> &results) -> std::optional<LogicalResult> {
        if (!getDistributedEncoding(type))
          return failure();
        results.append(getLinearLayout(type).getNumRegisters(),
                       type.getElementType());
        return success();
      });
  // A shared-memory buffer is its base address.
  addConversion([](MemDescType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), 3);
  });
}
