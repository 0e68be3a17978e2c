// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=3 --canonicalize | FileCheck %s --check-prefixes=CHECK,S3
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=4 --canonicalize | FileCheck %s --check-prefixes=CHECK,S4
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=2 --canonicalize | FileCheck %s --check-prefix=S2

// A swapped int4 product (two dots per K step, A unpacked in registers from
// the packed weights' cp.async buffer): with the copies two or more steps
// ahead, step i+1's A operands are unpacked while step i's MMAs run. The
// loop carries them; the prologue unpacks step 0's once its copies have
// landed, and each iteration waits for one copy group more than before.
// The chain's wait ties both the operands in flight and the next ones (so
// that LLVM cannot move the unpacking back across the back edge).
// With copies only one step ahead (2 stages) nothing moves.
// CHECK-LABEL: func.func @unpacked_weights
// S3: tilegpu.async_wait {pending = 1 : i32}
// S4: tilegpu.async_wait {pending = 2 : i32}
// CHECK: tilegpu.local_load {{.*}} -> tensor<32x64xi8, #permuted1>
// CHECK: scf.for {{.*}}, %[[LO:arg[0-9]+]] = %{{.*}}, %[[HI:arg[0-9]+]] = %{{.*}}) ->
// S3-NEXT: tilegpu.async_wait {pending = 0 : i32}
// S4-NEXT: tilegpu.async_wait {pending = 1 : i32}
// CHECK: tilegpu.warpgroup_dot %[[LO]], %{{.*}}, %{{.*}} async
// CHECK: tilegpu.warpgroup_dot %[[HI]], %{{.*}}, %{{.*}} async
// CHECK: tilegpu.local_load {{.*}} -> tensor<32x64xi8, #permuted1>
// CHECK: %[[W:.*]]:5 = tilegpu.warpgroup_dot_wait %{{.*}}, %[[LO]], %[[HI]], %{{.*}}, %{{.*}} {pendings = 0 : i32}
// CHECK: scf.yield {{.*}}, %[[W]]#3, %[[W]]#4 :
// S2-LABEL: func.func @unpacked_weights
// S2: scf.for
// S2-NEXT: tilegpu.async_wait {pending = 0 : i32}
// S2: %[[LO:.*]] = tile.trans %{{.*}} -> tensor<64x32xbf16, #dot_op>
// S2: tilegpu.warpgroup_dot %[[LO]], %{{.*}}, %{{.*}} async
// S2: tilegpu.warpgroup_dot_wait %{{.*}}, %[[LO]], %{{.*}} {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x32xbf16, #dot_op>, tensor<64x32xbf16, #dot_op>{{$}}
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
  func.func @unpacked_weights(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
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


// -----

// Group scales loaded in the loop (too few bytes per thread for cp.async)
// are part of the operands' slice: the early copy of that load reads step
// i+1's scales, masked off past the loop's end.
// CHECK-LABEL: func.func @scaled_weights
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<bf16>
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot
// CHECK: tilegpu.warpgroup_dot
// CHECK: %[[NEXT:.*]] = arith.addi %arg7, %c1_i32 : i32
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[NEXT]], %{{.*}} : i32
// CHECK: %[[MASK:.*]] = tile.splat %[[IN]] : i1 -> tensor<64xi1
// CHECK: tile.load %{{.*}}, %[[MASK]] : tensor<64x!tile.ptr<bf16>
// CHECK: arith.mulf
// CHECK: tilegpu.warpgroup_dot_wait {{.*}} {pendings = 0 : i32}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked3 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#permuted = #tilegpu.permuted<{order = [1, 0], parent = #mma}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked3}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked3}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#permuted1 = #tilegpu.permuted<{order = [1, 0], parent = #dot_op}>
#slice6 = #tilegpu.slice<{dim = 0, parent = #permuted1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @scaled_weights(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
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
    %0 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked2>
    %1 = arith.divsi %arg4, %c64_i32 : i32
    %2 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %5 = tile.splat %arg5 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = arith.muli %4, %5 : tensor<64x1xi32, #blocked1>
    %7 = tile.addptr %2, %6 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x32x!tile.ptr<bf16>, #blocked1>
    %9 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %11 = tile.broadcast %10 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %12 = tile.addptr %8, %11 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %13 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<32x1x!tile.ptr<i8>, #blocked3>
    %14 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked3>
    %16 = tile.splat %arg6 : i32 -> tensor<32x1xi32, #blocked3>
    %17 = arith.muli %15, %16 : tensor<32x1xi32, #blocked3>
    %18 = tile.addptr %13, %17 : tensor<32x1x!tile.ptr<i8>, #blocked3>, tensor<32x1xi32, #blocked3>
    %19 = tile.broadcast %18 : tensor<32x1x!tile.ptr<i8>, #blocked3> -> tensor<32x64x!tile.ptr<i8>, #blocked3>
    %20 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked3>
    %22 = tile.broadcast %21 : tensor<1x64xi32, #blocked3> -> tensor<32x64xi32, #blocked3>
    %23 = tile.addptr %19, %22 : tensor<32x64x!tile.ptr<i8>, #blocked3>, tensor<32x64xi32, #blocked3>
    %24:3 = scf.for %arg7 = %c0_i32 to %1 step %c1_i32 iter_args(%arg8 = %cst_6, %arg9 = %12, %arg10 = %23) -> (tensor<64x64xf32, #permuted>, tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked3>)  : i32 {
      %36 = tile.load %arg9 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %37 = tile.addptr %arg9, %cst_5 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %38 = tile.load %37 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %39 = tile.load %arg10 : tensor<32x64x!tile.ptr<i8>, #blocked3>
      %40 = arith.muli %arg7, %c64_i32 : i32
      %41 = tile.addptr %arg2, %40 : !tile.ptr<bf16>, i32
      %42 = tile.splat %41 : !tile.ptr<bf16> -> tensor<64x!tile.ptr<bf16>, #blocked2>
      %43 = tile.addptr %42, %0 : tensor<64x!tile.ptr<bf16>, #blocked2>, tensor<64xi32, #blocked2>
      %44 = tile.load %43 : tensor<64x!tile.ptr<bf16>, #blocked2>
      %45 = tile.trans %arg8 {order = array<i32: 1, 0>} : tensor<64x64xf32, #permuted> -> tensor<64x64xf32, #mma>
      %46 = tilegpu.convert_layout %39 : tensor<32x64xi8, #blocked3> -> tensor<32x64xi8, #permuted1>
      %47 = arith.shli %46, %cst_3 : tensor<32x64xi8, #permuted1>
      %48 = arith.shrsi %47, %cst_3 : tensor<32x64xi8, #permuted1>
      %49 = arith.extui %48 : tensor<32x64xi8, #permuted1> to tensor<32x64xi16, #permuted1>
      %50 = arith.andi %49, %cst_1 : tensor<32x64xi16, #permuted1>
      %51 = arith.xori %50, %cst_0 : tensor<32x64xi16, #permuted1>
      %52 = arith.bitcast %51 : tensor<32x64xi16, #permuted1> to tensor<32x64xbf16, #permuted1>
      %53 = arith.subf %52, %cst : tensor<32x64xbf16, #permuted1>
      %54 = tilegpu.convert_layout %44 : tensor<64xbf16, #blocked2> -> tensor<64xbf16, #slice6>
      %55 = tile.expand_dims %54 {axis = 0 : i32} : tensor<64xbf16, #slice6> -> tensor<1x64xbf16, #permuted1>
      %56 = tile.broadcast %55 : tensor<1x64xbf16, #permuted1> -> tensor<32x64xbf16, #permuted1>
      %57 = arith.mulf %53, %56 : tensor<32x64xbf16, #permuted1>
      %58 = tile.trans %57 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %59 = tilegpu.local_alloc %36 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %60 = tilegpu.memdesc_trans %59 : <64x32xbf16, #nvmma> -> <32x64xbf16, #nvmma1>
      %61 = tilegpu.warpgroup_dot %58, %60, %45 : tensor<64x32xbf16, #dot_op> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %62 = arith.shrsi %46, %cst_3 : tensor<32x64xi8, #permuted1>
      %63 = arith.extui %62 : tensor<32x64xi8, #permuted1> to tensor<32x64xi16, #permuted1>
      %64 = arith.andi %63, %cst_1 : tensor<32x64xi16, #permuted1>
      %65 = arith.xori %64, %cst_0 : tensor<32x64xi16, #permuted1>
      %66 = arith.bitcast %65 : tensor<32x64xi16, #permuted1> to tensor<32x64xbf16, #permuted1>
      %67 = arith.subf %66, %cst : tensor<32x64xbf16, #permuted1>
      %68 = arith.mulf %67, %56 : tensor<32x64xbf16, #permuted1>
      %69 = tile.trans %68 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %70 = tilegpu.local_alloc %38 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %71 = tilegpu.memdesc_trans %70 : <64x32xbf16, #nvmma> -> <32x64xbf16, #nvmma1>
      %72 = tilegpu.warpgroup_dot %69, %71, %61 : tensor<64x32xbf16, #dot_op> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %73 = tile.trans %72 {order = array<i32: 1, 0>} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #permuted>
      %74 = tile.addptr %arg9, %cst_4 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %75 = arith.muli %arg6, %c32_i32 : i32
      %76 = tile.splat %75 : i32 -> tensor<32x64xi32, #blocked3>
      %77 = tile.addptr %arg10, %76 : tensor<32x64x!tile.ptr<i8>, #blocked3>, tensor<32x64xi32, #blocked3>
      scf.yield %73, %74, %77 : tensor<64x64xf32, #permuted>, tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked3>
    }
    %25 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #blocked>
    %26 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
    %27 = tile.expand_dims %26 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked>
    %28 = arith.muli %27, %cst_2 : tensor<64x1xi32, #blocked>
    %29 = tile.addptr %25, %28 : tensor<64x1x!tile.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %30 = tile.broadcast %29 : tensor<64x1x!tile.ptr<f32>, #blocked> -> tensor<64x64x!tile.ptr<f32>, #blocked>
    %31 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %32 = tile.expand_dims %31 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked>
    %33 = tile.broadcast %32 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %34 = tile.addptr %30, %33 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %35 = tilegpu.convert_layout %24#0 : tensor<64x64xf32, #permuted> -> tensor<64x64xf32, #blocked>
    tile.store %34, %35 : tensor<64x64x!tile.ptr<f32>, #blocked>
    return
  }
}


