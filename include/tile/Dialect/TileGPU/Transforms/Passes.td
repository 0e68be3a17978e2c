#ifndef TILE_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUCoalesce : Pass<"tilegpu-coalesce", "mlir::ModuleOp"> {
  let summary = "Lay out memory ops for wide, coalesced global accesses";
  let description = [{
    For every load, store and atomic on a tensor of pointers, the axis-info
    analysis gives the dimension along which addresses are contiguous and
    how aligned they are. The op is moved to a blocked layout whose threads
    each hold that many consecutive elements (up to 128 bits) along that
    dimension, with lanes and warps following the same order, so that each
    thread issues one vector access and a warp's accesses are adjacent.
    Operands and results are converted with tilegpu.convert_layout.
  }];
}

def TileGPUSwapDotOperands
    : Pass<"tilegpu-swap-dot-operands", "mlir::ModuleOp"> {
  let summary = "Transpose products whose B is computed in registers";
  let description = [{
    wgmma reads its A operand from registers or shared memory but B only
    from shared memory. A dot whose B the kernel computes in registers (a
    weight converted, unpacked or scaled from what it loaded) and whose A
    it loads would have to store B to shared memory in every iteration,
    and wait for each MMA before overwriting it. On sm_90a such a dot
    `D = A * B + C` with 16-bit operands becomes
    `D = trans(trans(B) * trans(A) + trans(C))`, when wgmma takes the
    transposed product: the computed tile is the register operand, the
    loaded one is staged (and pipelined) as B, and the transpositions are
    register renamings (`#tilegpu.permuted` layouts) that
    tilegpu-remove-layout-conversions moves out of the way.

    A dot with both operands loaded is swapped too when the product has no
    wgmma tiling (M < 64, a skinny or decode product, which would run on
    mma.sync with unstaged operands) and the transposed one has (N >= 64).
  }];
}

def TileGPUSpeculateBranchLoads
    : Pass<"tilegpu-speculate-branch-loads", "mlir::ModuleOp"> {
  let summary = "Issue a branch's loads before the branch where that is safe";
  let description = [{
    A `tile.load` inside one branch of an `scf.if` is moved before the if
    (with the pure ops computing its pointers) when it is not volatile,
    nothing before it in the branch writes memory, and the if's block
    accesses the same pointers under the same mask unconditionally after
    the if (so the early read touches only memory the program accesses
    anyway). A load of the branch condition and the branch's load then
    overlap: the lock-protected update of the layer-norm backward's
    partial sums (`if load(count) == 0: ... else: dw += load(dw_ptrs)`,
    then `store(dw_ptrs, dw)`) waits for one memory round trip instead of
    two while the other programs queue on the lock.
  }];
}

