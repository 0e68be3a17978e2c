#ifndef TILE_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
#define TILE_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD

include "tile/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def TileGPU_MemDescType : TypeDef<TileGPU_Dialect, "MemDesc",
                                  [ShapedTypeInterface]> {
  let mnemonic = "memdesc";
  let summary = "A tensor held in shared memory";
  let description = [{
    A buffer in the CTA's shared memory with a shape, an element type and a
    shared layout (`#tilegpu.shared` or `#tilegpu.nvmma_shared`).

    ```mlir
    !tilegpu.memdesc<64x32xf16, #tilegpu.shared<{order = [1, 0]}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType,
                        "SharedLayout":$encoding);
  let assemblyFormat = "`<` custom<Shape>($shape, $elementType) `,` $encoding `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool hasRank() const { return true; }
    MemDescType cloneWith(std::optional<ArrayRef<int64_t>> shape,
                          Type elementType) const {
      return MemDescType::get(getContext(), shape ? *shape : getShape(),
                              elementType, getEncoding());
    }
  }];
}

#endif // TILE_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
