//===- AccelerateMatmul.cpp - tile.dot onto the tensor cores --------------===//
//
// Picks the tensor-core instruction for each dot from the target, the
// operand and accumulator types and the warps available:
//
//  * sm_90a: wgmma (mma version 3). The warps form warpgroups of four,
//    stacked along M as far as M allows (64 rows each) and then along N;
//    each issues m64nNkK with N = the columns it owns, up to 256. B, and
//    A when it comes from memory, are staged in NVMMA-swizzled shared
//    memory with the widest swizzle (128, 64 or 32 bytes) that divides a
//    row: A K-major, B N-major when it is held N-contiguous and 16-bit
//    (wgmma transposes it), K-major otherwise. A 16-bit A computed in
//    registers stays there (a dot_op layout of the accumulator's mma).
//    Copies of operands that do not change inside a loop are made before
//    it.
//  * sm_80 and later (and sm_90a dots that wgmma cannot take: too few rows
//    or warps for a warpgroup, or an f16 accumulator): mma.sync (mma
//    version 2), m16n8k16 for f16/bf16 into f32 and f16 into f16 (fp8
//    widened to f16 first), m16n8k8 for tf32, m16n8k32 for int8 into int32.
//  * anything else: the dot stays on the CUDA cores (FMA).
//
// The accumulator is converted into the mma layout and the result back;
// remove-layout-conversions then keeps loop-carried accumulators in it.
//
//===----------------------------------------------------------------------===//

#include "Pipeliner/Pipeliner.h"
#include "tile/Dialect/TileGPU/Transforms/MmaSelection.h"
#include "tile/Dialect/TileGPU/Transforms/Passes.h"
#include "tile/Support/TMA.h"

#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace tilegpu {
#define GEN_PASS_DEF_TILEGPUACCELERATEMATMUL
#include "tile/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilegpu
} // namespace mlir

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tilegpu;

namespace {

/// The K depth of one mma.sync for these operand and accumulator types, or
/// 0 where mma.sync has no shape: m16n8k16 for f16/bf16 into f32 (and f16
/// into f16), m16n8k8 for tf32 into f32, m16n8k32 for int8 into int32.
int64_t mmaSyncInstrK(Type operand, Type acc, InputPrecision precision) {
  // fp8 has no mma.sync form: its operands are widened to f16 first, as
  // Triton does for dots too small for wgmma.
  if ((operand.isF16() || operand.isBF16() || isFp8(operand)) && acc.isF32())
    return 16;
  if (operand.isF16() && acc.isF16())
    return 16;
  if (operand.isF32() && acc.isF32() && precision == InputPrecision::TF32)
    return 8;
  if (operand.isInteger(8) && acc.isInteger(32))
    return 32;
  return 0;
}

/// The mma.sync (version 2) accumulator layout for an MxN dot, if any:
/// warps along M as far as M allows, then N. Warps beyond the tile's 16x8
/// blocks repeat the others' work (their layout bases are zero), as in
/// Triton, so a small dot with many warps still runs on the tensor cores.
MmaEncodingAttr pickMmaSyncLayout(MLIRContext *context, int64_t M, int64_t N,
                                  int64_t K, Type operand, Type acc,
                                  InputPrecision precision, int numWarps) {
  int64_t instrK = mmaSyncInstrK(operand, acc, precision);
  if (instrK == 0 || K % instrK != 0 || M % 16 != 0 || N % 8 != 0 ||
      !llvm::isPowerOf2_64(M) || !llvm::isPowerOf2_64(N))
    return {};
  int64_t warpsM = std::min<int64_t>(numWarps, M / 16);
  int64_t warpsN = numWarps / warpsM;
  return MmaEncodingAttr::get(context, 2, {unsigned(warpsM), unsigned(warpsN)},
                              {16, 8, unsigned(instrK)});
}

/// A dot on mma.sync: the operands move into the mma's register fragments
/// (through shared memory, as any layout conversion), and the dot keeps
/// its op with those layouts.
void rewriteForMmaSync(DotOp dot, MmaEncodingAttr mma) {
  MLIRContext *context = dot.getContext();
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  auto convert = [&](Value value, Attribute encoding) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    return ConvertLayoutOp::create(b, loc, type.cloneWithEncoding(encoding),
                                   value);
  };
  Value aValue = dot.getA(), bValue = dot.getB();
  Type element = cast<RankedTensorType>(aValue.getType()).getElementType();
  if (isFp8(element)) {
    // fp8 operands widen (exactly) to f16 and run as an f16 product.
    auto widen = [&](Value value) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      return FpToFpOp::create(b, loc, type.clone(b.getF16Type()), value,
                              RoundingModeAttr());
    };
    aValue = widen(aValue);
    bValue = widen(bValue);
    element = b.getF16Type();
  }
  // Each 32-bit register of a fragment packs consecutive K elements.
  unsigned kWidth = 32 / getElementBitWidth(element);
  Value a =
      convert(aValue, DotOperandEncodingAttr::get(context, 0, mma, kWidth));
  Value bOperand =
      convert(bValue, DotOperandEncodingAttr::get(context, 1, mma, kWidth));
  Value c = convert(dot.getC(), mma);
  auto mmaDot =
      DotOp::create(b, loc, c.getType(), a, bOperand, c,
                    dot.getInputPrecision(), dot.getMaxNumImpreciseAcc());
  Value back = ConvertLayoutOp::create(b, loc, dot.getType(), mmaDot);
  dot.replaceAllUsesWith(back);
  dot.erase();
}

