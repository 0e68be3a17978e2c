#ifndef TILE_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
#define TILE_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD

include "tile/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

def TileGPU_DistributedEncoding : AttrInterface<"DistributedEncoding"> {
  let cppNamespace = "::mlir::tilegpu";
  let description = [{
    A layout that spreads a tensor over the registers, lanes and warps of one
    CTA. Every one is a linear layout for a given shape.
  }];
  let methods = [
    InterfaceMethod<"The linear layout of a tensor of `shape`.",
      "::mlir::tilegpu::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Rank of the tensors this encoding applies to.",
      "unsigned", "getRank", (ins)>,
  ];
}

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TileGPU_BlockedEncodingAttr : TileGPU_Attr<"BlockedEncoding", "blocked",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
  let summary = "Tensor split into per-thread blocks, lanes, then warps";
  let description = [{
    Each thread holds `sizePerThread` contiguous elements, a warp holds
    `threadsPerWarp` of those blocks and the CTA `warpsPerCTA` warps' worth.
    `order` lists the dimensions fastest first. A tensor larger than that
    tile repeats it in more registers; a smaller one leaves lanes or warps
    holding copies (broadcast).

    ```mlir
    #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32],
                      warpsPerCTA = [4], order = [0]}>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order
  );
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,`
            `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout Triton picks without other information: one element per
    /// thread, lanes and then warps along the fastest (last) dimensions.
    static BlockedEncodingAttr getDefault(MLIRContext *context,
                                          ArrayRef<int64_t> shape,
                                          int numWarps);
    /// `perThread` elements per thread along order[0]; lanes, then warps,
    /// fill the dimensions in `order`, and what is left over goes to the
    /// slowest dimension (broadcast where it is too small).
    static BlockedEncodingAttr getFilling(MLIRContext *context,
                                          ArrayRef<int64_t> shape,
                                          ArrayRef<unsigned> order,
                                          unsigned perThread, int numWarps);
  }];
}

def TileGPU_SliceEncodingAttr : TileGPU_Attr<"SliceEncoding", "slice",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of a reduction over `dim` of a tensor laid out as `parent`,
    and of the operand of an `expand_dims` at `dim`: threads keep their
    place and the elements along `dim` collapse onto one.

    ```mlir
    #tilegpu.slice<{dim = 1, parent = #tilegpu.blocked<...>}>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "DistributedEncoding":$parent);
  let assemblyFormat = "`<` `{` `dim` `=` $dim `,` `parent` `=` $parent `}` `>`";
  let genVerifyDecl = 1;
}

def TileGPU_PermutedEncodingAttr : TileGPU_Attr<"PermutedEncoding", "permuted",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
  let summary = "A parent layout with its dimensions permuted";
  let description = [{
    The layout of `tile.trans %x {order}` for `%x` laid out as `parent`:
    result dimension `i` is the parent's dimension `order[i]`, and every
    thread keeps the elements it held. A transposition between the two is
    therefore a renaming of registers, which lets a value be computed in
    the transpose of the layout its user needs (a dequantised weight that
    becomes a wgmma's register operand once the product is transposed).

    ```mlir
    #tilegpu.permuted<{order = [1, 0], parent = #tilegpu.dot_op<...>}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$order,
                        "DistributedEncoding":$parent);
  let assemblyFormat = [{
    `<` `{` `order` `=` `[` $order `]` `,` `parent` `=` $parent `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout of `tile.trans` with `order` of a tensor laid out as
    /// `encoding`: nested permutations compose, and the identity gives
    /// the parent back.
    static DistributedEncoding getTransposed(DistributedEncoding encoding,
                                             ArrayRef<int32_t> order);
  }];
}

def TileGPU_SharedLayout : AttrInterface<"SharedLayout"> {
  let cppNamespace = "::mlir::tilegpu";
  let description = [{
    How a buffer's elements are placed in shared memory: a bijection from
    the element offset to coordinates, linear over GF(2) (see
    LinearLayout::sharedSwizzled and sharedNVMMA).
  }];
  let methods = [
    InterfaceMethod<"Dimensions from fastest to slowest.",
      "::llvm::ArrayRef<unsigned>", "getOrder", (ins)>,
    InterfaceMethod<[{The offset -> coordinates layout of a buffer of
      `shape` with `elementBits`-bit elements.}],
      "::mlir::tilegpu::LinearLayout", "toLinearLayout",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "unsigned":$elementBits)>,
    InterfaceMethod<"Byte alignment the buffer's start needs.",
      "int64_t", "getAlignment", (ins)>,
    InterfaceMethod<[{Checks that a buffer of `shape` with `elementBits`-bit
      elements can use this layout.}],
      "::llvm::LogicalResult", "verifyBuffer",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "::llvm::ArrayRef<int64_t>":$shape, "unsigned":$elementBits)>,
  ];
}

