#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILE_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Block-level tensor programs for GPUs";
  let description = [{
    The Tile dialect is what the Python front end emits. A kernel is a
    `func.func` whose body works on whole blocks of data: ranked tensors of
    scalars or of `!tile.ptr` values. Tensors carry no layout at this level;
    how a block is spread over threads, warps and shared memory is decided
    later, in the TileGPU dialect.

    Arithmetic, math and control flow come from the upstream `arith`, `math`,
    `scf` and `cf` dialects. Kernel arguments may carry specialization facts
    as argument attributes: `tile.divisibility` (the value, or the address, is
    a multiple of this power of two) and `tile.contiguity`.
  }];
  let dependentDialects = [
    "arith::ArithDialect", "math::MathDialect", "scf::SCFDialect",
    "cf::ControlFlowDialect", "func::FuncDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr llvm::StringLiteral getDivisibilityAttrName() {
      return llvm::StringLiteral("tile.divisibility");
    }
    static constexpr llvm::StringLiteral getContiguityAttrName() {
      return llvm::StringLiteral("tile.contiguity");
    }
    static constexpr llvm::StringLiteral getKernelAttrName() {
      return llvm::StringLiteral("tile.kernel");
    }
    /// On scf.for: the software-pipelining depth asked for with
    /// `tl.range(..., num_stages=)`.
    static constexpr llvm::StringLiteral getNumStagesAttrName() {
      return llvm::StringLiteral("tile.num_stages");
    }
    /// On scf.for: `tl.range(..., warp_specialize=True)`, a producer
    /// warpgroup for the loop's TMA copies.
    static constexpr llvm::StringLiteral getWarpSpecializeAttrName() {
      return llvm::StringLiteral("tile.warp_specialize");
    }
    /// Whether `loop` asks for a producer warpgroup: marked itself, or the
    /// loop directly in a marked tile loop (a persistent kernel marks the
    /// loop over its tiles, as Triton's tutorials do).
    static bool asksForWarpSpecialization(::mlir::Operation *loop) {
      ::mlir::Operation *parent = loop->getParentOp();
      return loop->hasAttr(getWarpSpecializeAttrName()) ||
             (parent && parent->getName() == loop->getName() &&
              parent->hasAttr(getWarpSpecializeAttrName()));
    }
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