/// The widest NVMMA swizzle that divides rows of `rowBytes` (TMA copies
/// pick the same one, so their buffers can feed the dot directly).
unsigned pickSwizzle(int64_t rowBytes) {
  return ::tile::tma::getNVMMASwizzleBytes(rowBytes);
}

/// Whether `operand` arrives with each thread's elements contiguous along
/// `dim`.
bool arrivesContiguousAlong(Value operand, unsigned dim) {
  // A TMA copy lands row-major in shared memory whatever the register
  // layout of the loaded value.
  if (arrivingOperand(operand).getDefiningOp<DescriptorLoadOp>())
    return dim == 1;
  auto type = cast<RankedTensorType>(arrivingOperand(operand).getType());
  return getLinearLayout(type).getFastestDim() == dim;
}

/// B = tl.trans of an NxK tile whose rows arrive K-contiguous (attention's
/// K, loaded row-major through pointers or by TMA): the tile is staged as it
/// arrives, row-major, and B is that buffer read transposed (memdesc_trans),
/// which is the K-major operand wgmma takes. The load then fills the buffer
/// directly (cp.async or TMA, so the pipeliner can overlap it) instead of
/// being transposed through registers and a second shared copy.
TransOp transposedRowMajorOperand(Value b) {
  auto trans = arrivingOperand(b).getDefiningOp<TransOp>();
  if (!trans || trans.getOrder() != ArrayRef<int32_t>{1, 0})
    return {};
  if (!arrivesContiguousAlong(trans.getSrc(), 1))
    return {};
  return trans;
}

/// Where a dot operand's shared copy is made: just before the outermost
/// loop around the dot that does not compute the operand, so a tile that
/// stays the same across iterations (attention's Q) is stored once.
void setInsertionPointForOperand(OpBuilder &b, DotOp dot, Value operand) {
  Operation *where = dot;
  for (Operation *parent = dot->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (!isa<LoopLikeOpInterface>(parent) ||
        parent->isAncestor(operand.getParentRegion()->getParentOp()))
      break;
    where = parent;
  }
  b.setInsertionPoint(where);
}

/// A register A unpacked elementwise from a loaded tile of bytes (a
/// swapped int4 or int8 weight GEMM: A is the transposed weights). Its
/// rows are then taken in the `adjacentRows` order, where each lane's
/// bytes form the 2x2 blocks one `ldmatrix.trans` delivers, instead of a
/// one-byte shared-memory load per element.
bool unpackedFromBytes(Value a) {
  auto aType = cast<RankedTensorType>(a.getType());
  SmallVector<Value> work{a};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second || seen.size() > 64)
      continue;
    if (auto load = dyn_cast<LoadOp>(def)) {
      auto type = cast<RankedTensorType>(load.getType());
      if (type.getElementType().isInteger(8) &&
          type.getNumElements() == aType.getNumElements())
        return true;
      continue;
    }
    StringRef dialect = def->getDialect()->getNamespace();
    if (!isa<TransOp, ConvertLayoutOp, BitcastOp>(def) && dialect != "arith")
      continue;
    for (Value operand : def->getOperands())
      if (auto type = dyn_cast<RankedTensorType>(operand.getType());
          type && type.getNumElements() == aType.getNumElements())
        work.push_back(operand);
  }
  return false;
}