def TileGPU_SharedEncodingAttr : TileGPU_Attr<"SharedEncoding", "shared",
    [DeclareAttrInterfaceMethods<TileGPU_SharedLayout>]> {
  let summary = "Row order of a buffer in shared memory, optionally swizzled";
  let description = [{
    Elements are stored densely with `order` listing the dimensions fastest
    first. With `vec`, `perPhase` and `maxPhase`, row r (of order[1]) XORs
    its `vec`-element chunk index with (r / perPhase) % maxPhase: the
    swizzle that lets ldmatrix and column-wise accesses avoid bank
    conflicts. They default to 1 (no swizzle).

    ```mlir
    #tilegpu.shared<{order = [1, 0]}>
    #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase, ArrayRefParameter<"unsigned">:$order);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<unsigned>":$order), [{
      return $_get($_ctxt, 1, 1, 1, order);
    }]>,
  ];
}

def TileGPU_NVMMASharedEncodingAttr
    : TileGPU_Attr<"NVMMASharedEncoding", "nvmma_shared",
                   [DeclareAttrInterfaceMethods<TileGPU_SharedLayout>]> {
  let summary = "The swizzled tile layout wgmma and TMA read";
  let description = [{
    A rank-2 buffer whose contiguous dimension (`order[0]`) is cut into
    atoms of `swizzle` bytes (32, 64 or 128). Each atom column holds all
    rows, `swizzle` bytes apart, and within it the 16-byte chunk index is
    XORed with the row's address bits 7 and up, as the hardware swizzle
    modes do. wgmma descriptors and TMA tensor maps name this layout.

    ```mlir
    #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzle, ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `swizzle` `=` $swizzle `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_MmaEncodingAttr : TileGPU_Attr<"MmaEncoding", "mma",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
  let summary = "Accumulator layout of the tensor-core instructions";
  let description = [{
    Version 2 is `mma.sync.m16n8kK` (sm_80+): each warp computes 16x8
    tiles. Version 3 is `wgmma.mma_async.m64nNkK` (sm_90a): each group of
    four warps computes 64xN tiles, N = instrShape[1]. `warpsPerCTA` splits
    the warps over M and N (for version 3, M gets a multiple of four).
    instrShape is [16, N, K] per warp; K depends on the operand type.

    A thread holds rows r and r + 8 of each 16-row group (r = lane / 4).
    With `adjacentRows`, it holds rows 2r and 2r + 1 instead: the tensor's
    rows are those of the instruction permuted within each 16-row group
    (instruction row m is tensor row 2 (m mod 8) + m / 8). Permuting the
    rows of an A operand permutes the accumulator's the same way, so an
    accumulator and its A operand (`dot_op` opIdx 0 of this layout) may
    take it together: then a thread's two rows are neighbours in memory,
    which lets a row-major tile (packed int4 weights, as wgmma's register
    A) be read in wider pieces.

    ```mlir
    #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
    #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], adjacentRows = true}>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        DefaultValuedParameter<"bool", "false">:$adjacentRows);
  let assemblyFormat = [{
    `<` `{` `version` `=` $version `,`
            `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
            `instrShape` `=` `[` $instrShape `]`
            (`,` `adjacentRows` `=` $adjacentRows^)? `}` `>`
  }];
  let builders = [
    AttrBuilder<(ins "unsigned":$version,
                     "::llvm::ArrayRef<unsigned>":$warpsPerCTA,
                     "::llvm::ArrayRef<unsigned>":$instrShape), [{
      return $_get($_ctxt, version, warpsPerCTA, instrShape,
                   /*adjacentRows=*/false);
    }]>,
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() const {
      return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
    }
  }];
}

def TileGPU_DotOperandEncodingAttr : TileGPU_Attr<"DotOperandEncoding",
    "dot_op", [DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
  let summary = "Register layout of an mma operand";
  let description = [{
    Operand A (`opIdx` 0) or B (1) of an mma whose accumulator has layout
    `parent`, as the instruction's register fragments hold it: each 32-bit
    register packs `kWidth` consecutive K elements.

    ```mlir
    #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "MmaEncodingAttr":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `{` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,`
            `kWidth` `=` $kWidth `}` `>`
  }];
  let genVerifyDecl = 1;
}

#endif // TILE_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
