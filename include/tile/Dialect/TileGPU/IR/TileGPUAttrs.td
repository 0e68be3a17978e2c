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

def TileGPU_SharedEncodingAttr : TileGPU_Attr<"SharedEncoding", "shared"> {
  let summary = "Row order of a buffer in shared memory";
  let description = [{
    Elements are stored densely with `order` listing the dimensions fastest
    first. Swizzled and NVMMA layouts extend this for the tensor cores.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = "`<` `{` `order` `=` `[` $order `]` `}` `>`";
  let genVerifyDecl = 1;
}

#endif // TILE_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
