// RUN: tile-opt %s --tilegpu-pipeline=num-stages=100 -verify-diagnostics
// RUN: tile-opt %s --tilegpu-pipeline=num-stages=4 | FileCheck %s

// A pipeline deeper than shared memory holds (Triton's test_hooks asks for
// `tl.range(num_stages=100)`) fails before its buffers and copies are
// built, naming the bytes it needs, which the module records so that
// callers raise OutOfResources as for an allocation that does not fit.
// At 4 stages the same loop is pipelined.
// CHECK: tilegpu.async_wait
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#permuted = #tilegpu.permuted<{order = [1, 0], parent = #mma}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked2}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#permuted1 = #tilegpu.permuted<{order = [1, 0], parent = #dot_op}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @deep_pipeline(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<1.360000e+02> : tensor<32x64xbf16, #permuted1>
    %cst_0 = arith.constant dense<17160> : tensor<32x64xi16, #permuted1>
    %cst_1 = arith.constant dense<15> : tensor<32x64xi16, #permuted1>
    %cst_2 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_3 = arith.constant dense<4> : tensor<32x64xi8, #permuted1>
    %cst_4 = arith.constant dense<64> : tensor<64x32xi32, #blocked1>
    %cst_5 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_6 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #permuted>
    %c32_i32 = arith.constant 32 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = arith.divsi %arg4, %c64_i32 : i32
    %1 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
    %2 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %4 = tile.splat %arg5 : i32 -> tensor<64x1xi32, #blocked1>
    %5 = arith.muli %3, %4 : tensor<64x1xi32, #blocked1>
    %6 = tile.addptr %1, %5 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %7 = tile.broadcast %6 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x32x!tile.ptr<bf16>, #blocked1>
    %8 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %9 = tile.expand_dims %8 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %10 = tile.broadcast %9 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %11 = tile.addptr %7, %10 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %12 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<32x1x!tile.ptr<i8>, #blocked2>
    %13 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %14 = tile.expand_dims %13 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked2>
    %15 = tile.splat %arg6 : i32 -> tensor<32x1xi32, #blocked2>
    %16 = arith.muli %14, %15 : tensor<32x1xi32, #blocked2>
    %17 = tile.addptr %12, %16 : tensor<32x1x!tile.ptr<i8>, #blocked2>, tensor<32x1xi32, #blocked2>
    %18 = tile.broadcast %17 : tensor<32x1x!tile.ptr<i8>, #blocked2> -> tensor<32x64x!tile.ptr<i8>, #blocked2>
    %19 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %20 = tile.expand_dims %19 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked2>
    %21 = tile.broadcast %20 : tensor<1x64xi32, #blocked2> -> tensor<32x64xi32, #blocked2>
    %22 = tile.addptr %18, %21 : tensor<32x64x!tile.ptr<i8>, #blocked2>, tensor<32x64xi32, #blocked2>
    // expected-error @+1 {{pipelining this loop with 100 buffers needs 1024000 bytes of shared memory, more than the 232448 available}}
    %23:3 = scf.for %arg7 = %c0_i32 to %0 step %c1_i32 iter_args(%arg8 = %cst_6, %arg9 = %11, %arg10 = %22) -> (tensor<64x64xf32, #permuted>, tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked2>)  : i32 {
      %35 = tile.load %arg9 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %36 = tile.addptr %arg9, %cst_5 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %37 = tile.load %36 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %38 = tile.load %arg10 : tensor<32x64x!tile.ptr<i8>, #blocked2>
      %39 = tile.trans %arg8 {order = array<i32: 1, 0>} : tensor<64x64xf32, #permuted> -> tensor<64x64xf32, #mma>
      %40 = tilegpu.convert_layout %38 : tensor<32x64xi8, #blocked2> -> tensor<32x64xi8, #permuted1>
      %41 = arith.shli %40, %cst_3 : tensor<32x64xi8, #permuted1>
      %42 = arith.shrsi %41, %cst_3 : tensor<32x64xi8, #permuted1>
      %43 = arith.extui %42 : tensor<32x64xi8, #permuted1> to tensor<32x64xi16, #permuted1>
      %44 = arith.andi %43, %cst_1 : tensor<32x64xi16, #permuted1>
      %45 = arith.xori %44, %cst_0 : tensor<32x64xi16, #permuted1>
      %46 = arith.bitcast %45 : tensor<32x64xi16, #permuted1> to tensor<32x64xbf16, #permuted1>
      %47 = arith.subf %46, %cst : tensor<32x64xbf16, #permuted1>
      %48 = tile.trans %47 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %49 = tilegpu.local_alloc %35 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %50 = tilegpu.memdesc_trans %49 : <64x32xbf16, #nvmma> -> <32x64xbf16, #nvmma1>
      %51 = tilegpu.warpgroup_dot %48, %50, %39 : tensor<64x32xbf16, #dot_op> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %52 = arith.shrsi %40, %cst_3 : tensor<32x64xi8, #permuted1>
      %53 = arith.extui %52 : tensor<32x64xi8, #permuted1> to tensor<32x64xi16, #permuted1>
      %54 = arith.andi %53, %cst_1 : tensor<32x64xi16, #permuted1>
      %55 = arith.xori %54, %cst_0 : tensor<32x64xi16, #permuted1>
      %56 = arith.bitcast %55 : tensor<32x64xi16, #permuted1> to tensor<32x64xbf16, #permuted1>
      %57 = arith.subf %56, %cst : tensor<32x64xbf16, #permuted1>
      %58 = tile.trans %57 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %59 = tilegpu.local_alloc %37 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %60 = tilegpu.memdesc_trans %59 : <64x32xbf16, #nvmma> -> <32x64xbf16, #nvmma1>
      %61 = tilegpu.warpgroup_dot %58, %60, %51 : tensor<64x32xbf16, #dot_op> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %62 = tile.trans %61 {order = array<i32: 1, 0>} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #permuted>
      %63 = tile.addptr %arg9, %cst_4 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %64 = arith.muli %arg6, %c32_i32 : i32
      %65 = tile.splat %64 : i32 -> tensor<32x64xi32, #blocked2>
      %66 = tile.addptr %arg10, %65 : tensor<32x64x!tile.ptr<i8>, #blocked2>, tensor<32x64xi32, #blocked2>
      scf.yield %62, %63, %66 : tensor<64x64xf32, #permuted>, tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked2>
    }
    %24 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #blocked>
    %25 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
    %26 = tile.expand_dims %25 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked>
    %27 = arith.muli %26, %cst_2 : tensor<64x1xi32, #blocked>
    %28 = tile.addptr %24, %27 : tensor<64x1x!tile.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %29 = tile.broadcast %28 : tensor<64x1x!tile.ptr<f32>, #blocked> -> tensor<64x64x!tile.ptr<f32>, #blocked>
    %30 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %31 = tile.expand_dims %30 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked>
    %32 = tile.broadcast %31 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %33 = tile.addptr %29, %32 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %34 = tilegpu.convert_layout %23#0 : tensor<64x64xf32, #permuted> -> tensor<64x64xf32, #blocked>
    tile.store %33, %34 : tensor<64x64x!tile.ptr<f32>, #blocked>
    return
  }
}