// -----

// The same with a store in the loop: loading the next step's scales early
// could read memory before the store to it, so nothing moves.
// CHECK-LABEL: func.func @scaled_weights_and_a_store
// CHECK: scf.for
// CHECK-NOT: iter_args({{.*}}tensor<64x32xbf16, #dot_op>
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}}, %{{.*}}, %{{.*}} {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x32xbf16, #dot_op>, tensor<64x32xbf16, #dot_op>{{$}}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked3 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#permuted = #tilegpu.permuted<{order = [1, 0], parent = #mma}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked3}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked3}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#permuted1 = #tilegpu.permuted<{order = [1, 0], parent = #dot_op}>
#slice6 = #tilegpu.slice<{dim = 0, parent = #permuted1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @scaled_weights_and_a_store(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<1.360000e+02> : tensor<32x64xbf16, #permuted1>
    %cst_0 = arith.constant dense<17160> : tensor<32x64xi16, #permuted1>
    %cst_1 = arith.constant dense<15> : tensor<32x64xi16, #permuted1>
    %cst_2 = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_3 = arith.constant dense<4> : tensor<32x64xi8, #permuted1>
    %cst_4 = arith.constant dense<64> : tensor<64x32xi32, #blocked1>
    %cst_5 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_6 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #permuted>
    %c1024_i32 = arith.constant 1024 : i32
    %c32_i32 = arith.constant 32 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked2>
    %1 = arith.divsi %arg4, %c64_i32 : i32
    %2 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %5 = tile.splat %arg5 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = arith.muli %4, %5 : tensor<64x1xi32, #blocked1>
    %7 = tile.addptr %2, %6 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x32x!tile.ptr<bf16>, #blocked1>
    %9 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %11 = tile.broadcast %10 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %12 = tile.addptr %8, %11 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %13 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<32x1x!tile.ptr<i8>, #blocked3>
    %14 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked3>
    %16 = tile.splat %arg6 : i32 -> tensor<32x1xi32, #blocked3>
    %17 = arith.muli %15, %16 : tensor<32x1xi32, #blocked3>
    %18 = tile.addptr %13, %17 : tensor<32x1x!tile.ptr<i8>, #blocked3>, tensor<32x1xi32, #blocked3>
    %19 = tile.broadcast %18 : tensor<32x1x!tile.ptr<i8>, #blocked3> -> tensor<32x64x!tile.ptr<i8>, #blocked3>
    %20 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked3>
    %22 = tile.broadcast %21 : tensor<1x64xi32, #blocked3> -> tensor<32x64xi32, #blocked3>
    %23 = tile.addptr %19, %22 : tensor<32x64x!tile.ptr<i8>, #blocked3>, tensor<32x64xi32, #blocked3>
    %24:3 = scf.for %arg7 = %c0_i32 to %1 step %c1_i32 iter_args(%arg8 = %cst_6, %arg9 = %12, %arg10 = %23) -> (tensor<64x64xf32, #permuted>, tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked3>)  : i32 {
      %36 = tile.load %arg9 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %37 = tile.addptr %arg9, %cst_5 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %38 = tile.load %37 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %39 = tile.load %arg10 : tensor<32x64x!tile.ptr<i8>, #blocked3>
      %40 = arith.muli %arg7, %c64_i32 : i32
      %41 = tile.addptr %arg2, %40 : !tile.ptr<bf16>, i32
      %42 = tile.splat %41 : !tile.ptr<bf16> -> tensor<64x!tile.ptr<bf16>, #blocked2>
      %43 = tile.addptr %42, %0 : tensor<64x!tile.ptr<bf16>, #blocked2>, tensor<64xi32, #blocked2>
      %44 = tile.load %43 : tensor<64x!tile.ptr<bf16>, #blocked2>
      %45 = tile.addptr %arg3, %c1024_i32 : !tile.ptr<f32>, i32
      %46 = tile.addptr %45, %arg7 : !tile.ptr<f32>, i32
      %47 = arith.sitofp %arg7 : i32 to f32
      tile.store %46, %47 : !tile.ptr<f32>
      %48 = tile.trans %arg8 {order = array<i32: 1, 0>} : tensor<64x64xf32, #permuted> -> tensor<64x64xf32, #mma>
      %49 = tilegpu.convert_layout %39 : tensor<32x64xi8, #blocked3> -> tensor<32x64xi8, #permuted1>
      %50 = arith.shli %49, %cst_3 : tensor<32x64xi8, #permuted1>
      %51 = arith.shrsi %50, %cst_3 : tensor<32x64xi8, #permuted1>
      %52 = arith.extui %51 : tensor<32x64xi8, #permuted1> to tensor<32x64xi16, #permuted1>
      %53 = arith.andi %52, %cst_1 : tensor<32x64xi16, #permuted1>
      %54 = arith.xori %53, %cst_0 : tensor<32x64xi16, #permuted1>
      %55 = arith.bitcast %54 : tensor<32x64xi16, #permuted1> to tensor<32x64xbf16, #permuted1>
      %56 = arith.subf %55, %cst : tensor<32x64xbf16, #permuted1>
      %57 = tilegpu.convert_layout %44 : tensor<64xbf16, #blocked2> -> tensor<64xbf16, #slice6>
      %58 = tile.expand_dims %57 {axis = 0 : i32} : tensor<64xbf16, #slice6> -> tensor<1x64xbf16, #permuted1>
      %59 = tile.broadcast %58 : tensor<1x64xbf16, #permuted1> -> tensor<32x64xbf16, #permuted1>
      %60 = arith.mulf %56, %59 : tensor<32x64xbf16, #permuted1>
      %61 = tile.trans %60 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %62 = tilegpu.local_alloc %36 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %63 = tilegpu.memdesc_trans %62 : <64x32xbf16, #nvmma> -> <32x64xbf16, #nvmma1>
      %64 = tilegpu.warpgroup_dot %61, %63, %48 : tensor<64x32xbf16, #dot_op> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %65 = arith.shrsi %49, %cst_3 : tensor<32x64xi8, #permuted1>
      %66 = arith.extui %65 : tensor<32x64xi8, #permuted1> to tensor<32x64xi16, #permuted1>
      %67 = arith.andi %66, %cst_1 : tensor<32x64xi16, #permuted1>
      %68 = arith.xori %67, %cst_0 : tensor<32x64xi16, #permuted1>
      %69 = arith.bitcast %68 : tensor<32x64xi16, #permuted1> to tensor<32x64xbf16, #permuted1>
      %70 = arith.subf %69, %cst : tensor<32x64xbf16, #permuted1>
      %71 = arith.mulf %70, %59 : tensor<32x64xbf16, #permuted1>
      %72 = tile.trans %71 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %73 = tilegpu.local_alloc %38 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %74 = tilegpu.memdesc_trans %73 : <64x32xbf16, #nvmma> -> <32x64xbf16, #nvmma1>
      %75 = tilegpu.warpgroup_dot %72, %74, %64 : tensor<64x32xbf16, #dot_op> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %76 = tile.trans %75 {order = array<i32: 1, 0>} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #permuted>
      %77 = tile.addptr %arg9, %cst_4 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %78 = arith.muli %arg6, %c32_i32 : i32
      %79 = tile.splat %78 : i32 -> tensor<32x64xi32, #blocked3>
      %80 = tile.addptr %arg10, %79 : tensor<32x64x!tile.ptr<i8>, #blocked3>, tensor<32x64xi32, #blocked3>
      scf.yield %76, %77, %80 : tensor<64x64xf32, #permuted>, tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked3>
    }
    %25 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #blocked>
    %26 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
    %27 = tile.expand_dims %26 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked>
    %28 = arith.muli %27, %cst_2 : tensor<64x1xi32, #blocked>
    %29 = tile.addptr %25, %28 : tensor<64x1x!tile.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %30 = tile.broadcast %29 : tensor<64x1x!tile.ptr<f32>, #blocked> -> tensor<64x64x!tile.ptr<f32>, #blocked>
    %31 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %32 = tile.expand_dims %31 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked>
    %33 = tile.broadcast %32 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %34 = tile.addptr %30, %33 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %35 = tilegpu.convert_layout %24#0 : tensor<64x64xf32, #permuted> -> tensor<64x64xf32, #blocked>
    tile.store %34, %35 : tensor<64x64x!tile.ptr<f32>, #blocked>
    return
  }
}


