#ifndef TILE_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
#define TILE_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::mlir::tilegpu";
  let summary = "Tile programs with their data laid out on a GPU";
  let description = [{
    TileGPU is the Tile dialect after layouts are chosen. Every tensor carries
    an encoding attribute saying which thread holds which element: a
    `#tilegpu.blocked` layout or a `#tilegpu.slice` of one. Each encoding is
    a constructor of a *linear layout*, a map over GF(2) from the bits of
    (register, lane, warp) to tensor coordinates; passes and the lowering
    reason about that map instead of about the named cases.

    The dialect adds the ops that only make sense once data has a place:
    `convert_layout`, shared-memory buffers (`!tilegpu.memdesc`) and
    `barrier`. The module carries `tilegpu.num_warps` and `tilegpu.target`,
    and after allocation `tilegpu.shared` (bytes of shared memory).
  }];
  let dependentDialects = ["tile::TileDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    // Each in the .cpp of its .td (TileGPUAttrs.cpp, TileGPUTypes.cpp,
    // TileGPUOps.cpp), where the storage classes are complete.
    void registerAttributes();
    void registerTypes();
    void registerOps();

    static constexpr llvm::StringLiteral getNumWarpsAttrName() {
      return llvm::StringLiteral("tilegpu.num_warps");
    }
    static constexpr llvm::StringLiteral getTargetAttrName() {
      return llvm::StringLiteral("tilegpu.target");
    }
    static constexpr llvm::StringLiteral getSharedAttrName() {
      return llvm::StringLiteral("tilegpu.shared");
    }
    /// Byte offset of an op's scratch (or a buffer's) shared memory, set by
    /// the shared-memory allocation.
    static constexpr llvm::StringLiteral getOffsetAttrName() {
      return llvm::StringLiteral("tilegpu.offset");
    }
    /// Warps a warp_specialize adds to `tilegpu.num_warps` (the producer's),
    /// set on the module by the pass that creates it.
    static constexpr llvm::StringLiteral getExtraWarpsAttrName() {
      return llvm::StringLiteral("tilegpu.extra_warps");
    }
    /// Set on the module by tilegpu-pipeline when a loop with dot operands
    /// also had tiles it uses in registers copied ahead: what compiling
    /// with `stage-register-loads=false` would change.
    static constexpr llvm::StringLiteral getStagedRegisterLoadsAttrName() {
      return llvm::StringLiteral("tilegpu.staged_register_loads");
    }
    static constexpr int kThreadsPerWarp = 32;
    /// Warps the kernel is launched with: num_warps plus extra_warps.
    static int getLaunchWarps(Operation *op);
    /// num_warps of the module that holds `op`; 4 when it is not set.
    static int getNumWarps(Operation *op);
  }];
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
