// RUN: tile-opt %s -split-input-file --tilegpu-pipeline --canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=4 --canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=2 --canonicalize | FileCheck %s

// Operands computed in registers (a weight dequantised from int8) are
// stored to shared memory in every iteration, into one buffer: only the
// loads are multi-buffered. An MMA still in flight from the previous
// iteration would read that buffer while this iteration overwrites it, so
// the dot is not kept in flight behind the next (no `pendings = 1`): the
// previous iteration's MMA is waited for before the store, and overlaps
// this iteration's loads and conversion instead.
// CHECK-LABEL: func.func @dequantized_b
// CHECK: scf.for
// CHECK-NOT: pendings = 1
// CHECK: %[[W:.*]] = tilegpu.warpgroup_dot_wait %arg10 {pendings = 0 : i32}
// CHECK-NEXT: %[[B:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xbf16
// CHECK-NEXT: tilegpu.warpgroup_dot %{{.*}}, %[[B]], %[[W]] async
// CHECK-NOT: pendings = 1
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @dequantized_b(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<0> : tensor<64x64xi8, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x64xbf16, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.get_program_id x
    %1 = tile.get_program_id y
    %2 = arith.muli %0, %c64_i32 : i32
    %3 = arith.muli %1, %c64_i32 : i32
    %4 = scf.for %arg9 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg10 = %cst_1) -> (tensor<64x64xf32, #mma>)  : i32 {
      %29 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
      %30 = tile.splat %2 : i32 -> tensor<64xi32, #slice>
      %31 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
      %32 = arith.addi %30, %31 : tensor<64xi32, #slice>
      %33 = tile.expand_dims %32 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
      %34 = tile.splat %arg6 : i32 -> tensor<64x1xi32, #blocked1>
      %35 = arith.muli %33, %34 : tensor<64x1xi32, #blocked1>
      %36 = tile.addptr %29, %35 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
      %37 = tile.broadcast %36 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x64x!tile.ptr<bf16>, #blocked1>
      %38 = tile.splat %arg9 : i32 -> tensor<64xi32, #slice1>
      %39 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice1>
      %40 = arith.addi %38, %39 : tensor<64xi32, #slice1>
      %41 = tile.expand_dims %40 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked1>
      %42 = tile.broadcast %41 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
      %43 = tile.addptr %37, %42 : tensor<64x64x!tile.ptr<bf16>, #blocked1>, tensor<64x64xi32, #blocked1>
      %44 = tile.splat %arg3 : i32 -> tensor<64x1xi32, #blocked1>
      %45 = arith.cmpi slt, %33, %44 : tensor<64x1xi32, #blocked1>
      %46 = tile.broadcast %45 : tensor<64x1xi1, #blocked1> -> tensor<64x64xi1, #blocked1>
      %47 = tile.splat %arg5 : i32 -> tensor<1x64xi32, #blocked1>
      %48 = arith.cmpi slt, %41, %47 : tensor<1x64xi32, #blocked1>
      %49 = tile.broadcast %48 : tensor<1x64xi1, #blocked1> -> tensor<64x64xi1, #blocked1>
      %50 = arith.andi %46, %49 : tensor<64x64xi1, #blocked1>
      %51 = tile.load %43, %50, %cst_0 : tensor<64x64x!tile.ptr<bf16>, #blocked1>
      %52 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<64x1x!tile.ptr<i8>, #blocked>
      %53 = tile.splat %arg9 : i32 -> tensor<64xi32, #slice2>
      %54 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
      %55 = arith.addi %53, %54 : tensor<64xi32, #slice2>
      %56 = tile.expand_dims %55 {axis = 1 : i32} : tensor<64xi32, #slice2> -> tensor<64x1xi32, #blocked>
      %57 = tile.splat %arg7 : i32 -> tensor<64x1xi32, #blocked>
      %58 = arith.muli %56, %57 : tensor<64x1xi32, #blocked>
      %59 = tile.addptr %52, %58 : tensor<64x1x!tile.ptr<i8>, #blocked>, tensor<64x1xi32, #blocked>
      %60 = tile.broadcast %59 : tensor<64x1x!tile.ptr<i8>, #blocked> -> tensor<64x64x!tile.ptr<i8>, #blocked>
      %61 = tile.splat %3 : i32 -> tensor<64xi32, #slice3>
      %62 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
      %63 = arith.addi %61, %62 : tensor<64xi32, #slice3>
      %64 = tile.expand_dims %63 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
      %65 = tile.broadcast %64 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
      %66 = tile.addptr %60, %65 : tensor<64x64x!tile.ptr<i8>, #blocked>, tensor<64x64xi32, #blocked>
      %67 = tile.splat %arg5 : i32 -> tensor<64x1xi32, #blocked>
      %68 = arith.cmpi slt, %56, %67 : tensor<64x1xi32, #blocked>
      %69 = tile.broadcast %68 : tensor<64x1xi1, #blocked> -> tensor<64x64xi1, #blocked>
      %70 = tile.splat %arg4 : i32 -> tensor<1x64xi32, #blocked>
      %71 = arith.cmpi slt, %64, %70 : tensor<1x64xi32, #blocked>
      %72 = tile.broadcast %71 : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
      %73 = arith.andi %69, %72 : tensor<64x64xi1, #blocked>
      %74 = tile.load %66, %73, %cst : tensor<64x64x!tile.ptr<i8>, #blocked>
      %75 = arith.sitofp %74 : tensor<64x64xi8, #blocked> to tensor<64x64xbf16, #blocked>
      %76 = tilegpu.local_alloc %51 : (tensor<64x64xbf16, #blocked1>) -> !tilegpu.memdesc<64x64xbf16, #nvmma>
      %77 = tilegpu.local_alloc %75 : (tensor<64x64xbf16, #blocked>) -> !tilegpu.memdesc<64x64xbf16, #nvmma1>
      %78 = tilegpu.warpgroup_dot %76, %77, %arg10 : !tilegpu.memdesc<64x64xbf16, #nvmma> * <64x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      scf.yield %78 : tensor<64x64xf32, #mma>
    }
    %5 = arith.truncf %4 : tensor<64x64xf32, #mma> to tensor<64x64xbf16, #mma>
    %6 = tile.splat %arg2 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
    %7 = tile.splat %2 : i32 -> tensor<64xi32, #slice>
    %8 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %9 = arith.addi %7, %8 : tensor<64xi32, #slice>
    %10 = tile.expand_dims %9 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %11 = tile.splat %arg8 : i32 -> tensor<64x1xi32, #blocked1>
    %12 = arith.muli %10, %11 : tensor<64x1xi32, #blocked1>
    %13 = tile.addptr %6, %12 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %14 = tile.broadcast %13 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x64x!tile.ptr<bf16>, #blocked1>
    %15 = tile.splat %3 : i32 -> tensor<64xi32, #slice1>
    %16 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice1>
    %17 = arith.addi %15, %16 : tensor<64xi32, #slice1>
    %18 = tile.expand_dims %17 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked1>
    %19 = tile.broadcast %18 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
    %20 = tile.addptr %14, %19 : tensor<64x64x!tile.ptr<bf16>, #blocked1>, tensor<64x64xi32, #blocked1>
    %21 = tilegpu.convert_layout %5 : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #blocked1>
    %22 = tile.splat %arg3 : i32 -> tensor<64x1xi32, #blocked1>
    %23 = arith.cmpi slt, %10, %22 : tensor<64x1xi32, #blocked1>
    %24 = tile.broadcast %23 : tensor<64x1xi1, #blocked1> -> tensor<64x64xi1, #blocked1>
    %25 = tile.splat %arg4 : i32 -> tensor<1x64xi32, #blocked1>
    %26 = arith.cmpi slt, %18, %25 : tensor<1x64xi32, #blocked1>
    %27 = tile.broadcast %26 : tensor<1x64xi1, #blocked1> -> tensor<64x64xi1, #blocked1>
    %28 = arith.andi %24, %27 : tensor<64x64xi1, #blocked1>
    tile.store %20, %21, %28 : tensor<64x64x!tile.ptr<bf16>, #blocked1>
    return
  }
}


