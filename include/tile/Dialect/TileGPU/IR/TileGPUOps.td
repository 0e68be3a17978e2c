#ifndef TILE_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define TILE_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "tile/Dialect/TileGPU/IR/TileGPUTypes.td"
include "tile/Dialect/Tile/IR/TileTypes.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileGPU_SharedMemory : Resource<"::mlir::tilegpu::SharedMemory">;
// The Tile dialect's global-memory resource, for the TMA copies.
def TileGPU_GlobalMemory : Resource<"::mlir::tile::GlobalMemory">;

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout",
    [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Moves a tensor to another layout";
  let description = [{
    The same tensor, held by threads as `result`'s encoding says. When the
    two layouts differ only in which registers hold what, this is free;
    otherwise it goes through shared memory: a conversion of more than 64
    KiB in rounds of at most that size, where some bits of the element
    index are register bits of both layouts.

    ```mlir
    %1 = tilegpu.convert_layout %0 : tensor<128xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc",
    [MemoryEffects<[MemAlloc<TileGPU_SharedMemory>]>]> {
  let summary = "Allocates a shared-memory buffer, optionally filled";
  let description = [{
    A buffer live until `local_dealloc` (or its last use). With `src` the
    buffer starts out holding that tensor.

    ```mlir
    %buf = tilegpu.local_alloc %t : (tensor<64x32xf16, #b>) -> !tilegpu.memdesc<64x32xf16, #s>
    ```
  }];
  let arguments = (ins Optional<Tile_Tensor>:$src);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def TileGPU_LocalDeallocOp : TileGPU_Op<"local_dealloc",
    [MemoryEffects<[MemFree<TileGPU_SharedMemory>]>]> {
  let summary = "Ends a shared-memory buffer's life";
  let arguments = (ins TileGPU_MemDescType:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def TileGPU_MemDescIndexOp : TileGPU_Op<"memdesc_index", [Pure]> {
  let summary = "One buffer of a multi-buffered shared-memory allocation";
  let description = [{
    A pipelined loop keeps `num_stages` copies of each operand tile in one
    allocation whose leading dimension counts the copies; this names copy
    `index` as a buffer of its own (same layout, one rank less). Each copy
    starts a whole number of swizzle periods after the previous one, so the
    swizzle pattern is the same in all of them.

    ```mlir
    %stage = tilegpu.memdesc_index %buf[%i]
        : !tilegpu.memdesc<3x128x64xf16, #nvmma> -> !tilegpu.memdesc<128x64xf16, #nvmma>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src, I32:$index);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescTransOp : TileGPU_Op<"memdesc_trans", [Pure]> {
  let summary = "A rank-2 NVMMA buffer read with its dimensions swapped";
  let description = [{
    The same bytes as `src`, named by the transposed coordinates: shape
    reversed, and the NVMMA layout's `order` reversed with it, so the
    contiguous dimension, the swizzle atoms and their rows stay where they
    are. A row-major NxD tile that TMA wrote (attention's key block) is thus
    the DxN operand `tl.trans` asks for, K-major, without a copy.

    ```mlir
    %kt = tilegpu.memdesc_trans %k
        : !tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
        -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$src);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let builders = [
    OpBuilder<(ins "Value":$src), [{
      build($_builder, $_state,
            getTransposedType(::llvm::cast<MemDescType>(src.getType())), src);
    }]>
  ];
  let extraClassDeclaration = [{
    /// `src` read transposed: shape and NVMMA order reversed (null when
    /// `src` is not a rank-2 NVMMA buffer).
    static MemDescType getTransposedType(MemDescType src);
  }];
  let hasVerifier = 1;
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load",
    [MemoryEffects<[MemRead<TileGPU_SharedMemory>]>]> {
  let summary = "Reads a whole shared-memory buffer into registers";
  let arguments = (ins TileGPU_MemDescType:$buffer);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store",
    [MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Writes a tensor into a shared-memory buffer";
  let arguments = (ins Tile_Tensor:$src, TileGPU_MemDescType:$buffer);
  let assemblyFormat = "$src `,` $buffer attr-dict `:` type($src) `->` type($buffer)";
  let hasVerifier = 1;
}

def TileGPU_WarpGroupDotOp : TileGPU_Op<"warpgroup_dot",
    [MemoryEffects<[MemRead<TileGPU_SharedMemory>]>,
     AllTypesMatch<["c", "d"]>]> {
  let summary = "d = a * b + c on the Hopper tensor cores (wgmma)";
  let description = [{
    B (KxN) is read from shared memory through a wgmma matrix descriptor,
    so it must have an `#tilegpu.nvmma_shared` layout. A (MxK) is either
    read the same way (K-major) or, for 16-bit types, taken from registers
    in the `#tilegpu.dot_op<{opIdx = 0, parent = <the accumulator's mma>,
    kWidth = 2}>` layout, which is the accumulator fragment of an m64nK
    wgmma: a value computed from another dot's accumulator (attention's
    probabilities) feeds this one without a trip through shared memory. The accumulator has a version-3 `#mma`
    layout: each warpgroup issues `wgmma.mma_async.m64nNkK` over its 64-row
    slabs, then waits for them. With `async` it does not wait: `d` may only
    feed the next warpgroup_dot's accumulator or a
    `tilegpu.warpgroup_dot_wait`, and A and B must stay unchanged until
    that wait says the MMA is done.

    With `maxNumImpreciseAcc = n` (fp8 operands; tl.dot's
    max_num_imprecise_acc), at most n products are summed by the tensor
    cores' reduced-precision fp8 accumulation before they reach the f32
    accumulator: each n-deep slice of K goes into a zeroed partial
    accumulator, waited for and added in f32 (the op then waits even when
    `async`).

    ```mlir
    %d = tilegpu.warpgroup_dot %a, %b, %c
        : !tilegpu.memdesc<128x64xf16, #nvmma_a> * !tilegpu.memdesc<64x128xf16, #nvmma_b>
          -> tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TileGPU_MemDescType, Tile_Tensor]>:$a,
    TileGPU_MemDescType:$b, Tile_Tensor:$c,
    DefaultValuedAttr<Tile_InputPrecision, "::mlir::tile::InputPrecision::IEEE">:$inputPrecision,
    UnitAttr:$isAsync,
    DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`inputPrecision` `=` $inputPrecision^)? (`async` $isAsync^)?
    (`maxNumImpreciseAcc` `=` $maxNumImpreciseAcc^)?
    attr-dict `:` type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// K per wgmma instruction for these operand types: 32 bytes of K.
    static int64_t getInstrK(Type operandType);
    /// Whether wgmma takes `operand` inputs with an `acc` accumulator.
    static bool supportsTypes(Type operand, Type acc,
                              ::mlir::tile::InputPrecision precision);
  }];
}

def TileGPU_WarpGroupDotWaitOp : TileGPU_Op<"warpgroup_dot_wait",
    [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Waits until at most `pendings` async warpgroup_dots are in flight";
  let description = [{
    `wgmma.wait_group`: this warpgroup's older async MMAs have finished
    reading shared memory and writing their accumulators when it returns.
    The accumulators pass through it, so nothing reads them before the
    wait. Register A operands (`#tilegpu.dot_op` with opIdx 0) of MMAs
    still in flight may pass through too: an MMA reads them until it
    retires, so they must not be overwritten before the wait, and passing
    them keeps their registers live until it.

    ```mlir
    %r = tilegpu.warpgroup_dot_wait %d {pendings = 1 : i32} : tensor<128x128xf32, #mma>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$inputs,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let results = (outs Variadic<Tile_Tensor>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared"> {
  let summary = "Orders this thread's shared-memory writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: data a thread wrote to shared memory
    through the generic proxy (stores, landed cp.async copies) becomes
    visible to the async proxy (wgmma, TMA) once a barrier follows.
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncCopyGlobalToLocalOp
    : TileGPU_Op<"async_copy_global_to_local",
                 [MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Starts copying a tile from global into shared memory (cp.async)";
  let description = [{
    Each thread copies the elements it holds under `src`'s layout straight
    from global memory into `buffer`, 4, 8 or 16 bytes per `cp.async`,
    without passing through registers. Masked-off elements are written as
    zero. The copy is only started: it joins the thread's current group,
    which `async_commit_group` closes and `async_wait` waits for; other
    threads see the data after that wait and a barrier.

    ```mlir
    tilegpu.async_copy_global_to_local %ptrs, %buf mask %m : tensor<128x64xi1, #blocked>
        : tensor<128x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<128x64xf16, #nvmma>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, TileGPU_MemDescType:$buffer,
                       Optional<Tile_Tensor>:$mask);
  let assemblyFormat = [{
    $src `,` $buffer (`mask` $mask^ `:` type($mask))? attr-dict `:` type($src)
    `->` type($buffer)
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group"> {
  let summary = "Closes this thread's group of started async copies";
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait"> {
  let summary = "Waits until at most `pending` copy groups are in flight";
  let description = [{
    The thread's older groups have landed in shared memory when this
    returns; with `num_stages` buffers a pipelined loop keeps
    `num_stages - 2` groups pending.

    ```mlir
    tilegpu.async_wait {pending = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA copies (sm_90)
//===----------------------------------------------------------------------===//

def TileGPU_InitBarrierOp : TileGPU_Op<"init_barrier",
    [MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Initialises mbarriers expecting `count` arrivals each";
  let description = [{
    One thread initialises the 8-byte mbarrier `barrier` (a
    `memdesc<1xi64>`, or each of an array of them, `memdesc<Nx1xi64>`);
    the others may use it after a CTA barrier. The write is modelled as
    also reading, so that the op is never erased.

    ```mlir
    tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #shared>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier,
                       ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict `:` type($barrier)";
  let hasVerifier = 1;
}

def TileGPU_InvalBarrierOp : TileGPU_Op<"inval_barrier",
    [MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Ends mbarriers' use, so their bytes may hold other data";
  let arguments = (ins TileGPU_MemDescType:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` type($barrier)";
  let hasVerifier = 1;
}

def TileGPU_BarrierExpectOp : TileGPU_Op<"barrier_expect",
    [MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Arrives on an mbarrier, expecting `bytes` more to land";
  let description = [{
    One thread (where `pred` holds) arrives and adds `bytes` to the
    transaction count that the TMA copies signalling this barrier pay off;
    the phase completes when both reach zero.

    ```mlir
    tilegpu.barrier_expect %bar, 16384, %true : !tilegpu.memdesc<1xi64, #shared>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier,
                       ConfinedAttr<I32Attr, [IntPositive]>:$bytes, I1:$pred);
  let assemblyFormat = "$barrier `,` $bytes `,` $pred attr-dict `:` type($barrier)";
  let hasVerifier = 1;
}

def TileGPU_WaitBarrierOp : TileGPU_Op<"wait_barrier",
    [MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                    MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Waits until an mbarrier's phase of parity `phase` completes";
  let description = [{
    Every thread waits; afterwards the data of the TMA copies that
    signalled this phase is visible to all of them, with no CTA barrier.

    ```mlir
    tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #shared>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, I32:$phase);
  let assemblyFormat = "$barrier `,` $phase attr-dict `:` type($barrier)";
  let hasVerifier = 1;
}

def TileGPU_AsyncTMACopyGlobalToLocalOp
    : TileGPU_Op<"async_tma_copy_global_to_local",
                 [MemoryEffects<[MemRead<TileGPU_GlobalMemory>,
                                 MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Starts a TMA copy of a descriptor block into shared memory";
  let description = [{
    One thread (where `pred` holds) asks the tensor memory accelerator for
    the block of `desc` at `indices`; it lands in `result` in the NVMMA
    layout the descriptor's swizzle names (one copy per swizzle atom) and
    pays its bytes off `barrier`'s transaction count. Elements outside the
    tensor are written as zero.

    ```mlir
    tilegpu.async_tma_copy_global_to_local %desc[%m, %k] %buf, %bar, %true
        : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<128x64xf16, #nvmma>,
          !tilegpu.memdesc<1xi64, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$indices,
                       TileGPU_MemDescType:$result,
                       TileGPU_MemDescType:$barrier, I1:$pred);
  let assemblyFormat = [{
    $desc `[` $indices `]` $result `,` $barrier `,` $pred attr-dict `:`
    qualified(type($desc)) `,` type($result) `,` type($barrier)
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncTMACopyLocalToGlobalOp
    : TileGPU_Op<"async_tma_copy_local_to_global",
                 [MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                                 MemWrite<TileGPU_GlobalMemory>]>]> {
  let summary = "Starts a TMA copy of a shared buffer into a descriptor block";
  let description = [{
    One thread writes `src` (in the descriptor's NVMMA layout) as the block
    at `indices`; elements outside the tensor are dropped. With `reduce`,
    the block is combined into memory by that operation instead (a bulk
    tensor reduction, atomic per element). The buffer's writers must have
    fenced their writes for the async proxy (`fence_async_shared`) before a
    CTA barrier. `src` is read until `async_tma_store_wait` returns.

    ```mlir
    tilegpu.async_tma_copy_local_to_global %desc[%m, %n] %buf
        : !tile.tensordesc<tensor<128x128xf16>>, !tilegpu.memdesc<128x128xf16, #nvmma>
    tilegpu.async_tma_copy_local_to_global %desc[%m, %n] %buf reduce fadd
        : !tile.tensordesc<tensor<64x128xf32>>, !tilegpu.memdesc<64x128xf32, #nvmma>
    ```
  }];
  let arguments = (ins Tile_TensorDescType:$desc, Variadic<I32>:$indices,
                       TileGPU_MemDescType:$src,
                       OptionalAttr<Tile_RMWOp>:$reduce);
  let assemblyFormat = [{
    $desc `[` $indices `]` $src (`reduce` $reduce^)? attr-dict `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncTMAStoreWaitOp : TileGPU_Op<"async_tma_store_wait"> {
  let summary = "Waits until at most `pending` TMA stores still read shared memory";
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "attr-dict";
}

def TileGPU_ArriveBarrierOp : TileGPU_Op<"arrive_barrier",
    [MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                    MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Every thread where `pred` holds arrives on an mbarrier";
  let description = [{
    A consumer's release of a pipeline buffer: the barrier was initialised
    to expect one arrival per consumer thread, so its phase completes once
    all of them are done with the buffer, and the producer waiting on it
    may refill it.

    ```mlir
    tilegpu.arrive_barrier %empty, %pred : !tilegpu.memdesc<1xi64, #shared>
    ```
  }];
  let arguments = (ins TileGPU_MemDescType:$barrier, I1:$pred);
  let assemblyFormat = "$barrier `,` $pred attr-dict `:` type($barrier)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warp specialisation (sm_90)
//===----------------------------------------------------------------------===//

def TileGPU_WarpSpecializeOp : TileGPU_Op<"warp_specialize",
    [RecursiveMemoryEffects, NoRegionArguments,
     SingleBlockImplicitTerminator<"WarpYieldOp">]> {
  let summary = "Runs a producer and the consumers on separate warps";
  let description = [{
    The CTA gets `producer_warps` warps more than the module's
    `tilegpu.num_warps`. Warps `[0, producer_warps)` are the producer: they
    lower their register budget to `producer_registers` (setmaxnreg) and
    the first of them runs the `producer` region, which holds scalars and
    asynchronous copies only. The other warps are the consumers: they raise
    theirs to `consumer_registers` and run the `consumers` region, in which
    every layout counts consumer warps only (warp 0 of a layout is the first
    consumer warp) and `tilegpu.barrier` synchronises the consumers alone.
    The two sides meet only through mbarriers. Barriers initialised before
    the op are visible to both (a CTA barrier precedes it).

    The optional `writer` region runs on the second producer warp, with the
    producer's register budget and the same rule: it issues the TMA stores
    and bulk reductions of tiles the consumers leave in shared memory, so
    that the consumers never wait for a copy out (FlashAttention-3's dQ
    writer).

    ```mlir
    tilegpu.warp_specialize producer(4 warps, 40 registers) {
      ...
    } consumers(232 registers) {
      ...
    } writer {
      ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntPositive]>:$producer_warps,
                       I32Attr:$producer_registers,
                       I32Attr:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumers,
                        MaxSizedRegion<1>:$writer);
  let assemblyFormat = [{
    `producer` `(` $producer_warps `warps` `,` $producer_registers `registers`
    `)` $producer `consumers` `(` $consumer_registers `registers` `)`
    $consumers (`writer` $writer^)? attr-dict
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpYieldOp : TileGPU_Op<"warp_yield",
    [Pure, Terminator, HasParent<"WarpSpecializeOp">]> {
  let summary = "Ends a region of warp_specialize";
  let assemblyFormat = "attr-dict";
}

class TileGPU_TurnOp<string mnemonic, string summary_, string what>
    : TileGPU_Op<mnemonic> {
  let summary = summary_;
  let description = !strconcat([{
    The consumer warpgroups of a warp_specialize take turns in order
    0, 1, ..., `warpgroups` - 1, 0, ...: warpgroup g waits for its turn on
    named barrier `first_barrier` + g (its 128 threads sync, the previous
    warpgroup's 128 arrive). }], what);
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<2>]>:$warpgroups,
                       ConfinedAttr<I32Attr, [IntMinValue<2>]>:$first_barrier);
  let assemblyFormat = [{
    `warpgroups` `(` $warpgroups `)` `barrier` `(` $first_barrier `)` attr-dict
  }];
  let hasVerifier = 1;
}

def TileGPU_TurnInitOp : TileGPU_TurnOp<"turn_init",
    "Gives warpgroup 0 the first turn", [{
    The last warpgroup passes the turn to warpgroup 0 once, before any
    `turn_wait`.

    ```mlir
    tilegpu.turn_init warpgroups(2) barrier(2)
    ```
  }]>;

def TileGPU_TurnWaitOp : TileGPU_TurnOp<"turn_wait",
    "Waits until it is this warpgroup's turn", [{
    ```mlir
    tilegpu.turn_wait warpgroups(2) barrier(2)
    ```
  }]>;

def TileGPU_TurnPassOp : TileGPU_TurnOp<"turn_pass",
    "Passes the turn to the next warpgroup", [{
    Arrives (without waiting) on the next warpgroup's barrier.

    ```mlir
    tilegpu.turn_pass warpgroups(2) barrier(2)
    ```
  }]>;

def TileGPU_BarrierOp : TileGPU_Op<"barrier"> {
  let summary = "Synchronises the CTA's threads (bar.sync 0)";
  let description = [{
    Orders every shared-memory access before it against every one after it.
    The barrier-insertion pass places these where the shared-memory access
    analysis finds a hazard. Inside the consumers of a `warp_specialize` it
    synchronises the consumer warps only (a named barrier).
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

#endif // TILE_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
