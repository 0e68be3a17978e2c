#ifndef TILE_DIALECT_TILE_IR_TILEOPS_TD
#define TILE_DIALECT_TILE_IR_TILEOPS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "tile/Dialect/Tile/IR/TileTypes.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

// Memory a tile program reads and writes through `!tile.ptr` values. A
// resource of its own keeps these effects apart from memref's.
def Tile_GlobalMemory : Resource<"::mlir::tile::GlobalMemory">;

// Type transformers used by TypesMatchWith: given the pointer operand's type,
// the type a loaded value or a mask must have.
defvar PointeeOf = "::mlir::tile::getPointeeTypeLike($_self)";
defvar MaskOf = "::mlir::tile::getI1TypeLike($_self)";

//===----------------------------------------------------------------------===//
// Program identity and index ranges
//===----------------------------------------------------------------------===//

def Tile_GetProgramIdOp : Tile_Op<"get_program_id", [Pure]> {
  let summary = "Index of this program along one grid axis";
  let description = [{
    ```mlir
    %pid = tile.get_program_id x
    ```
  }];
  let arguments = (ins Tile_ProgramAxis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_GetNumProgramsOp : Tile_Op<"get_num_programs", [Pure]> {
  let summary = "Number of programs along one grid axis";
  let description = [{
    ```mlir
    %n = tile.get_num_programs y
    ```
  }];
  let arguments = (ins Tile_ProgramAxis:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "The 1-D tensor [start, start + 1, ..., end - 1]";
  let description = [{
    `end - start` must equal the result's length and be a power of two: every
    tile dimension is a power of two so that it maps onto lanes and warps.

    ```mlir
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "Fill a tensor with one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : f32 -> tensor<64x64xf32>
    ```
    A splat of a constant folds to a dense constant.
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Repeat a tensor along its size-1 dimensions";
  let description = [{
    The result has the operand's rank; each operand dimension is either equal
    to the result's or 1.

    ```mlir
    %b = tile.broadcast %a : tensor<1x64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "Insert a dimension of size 1";
  let description = [{
    ```mlir
    %e = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "Reinterpret a tensor with another shape of the same size";
  let description = [{
    With `allow_reorder` the compiler may permute the elements (Triton's
    `tl.view` / `can_reorder=True`), which lets it avoid data movement.

    ```mlir
    %r = tile.reshape %a : tensor<4x16xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, UnitAttr:$allow_reorder);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat =
      "$src (`allow_reorder` $allow_reorder^)? attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "Permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is operand dimension `order[i]`.

    ```mlir
    %t = tile.trans %a {order = array<i32: 1, 0>} : tensor<16x32xf16> -> tensor<32x16xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_CatOp : Tile_Op<"cat", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Concatenate two tensors along their first dimension";
  let description = [{
    ```mlir
    %c = tile.cat %a, %b : tensor<32xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_JoinOp : Tile_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Interleave two tensors along a new minor dimension of size 2";
  let description = [{
    ```mlir
    %j = tile.join %a, %b : tensor<32xf32> -> tensor<32x2xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplitOp : Tile_Op<"split", [Pure, AllTypesMatch<["outLHS", "outRHS"]>]> {
  let summary = "Undo a join: split a tensor along its minor dimension of size 2";
  let description = [{
    ```mlir
    %lo, %hi = tile.split %j : tensor<32x2xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$outLHS, Tile_Tensor:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($outLHS)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advance pointers by a number of elements";
  let description = [{
    The offset counts elements of the pointee type, not bytes. Operand shapes
    must agree: a scalar pointer takes a scalar offset, a tensor of pointers a
    tensor of offsets of the same shape.

    ```mlir
    %q = tile.addptr %p, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result", PointeeOf>,
    TypesMatchWith<"mask is i1 of ptr's shape", "ptr", "mask", MaskOf,
                   "(!::llvm::cast<::mlir::tile::LoadOp>(&$_op).getMask()) || std::equal_to<>()">,
    TypesMatchWith<"other has the result type", "ptr", "other", PointeeOf,
                   "(!::llvm::cast<::mlir::tile::LoadOp>(&$_op).getOther()) || std::equal_to<>()">]> {
  let summary = "Load through a pointer or a tensor of pointers";
  let description = [{
    Lanes whose `mask` is false are not read; they take `other` when given
    and are undefined otherwise. `other` requires `mask`.

    ```mlir
    %v = tile.load %p, %m, %zero cache = cg evict = evict_last : tensor<128x!tile.ptr<f32>>
    ```
    A `arith.select` of the same mask over a single-use masked load is folded
    into the load's `other`.
  }];
  let arguments = (ins
    Tile_PtrLike:$ptr,
    Optional<Tile_BoolLike>:$mask,
    Optional<Tile_Type>:$other,
    DefaultValuedAttr<Tile_CacheModifier, "::mlir::tile::CacheModifier::None">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicy, "::mlir::tile::EvictionPolicy::Normal">:$evict,
    UnitAttr:$isVolatile);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    (`volatile` $isVolatile^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite<Tile_GlobalMemory>]>,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value", PointeeOf>,
    TypesMatchWith<"mask is i1 of ptr's shape", "ptr", "mask", MaskOf,
                   "(!::llvm::cast<::mlir::tile::StoreOp>(&$_op).getMask()) || std::equal_to<>()">]> {
  let summary = "Store through a pointer or a tensor of pointers";
  let description = [{
    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
    ```
    A store whose mask is all false is erased.
  }];
  let arguments = (ins
    Tile_PtrLike:$ptr,
    Tile_Type:$value,
    Optional<Tile_BoolLike>:$mask,
    DefaultValuedAttr<Tile_CacheModifier, "::mlir::tile::CacheModifier::None">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicy, "::mlir::tile::EvictionPolicy::Normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    attr-dict `:` type($ptr)
  }];
  let hasCanonicalizer = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    MemoryEffects<[MemRead<Tile_GlobalMemory>]>]> {
  let summary = "Reads one block of a tensor descriptor";
  let description = [{
    The block whose first element is at `indices` (one per dimension,
    counted in elements); elements outside the tensor read as zero.

    ```mlir
    %a = tile.descriptor_load %desc[%m, %k] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$indices);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]` attr-dict `:` qualified(type($desc)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    MemoryEffects<[MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "Writes one block of a tensor descriptor";
  let description = [{
    Writes `src` as the block whose first element is at `indices`;
    elements outside the tensor are dropped.

    ```mlir
    tile.descriptor_store %desc[%m, %n], %c : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$indices,
                       Tile_Tensor:$src);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorReduceOp : Tile_Op<"descriptor_reduce", [
    MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "Combines a block into a tensor descriptor's block in memory";
  let description = [{
    Combines `src` elementwise, by `kind`, into the block whose first
    element is at `indices`, atomically per element; elements outside the
    tensor are dropped. The TMA unit performs it (a bulk tensor reduction
    from shared memory, sm_90), so the kinds and element types are the
    ones it has: add for i32, i64 as unsigned, f32, f16 and bf16 (`fadd`
    for floats); min and max (signed; `umin`/`umax` unsigned) for 32- and
    64-bit integers, f16 and bf16; and, or, xor for 32- and 64-bit integers
    (the front end takes 64-bit ones unsigned only: over a signed INT64
    tensor map the H100 faults on them).

    ```mlir
    tile.descriptor_reduce fadd, %desc[%m, %n], %dq : !tile.tensordesc<tensor<64x128xf32>>, tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_RMWOp:$kind, Tile_TensorDescType:$desc,
                       Variadic<I32>:$indices, Tile_Tensor:$src);
  let assemblyFormat = [{
    $kind `,` $desc `[` $indices `]` `,` $src attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<Tile_GlobalMemory>]>,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result", PointeeOf>,
    TypesMatchWith<"val is the pointee of ptr", "ptr", "val", PointeeOf>,
    TypesMatchWith<"mask is i1 of ptr's shape", "ptr", "mask", MaskOf,
                   "(!::llvm::cast<::mlir::tile::AtomicRMWOp>(&$_op).getMask()) || std::equal_to<>()">]> {
  let summary = "Atomic read-modify-write; returns the old values";
  let description = [{
    ```mlir
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : tensor<64x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    Tile_RMWOp:$rmw_op, Tile_MemSemantic:$sem, Tile_MemSyncScope:$scope,
    Tile_PtrLike:$ptr, Tile_Type:$val, Optional<Tile_BoolLike>:$mask);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<Tile_GlobalMemory>]>,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result", PointeeOf>,
    TypesMatchWith<"cmp is the pointee of ptr", "ptr", "cmp", PointeeOf>,
    TypesMatchWith<"val is the pointee of ptr", "ptr", "val", PointeeOf>]> {
  let summary = "Atomic compare-and-swap; returns the old values";
  let description = [{
    ```mlir
    %old = tile.atomic_cas acq_rel, gpu, %lock, %zero, %one : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_MemSemantic:$sem, Tile_MemSyncScope:$scope,
                       Tile_PtrLike:$ptr, Tile_Type:$cmp, Tile_Type:$val);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix product, reductions and scans
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "Matrix product with accumulation: d = a * b + c";
  let description = [{
    `a` is MxK, `b` is KxN, `c` and `d` are MxN (a leading batch dimension is
    allowed on all four). `inputPrecision` says how fp32 operands are fed to
    the tensor cores; `maxNumImpreciseAcc` bounds how many fp8 products are
    accumulated at reduced precision before promotion (0: no bound).

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```
    An `arith.addf`/`arith.addi` of a dot with a zero accumulator and one use
    becomes a dot accumulating into the other addend.
  }];
  let arguments = (ins
    Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c,
    DefaultValuedAttr<Tile_InputPrecision, "::mlir::tile::InputPrecision::IEEE">:$inputPrecision,
    DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`inputPrecision` `=` $inputPrecision^)? attr-dict
    `:` type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, SingleBlock, RecursiveMemoryEffects]> {
  let summary = "Reduce tensors along one axis with a combiner region";
  let description = [{
    The combiner takes 2N scalars (the N accumulated values, then the N new
    ones) and yields N scalars with `tile.reduce.return`. Several operands are
    reduced together, which is how argmax carries its indices. Reducing a 1-D
    tensor gives scalars.

    ```mlir
    %s = tile.reduce %x axis = 0 : (tensor<128xf32>) -> f32 {
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tile.reduce.return %r : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Type>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` `=` $axis attr-dict `:` functional-type($srcs, $result) $combineOp
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return", [
    HasParent<"ReduceOp">, Pure, Terminator, ReturnLike]> {
  let summary = "Yields the combined values of a tile.reduce step";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SingleBlock, RecursiveMemoryEffects]> {
  let summary = "Inclusive prefix scan along one axis with a combiner region";
  let description = [{
    Same combiner convention as `tile.reduce`; the results have the operand
    types. `reverse` scans from the end of the axis.

    ```mlir
    %c = tile.scan %x axis = 0 reverse : (tensor<128xi32>) -> tensor<128xi32> {
    ^bb0(%a: i32, %b: i32):
      %r = arith.addi %a, %b : i32
      tile.scan.return %r : i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis, UnitAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:` functional-type($srcs, $result)
    $combineOp
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ScanReturnOp : Tile_Op<"scan.return", [
    HasParent<"ScanOp">, Pure, Terminator, ReturnLike]> {
  let summary = "Yields the combined values of a tile.scan step";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "Pick elements of a tensor along one axis by index";
  let description = [{
    `result[i0, ..., in]` is `src` at the same coordinates except along
    `axis`, where it takes `indices[i0, ..., in]`: torch.gather. `indices`
    and the result share a shape, which equals `src`'s except along
    `axis`. An index outside `[0, src extent)` reads the element at that
    index modulo the extent (a power of two): defined, never a fault.
    Once layouts are assigned, the result has the layout of `indices`.

    ```mlir
    %g = tile.gather %src[%idx] axis = 0
        : (tensor<128x64xf32>, tensor<256x64xi64>) -> tensor<256x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_IntTensor:$indices,
                   I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` `axis` `=` $axis attr-dict `:`
    functional-type(operands, $result)
  }];
  let hasVerifier = 1;
}

def Tile_MapElementwiseOp : Tile_Op<"map_elementwise", [
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "Apply a scalar region to each element (or pack of elements)";
  let description = [{
    The region runs once per `pack` elements of each thread. It takes, for
    each operand in turn, `pack` scalars (consecutive elements), and yields,
    for each result in turn, `pack` scalars. Its control flow is per element,
    which `select` cannot express: only the branch taken runs. Operands and
    results share one shape (and, with layouts, one layout); their element
    types may differ.

    ```mlir
    %q, %r = tile.map_elementwise %a, %b pack = 2
        : (tensor<128xi32>, tensor<128xi32>) -> (tensor<128xi32>, tensor<128xi32>) {
    ^bb0(%a0: i32, %a1: i32, %b0: i32, %b1: i32):
      ...
      tile.map_elementwise.return %q0, %q1, %r0, %r1 : i32, i32, i32, i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$pack);
  let results = (outs Variadic<Tile_Tensor>:$result);
  let regions = (region SizedRegion<1>:$scalarOp);
  let assemblyFormat = [{
    $srcs `pack` `=` $pack attr-dict `:` functional-type($srcs, $result)
    $scalarOp
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_MapElementwiseReturnOp : Tile_Op<"map_elementwise.return", [
    HasParent<"MapElementwiseOp">, Pure, Terminator, ReturnLike]> {
  let summary = "Yields the scalars one tile.map_elementwise step computes";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure]> {
  let summary = "Count the values of a 1-D integer tensor into bins";
  let description = [{
    Bin `i` of the result counts the elements equal to `i`; values outside
    `[0, bins)` are ignored.

    ```mlir
    %h = tile.histogram %x : tensor<1024xi32> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_IntTensor:$src);
  let results = (outs Tile_IntTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

def Tile_FpToFpOp : Tile_Op<"fp_to_fp", [Pure]> {
  let summary = "Convert between floating-point types, fp8 included";
  let description = [{
    A narrowing conversion must name its rounding mode; a widening one is
    exact and must not.

    ```mlir
    %h = tile.fp_to_fp %x, rounding = rtne : tensor<64xf32> -> tensor<64xf8E4M3FN>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$src, OptionalAttr<Tile_RoundingMode>:$rounding);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = [{
    $src (`,` `rounding` `=` $rounding^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BitcastOp : Tile_Op<"bitcast", [Pure]> {
  let summary = "Reinterpret the bits of each element as another type of equal width";
  let description = [{
    ```mlir
    %i = tile.bitcast %x : tensor<64xf32> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_Type:$src);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure]> {
  let summary = "Turn 64-bit addresses into pointers";
  let arguments = (ins Tile_I64Like:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure]> {
  let summary = "Turn pointers into 64-bit addresses";
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_I64Like:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise operations the upstream dialects do not have
//===----------------------------------------------------------------------===//

def Tile_HintOp : Tile_Op<"hint", [Pure, SameOperandsAndResultType]> {
  let summary = "Facts the kernel promises about an integer or pointer value";
  let description = [{
    `tl.multiple_of`, `tl.max_contiguous` and `tl.max_constancy`: the
    result is the operand, and the axis analysis takes, per dimension, the
    given divisibility (the first element of each run is a multiple of it;
    its largest power-of-two factor is used), contiguity (runs of that many
    consecutive values) or constancy (runs of that many equal values)
    instead of what it derives. A scalar has one dimension. The facts decide
    how wide loads and stores are: a false promise is the kernel's error,
    as in Triton.

    ```mlir
    %o = tile.hint %offs {divisibility = array<i64: 16>, contiguity = array<i64: 16>} : tensor<128xi32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$src,
                       OptionalAttr<DenseI64ArrayAttr>:$divisibility,
                       OptionalAttr<DenseI64ArrayAttr>:$contiguity,
                       OptionalAttr<DenseI64ArrayAttr>:$constancy);
  let results = (outs AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_ClampFOp : Tile_Op<"clampf", [Pure, SameOperandsAndResultType]> {
  let summary = "min(max(x, min), max), with a choice of NaN propagation";
  let arguments = (ins Tile_FloatLike:$x, Tile_FloatLike:$min, Tile_FloatLike:$max,
                       Tile_PropagateNan:$propagateNan);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = [{
    $x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)
  }];
}

def Tile_PreciseSqrtOp : Tile_Op<"precise_sqrt", [Pure, SameOperandsAndResultType]> {
  let summary = "Correctly rounded square root";
  let arguments = (ins Tile_FloatLike:$x);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Tile_PreciseDivFOp : Tile_Op<"precise_divf", [Pure, SameOperandsAndResultType]> {
  let summary = "Correctly rounded division";
  let arguments = (ins Tile_FloatLike:$x, Tile_FloatLike:$y);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def Tile_MulhiUIOp : Tile_Op<"mulhiui", [Pure, SameOperandsAndResultType]> {
  let summary = "High half of the unsigned product of two integers";
  let arguments = (ins Tile_IntLike:$x, Tile_IntLike:$y);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
  let hasVerifier = 1;
}

def Tile_ExternElementwiseOp : Tile_Op<"extern_elementwise", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Call a device-library function on each element";
  let description = [{
    ```mlir
    %y = tile.extern_elementwise %x {libname = "libdevice", libpath = "",
           symbol = "__nv_erff", pure = true} : (tensor<64xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Type>:$srcs, StrAttr:$libname, StrAttr:$libpath,
                       StrAttr:$symbol, BoolAttr:$pure);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = "$srcs attr-dict `:` functional-type($srcs, $result)";
  let hasVerifier = 1;
}

def Tile_ElementwiseInlineAsmOp : Tile_Op<"elementwise_inline_asm", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Inline PTX applied to each element (or to packs of elements)";
  let description = [{
    `packed_element` elements are handed to one instance of the assembly.
    Operands and results narrower than 32 bits are packed, up to 32 bits
    per asm operand (four i8 or two f16 share one), so the constraint
    string lists, outputs first, one entry per asm operand: for each result
    and then each argument, `packed_element / elementsPerAsmOperand`
    entries. Clobbers (`~{memory}`) may follow.

    ```mlir
    %y = tile.elementwise_inline_asm "cvt.rn.f16.f32 $0, $1;" {constraints = "=h,r",
           pure = true, packed_element = 1 : i32} %x : (tensor<64xf32>) -> tensor<64xf16>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<Tile_Type>:$args);
  let results = (outs Variadic<Tile_Type>:$result);
  let assemblyFormat = "$asm_string attr-dict ($args^)? `:` functional-type($args, $result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// How many elements of type `element` one asm operand carries when
    /// `pack` elements go to one instance: those narrower than 32 bits
    /// share a register (four i8, two f16), wider ones have one each.
    static int64_t elementsPerAsmOperand(Type element, int64_t pack);
  }];
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [
    MemoryEffects<[MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "Print values from the device (device_print)";
  let description = [{
    `isSigned` has one entry per operand and says how integers are shown.

    ```mlir
    tile.print " x: " {hex = false, isSigned = array<i32: 1>} %x : tensor<64xi32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex, DenseI32ArrayAttr:$isSigned,
                       Variadic<Tile_Type>:$args);
  let assemblyFormat = "$prefix attr-dict ($args^ `:` type($args))?";
  let hasVerifier = 1;
}

def Tile_AssertOp : Tile_Op<"assert", [
    MemoryEffects<[MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "Abort the kernel with a message where a condition is false";
  let description = [{
    ```mlir
    tile.assert %ok, "index out of range" : tensor<64xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def Tile_AssumeOp : Tile_Op<"assume"> {
  let summary = "A condition the kernel promises is true (tl.assume)";
  let description = [{
    Becomes `llvm.intr.assume`: LLVM may rely on `cond` holding (to fold a
    bound check, to prove a loop runs at least once). A false condition is
    the kernel's error, as in Triton. It has no memory effects but is kept
    (its meaning is to be there), so it carries none of `Pure`.

    ```mlir
    tile.assume %ok
    ```
  }];
  let arguments = (ins I1:$cond);
  let assemblyFormat = "$cond attr-dict";
}

def Tile_DebugBarrierOp : Tile_Op<"debug_barrier", [
    MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "Waits for every thread of the program (tl.debug_barrier)";
  let description = [{
    A program is many threads; this makes each wait until all have reached
    it, with their earlier memory accesses ordered before everything after
    it. Kernels that hand a lock to another program use it so that every
    thread's stores into the guarded buffer come before the release. The
    memory effects keep other memory operations from moving across it.

    ```mlir
    tile.debug_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEOPS_TD