// -----

// An int4 weight: each K step unpacks one byte tile into two bf16 halves,
// each stored to its own buffer for one of two dots into one accumulator.
// The first dot is waited for before the second reads its result (after
// the second half is stored, which therefore may not share its buffer:
// allocate-shared-memory-async-dots.mlir). The second is waited for in the
// next iteration before the first dot, and before its own buffer is
// stored again.
// CHECK-LABEL: func.func @two_dots_register_b
// CHECK: scf.for
// CHECK: %[[LO:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<32x64xbf16
// CHECK-NEXT: %[[W0:.*]] = tilegpu.warpgroup_dot_wait %arg10 {pendings = 0 : i32}
// CHECK-NEXT: %[[D0:.*]] = tilegpu.warpgroup_dot %{{.*}}, %[[LO]], %[[W0]] async
// CHECK: %[[HI:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<32x64xbf16
// CHECK-NEXT: %[[W1:.*]] = tilegpu.warpgroup_dot_wait %[[D0]] {pendings = 0 : i32}
// CHECK-NEXT: %[[D1:.*]] = tilegpu.warpgroup_dot %{{.*}}, %[[HI]], %[[W1]] async
// CHECK: scf.yield %[[D1]]
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}}#0 {pendings = 0 : i32}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked2}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @two_dots_register_b(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<4> : tensor<32x64xi8, #blocked>
    %cst_0 = arith.constant dense<0> : tensor<32x64xi8, #blocked>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x32xbf16, #blocked1>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %c2_i32 = arith.constant 2 : i32
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.get_program_id x
    %1 = tile.get_program_id y
    %2 = arith.muli %0, %c64_i32 : i32
    %3 = arith.muli %1, %c64_i32 : i32
    %4 = scf.for %arg9 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg10 = %cst_2) -> (tensor<64x64xf32, #mma>)  : i32 {
      %29 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
      %30 = tile.splat %2 : i32 -> tensor<64xi32, #slice>
      %31 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
      %32 = arith.addi %30, %31 : tensor<64xi32, #slice>
      %33 = tile.expand_dims %32 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
      %34 = tile.splat %arg6 : i32 -> tensor<64x1xi32, #blocked1>
      %35 = arith.muli %33, %34 : tensor<64x1xi32, #blocked1>
      %36 = tile.addptr %29, %35 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
      %37 = tile.broadcast %36 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %38 = tile.splat %arg9 : i32 -> tensor<32xi32, #slice1>
      %39 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
      %40 = arith.addi %38, %39 : tensor<32xi32, #slice1>
      %41 = tile.expand_dims %40 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
      %42 = tile.broadcast %41 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
      %43 = tile.addptr %37, %42 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %44 = tile.splat %arg3 : i32 -> tensor<64x1xi32, #blocked1>
      %45 = arith.cmpi slt, %33, %44 : tensor<64x1xi32, #blocked1>
      %46 = tile.broadcast %45 : tensor<64x1xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %47 = tile.splat %arg5 : i32 -> tensor<1x32xi32, #blocked1>
      %48 = arith.cmpi slt, %41, %47 : tensor<1x32xi32, #blocked1>
      %49 = tile.broadcast %48 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %50 = arith.andi %46, %49 : tensor<64x32xi1, #blocked1>
      %51 = tile.load %43, %50, %cst_1 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %52 = arith.addi %arg9, %c32_i32 : i32
      %53 = tile.splat %52 : i32 -> tensor<32xi32, #slice1>
      %54 = arith.addi %53, %39 : tensor<32xi32, #slice1>
      %55 = tile.expand_dims %54 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
      %56 = tile.broadcast %55 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
      %57 = tile.addptr %37, %56 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %58 = arith.cmpi slt, %55, %47 : tensor<1x32xi32, #blocked1>
      %59 = tile.broadcast %58 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %60 = arith.andi %46, %59 : tensor<64x32xi1, #blocked1>
      %61 = tile.load %57, %60, %cst_1 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %62 = arith.divsi %arg9, %c2_i32 : i32
      %63 = arith.divsi %arg5, %c2_i32 : i32
      %64 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<32x1x!tile.ptr<i8>, #blocked>
      %65 = tile.splat %62 : i32 -> tensor<32xi32, #slice2>
      %66 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
      %67 = arith.addi %65, %66 : tensor<32xi32, #slice2>
      %68 = tile.expand_dims %67 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked>
      %69 = tile.splat %arg7 : i32 -> tensor<32x1xi32, #blocked>
      %70 = arith.muli %68, %69 : tensor<32x1xi32, #blocked>
      %71 = tile.addptr %64, %70 : tensor<32x1x!tile.ptr<i8>, #blocked>, tensor<32x1xi32, #blocked>
      %72 = tile.broadcast %71 : tensor<32x1x!tile.ptr<i8>, #blocked> -> tensor<32x64x!tile.ptr<i8>, #blocked>
      %73 = tile.splat %3 : i32 -> tensor<64xi32, #slice3>
      %74 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
      %75 = arith.addi %73, %74 : tensor<64xi32, #slice3>
      %76 = tile.expand_dims %75 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
      %77 = tile.broadcast %76 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
      %78 = tile.addptr %72, %77 : tensor<32x64x!tile.ptr<i8>, #blocked>, tensor<32x64xi32, #blocked>
      %79 = tile.splat %63 : i32 -> tensor<32x1xi32, #blocked>
      %80 = arith.cmpi slt, %68, %79 : tensor<32x1xi32, #blocked>
      %81 = tile.broadcast %80 : tensor<32x1xi1, #blocked> -> tensor<32x64xi1, #blocked>
      %82 = tile.splat %arg4 : i32 -> tensor<1x64xi32, #blocked>
      %83 = arith.cmpi slt, %76, %82 : tensor<1x64xi32, #blocked>
      %84 = tile.broadcast %83 : tensor<1x64xi1, #blocked> -> tensor<32x64xi1, #blocked>
      %85 = arith.andi %81, %84 : tensor<32x64xi1, #blocked>
      %86 = tile.load %78, %85, %cst_0 : tensor<32x64x!tile.ptr<i8>, #blocked>
      %87 = arith.shli %86, %cst : tensor<32x64xi8, #blocked>
      %88 = arith.shrsi %87, %cst : tensor<32x64xi8, #blocked>
      %89 = arith.sitofp %88 : tensor<32x64xi8, #blocked> to tensor<32x64xbf16, #blocked>
      %90 = arith.shrsi %86, %cst : tensor<32x64xi8, #blocked>
      %91 = arith.sitofp %90 : tensor<32x64xi8, #blocked> to tensor<32x64xbf16, #blocked>
      %92 = tilegpu.local_alloc %51 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %93 = tilegpu.local_alloc %89 : (tensor<32x64xbf16, #blocked>) -> !tilegpu.memdesc<32x64xbf16, #nvmma1>
      %94 = tilegpu.warpgroup_dot %92, %93, %arg10 : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %95 = tilegpu.local_alloc %61 : (tensor<64x32xbf16, #blocked1>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %96 = tilegpu.local_alloc %91 : (tensor<32x64xbf16, #blocked>) -> !tilegpu.memdesc<32x64xbf16, #nvmma1>
      %97 = tilegpu.warpgroup_dot %95, %96, %94 : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      scf.yield %97 : tensor<64x64xf32, #mma>
    }
    %5 = arith.truncf %4 : tensor<64x64xf32, #mma> to tensor<64x64xbf16, #mma>
    %6 = tile.splat %arg2 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked2>
    %7 = tile.splat %2 : i32 -> tensor<64xi32, #slice4>
    %8 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
    %9 = arith.addi %7, %8 : tensor<64xi32, #slice4>
    %10 = tile.expand_dims %9 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked2>
    %11 = tile.splat %arg8 : i32 -> tensor<64x1xi32, #blocked2>
    %12 = arith.muli %10, %11 : tensor<64x1xi32, #blocked2>
    %13 = tile.addptr %6, %12 : tensor<64x1x!tile.ptr<bf16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %14 = tile.broadcast %13 : tensor<64x1x!tile.ptr<bf16>, #blocked2> -> tensor<64x64x!tile.ptr<bf16>, #blocked2>
    %15 = tile.splat %3 : i32 -> tensor<64xi32, #slice5>
    %16 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %17 = arith.addi %15, %16 : tensor<64xi32, #slice5>
    %18 = tile.expand_dims %17 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked2>
    %19 = tile.broadcast %18 : tensor<1x64xi32, #blocked2> -> tensor<64x64xi32, #blocked2>
    %20 = tile.addptr %14, %19 : tensor<64x64x!tile.ptr<bf16>, #blocked2>, tensor<64x64xi32, #blocked2>
    %21 = tilegpu.convert_layout %5 : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #blocked2>
    %22 = tile.splat %arg3 : i32 -> tensor<64x1xi32, #blocked2>
    %23 = arith.cmpi slt, %10, %22 : tensor<64x1xi32, #blocked2>
    %24 = tile.broadcast %23 : tensor<64x1xi1, #blocked2> -> tensor<64x64xi1, #blocked2>
    %25 = tile.splat %arg4 : i32 -> tensor<1x64xi32, #blocked2>
    %26 = arith.cmpi slt, %18, %25 : tensor<1x64xi32, #blocked2>
    %27 = tile.broadcast %26 : tensor<1x64xi1, #blocked2> -> tensor<64x64xi1, #blocked2>
    %28 = arith.andi %24, %27 : tensor<64x64xi1, #blocked2>
    tile.store %20, %21, %28 : tensor<64x64x!tile.ptr<bf16>, #blocked2>
    return
  }
}

