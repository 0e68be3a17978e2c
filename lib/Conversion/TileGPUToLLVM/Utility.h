//===- Utility.h - Helpers for distributing tensors to threads --*- C++ -*-===//

#ifndef TILE_LIB_CONVERSION_TILEGPUTOLLVM_UTILITY_H
#define TILE_LIB_CONVERSION_TILEGPUTOLLVM_UTILITY_H

#include "tile/Analysis/AxisInfo.h"
#include "tile/Analysis/WarpShuffle.h"
#include "tile/Dialect/TileGPU/IR/Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace tile {

/// Which thread this is, split the way layouts see it.
struct ThreadId {
  Value lane, warp; // i32
  Value linear;     // i32, threadIdx.x
};

/// The warps of a warp_specialize's consumers, seen from inside.
struct WarpPartition {
  int64_t threadOffset; // threadIdx.x of the partition's first thread
  int64_t numThreads;
};

/// Marks the i32 that the thread ids of a consumer partition count from
/// (until lowerWarpSpecialize drops it).
constexpr StringLiteral kPartitionThreadAttr = "partition_thread_offset";

/// The consumer partition code in `region` runs in, if any (the producer
/// and the code outside a warp_specialize count all of the CTA's threads).
std::optional<WarpPartition> getWarpPartition(Region *region);

/// The thread id values of the function containing `op`, created once at
/// the top of its entry block; inside a consumer partition, counted from
/// its first thread.
ThreadId getThreadId(OpBuilder &b, Operation *op);

/// Per register of `layout`, the coordinates (i32) this thread holds.
SmallVector<SmallVector<Value>>
emitCoordinates(OpBuilder &b, Location loc, const tilegpu::LinearLayout &layout,
                const ThreadId &tid);

/// True (i1) in the one thread of each group of copies: the thread whose
/// lane and warp have no broadcast bit set. Null when no thread is a copy.
Value emitOwnerPredicate(OpBuilder &b, Location loc,
                         const tilegpu::LinearLayout &layout,
                         const ThreadId &tid);

/// Base pointer (address space 3) of the kernel's dynamic shared memory
/// plus `byteOffset`.
Value getSharedPointer(OpBuilder &b, Location loc, Operation *op,
                       Value byteOffset);

/// The scratch offset the allocation pass gave `op`; emits an error and
/// returns failure when there is none.
FailureOr<int64_t> getScratchOffset(Operation *op);

Value i32Constant(OpBuilder &b, Location loc, int64_t value);

/// Inline PTX (AT&T dialect) with `results` (none, one value or a struct),
/// `operands` and LLVM constraints (outputs first, "N" ties an input to
/// output N).
LLVM::InlineAsmOp emitInlineAsm(OpBuilder &b, Location loc, TypeRange results,
                                ValueRange operands, StringRef asmString,
                                StringRef constraints, bool hasSideEffects);

/// Scalars of one type as one integer of their total width, the first in
/// the lowest bits (a single value is returned as it is).
Value packIntoWord(OpBuilder &b, Location loc, ArrayRef<Value> elements);

/// Two 16-bit values as one i32 (`lo` in the low half): the register form
/// of an mma operand pair.
Value packHalves(OpBuilder &b, Location loc, Value lo, Value hi);

/// Makes every scf.if that yields f16 or bf16 scalars yield them two to an
/// i32 word (after the 1:N conversion; PackHalfBranchResults.cpp says why).
void packHalfBranchResults(ModuleOp module);

/// How an element is held in memory (shared or global): i1 as i8, a
/// pointer as i64, anything else as itself; and the conversions to and from.
Type storageType(Type type);
Value toStorage(OpBuilder &b, Location loc, Value value);
Value fromStorage(OpBuilder &b, Location loc, Value value, Type type);

/// Stores/loads one element to/from shared memory. i1 travels as i8.
void storeShared(OpBuilder &b, Location loc, Value ptr, Value value,
                 Value predicate);
/// Stores `values[i]` at `ptrs[i]`, all under one `predicate` (when there
/// is one): a branch per element would leave thousands of them in one
/// block for a large replicated tensor, which scf-to-cf splits one by one.
void storeAllShared(OpBuilder &b, Location loc, ValueRange ptrs,
                    ValueRange values, Value predicate);
Value loadShared(OpBuilder &b, Location loc, Value ptr, Type type);
/// The address of element `index` of a buffer of `elementType` at `base`.
Value sharedElementPtr(OpBuilder &b, Location loc, Value base,
                       Type elementType, Value index);

/// bar.sync 0; inside a consumer partition (where the builder inserts), a
/// named barrier for its threads.
void emitBarrier(OpBuilder &b, Location loc);

/// Replaces each warp_specialize by branches on the warp id, each side
/// setting its register budget first. Runs once its regions are lowered.
void lowerWarpSpecialize(ModuleOp module);