def TileGPUUnmaskFullBlocks
    : Pass<"tilegpu-unmask-full-blocks", "mlir::ModuleOp"> {
  let summary = "Skip a loop's boundary masks in iterations whose block is full";
  let description = [{
    An `arith.select` on a tensor mask, in an `scf.for` body, whose mask
    depends on the loop (`tl.where(start + tl.arange(0, B) < n, x, y)`)
    becomes `scf.if %full -> x else select(...)`, where `%full` is a scalar
    that implies every element of the mask is true: bounds of the compared
    integer tensors (splats, ranges, constants, sums, differences and
    multiples by constants; signed compares, and/or of them) computed in 64
    bits, with the condition that no 32-bit operation on the way wraps. The
    mask is computed in the second branch only. Attention's key mask
    costs 128 instructions per thread and iteration between its two
    matrix products; only the last block needs it.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def TileGPUIntToFloatByBits
    : Pass<"tilegpu-int-to-float-by-bits", "mlir::ModuleOp"> {
  let summary = "Convert narrow-range integers to floats with bit operations";
  let description = [{
    An integer-to-float conversion is a quarter-rate instruction on the
    GPU (I2F), and unpacking quantised weights does one per element
    (`((packed << 4) >> 4).to(tl.bfloat16)`). Where the integer range
    analysis bounds the operand of an `arith.sitofp`/`arith.uitofp` to
    fewer values than the float type's mantissa holds exactly, the
    conversion is done with full-rate integer and float ops instead:

      u = v - min                   (0 <= u < 2^p, p the mantissa bits)
      f = bitcast(2^p's bits | u)   (the float 2^p + u, exactly)
      r = f - (2^p - min)           (exactly v)

    LLVM then folds the shifts that isolated a nibble into the masks.
    bf16, f16 and f32 results; the constants must be exact in the type.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileGPUAccelerateMatmul
    : Pass<"tilegpu-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "Move dots onto the tensor cores";
  let description = [{
    On sm_90a, a rank-2 `tile.dot` whose types wgmma takes (fp16/bf16/fp8
    with an fp32 accumulator, fp32 with tf32 precision, int8 with int32)
    and whose tile fits whole warpgroups (M >= 64, num_warps a multiple of
    4) becomes a `tilegpu.warpgroup_dot`: A and B are staged in
    NVMMA-swizzled, K-major shared memory and the accumulator moves to a
    version-3 `#tilegpu.mma` layout, warpgroups stacked along M first.
    Other dots stay on the CUDA cores.

    An A computed in registers feeds wgmma from registers instead. A tf32
    A widened from a 16-bit load does so only where tilegpu-pipeline will
    copy the load ahead and read it straight into the fragment layout (the
    options say how that pass will run); elsewhere the conversion would
    take a trip through shared memory on top of the copy.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", "3",
           "tilegpu-pipeline's depth, when the loop does not say">,
    Option<"registerLoadsAhead", "stage-register-loads", "bool", "true",
           "Whether tilegpu-pipeline copies ahead the loads a loop uses in "
           "registers">,
  ];
}

def TileGPUWarpSpecialize
    : Pass<"tilegpu-warp-specialize", "mlir::ModuleOp"> {
  let summary = "A producer warpgroup issues the TMA copies of a marked loop";
  let description = [{
    An `scf.for` marked `tile.warp_specialize` (from
    `tl.range(..., warp_specialize=True)`) whose staged dot operands all
    arrive by TMA descriptor loads, which sits in the kernel's entry block
    and whose copy coordinates pure scalar ops compute from the kernel's
    arguments: the kernel body becomes the `consumers` region of a
    `tilegpu.warp_specialize`, and the `producer` region runs the copies
    into `num_stages` buffers in a loop of its own, handing buffers over
    through a `full` and an `empty` mbarrier array. The consumers' dots
    run async and are waited for as `tilegpu-pipeline` waits for them.
    Other loops (and marked loops that do not qualify) are left to
    `tilegpu-pipeline`, which runs after this pass.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", "3",
           "Pipeline depth, when the loop does not say">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "mlir::ModuleOp"> {
  let summary = "Load dot operands several iterations ahead with cp.async";
  let description = [{
    In an `scf.for` whose body loads tiles (zero or no `other`) only to
    stage them in shared memory for `tilegpu.warpgroup_dot`, the loads
    become `tilegpu.async_copy_global_to_local` into `num_stages` buffers
    and run `num_stages - 1` iterations ahead: a prologue starts the first
    copies, each iteration waits for its own with `tilegpu.async_wait`
    (`num_stages - 2` groups left in flight) and starts the one
    `num_stages - 1` iterations on. When the loop's one dot only chains its
    accumulator, it becomes async with a `tilegpu.warpgroup_dot_wait`
    keeping one MMA in flight, and gets one more buffer (or, when that
    does not fit in `max-shared`, or would leave one CTA per SM where
    `num_stages` buffers leave two, with 3+ stages, copies run one iteration
    less ahead instead). A loop's `tile.num_stages` attribute
    overrides the option; fewer than 2 stages leaves the loop alone. Loops
    whose loaded addresses depend on anything but address arithmetic of
    loop-carried values (or whose carried pointers are used after the loop)
    are left alone too.
  }];
  let options = [
    Option<"numStages", "num-stages", "int", "3",
           "Pipeline depth, when the loop does not say">,
    Option<"maxShared", "max-shared", "int64_t", "232448",
           "Shared memory the buffers may take, in bytes">,
    Option<"sharedPerSM", "shared-per-sm", "int64_t", "233472",
           "Shared memory of one SM, in bytes (occupancy estimate)">,
    Option<"registerLoadsAhead", "stage-register-loads", "bool", "true",
           "In a loop with dot operands, also copy ahead the tiles the body "
           "uses in registers (a packed weight, a scale)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileGPULowerTMA : Pass<"tilegpu-lower-tma", "mlir::ModuleOp"> {
  let summary = "Descriptor loads and stores become TMA copies through shared memory";
  let description = [{
    Each `tile.descriptor_load` the pipeliner left becomes a TMA copy into
    a buffer in the descriptor's NVMMA layout, signalled on an mbarrier
    that every thread waits on; when its only user stages it in shared
    memory in that very layout (a dot operand), the copy fills that buffer
    and the value never visits registers, otherwise a `local_load` brings
    it into the result's layout. Each `tile.descriptor_store` writes its
    value into such a buffer, fences it for the async proxy and has one
    thread copy it out, waiting before the buffer is reused. Blocks TMA
    cannot copy (see getTMASharedEncoding) are an error.

    A write inside a loop (outside warp specialisation) keeps its buffer
    across the loop and waits for the previous iteration's copy only
    before refilling it, so the copy overlaps the rest of the iteration;
    when the function's buffers would then exceed `max-shared`, its writes
    get buffers of their own with the wait in place.
  }];
  let options = [
    Option<"maxShared", "max-shared", "int64_t", "232448",
           "Shared memory the buffers may take, in bytes">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileGPURemoveLayoutConversions
    : Pass<"tilegpu-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Remove layout conversions by recomputing values in place";
  let description = [{
    Backward: the operand of a conversion is recomputed in the target layout
    when the ops that produce it are cheap to redo (splats, constants,
    ranges, elementwise ops) or have no other user. Forward: elementwise
    users of a conversion adopt its source layout when that removes the
    conversion. Chains of conversions fold into one and conversions of
    splats become splats.
  }];
}

def TileGPUAllocateSharedMemory
    : Pass<"tilegpu-allocate-shared-memory", "mlir::ModuleOp"> {
  let summary = "Give each shared-memory scratch and buffer an offset";
  let description = [{
    Records `tilegpu.offset` on every op that needs shared memory and
    `tilegpu.shared` (the total in bytes) on the module. Buffers live at the
    same time get disjoint ranges. A total above `max-shared` bytes (the
    device's opt-in limit per block; 227 KiB on sm_90) is an error naming
    the kernel.
  }];
  let options = [
    Option<"maxShared", "max-shared", "int64_t", "232448",
           "Shared memory available to one block, in bytes">,
  ];
}

def TileGPUReportSharedWavefronts
    : Pass<"tilegpu-report-shared-wavefronts", "mlir::ModuleOp"> {
  let summary = "Remark the bank conflicts of each shared-memory access";
  let description = [{
    A diagnostic pass (not in the pipeline): every op that reads or writes
    a shared buffer from registers (`local_load`, `local_store`, a
    `local_alloc` from a value, `async_copy_global_to_local`) and every
    `convert_layout` that goes through a scratch buffer in one round gets
    a remark with one warp's shared-memory wavefronts for it, as made and
    as they would be without bank conflicts, by the model the pipeliner
    chooses register-load buffers with (`measureSharedWavefronts`): per
    access, phases of 128 bytes, each taking as many wavefronts as the
    most distinct words one bank serves. `tile-opt
    --tilegpu-report-shared-wavefronts` on a kernel's TileGPU IR lists
    where its shared-memory time goes to conflicts.
  }];
}

def TileGPUInsertBarriers : Pass<"tilegpu-insert-barriers", "mlir::ModuleOp"> {
  let summary = "Insert barriers between conflicting shared-memory accesses";
  let description = [{
    Walks each kernel in program order, keeping the shared-memory byte
    ranges read and written since the last barrier. An op whose accesses
    overlap a pending write (read-after-write, write-after-write) or whose
    writes overlap a pending read (write-after-read) gets a tilegpu.barrier
    before it. An async copy is checked like a store, but its data only
    count as written at the next `tilegpu.async_wait`. An `scf.for` body
    starts with the accesses pending before the loop merged with those
    pending at the body's end (to a fixed point), so the back edge is
    covered without a barrier of its own; other region ops start each
    region with a barrier.
  }];
}

def TileGPUPingPong : Pass<"tilegpu-ping-pong", "mlir::ModuleOp"> {
  let summary = "Consumer warpgroups of a warp_specialize take turns on "
                "the tensor cores";
  let description = [{
    In a warp-specialised loop with two or more dots and several consumer
    warpgroups, each run of dots that no `warpgroup_dot_wait` separates
    (attention's P*V of one iteration and Q*K^T of the next) becomes a
    turn: `turn_wait` before it, `turn_pass` after it, so one warpgroup's
    softmax runs while the next one's dots use the tensor cores
    (FlashAttention-3's ping-pong schedule). A turn that spans the back
    edge also starts before the loop and ends after it. Loops with a
    consumer barrier inside are left alone: a warpgroup waiting for its
    turn would never reach it.
  }];
}

#endif // TILE_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
