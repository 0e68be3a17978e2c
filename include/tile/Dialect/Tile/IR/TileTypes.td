#ifndef TILE_DIALECT_TILE_IR_TILETYPES_TD
#define TILE_DIALECT_TILE_IR_TILETYPES_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

class Tile_TypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_TypeDef<"Pointer", "ptr"> {
  let summary = "Pointer to a scalar element in some address space";
  let description = [{
    A pointer to one element of `pointeeType`. The address space follows
    NVPTX numbering: 1 is global memory (the default, and what kernel
    pointer arguments point to), 3 is shared memory.

    ```mlir
    !tile.ptr<f32>       // global
    !tile.ptr<f16, 3>    // shared
    ```
  }];
  let parameters = (ins "Type":$pointeeType,
                        DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
}

def Tile_TensorDescType : Tile_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "A TMA tensor descriptor: a global tensor read in blocks";
  let description = [{
    Names a global tensor (base, shape and strides, fixed at launch) that
    is read and written one block of `blockType`'s shape at a time by the
    Hopper tensor memory accelerator. Out-of-bounds elements of a block
    read as zero and are not written. At launch it is a 128-byte
    CUtensorMap passed by value.

    ```mlir
    !tile.tensordesc<tensor<128x64xf16>>
    ```
  }];
  let parameters = (ins "RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints. Tile values are scalars or ranked tensors of scalars, and
// the same op usually accepts both ("-like").
//===----------------------------------------------------------------------===//

def Tile_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64], "floating-point">;
def Tile_FloatTensor : RankedTensorOf<[Tile_Float]>;
def Tile_FloatLike : AnyTypeOf<[Tile_Float, Tile_FloatTensor]>;

def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer">;
def Tile_IntTensor : RankedTensorOf<[Tile_Int]>;
def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTensor]>;

def Tile_I32Like : AnyTypeOf<[I32, RankedTensorOf<[I32]>]>;
def Tile_I64Like : AnyTypeOf<[I64, RankedTensorOf<[I64]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;

def Tile_PtrTensor : RankedTensorOf<[Tile_PtrType]>;
def Tile_PtrLike : AnyTypeOf<[Tile_PtrType, Tile_PtrTensor]>;

def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int, Tile_PtrType]>;
def Tile_Tensor : RankedTensorOf<[Tile_Float, Tile_Int, Tile_PtrType]>;
def Tile_Type : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;
def Tile_NumericLike : AnyTypeOf<[Tile_FloatLike, Tile_IntLike]>;

#endif // TILE_DIALECT_TILE_IR_TILETYPES_TD