/// Writes a tensor's registers into the shared buffer at `buffer` laid out
/// as `bufferType` says (owners only, vectorised up to 16 bytes; no
/// barrier).
LogicalResult storeTensor(OpBuilder &b, Location loc, Operation *op,
                          ValueRange values, RankedTensorType tensorType,
                          Value buffer, tilegpu::MemDescType bufferType);

/// Reads a tensor's registers back from such a buffer.
FailureOr<SmallVector<Value>> loadTensor(OpBuilder &b, Location loc,
                                         Operation *op,
                                         RankedTensorType tensorType,
                                         Value buffer,
                                         tilegpu::MemDescType bufferType);

/// A butterfly shuffle of any scalar up to 64 bits wide.
Value shuffleXor(OpBuilder &b, Location loc, Value value, int laneMask);
/// The value `value` has in lane `srcLane` (i32) of this warp.
Value shuffleIdx(OpBuilder &b, Location loc, Value value, Value srcLane);

/// `op`'s operand registers `src` converted by following `plan`: shuffles
/// within each warp, no shared memory.
SmallVector<Value> emitWarpShuffleConversion(OpBuilder &b, Location loc,
                                             Operation *op, ValueRange src,
                                             const WarpShufflePlan &plan);

/// Each owning thread stores its registers of a tensor in `layout` at
/// `index(coords)` elements from `base` (no barrier).
void writeToShared(OpBuilder &b, Location loc, Operation *op, Value base,
                   ArrayRef<Value> values, const tilegpu::LinearLayout &layout,
                   function_ref<Value(OpBuilder &, ArrayRef<Value>)> index,
                   Type elementType);

/// Each thread loads its registers of a tensor in `layout` from
/// `index(coords)` elements from `base` (no barrier).
SmallVector<Value>
readFromShared(OpBuilder &b, Location loc, Operation *op, Value base,
               const tilegpu::LinearLayout &layout,
               function_ref<Value(OpBuilder &, ArrayRef<Value>)> index,
               Type elementType);

/// Moves a tensor between layouts (and shapes) through shared memory: each
/// owning thread writes its registers at `srcIndex(coords)` elements from
/// `base`, the CTA synchronises, and each thread reads its result registers
/// from `dstIndex(coords)`.
SmallVector<Value>
shuffleThroughShared(OpBuilder &b, Location loc, Operation *op, Value base,
                     ArrayRef<Value> srcValues,
                     const tilegpu::LinearLayout &srcLayout,
                     function_ref<Value(OpBuilder &, ArrayRef<Value>)> srcIndex,
                     const tilegpu::LinearLayout &dstLayout,
                     function_ref<Value(OpBuilder &, ArrayRef<Value>)> dstIndex,
                     Type elementType);

/// Row-major linear index of `coords` in `shape`.
Value emitLinearIndex(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                      ArrayRef<int64_t> shape);

/// The 1:N type converter: a tensor becomes its registers.
class ThreadTypeConverter : public TypeConverter {
public:
  ThreadTypeConverter();
};

void populateElementwiseAndShapePatterns(ThreadTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         const AxisInfoAnalysis &axisInfo);
void populateMemoryOpPatterns(ThreadTypeConverter &converter,
                              RewritePatternSet &patterns,
                              const AxisInfoAnalysis &axisInfo);
void populateReducePatterns(ThreadTypeConverter &converter,
                            RewritePatternSet &patterns);
void populateScanPatterns(ThreadTypeConverter &converter,
                          RewritePatternSet &patterns);
void populateCombinePatterns(ThreadTypeConverter &converter,
                             RewritePatternSet &patterns);
void populateDebugPatterns(ThreadTypeConverter &converter,
                           RewritePatternSet &patterns);
void populateTMAPatterns(ThreadTypeConverter &converter,
                         RewritePatternSet &patterns);
/// turn_init/turn_wait/turn_pass as named barriers.
void populateTurnPatterns(ThreadTypeConverter &converter,
                          RewritePatternSet &patterns);
void populateDotPatterns(ThreadTypeConverter &converter,
                         RewritePatternSet &patterns);
/// tile.elementwise_inline_asm, on tensors and on scalars.
void populateInlineAsmPatterns(ThreadTypeConverter &converter,
                               RewritePatternSet &patterns);
void populateSharedMemoryOpPatterns(ThreadTypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    const AxisInfoAnalysis &axisInfo);
/// `freshCarriedOperands`: loop-carried register A words of a wgmma get an
/// identity-prmt copy before the fence; `descriptorsAtUse`: the
/// shared-memory descriptors of a wgmma in a loop are made there
/// (WarpGroupDotOps.cpp says when each is needed).
void populateWarpGroupDotPatterns(ThreadTypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  bool freshCarriedOperands = false,
                                  bool descriptorsAtUse = false);

} // namespace tile
} // namespace mlir

#endif // TILE_LIB_CONVERSION_TILEGPUTOLLVM_UTILITY_H
