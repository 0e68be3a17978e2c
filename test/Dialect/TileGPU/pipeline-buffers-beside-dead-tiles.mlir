// RUN: tile-opt %s --split-input-file --tilegpu-pipeline=num-stages=6 -verify-diagnostics | FileCheck %s

// The fit check counts only the buffers that share the pipeline's time.
// Here the two 128x128 tiles of the dot before the loop (64 KiB) are dead
// once the loop starts, so 7 buffers of 32 KiB (224 KiB) fit beside them
// (the allocation reuses their bytes); attention that computes its first
// block of scores before the loop is built the same way.
// CHECK-LABEL: @pre_loop_dot
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<7x128x64xbf16
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<7x64x128xbf16
// CHECK: scf.for
// CHECK: tilegpu.async_wait
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked2}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @pre_loop_dot(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<128> : tensor<128x1xi32, #blocked>
    %cst_0 = arith.constant dense<128> : tensor<64x1xi32, #blocked1>
    %cst_1 = arith.constant dense<128> : tensor<128x1xi32, #blocked1>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %c16384_i32 = arith.constant 16384 : i32
    %0 = tile.splat %arg2 : !tile.ptr<bf16> -> tensor<128x1x!tile.ptr<bf16>, #blocked1>
    %1 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice>
    %2 = tile.expand_dims %1 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked1>
    %3 = arith.muli %2, %cst_1 : tensor<128x1xi32, #blocked1>
    %4 = tile.addptr %0, %3 : tensor<128x1x!tile.ptr<bf16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %5 = tile.broadcast %4 : tensor<128x1x!tile.ptr<bf16>, #blocked1> -> tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %6 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice1>
    %7 = tile.expand_dims %6 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<1x128xi32, #blocked1> -> tensor<128x128xi32, #blocked1>
    %9 = tile.addptr %5, %8 : tensor<128x128x!tile.ptr<bf16>, #blocked1>, tensor<128x128xi32, #blocked1>
    %10 = tile.load %9 : tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %11 = tile.addptr %arg2, %c16384_i32 : !tile.ptr<bf16>, i32
    %12 = tile.splat %11 : !tile.ptr<bf16> -> tensor<128x1x!tile.ptr<bf16>, #blocked1>
    %13 = tile.addptr %12, %3 : tensor<128x1x!tile.ptr<bf16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %14 = tile.broadcast %13 : tensor<128x1x!tile.ptr<bf16>, #blocked1> -> tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %15 = tile.addptr %14, %8 : tensor<128x128x!tile.ptr<bf16>, #blocked1>, tensor<128x128xi32, #blocked1>
    %16 = tile.load %15 : tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %17 = tilegpu.local_alloc %10 : (tensor<128x128xbf16, #blocked1>) -> !tilegpu.memdesc<128x128xbf16, #nvmma>
    %18 = tilegpu.local_alloc %16 : (tensor<128x128xbf16, #blocked1>) -> !tilegpu.memdesc<128x128xbf16, #nvmma>
    %19 = tilegpu.warpgroup_dot %17, %18, %cst_2 : !tilegpu.memdesc<128x128xbf16, #nvmma> * <128x128xbf16, #nvmma> -> tensor<128x128xf32, #mma>
    %20 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %19) -> (tensor<128x128xf32, #mma>)  : i32 {
      %32 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<128x1x!tile.ptr<bf16>, #blocked2>
      %33 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice2>
      %34 = tile.expand_dims %33 {axis = 1 : i32} : tensor<128xi32, #slice2> -> tensor<128x1xi32, #blocked2>
      %35 = tile.splat %arg4 : i32 -> tensor<128x1xi32, #blocked2>
      %36 = arith.muli %34, %35 : tensor<128x1xi32, #blocked2>
      %37 = tile.addptr %32, %36 : tensor<128x1x!tile.ptr<bf16>, #blocked2>, tensor<128x1xi32, #blocked2>
      %38 = tile.splat %arg5 : i32 -> tensor<128x1xi32, #blocked2>
      %39 = tile.addptr %37, %38 : tensor<128x1x!tile.ptr<bf16>, #blocked2>, tensor<128x1xi32, #blocked2>
      %40 = tile.broadcast %39 : tensor<128x1x!tile.ptr<bf16>, #blocked2> -> tensor<128x64x!tile.ptr<bf16>, #blocked2>
      %41 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
      %42 = tile.expand_dims %41 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked2>
      %43 = tile.broadcast %42 : tensor<1x64xi32, #blocked2> -> tensor<128x64xi32, #blocked2>
      %44 = tile.addptr %40, %43 : tensor<128x64x!tile.ptr<bf16>, #blocked2>, tensor<128x64xi32, #blocked2>
      %45 = tile.load %44 : tensor<128x64x!tile.ptr<bf16>, #blocked2>
      %46 = tile.splat %arg1 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
      %47 = tile.splat %arg5 : i32 -> tensor<64x1xi32, #blocked1>
      %48 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
      %49 = tile.expand_dims %48 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
      %50 = arith.addi %47, %49 : tensor<64x1xi32, #blocked1>
      %51 = arith.muli %50, %cst_0 : tensor<64x1xi32, #blocked1>
      %52 = tile.addptr %46, %51 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
      %53 = tile.broadcast %52 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x128x!tile.ptr<bf16>, #blocked1>
      %54 = tile.broadcast %7 : tensor<1x128xi32, #blocked1> -> tensor<64x128xi32, #blocked1>
      %55 = tile.addptr %53, %54 : tensor<64x128x!tile.ptr<bf16>, #blocked1>, tensor<64x128xi32, #blocked1>
      %56 = tile.load %55 : tensor<64x128x!tile.ptr<bf16>, #blocked1>
      %57 = tilegpu.local_alloc %45 : (tensor<128x64xbf16, #blocked2>) -> !tilegpu.memdesc<128x64xbf16, #nvmma>
      %58 = tilegpu.local_alloc %56 : (tensor<64x128xbf16, #blocked1>) -> !tilegpu.memdesc<64x128xbf16, #nvmma>
      %59 = tilegpu.warpgroup_dot %57, %58, %arg6 : !tilegpu.memdesc<128x64xbf16, #nvmma> * <64x128xbf16, #nvmma> -> tensor<128x128xf32, #mma>
      scf.yield %59 : tensor<128x128xf32, #mma>
    }
    %21 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<128x1x!tile.ptr<f32>, #blocked>
    %22 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice4>
    %23 = tile.expand_dims %22 {axis = 1 : i32} : tensor<128xi32, #slice4> -> tensor<128x1xi32, #blocked>
    %24 = arith.muli %23, %cst : tensor<128x1xi32, #blocked>
    %25 = tile.addptr %21, %24 : tensor<128x1x!tile.ptr<f32>, #blocked>, tensor<128x1xi32, #blocked>
    %26 = tile.broadcast %25 : tensor<128x1x!tile.ptr<f32>, #blocked> -> tensor<128x128x!tile.ptr<f32>, #blocked>
    %27 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice5>
    %28 = tile.expand_dims %27 {axis = 0 : i32} : tensor<128xi32, #slice5> -> tensor<1x128xi32, #blocked>
    %29 = tile.broadcast %28 : tensor<1x128xi32, #blocked> -> tensor<128x128xi32, #blocked>
    %30 = tile.addptr %26, %29 : tensor<128x128x!tile.ptr<f32>, #blocked>, tensor<128x128xi32, #blocked>
    %31 = tilegpu.convert_layout %20 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blocked>
    tile.store %30, %31 : tensor<128x128x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// The same tiles read by every iteration stay live across the loop: 6
// buffers (192 KiB) and their 64 KiB exceed what a CTA may have.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked2}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @loop_reads_pre_loop_tile(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<128> : tensor<128x1xi32, #blocked>
    %cst_0 = arith.constant dense<128> : tensor<64x1xi32, #blocked1>
    %cst_1 = arith.constant dense<128> : tensor<128x1xi32, #blocked1>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %c16384_i32 = arith.constant 16384 : i32
    %0 = tile.splat %arg2 : !tile.ptr<bf16> -> tensor<128x1x!tile.ptr<bf16>, #blocked1>
    %1 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice>
    %2 = tile.expand_dims %1 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked1>
    %3 = arith.muli %2, %cst_1 : tensor<128x1xi32, #blocked1>
    %4 = tile.addptr %0, %3 : tensor<128x1x!tile.ptr<bf16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %5 = tile.broadcast %4 : tensor<128x1x!tile.ptr<bf16>, #blocked1> -> tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %6 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice1>
    %7 = tile.expand_dims %6 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<1x128xi32, #blocked1> -> tensor<128x128xi32, #blocked1>
    %9 = tile.addptr %5, %8 : tensor<128x128x!tile.ptr<bf16>, #blocked1>, tensor<128x128xi32, #blocked1>
    %10 = tile.load %9 : tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %11 = tile.addptr %arg2, %c16384_i32 : !tile.ptr<bf16>, i32
    %12 = tile.splat %11 : !tile.ptr<bf16> -> tensor<128x1x!tile.ptr<bf16>, #blocked1>
    %13 = tile.addptr %12, %3 : tensor<128x1x!tile.ptr<bf16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %14 = tile.broadcast %13 : tensor<128x1x!tile.ptr<bf16>, #blocked1> -> tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %15 = tile.addptr %14, %8 : tensor<128x128x!tile.ptr<bf16>, #blocked1>, tensor<128x128xi32, #blocked1>
    %16 = tile.load %15 : tensor<128x128x!tile.ptr<bf16>, #blocked1>
    %17 = tilegpu.local_alloc %10 : (tensor<128x128xbf16, #blocked1>) -> !tilegpu.memdesc<128x128xbf16, #nvmma>
    %18 = tilegpu.local_alloc %16 : (tensor<128x128xbf16, #blocked1>) -> !tilegpu.memdesc<128x128xbf16, #nvmma>
    %19 = tilegpu.warpgroup_dot %17, %18, %cst_2 : !tilegpu.memdesc<128x128xbf16, #nvmma> * <128x128xbf16, #nvmma> -> tensor<128x128xf32, #mma>
    // expected-error @+1 {{pipelining this loop with 6 buffers needs 262144 bytes of shared memory, more than the 232448 available}}
    %20 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %19) -> (tensor<128x128xf32, #mma>)  : i32 {
      %32 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<128x1x!tile.ptr<bf16>, #blocked2>
      %33 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice2>
      %34 = tile.expand_dims %33 {axis = 1 : i32} : tensor<128xi32, #slice2> -> tensor<128x1xi32, #blocked2>
      %35 = tile.splat %arg4 : i32 -> tensor<128x1xi32, #blocked2>
      %36 = arith.muli %34, %35 : tensor<128x1xi32, #blocked2>
      %37 = tile.addptr %32, %36 : tensor<128x1x!tile.ptr<bf16>, #blocked2>, tensor<128x1xi32, #blocked2>
      %38 = tile.splat %arg5 : i32 -> tensor<128x1xi32, #blocked2>
      %39 = tile.addptr %37, %38 : tensor<128x1x!tile.ptr<bf16>, #blocked2>, tensor<128x1xi32, #blocked2>
      %40 = tile.broadcast %39 : tensor<128x1x!tile.ptr<bf16>, #blocked2> -> tensor<128x64x!tile.ptr<bf16>, #blocked2>
      %41 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
      %42 = tile.expand_dims %41 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked2>
      %43 = tile.broadcast %42 : tensor<1x64xi32, #blocked2> -> tensor<128x64xi32, #blocked2>
      %44 = tile.addptr %40, %43 : tensor<128x64x!tile.ptr<bf16>, #blocked2>, tensor<128x64xi32, #blocked2>
      %45 = tile.load %44 : tensor<128x64x!tile.ptr<bf16>, #blocked2>
      %46 = tile.splat %arg1 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
      %47 = tile.splat %arg5 : i32 -> tensor<64x1xi32, #blocked1>
      %48 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
      %49 = tile.expand_dims %48 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
      %50 = arith.addi %47, %49 : tensor<64x1xi32, #blocked1>
      %51 = arith.muli %50, %cst_0 : tensor<64x1xi32, #blocked1>
      %52 = tile.addptr %46, %51 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
      %53 = tile.broadcast %52 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x128x!tile.ptr<bf16>, #blocked1>
      %54 = tile.broadcast %7 : tensor<1x128xi32, #blocked1> -> tensor<64x128xi32, #blocked1>
      %55 = tile.addptr %53, %54 : tensor<64x128x!tile.ptr<bf16>, #blocked1>, tensor<64x128xi32, #blocked1>
      %56 = tile.load %55 : tensor<64x128x!tile.ptr<bf16>, #blocked1>
      %57 = tilegpu.local_alloc %45 : (tensor<128x64xbf16, #blocked2>) -> !tilegpu.memdesc<128x64xbf16, #nvmma>
      %58 = tilegpu.local_alloc %56 : (tensor<64x128xbf16, #blocked1>) -> !tilegpu.memdesc<64x128xbf16, #nvmma>
      %59 = tilegpu.warpgroup_dot %57, %58, %cst_2 : !tilegpu.memdesc<128x64xbf16, #nvmma> * <64x128xbf16, #nvmma> -> tensor<128x128xf32, #mma>
      %60 = tilegpu.warpgroup_dot %17, %18, %59 : !tilegpu.memdesc<128x128xbf16, #nvmma> * <128x128xbf16, #nvmma> -> tensor<128x128xf32, #mma>
      %61 = arith.addf %arg6, %60 : tensor<128x128xf32, #mma>
      scf.yield %61 : tensor<128x128xf32, #mma>
    }
    %21 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<128x1x!tile.ptr<f32>, #blocked>
    %22 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice4>
    %23 = tile.expand_dims %22 {axis = 1 : i32} : tensor<128xi32, #slice4> -> tensor<128x1xi32, #blocked>
    %24 = arith.muli %23, %cst : tensor<128x1xi32, #blocked>
    %25 = tile.addptr %21, %24 : tensor<128x1x!tile.ptr<f32>, #blocked>, tensor<128x1xi32, #blocked>
    %26 = tile.broadcast %25 : tensor<128x1x!tile.ptr<f32>, #blocked> -> tensor<128x128x!tile.ptr<f32>, #blocked>
    %27 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice5>
    %28 = tile.expand_dims %27 {axis = 0 : i32} : tensor<128xi32, #slice5> -> tensor<1x128xi32, #blocked>
    %29 = tile.broadcast %28 : tensor<1x128xi32, #blocked> -> tensor<128x128xi32, #blocked>
    %30 = tile.addptr %26, %29 : tensor<128x128x!tile.ptr<f32>, #blocked>, tensor<128x128xi32, #blocked>
    %31 = tilegpu.convert_layout %20 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blocked>
    tile.store %30, %31 : tensor<128x128x!tile.ptr<f32>, #blocked>
    return
  }
}