/// Whether tilegpu-pipeline, run with these options, will copy a load
/// used in registers ahead into shared memory: by the pipeliner's own
/// rules, one in the body of a loop pipelined at two or more stages that
/// is not too short for them, filling masked elements with zeros.
struct PipelineForecast {
  int numStages;
  bool registerLoadsAhead;

  bool copiesAhead(LoadOp load) const {
    auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
    if (!registerLoadsAhead || !loop ||
        !pipeliner::isZeroOrAbsent(load.getOther()))
      return false;
    int stages = pipeliner::getLoopStages(loop, numStages);
    return stages >= 2 && !pipeliner::isShorterThanStages(loop, stages);
  }
};

/// A 16-bit or fp32 (tf32) A computed in registers (attention's
/// probabilities, a scaled or converted tile, a value carried from the
/// previous iteration) feeds wgmma from registers; one loaded from memory
/// is staged in shared memory, where the pipeliner can fill it
/// asynchronously. A tf32 A staged from registers would be stored K-major
/// whatever layout it is computed in (wgmma transposes no 32-bit operand):
/// Lightning Attention's M-contiguous tiles hit one bank 16 times a store.
bool takesRegisterA(Value a, int64_t K, const PipelineForecast &pipeline) {
  auto type = cast<RankedTensorType>(a.getType());
  unsigned bits = getElementBitWidth(type.getElementType());
  bool tf32 = type.getElementType().isF32() && K % 8 == 0;
  if (!tf32 && (bits != 16 || K % 16 != 0))
    return false;
  Value arriving = arrivingOperand(a);
  // A tf32 tile widened from a 16-bit load: the pipeliner's copy of the
  // load can be read straight into the fragment (Lightning Attention's
  // forward: 196 -> 139 us on an H200), but where the load is not copied
  // ahead, its conversion to the fragment goes through shared memory and a
  // barrier on top (Lightning's loop-free backward kernel: 30.6 -> 34.1).
  if (auto widen = arriving.getDefiningOp<arith::ExtFOp>())
    if (auto load = arrivingOperand(widen.getIn()).getDefiningOp<LoadOp>())
      return tf32 && pipeline.copiesAhead(load);
  // The transposition of a computed tile (attention backward's dS^T for
  // dQ = dS^T K) crosses warps: in registers it would go through shared
  // memory and back. Stored once, untransposed, it is an M-major A that
  // wgmma reads from shared memory directly.
  if (auto trans = arriving.getDefiningOp<TransOp>())
    if (!isa_and_nonnull<LoadOp, DescriptorLoadOp>(
            arrivingOperand(trans.getSrc()).getDefiningOp()) &&
        !unpackedFromBytes(a))
      return false;
  // A carried tf32 tile takes twice the registers of a 16-bit one as an
  // operand, beside its accumulator (Lightning's backward carries a
  // 128x128 one: 128 more registers a thread, 7.4 KB of spills); it is
  // read from shared memory, as Triton does.
  if (auto arg = dyn_cast<BlockArgument>(arriving))
    return !tf32 && isa<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
  return !isa<LoadOp, DescriptorLoadOp>(arriving.getDefiningOp());
}

/// The shared copies of dot operands made so far.
class OperandStager {
public:
  explicit OperandStager(Operation *root) : dominance(root) {}

  /// The shared copy of `operand` in `type` for `dot`: one made for an
  /// earlier dot when it dominates this one (attention's Q, read by a dot
  /// before the loop and by the loop's), else a new one.
  /// The copy is keyed by the value as it arrives (before any layout
  /// conversion), so a tile two dots read, one through a transposed view
  /// (attention backward's Q, dO and K), has one buffer that its load alone
  /// fills: the pipeliner can then copy it asynchronously.
  Value stage(OpBuilder &b, DotOp dot, Value operand, MemDescType type) {
    operand = arrivingOperand(operand);
    SmallVector<LocalAllocOp> &copies = staged[{operand, type}];
    for (LocalAllocOp alloc : copies)
      if (reaches(alloc, dot))
        return alloc;
    setInsertionPointForOperand(b, dot, operand);
    auto alloc = LocalAllocOp::create(b, dot.getLoc(), type, operand);
    copies.push_back(alloc);
    return alloc;
  }