// -----

// A decode-shaped product (16 activation rows: the MMA's result has 16
// columns) takes far less time in MMAs than in unpacking; nothing moves.
// CHECK-LABEL: func.func @decode_product
// CHECK: scf.for
// CHECK-NOT: iter_args({{.*}}tensor<64x32xbf16, #dot_op>
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}}, %{{.*}}, %{{.*}} {pendings = 0 : i32} : tensor<64x16xf32, #mma>, tensor<64x32xbf16, #dot_op>, tensor<64x32xbf16, #dot_op>{{$}}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
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
  func.func @decode_product(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<16x1xi32, #blocked>
    %cst_0 = arith.constant dense<4> : tensor<32x64xi8, #permuted1>
    %cst_1 = arith.constant dense<64> : tensor<16x32xi32, #blocked1>
    %cst_2 = arith.constant dense<32> : tensor<16x32xi32, #blocked1>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #permuted>
    %c32_i32 = arith.constant 32 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = arith.divsi %arg4, %c64_i32 : i32
    %1 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<16x1x!tile.ptr<bf16>, #blocked1>
    %2 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
    %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked1>
    %4 = tile.splat %arg5 : i32 -> tensor<16x1xi32, #blocked1>
    %5 = arith.muli %3, %4 : tensor<16x1xi32, #blocked1>
    %6 = tile.addptr %1, %5 : tensor<16x1x!tile.ptr<bf16>, #blocked1>, tensor<16x1xi32, #blocked1>
    %7 = tile.broadcast %6 : tensor<16x1x!tile.ptr<bf16>, #blocked1> -> tensor<16x32x!tile.ptr<bf16>, #blocked1>
    %8 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %9 = tile.expand_dims %8 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %10 = tile.broadcast %9 : tensor<1x32xi32, #blocked1> -> tensor<16x32xi32, #blocked1>
    %11 = tile.addptr %7, %10 : tensor<16x32x!tile.ptr<bf16>, #blocked1>, tensor<16x32xi32, #blocked1>
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
    %23:3 = scf.for %arg7 = %c0_i32 to %0 step %c1_i32 iter_args(%arg8 = %cst_3, %arg9 = %11, %arg10 = %22) -> (tensor<16x64xf32, #permuted>, tensor<16x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked2>)  : i32 {
      %35 = tile.load %arg9 : tensor<16x32x!tile.ptr<bf16>, #blocked1>
      %36 = tile.addptr %arg9, %cst_2 : tensor<16x32x!tile.ptr<bf16>, #blocked1>, tensor<16x32xi32, #blocked1>
      %37 = tile.load %36 : tensor<16x32x!tile.ptr<bf16>, #blocked1>
      %38 = tile.load %arg10 : tensor<32x64x!tile.ptr<i8>, #blocked2>
      %39 = tile.trans %arg8 {order = array<i32: 1, 0>} : tensor<16x64xf32, #permuted> -> tensor<64x16xf32, #mma>
      %40 = tilegpu.convert_layout %38 : tensor<32x64xi8, #blocked2> -> tensor<32x64xi8, #permuted1>
      %41 = arith.shli %40, %cst_0 : tensor<32x64xi8, #permuted1>
      %42 = arith.shrsi %41, %cst_0 : tensor<32x64xi8, #permuted1>
      %43 = arith.sitofp %42 : tensor<32x64xi8, #permuted1> to tensor<32x64xbf16, #permuted1>
      %44 = tile.trans %43 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %45 = tilegpu.local_alloc %35 : (tensor<16x32xbf16, #blocked1>) -> !tilegpu.memdesc<16x32xbf16, #nvmma>
      %46 = tilegpu.memdesc_trans %45 : <16x32xbf16, #nvmma> -> <32x16xbf16, #nvmma1>
      %47 = tilegpu.warpgroup_dot %44, %46, %39 : tensor<64x32xbf16, #dot_op> * <32x16xbf16, #nvmma1> -> tensor<64x16xf32, #mma>
      %48 = arith.shrsi %40, %cst_0 : tensor<32x64xi8, #permuted1>
      %49 = arith.sitofp %48 : tensor<32x64xi8, #permuted1> to tensor<32x64xbf16, #permuted1>
      %50 = tile.trans %49 {order = array<i32: 1, 0>} : tensor<32x64xbf16, #permuted1> -> tensor<64x32xbf16, #dot_op>
      %51 = tilegpu.local_alloc %37 : (tensor<16x32xbf16, #blocked1>) -> !tilegpu.memdesc<16x32xbf16, #nvmma>
      %52 = tilegpu.memdesc_trans %51 : <16x32xbf16, #nvmma> -> <32x16xbf16, #nvmma1>
      %53 = tilegpu.warpgroup_dot %50, %52, %47 : tensor<64x32xbf16, #dot_op> * <32x16xbf16, #nvmma1> -> tensor<64x16xf32, #mma>
      %54 = tile.trans %53 {order = array<i32: 1, 0>} : tensor<64x16xf32, #mma> -> tensor<16x64xf32, #permuted>
      %55 = tile.addptr %arg9, %cst_1 : tensor<16x32x!tile.ptr<bf16>, #blocked1>, tensor<16x32xi32, #blocked1>
      %56 = arith.muli %arg6, %c32_i32 : i32
      %57 = tile.splat %56 : i32 -> tensor<32x64xi32, #blocked2>
      %58 = tile.addptr %arg10, %57 : tensor<32x64x!tile.ptr<i8>, #blocked2>, tensor<32x64xi32, #blocked2>
      scf.yield %54, %55, %58 : tensor<16x64xf32, #permuted>, tensor<16x32x!tile.ptr<bf16>, #blocked1>, tensor<32x64x!tile.ptr<i8>, #blocked2>
    }
    %24 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>, #blocked>
    %25 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice4>
    %26 = tile.expand_dims %25 {axis = 1 : i32} : tensor<16xi32, #slice4> -> tensor<16x1xi32, #blocked>
    %27 = arith.muli %26, %cst : tensor<16x1xi32, #blocked>
    %28 = tile.addptr %24, %27 : tensor<16x1x!tile.ptr<f32>, #blocked>, tensor<16x1xi32, #blocked>
    %29 = tile.broadcast %28 : tensor<16x1x!tile.ptr<f32>, #blocked> -> tensor<16x64x!tile.ptr<f32>, #blocked>
    %30 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %31 = tile.expand_dims %30 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked>
    %32 = tile.broadcast %31 : tensor<1x64xi32, #blocked> -> tensor<16x64xi32, #blocked>
    %33 = tile.addptr %29, %32 : tensor<16x64x!tile.ptr<f32>, #blocked>, tensor<16x64xi32, #blocked>
    %34 = tilegpu.convert_layout %23#0 : tensor<16x64xf32, #permuted> -> tensor<16x64xf32, #blocked>
    tile.store %33, %34 : tensor<16x64x!tile.ptr<f32>, #blocked>
    return
  }
}

