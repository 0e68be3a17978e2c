#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToTileGPU : Pass<"convert-tile-to-tilegpu", "mlir::ModuleOp"> {
  let summary = "Give every tensor a layout over the CTA's threads";
  let description = [{
    Every tensor without an encoding gets the default blocked layout for its
    shape and `num-warps`: one element per thread, lanes then warps along
    the fastest (last) dimension. Reductions produce a slice of their
    operand's layout and `expand_dims` consumes one; where producer and
    consumer disagree a `tilegpu.convert_layout` is inserted, for
    remove-layout-conversions to clean up. The module records `num-warps`
    and `target`.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int", "4", "Warps per CTA">,
    Option<"target", "target", "std::string", "\"sm_90a\"",
           "GPU architecture the kernel is compiled for">,
  ];
  let dependentDialects = ["mlir::tilegpu::TileGPUDialect"];
}

def ConvertTileGPUToLLVM : Pass<"convert-tilegpu-to-llvm",
                                      "mlir::ModuleOp"> {
  let summary = "Split laid-out tensors into each thread's registers";
  let description = [{
    Every tensor value becomes the scalars one thread holds under its linear
    layout (a 1:N type conversion). Elementwise ops are repeated per
    register. Memory ops become vectorised, predicated PTX accesses;
    reductions combine within the thread, across the warp with
    `shfl.sync.bfly` and across warps through shared memory; layout changes,
    `dot` (FMA) and shape ops that move data between threads go through
    shared memory at the offsets the allocation pass assigned. What is left
    is scalar Tile, arith, math and scf IR plus LLVM/NVVM ops.
  }];
  let options = [
    Option<"freshCarriedOperands", "fresh-carried-operands", "bool", "false",
           "Copy each loop-carried register A word of a wgmma with an "
           "identity prmt before the fence (see WarpGroupDotOps.cpp)">,
    Option<"descriptorsAtUse", "descriptors-at-use", "bool", "false",
           "Make each wgmma's shared-memory descriptors where it issues, "
           "from a base that a loop does not hoist (see "
           "WarpGroupDotOps.cpp)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower scalar Tile IR and the kernel function to LLVM/NVVM";
  let description = [{
    Pointers become `!llvm.ptr<1>`, the kernel becomes an `llvm.func` with
    `nvvm.kernel` and `nvvm.reqntid`, program ids read the `ctaid`
    registers, and math functions become libdevice calls. arith, math, cf,
    func and ub go through their upstream LLVM lowerings.

    `num-ctas` > 1 makes each program a thread-block cluster of that many
    CTAs along x (`nvvm.cluster_dim`, Triton's `num_ctas`): program ids and
    counts read the cluster registers, and only the cluster's first CTA runs
    the program while the others exit at entry, so results match a launch
    without clusters. `maxnreg` > 0 caps registers per thread
    (`nvvm.maxnreg`).
  }];
  let options = [
    Option<"numCtas", "num-ctas", "int", "1",
           "CTAs per program (a cluster along x)">,
    Option<"maxNumRegisters", "maxnreg", "int", "0",
           "Registers per thread the kernel may use (0: no cap)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect"];
}

#endif // TILE_CONVERSION_PASSES_TD