  /// A shared copy of `operand`'s transpose made for another dot, viewed
  /// transposed, if it is (or can be moved to be) before `dot`: attention
  /// backward with queries as rows stores dS^T for dK += dS^T Q, and
  /// dQ = dS K reads dS from that copy instead of exchanging it between
  /// its warpgroups through shared memory into 32 more registers a thread
  /// (H200: the fused backward 2.4 -> 1.8 ms).
  Value transposedCopy(OpBuilder &b, DotOp dot, Value operand) {
    SmallVector<Value> views{arrivingOperand(operand)};
    for (Operation *user : views.front().getUsers())
      if (isa<ConvertLayoutOp>(user))
        views.push_back(user->getResult(0));
    for (Value view : views)
      for (Operation *user : view.getUsers()) {
        auto trans = dyn_cast<TransOp>(user);
        if (!trans || trans.getOrder() != ArrayRef<int32_t>{1, 0})
          continue;
        for (auto &[key, copies] : staged) {
          if (key.first != trans.getResult())
            continue;
          for (LocalAllocOp alloc : copies)
            if (reaches(alloc, dot)) {
              b.setInsertionPoint(dot);
              return MemDescTransOp::create(b, dot.getLoc(), alloc);
            }
        }
      }
    return {};
  }

private:
  /// Whether `alloc` dominates `dot`, once moved up to just after the tile
  /// it stores when it was made for a later dot (dots are not rewritten in
  /// program order). A transposition between them that is computed later
  /// moves up too, to just before `dot`.
  bool reaches(LocalAllocOp alloc, DotOp dot) {
    if (dominance.properlyDominates(alloc.getOperation(), dot))
      return true;
    Operation *source = alloc.getSrc().getDefiningOp();
    if (!source || source->getBlock() != alloc->getBlock())
      return false;
    if (!dominance.properlyDominates(source, dot)) {
      if (!isa<TransOp>(source) || source->getBlock() != dot->getBlock() ||
          !dominance.properlyDominates(source->getOperand(0), dot))
        return false;
      source->moveBefore(dot);
    }
    alloc->moveAfter(source);
    return true;
  }

  DominanceInfo dominance;
  llvm::DenseMap<std::pair<Value, Type>, SmallVector<LocalAllocOp>> staged;
};

struct AccelerateMatmulPass
    : tilegpu::impl::TileGPUAccelerateMatmulBase<AccelerateMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyTensorsHaveLayouts(module)))
      return signalPassFailure();
    PipelineForecast forecast{numStages, registerLoadsAhead};
    MLIRContext *context = &getContext();
    int numWarps = TileGPUDialect::getNumWarps(module);
    auto target =
        module->getAttrOfType<StringAttr>(TileGPUDialect::getTargetAttrName());
    if (!target)
      return;
    // sm_90a: wgmma where a warpgroup tiling exists, else mma.sync; sm_80+:
    // mma.sync.
    bool wgmma = hasWgmma(target.getValue());
    if (!wgmma && !hasMmaSync(target.getValue()))
      return;
    SmallVector<DotOp> dots;
    module.walk([&](DotOp dot) { dots.push_back(dot); });
    // Dots whose A is a computed tile transposed go first: their shared
    // copies are then there for the dots that read the tile itself
    // (transposedCopy).
    std::stable_partition(dots.begin(), dots.end(), [](DotOp dot) {
      auto trans = arrivingOperand(dot.getA()).getDefiningOp<TransOp>();
      return trans && !isa_and_nonnull<LoadOp, DescriptorLoadOp>(
                          arrivingOperand(trans.getSrc()).getDefiningOp());
    });
    OperandStager stager(module);
    for (DotOp dot : dots) {
      auto aType = cast<RankedTensorType>(dot.getA().getType());
      auto bType = cast<RankedTensorType>(dot.getB().getType());
      auto cType = cast<RankedTensorType>(dot.getC().getType());
      Type element = aType.getElementType();
      if (cType.getRank() != 2 || bType.getElementType() != element ||
          isa_and_nonnull<MmaEncodingAttr>(cType.getEncoding()))
        continue;
      int64_t M = cType.getShape()[0], N = cType.getShape()[1];
      int64_t K = aType.getShape()[1];
      MmaEncodingAttr mma =
          wgmma ? pickWgmmaLayout(context, M, N, K, element,
                                  cType.getElementType(),
                                  dot.getInputPrecision(), numWarps)
                : MmaEncodingAttr();
      if (!mma) {
        // No wgmma here, too few rows for a warpgroup (M < 64), or warps
        // that do not form warpgroups: mma.sync still beats the CUDA cores.
        if (MmaEncodingAttr v2 = pickMmaSyncLayout(
                context, M, N, K, element, cType.getElementType(),
                dot.getInputPrecision(), numWarps))
          rewriteForMmaSync(dot, v2);
        continue;
      }
      unsigned bits = getElementBitWidth(element);
      unsigned kSwizzle = pickSwizzle(K * bits / 8);
      // A held M-contiguous (a transposed A) is kept M-major for 16-bit
      // types, as loaded; wgmma transposes it. Each warpgroup's 64-row
      // slab is then a whole number of swizzle atoms.
      unsigned mSwizzle = pickSwizzle(64 * bits / 8);
      bool aMContiguous =
          bits == 16 && mSwizzle != 0 && arrivesContiguousAlong(dot.getA(), 0);
      auto aLayout =
          aMContiguous
              ? NVMMASharedEncodingAttr::get(context, mSwizzle, {0, 1})
              : NVMMASharedEncodingAttr::get(context, kSwizzle, {1, 0});
      // 16-bit B held N-contiguous (a row-major KxN tile) is kept N-major,
      // so filling it is a plain vector copy and wgmma transposes it; B
      // held K-contiguous (a transposed load, attention's K) and other
      // types are K-major.
      int64_t instrN = mma.getInstrShape()[1];
      unsigned nSwizzle = pickSwizzle(instrN * bits / 8);
      bool bKContiguous = arrivesContiguousAlong(dot.getB(), 0);
      auto bLayout =
          bits == 16 && nSwizzle != 0 && !bKContiguous
              ? NVMMASharedEncodingAttr::get(context, nSwizzle, {1, 0})
              : NVMMASharedEncodingAttr::get(context, kSwizzle, {0, 1});
      OpBuilder b(dot);
      Location loc = dot.getLoc();
      Value a;
      // With warpgroups along N, each reads all of A: a register A would
      // be exchanged between them through shared memory. A shared copy
      // made anyway is then the cheaper A.
      bool aReadByEveryGroup = mma.getWarpsPerCTA()[1] > 1;
      if (Value copy = bits == 16 && aReadByEveryGroup
                           ? stager.transposedCopy(b, dot, dot.getA())
                           : Value()) {
        a = copy;
      } else if (takesRegisterA(dot.getA(), K, forecast)) {
        if (unpackedFromBytes(dot.getA()))
          mma = MmaEncodingAttr::get(context, mma.getVersion(),
                                     mma.getWarpsPerCTA(), mma.getInstrShape(),
                                     /*adjacentRows=*/true);
        b.setInsertionPoint(dot);
        // Each 32-bit register of the fragment holds one tf32 or two
        // 16-bit K-adjacent elements.
        auto operandLayout =
            DotOperandEncodingAttr::get(context, 0, mma, 32 / bits);
        a = ConvertLayoutOp::create(
            b, loc, aType.cloneWithEncoding(operandLayout), dot.getA());
      } else {
        a = stager.stage(
            b, dot, dot.getA(),
            MemDescType::get(context, aType.getShape(), element, aLayout));
      }
      Value bBuffer;
      if (TransOp trans = transposedRowMajorOperand(dot.getB())) {
        Value rows = arrivingOperand(trans.getSrc());
        auto rowsType = cast<RankedTensorType>(rows.getType());
        // A TMA copy writes its own swizzle; anything else gets the one a
        // K-major B would have, so the transposed view is exactly that.
        NVMMASharedEncodingAttr rowMajor;
        if (auto load = rows.getDefiningOp<DescriptorLoadOp>())
          rowMajor = getTMASharedEncoding(load.getDesc().getType());
        if (!rowMajor)
          rowMajor = NVMMASharedEncodingAttr::get(context, kSwizzle, {1, 0});
        Value buffer = stager.stage(
            b, dot, rows,
            MemDescType::get(context, rowsType.getShape(), element, rowMajor));
        // A copy made for an earlier dot leaves the builder elsewhere.
        b.setInsertionPoint(dot);
        bBuffer = MemDescTransOp::create(b, loc, buffer);
      } else {
        bBuffer = stager.stage(
            b, dot, dot.getB(),
            MemDescType::get(context, bType.getShape(), element, bLayout));
      }
      b.setInsertionPoint(dot);
      Value c = ConvertLayoutOp::create(b, loc, cType.cloneWithEncoding(mma),
                                        dot.getC());
      auto wgmma = WarpGroupDotOp::create(
          b, loc, c.getType(), a, bBuffer, c, dot.getInputPrecision(),
          /*isAsync=*/false, dot.getMaxNumImpreciseAcc());
      Value back = ConvertLayoutOp::create(b, loc, cType, wgmma);
      dot.replaceAllUsesWith(back);
      dot.erase();
    }
  }
};

} // namespace
