// RUN: tile-opt %s -split-input-file --tilegpu-pipeline --canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=4 --canonicalize | FileCheck %s --check-prefix=FOUR
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=max-shared=16384 --canonicalize | FileCheck %s --check-prefix=SMALL
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=shared-per-sm=120000 --canonicalize | FileCheck %s --check-prefix=OCC

// The operand loads of a wgmma loop run two iterations ahead (3 stages):
// two prologue groups into buffers 0 and 1, and each iteration waits for
// its own group (one left in flight), fences it for wgmma, starts the copy
// two iterations on, and dots the buffer it waited for. The carried
// pointers start two steps ahead and the copies past the end are masked
// off by the induction variable. The dot only chains its accumulator, so
// it runs async with one MMA in flight, which still reads the previous
// iteration's buffer: four buffers each, so the copy two iterations on
// overwrites the one read two iterations back.
// CHECK-LABEL: func.func @mm
// CHECK-DAG: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<4x64x32xf16, #nvmma>
// CHECK-DAG: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<4x32x64xf16, #nvmma1>
// CHECK: %[[NEXT_A:.*]] = tile.addptr %[[FIRST_A:[0-9]+]], %cst_0
// CHECK: %[[A0:.*]] = tilegpu.memdesc_index %[[A]][%c0_i32]
// CHECK: tilegpu.async_copy_global_to_local %[[FIRST_A]], %[[A0]] mask
// CHECK: %[[B0:.*]] = tilegpu.memdesc_index %[[B]][%c0_i32]
// CHECK: tilegpu.async_copy_global_to_local %{{.*}}, %[[B0]] mask
// CHECK: tilegpu.async_commit_group
// CHECK: %[[AHEAD_A:.*]] = tile.addptr %[[NEXT_A]], %cst_0
// CHECK: tilegpu.memdesc_index %[[A]][%c1_i32]
// CHECK: tilegpu.async_copy_global_to_local %[[NEXT_A]]
// CHECK: tilegpu.memdesc_index %[[B]][%c1_i32]
// CHECK: tilegpu.async_commit_group
// CHECK: scf.for %[[IV:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[PA:.*]] = %[[AHEAD_A]], %[[PB:.*]] = %{{.*}}, %[[FILL:.*]] = %c2_i32, %[[READ:.*]] = %c0_i32)
// CHECK-NEXT: tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK: %[[IV2:.*]] = arith.addi %[[IV]], %c2_i32
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[IV2]]
// CHECK: %[[INM:.*]] = tile.splat %[[IN]]
// CHECK: %[[MASK:.*]] = arith.andi %{{.*}}, %[[INM]]
// CHECK: %[[FA:.*]] = tilegpu.memdesc_index %[[A]][%[[FILL]]]
// CHECK: tilegpu.async_copy_global_to_local %[[PA]], %[[FA]] mask %[[MASK]]
// CHECK: tilegpu.memdesc_index %[[B]][%[[FILL]]]
// CHECK: tilegpu.async_copy_global_to_local %[[PB]]
// CHECK: tilegpu.async_commit_group
// CHECK-NOT: tile.load
// CHECK: %[[RA:.*]] = tilegpu.memdesc_index %[[A]][%[[READ]]]
// CHECK: %[[RB:.*]] = tilegpu.memdesc_index %[[B]][%[[READ]]]
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %[[RA]], %[[RB]], %[[ACC]] async
// CHECK: %[[DW:.*]] = tilegpu.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK: arith.cmpi eq, %{{.*}}, %c4_i32
// CHECK: scf.yield %[[DW]]
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}}#0 {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.local_dealloc %[[A]]
// CHECK-NEXT: tilegpu.local_dealloc %[[B]]

// FOUR-LABEL: func.func @mm
// FOUR: tilegpu.local_alloc : () -> !tilegpu.memdesc<5x64x32xf16, #nvmma>
// FOUR-COUNT-3: tilegpu.async_commit_group
// FOUR: scf.for
// FOUR-NEXT: tilegpu.async_wait {pending = 2 : i32}

// Five buffers of 8 KiB would not fit in 16 KiB: three buffers, and the
// copies run one iteration ahead.
// SMALL-LABEL: func.func @mm
// SMALL: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf16, #nvmma>
// SMALL-COUNT-1: tilegpu.async_commit_group
// SMALL: scf.for
// SMALL-NEXT: tilegpu.async_wait {pending = 0 : i32}
// SMALL: tilegpu.warpgroup_dot {{.*}} async

// OFF-LABEL: func.func @mm
// OFF-NOT: async_copy
// OFF: tile.load
// OFF: tilegpu.local_alloc %
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @mm(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked1>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.addi %arg3, %c31_i32 : i32
    %1 = arith.divsi %0, %c32_i32 : i32
    %2 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked1>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %5 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = arith.muli %4, %5 : tensor<64x1xi32, #blocked1>
    %7 = tile.addptr %2, %6 : tensor<64x1x!tile.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<f16>, #blocked1> -> tensor<64x32x!tile.ptr<f16>, #blocked1>
    %9 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %11 = tile.broadcast %10 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %12 = tile.addptr %8, %11 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %13 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>, #blocked>
    %14 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked>
    %16 = tile.splat %arg5 : i32 -> tensor<32x1xi32, #blocked>
    %17 = arith.muli %15, %16 : tensor<32x1xi32, #blocked>
    %18 = tile.addptr %13, %17 : tensor<32x1x!tile.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
    %19 = tile.broadcast %18 : tensor<32x1x!tile.ptr<f16>, #blocked> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %20 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %22 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %23 = tile.addptr %19, %22 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %24:3 = scf.for %arg6 = %c0_i32 to %1 step %c1_i32 iter_args(%arg7 = %cst_1, %arg8 = %12, %arg9 = %23) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>)  : i32 {
      %35 = arith.muli %arg6, %c32_i32 : i32
      %36 = arith.subi %arg3, %35 : i32
      %37 = tile.splat %36 : i32 -> tensor<1x32xi32, #blocked1>
      %38 = arith.cmpi slt, %10, %37 : tensor<1x32xi32, #blocked1>
      %39 = tile.broadcast %38 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %40 = tile.load %arg8, %39, %cst_3 : tensor<64x32x!tile.ptr<f16>, #blocked1>
      %41 = tile.splat %36 : i32 -> tensor<32x1xi32, #blocked>
      %42 = arith.cmpi slt, %15, %41 : tensor<32x1xi32, #blocked>
      %43 = tile.broadcast %42 : tensor<32x1xi1, #blocked> -> tensor<32x64xi1, #blocked>
      %44 = tile.load %arg9, %43, %cst_2 : tensor<32x64x!tile.ptr<f16>, #blocked>
      %45 = tilegpu.local_alloc %40 : (tensor<64x32xf16, #blocked1>) -> !tilegpu.memdesc<64x32xf16, #nvmma>
      %46 = tilegpu.local_alloc %44 : (tensor<32x64xf16, #blocked>) -> !tilegpu.memdesc<32x64xf16, #nvmma1>
      %47 = tilegpu.warpgroup_dot %45, %46, %arg7 : !tilegpu.memdesc<64x32xf16, #nvmma> * <32x64xf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %48 = tile.addptr %arg8, %cst_0 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %49 = arith.muli %arg5, %c32_i32 : i32
      %50 = tile.splat %49 : i32 -> tensor<32x64xi32, #blocked>
      %51 = tile.addptr %arg9, %50 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %47, %48, %51 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>
    }
    %25 = arith.truncf %24#0 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %26 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked>
    %27 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
    %28 = tile.expand_dims %27 {axis = 1 : i32} : tensor<64xi32, #slice2> -> tensor<64x1xi32, #blocked>
    %29 = arith.muli %28, %cst : tensor<64x1xi32, #blocked>
    %30 = tile.addptr %26, %29 : tensor<64x1x!tile.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
    %31 = tile.broadcast %30 : tensor<64x1x!tile.ptr<f16>, #blocked> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %32 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %33 = tile.addptr %31, %32 : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %34 = tilegpu.convert_layout %25 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %33, %34 : tensor<64x64x!tile.ptr<f16>, #blocked>
    return
  }
}


// -----

// The loop's own num_stages wins over the option (2 stages: one copy
// ahead, three buffers for the async dot).
// CHECK-LABEL: func.func @two_stages
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf16, #nvmma>
// CHECK: tilegpu.async_commit_group
// CHECK-NOT: tilegpu.async_commit_group
// CHECK: scf.for
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
// FOUR-LABEL: func.func @two_stages
// FOUR: memdesc<3x64x32xf16
// OFF-LABEL: func.func @two_stages
// OFF: memdesc<3x64x32xf16
// SMALL-LABEL: func.func @two_stages
// SMALL: memdesc<3x64x32xf16
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @two_stages(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked1>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.addi %arg3, %c31_i32 : i32
    %1 = arith.divsi %0, %c32_i32 : i32
    %2 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked1>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %5 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = arith.muli %4, %5 : tensor<64x1xi32, #blocked1>
    %7 = tile.addptr %2, %6 : tensor<64x1x!tile.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<f16>, #blocked1> -> tensor<64x32x!tile.ptr<f16>, #blocked1>
    %9 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %11 = tile.broadcast %10 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %12 = tile.addptr %8, %11 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %13 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>, #blocked>
    %14 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked>
    %16 = tile.splat %arg5 : i32 -> tensor<32x1xi32, #blocked>
    %17 = arith.muli %15, %16 : tensor<32x1xi32, #blocked>
    %18 = tile.addptr %13, %17 : tensor<32x1x!tile.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
    %19 = tile.broadcast %18 : tensor<32x1x!tile.ptr<f16>, #blocked> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %20 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %22 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %23 = tile.addptr %19, %22 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %24:3 = scf.for %arg6 = %c0_i32 to %1 step %c1_i32 iter_args(%arg7 = %cst_1, %arg8 = %12, %arg9 = %23) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>)  : i32 {
      %35 = arith.muli %arg6, %c32_i32 : i32
      %36 = arith.subi %arg3, %35 : i32
      %37 = tile.splat %36 : i32 -> tensor<1x32xi32, #blocked1>
      %38 = arith.cmpi slt, %10, %37 : tensor<1x32xi32, #blocked1>
      %39 = tile.broadcast %38 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %40 = tile.load %arg8, %39, %cst_3 : tensor<64x32x!tile.ptr<f16>, #blocked1>
      %41 = tile.splat %36 : i32 -> tensor<32x1xi32, #blocked>
      %42 = arith.cmpi slt, %15, %41 : tensor<32x1xi32, #blocked>
      %43 = tile.broadcast %42 : tensor<32x1xi1, #blocked> -> tensor<32x64xi1, #blocked>
      %44 = tile.load %arg9, %43, %cst_2 : tensor<32x64x!tile.ptr<f16>, #blocked>
      %45 = tilegpu.local_alloc %40 : (tensor<64x32xf16, #blocked1>) -> !tilegpu.memdesc<64x32xf16, #nvmma>
      %46 = tilegpu.local_alloc %44 : (tensor<32x64xf16, #blocked>) -> !tilegpu.memdesc<32x64xf16, #nvmma1>
      %47 = tilegpu.warpgroup_dot %45, %46, %arg7 : !tilegpu.memdesc<64x32xf16, #nvmma> * <32x64xf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %48 = tile.addptr %arg8, %cst_0 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %49 = arith.muli %arg5, %c32_i32 : i32
      %50 = tile.splat %49 : i32 -> tensor<32x64xi32, #blocked>
      %51 = tile.addptr %arg9, %50 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %47, %48, %51 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>
    } {tile.num_stages = 2 : i32}
    %25 = arith.truncf %24#0 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %26 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked>
    %27 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
    %28 = tile.expand_dims %27 {axis = 1 : i32} : tensor<64xi32, #slice2> -> tensor<64x1xi32, #blocked>
    %29 = arith.muli %28, %cst : tensor<64x1xi32, #blocked>
    %30 = tile.addptr %26, %29 : tensor<64x1x!tile.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
    %31 = tile.broadcast %30 : tensor<64x1x!tile.ptr<f16>, #blocked> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %32 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %33 = tile.addptr %31, %32 : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %34 = tilegpu.convert_layout %25 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %33, %34 : tensor<64x64x!tile.ptr<f16>, #blocked>
    return
  }
}


// -----

// The carried A pointers are used after the loop, so they cannot run
// ahead: nothing is pipelined.
// CHECK-LABEL: func.func @pointer_used_after
// CHECK-NOT: async_copy
// CHECK: tile.load
// CHECK: tile.load
// CHECK: tilegpu.warpgroup_dot
// FOUR-LABEL: func.func @pointer_used_after
// FOUR-NOT: async_copy
// FOUR: return
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @pointer_used_after(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked1>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.addi %arg3, %c31_i32 : i32
    %1 = arith.divsi %0, %c32_i32 : i32
    %2 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked1>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %5 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = arith.muli %4, %5 : tensor<64x1xi32, #blocked1>
    %7 = tile.addptr %2, %6 : tensor<64x1x!tile.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<f16>, #blocked1> -> tensor<64x32x!tile.ptr<f16>, #blocked1>
    %9 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %11 = tile.broadcast %10 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %12 = tile.addptr %8, %11 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %13 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>, #blocked>
    %14 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked>
    %16 = tile.splat %arg5 : i32 -> tensor<32x1xi32, #blocked>
    %17 = arith.muli %15, %16 : tensor<32x1xi32, #blocked>
    %18 = tile.addptr %13, %17 : tensor<32x1x!tile.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
    %19 = tile.broadcast %18 : tensor<32x1x!tile.ptr<f16>, #blocked> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %20 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %22 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %23 = tile.addptr %19, %22 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %24:3 = scf.for %arg6 = %c0_i32 to %1 step %c1_i32 iter_args(%arg7 = %cst_1, %arg8 = %12, %arg9 = %23) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>)  : i32 {
      %35 = arith.muli %arg6, %c32_i32 : i32
      %36 = arith.subi %arg3, %35 : i32
      %37 = tile.splat %36 : i32 -> tensor<1x32xi32, #blocked1>
      %38 = arith.cmpi slt, %10, %37 : tensor<1x32xi32, #blocked1>
      %39 = tile.broadcast %38 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %40 = tile.load %arg8, %39, %cst_3 : tensor<64x32x!tile.ptr<f16>, #blocked1>
      %41 = tile.splat %36 : i32 -> tensor<32x1xi32, #blocked>
      %42 = arith.cmpi slt, %15, %41 : tensor<32x1xi32, #blocked>
      %43 = tile.broadcast %42 : tensor<32x1xi1, #blocked> -> tensor<32x64xi1, #blocked>
      %44 = tile.load %arg9, %43, %cst_2 : tensor<32x64x!tile.ptr<f16>, #blocked>
      %45 = tilegpu.local_alloc %40 : (tensor<64x32xf16, #blocked1>) -> !tilegpu.memdesc<64x32xf16, #nvmma>
      %46 = tilegpu.local_alloc %44 : (tensor<32x64xf16, #blocked>) -> !tilegpu.memdesc<32x64xf16, #nvmma1>
      %47 = tilegpu.warpgroup_dot %45, %46, %arg7 : !tilegpu.memdesc<64x32xf16, #nvmma> * <32x64xf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %48 = tile.addptr %arg8, %cst_0 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %49 = arith.muli %arg5, %c32_i32 : i32
      %50 = tile.splat %49 : i32 -> tensor<32x64xi32, #blocked>
      %51 = tile.addptr %arg9, %50 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %47, %48, %51 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>
    }
    %25 = arith.truncf %24#0 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %26 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked>
    %27 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
    %28 = tile.expand_dims %27 {axis = 1 : i32} : tensor<64xi32, #slice2> -> tensor<64x1xi32, #blocked>
    %29 = arith.muli %28, %cst : tensor<64x1xi32, #blocked>
    %30 = tile.addptr %26, %29 : tensor<64x1x!tile.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
    %31 = tile.broadcast %30 : tensor<64x1x!tile.ptr<f16>, #blocked> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %32 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %33 = tile.addptr %31, %32 : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %34 = tilegpu.convert_layout %25 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %33, %34 : tensor<64x64x!tile.ptr<f16>, #blocked>
    tile.store %24#1, %cst_3 : tensor<64x32x!tile.ptr<f16>, #blocked1>
    return
  }
}


// -----

// Masked-off A elements must read as 1.0, which cp.async cannot do: only B
// is pipelined.
// CHECK-LABEL: func.func @nonzero_other
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<4x32x64xf16, #nvmma{{1?}}>
// CHECK-NOT: tilegpu.local_alloc : () -> !tilegpu.memdesc<4x64x32xf16
// CHECK: scf.for
// CHECK: tile.load
// CHECK-NOT: tile.load
// CHECK: tilegpu.warpgroup_dot
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @nonzero_other(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %cst_3 = arith.constant dense<1.000000e+00> : tensor<64x32xf16, #blocked1>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.addi %arg3, %c31_i32 : i32
    %1 = arith.divsi %0, %c32_i32 : i32
    %2 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked1>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %5 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = arith.muli %4, %5 : tensor<64x1xi32, #blocked1>
    %7 = tile.addptr %2, %6 : tensor<64x1x!tile.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<f16>, #blocked1> -> tensor<64x32x!tile.ptr<f16>, #blocked1>
    %9 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %11 = tile.broadcast %10 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %12 = tile.addptr %8, %11 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %13 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>, #blocked>
    %14 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked>
    %16 = tile.splat %arg5 : i32 -> tensor<32x1xi32, #blocked>
    %17 = arith.muli %15, %16 : tensor<32x1xi32, #blocked>
    %18 = tile.addptr %13, %17 : tensor<32x1x!tile.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
    %19 = tile.broadcast %18 : tensor<32x1x!tile.ptr<f16>, #blocked> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %20 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %22 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %23 = tile.addptr %19, %22 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %24:3 = scf.for %arg6 = %c0_i32 to %1 step %c1_i32 iter_args(%arg7 = %cst_1, %arg8 = %12, %arg9 = %23) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>)  : i32 {
      %35 = arith.muli %arg6, %c32_i32 : i32
      %36 = arith.subi %arg3, %35 : i32
      %37 = tile.splat %36 : i32 -> tensor<1x32xi32, #blocked1>
      %38 = arith.cmpi slt, %10, %37 : tensor<1x32xi32, #blocked1>
      %39 = tile.broadcast %38 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %40 = tile.load %arg8, %39, %cst_3 : tensor<64x32x!tile.ptr<f16>, #blocked1>
      %41 = tile.splat %36 : i32 -> tensor<32x1xi32, #blocked>
      %42 = arith.cmpi slt, %15, %41 : tensor<32x1xi32, #blocked>
      %43 = tile.broadcast %42 : tensor<32x1xi1, #blocked> -> tensor<32x64xi1, #blocked>
      %44 = tile.load %arg9, %43, %cst_2 : tensor<32x64x!tile.ptr<f16>, #blocked>
      %45 = tilegpu.local_alloc %40 : (tensor<64x32xf16, #blocked1>) -> !tilegpu.memdesc<64x32xf16, #nvmma>
      %46 = tilegpu.local_alloc %44 : (tensor<32x64xf16, #blocked>) -> !tilegpu.memdesc<32x64xf16, #nvmma1>
      %47 = tilegpu.warpgroup_dot %45, %46, %arg7 : !tilegpu.memdesc<64x32xf16, #nvmma> * <32x64xf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %48 = tile.addptr %arg8, %cst_0 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %49 = arith.muli %arg5, %c32_i32 : i32
      %50 = tile.splat %49 : i32 -> tensor<32x64xi32, #blocked>
      %51 = tile.addptr %arg9, %50 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %47, %48, %51 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>
    }
    %25 = arith.truncf %24#0 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %26 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked>
    %27 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
    %28 = tile.expand_dims %27 {axis = 1 : i32} : tensor<64xi32, #slice2> -> tensor<64x1xi32, #blocked>
    %29 = arith.muli %28, %cst : tensor<64x1xi32, #blocked>
    %30 = tile.addptr %26, %29 : tensor<64x1x!tile.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
    %31 = tile.broadcast %30 : tensor<64x1x!tile.ptr<f16>, #blocked> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %32 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %33 = tile.addptr %31, %32 : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %34 = tilegpu.convert_layout %25 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %33, %34 : tensor<64x64x!tile.ptr<f16>, #blocked>
    return
  }
}


// -----

// The dot's result feeds an add before it is carried: the dot must finish
// within the iteration, so it stays synchronous with three buffers.
// CHECK-LABEL: func.func @acc_updated
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf16, #nvmma>
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot
// CHECK-NOT: async
// CHECK-NOT: warpgroup_dot_wait
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @acc_updated(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<64x32xi32, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked1>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = arith.addi %arg3, %c31_i32 : i32
    %1 = arith.divsi %0, %c32_i32 : i32
    %2 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked1>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %5 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = arith.muli %4, %5 : tensor<64x1xi32, #blocked1>
    %7 = tile.addptr %2, %6 : tensor<64x1x!tile.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<f16>, #blocked1> -> tensor<64x32x!tile.ptr<f16>, #blocked1>
    %9 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked1>
    %11 = tile.broadcast %10 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %12 = tile.addptr %8, %11 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %13 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>, #blocked>
    %14 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked>
    %16 = tile.splat %arg5 : i32 -> tensor<32x1xi32, #blocked>
    %17 = arith.muli %15, %16 : tensor<32x1xi32, #blocked>
    %18 = tile.addptr %13, %17 : tensor<32x1x!tile.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
    %19 = tile.broadcast %18 : tensor<32x1x!tile.ptr<f16>, #blocked> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %20 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %22 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %23 = tile.addptr %19, %22 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %24:3 = scf.for %arg6 = %c0_i32 to %1 step %c1_i32 iter_args(%arg7 = %cst_1, %arg8 = %12, %arg9 = %23) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>)  : i32 {
      %35 = arith.muli %arg6, %c32_i32 : i32
      %36 = arith.subi %arg3, %35 : i32
      %37 = tile.splat %36 : i32 -> tensor<1x32xi32, #blocked1>
      %38 = arith.cmpi slt, %10, %37 : tensor<1x32xi32, #blocked1>
      %39 = tile.broadcast %38 : tensor<1x32xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %40 = tile.load %arg8, %39, %cst_3 : tensor<64x32x!tile.ptr<f16>, #blocked1>
      %41 = tile.splat %36 : i32 -> tensor<32x1xi32, #blocked>
      %42 = arith.cmpi slt, %15, %41 : tensor<32x1xi32, #blocked>
      %43 = tile.broadcast %42 : tensor<32x1xi1, #blocked> -> tensor<32x64xi1, #blocked>
      %44 = tile.load %arg9, %43, %cst_2 : tensor<32x64x!tile.ptr<f16>, #blocked>
      %45 = tilegpu.local_alloc %40 : (tensor<64x32xf16, #blocked1>) -> !tilegpu.memdesc<64x32xf16, #nvmma>
      %46 = tilegpu.local_alloc %44 : (tensor<32x64xf16, #blocked>) -> !tilegpu.memdesc<32x64xf16, #nvmma1>
      %47 = tilegpu.warpgroup_dot %45, %46, %arg7 : !tilegpu.memdesc<64x32xf16, #nvmma> * <32x64xf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %48 = tile.addptr %arg8, %cst_0 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %49 = arith.muli %arg5, %c32_i32 : i32
      %50 = tile.splat %49 : i32 -> tensor<32x64xi32, #blocked>
      %51 = tile.addptr %arg9, %50 : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      %sum = arith.addf %47, %arg7 : tensor<64x64xf32, #mma>
      scf.yield %sum, %48, %51 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<32x64x!tile.ptr<f16>, #blocked>
    }
    %25 = arith.truncf %24#0 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %26 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked>
    %27 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
    %28 = tile.expand_dims %27 {axis = 1 : i32} : tensor<64xi32, #slice2> -> tensor<64x1xi32, #blocked>
    %29 = arith.muli %28, %cst : tensor<64x1xi32, #blocked>
    %30 = tile.addptr %26, %29 : tensor<64x1x!tile.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
    %31 = tile.broadcast %30 : tensor<64x1x!tile.ptr<f16>, #blocked> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %32 = tile.broadcast %21 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %33 = tile.addptr %31, %32 : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %34 = tilegpu.convert_layout %25 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    tile.store %33, %34 : tensor<64x64x!tile.ptr<f16>, #blocked>
    return
  }
}


// -----

// Attention's shape: Q*K is needed at once (synchronous); P*V only feeds
// the next iteration's accumulator, after a rescale. It runs async and the
// next iteration waits for it just before the rescale reads it. The loop
// sits in `if (lower < upper)` with the final wait inside, so the path that
// skips the loop (carrying the initial accumulator) never reaches a wait.
// CHECK-LABEL: func.func @attn
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<4x64x64xf16, #nvmma1>
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<4x64x64xf16, #nvmma>
// CHECK: tilegpu.async_commit_group
// CHECK: %[[RAN:.*]] = arith.cmpi sgt, %arg4, %c0_i32
// CHECK-NEXT: scf.if %[[RAN]] -> (tensor<64x64xf32, #mma>) {
// CHECK: %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %c2_i32, %{{.*}} = %c0_i32)
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : !tilegpu.memdesc
// CHECK-NOT: async
// CHECK: %[[W:.*]] = tilegpu.warpgroup_dot_wait %[[ACC]] {pendings = 0 : i32}
// CHECK-NEXT: arith.mulf %[[W]]
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot {{.*}} async
// CHECK: scf.yield %[[D]]
// CHECK: %[[DONE:.*]] = tilegpu.warpgroup_dot_wait %[[LOOP]]#0 {pendings = 0 : i32}
// CHECK-NEXT: scf.yield %[[DONE]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// On an SM of 120000 bytes, 4 buffers of K and V (64 KiB) plus Q (8 KiB)
// fit once, 3 fit twice: 3 buffers, copies one iteration ahead, waiting
// for all groups.
// OCC-LABEL: func.func @attn
// OCC-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma1>
// OCC-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
// OCC: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %c1_i32, %{{.*}} = %c0_i32)
// OCC-NEXT: tilegpu.async_wait {pending = 0 : i32}
// OCC: tilegpu.warpgroup_dot {{.*}} async
#blocked = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked2}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
#slice2 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#slice3 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @attn(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<1x64xi32, #blocked>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #blocked1>
    %cst_1 = arith.constant dense<64> : tensor<64x1xi32, #blocked2>
    %cst_2 = arith.constant dense<5.000000e-01> : tensor<64x64xf32, #mma>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked2>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked2>
    %1 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %2 = tile.expand_dims %1 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked2>
    %3 = arith.muli %2, %cst_1 : tensor<64x1xi32, #blocked2>
    %4 = tile.addptr %0, %3 : tensor<64x1x!tile.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
    %5 = tile.broadcast %4 : tensor<64x1x!tile.ptr<f16>, #blocked2> -> tensor<64x64x!tile.ptr<f16>, #blocked2>
    %6 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice1>
    %7 = tile.expand_dims %6 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked2>
    %8 = tile.broadcast %7 : tensor<1x64xi32, #blocked2> -> tensor<64x64xi32, #blocked2>
    %9 = tile.addptr %5, %8 : tensor<64x64x!tile.ptr<f16>, #blocked2>, tensor<64x64xi32, #blocked2>
    %10 = tile.load %9 : tensor<64x64x!tile.ptr<f16>, #blocked2>
    %11 = tilegpu.local_alloc %10 : (tensor<64x64xf16, #blocked2>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %12 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %cst_5) -> (tensor<64x64xf32, #mma>)  : i32 {
      %24 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<1x64x!tile.ptr<f16>, #blocked>
      %25 = tile.splat %arg5 : i32 -> tensor<64xi32, #slice2>
      %26 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
      %27 = arith.addi %25, %26 : tensor<64xi32, #slice2>
      %28 = tile.expand_dims %27 {axis = 0 : i32} : tensor<64xi32, #slice2> -> tensor<1x64xi32, #blocked>
      %29 = arith.muli %28, %cst : tensor<1x64xi32, #blocked>
      %30 = tile.addptr %24, %29 : tensor<1x64x!tile.ptr<f16>, #blocked>, tensor<1x64xi32, #blocked>
      %31 = tile.broadcast %30 : tensor<1x64x!tile.ptr<f16>, #blocked> -> tensor<64x64x!tile.ptr<f16>, #blocked>
      %32 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
      %33 = tile.expand_dims %32 {axis = 1 : i32} : tensor<64xi32, #slice3> -> tensor<64x1xi32, #blocked>
      %34 = tile.broadcast %33 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
      %35 = tile.addptr %31, %34 : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
      %36 = tile.splat %arg4 : i32 -> tensor<1x64xi32, #blocked>
      %37 = arith.cmpi slt, %28, %36 : tensor<1x64xi32, #blocked>
      %38 = tile.broadcast %37 : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
      %39 = tile.load %35, %38, %cst_4 : tensor<64x64x!tile.ptr<f16>, #blocked>
      %40 = tilegpu.local_alloc %39 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma1>
      %41 = tilegpu.warpgroup_dot %11, %40, %cst_5 : !tilegpu.memdesc<64x64xf16, #nvmma> * <64x64xf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %42 = arith.truncf %41 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
      %43 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked2>
      %44 = tile.splat %arg5 : i32 -> tensor<64xi32, #slice>
      %45 = arith.addi %44, %1 : tensor<64xi32, #slice>
      %46 = tile.expand_dims %45 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked2>
      %47 = arith.muli %46, %cst_1 : tensor<64x1xi32, #blocked2>
      %48 = tile.addptr %43, %47 : tensor<64x1x!tile.ptr<f16>, #blocked2>, tensor<64x1xi32, #blocked2>
      %49 = tile.broadcast %48 : tensor<64x1x!tile.ptr<f16>, #blocked2> -> tensor<64x64x!tile.ptr<f16>, #blocked2>
      %50 = tile.addptr %49, %8 : tensor<64x64x!tile.ptr<f16>, #blocked2>, tensor<64x64xi32, #blocked2>
      %51 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked2>
      %52 = arith.cmpi slt, %46, %51 : tensor<64x1xi32, #blocked2>
      %53 = tile.broadcast %52 : tensor<64x1xi1, #blocked2> -> tensor<64x64xi1, #blocked2>
      %54 = tile.load %50, %53, %cst_3 : tensor<64x64x!tile.ptr<f16>, #blocked2>
      %55 = arith.mulf %arg6, %cst_2 : tensor<64x64xf32, #mma>
      %56 = tilegpu.convert_layout %42 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_op>
      %57 = tilegpu.local_alloc %54 : (tensor<64x64xf16, #blocked2>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %58 = tilegpu.warpgroup_dot %56, %57, %55 : tensor<64x64xf16, #dot_op> * <64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %58 : tensor<64x64xf32, #mma>
    }
    %13 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #blocked1>
    %14 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
    %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked1>
    %16 = arith.muli %15, %cst_0 : tensor<64x1xi32, #blocked1>
    %17 = tile.addptr %13, %16 : tensor<64x1x!tile.ptr<f32>, #blocked1>, tensor<64x1xi32, #blocked1>
    %18 = tile.broadcast %17 : tensor<64x1x!tile.ptr<f32>, #blocked1> -> tensor<64x64x!tile.ptr<f32>, #blocked1>
    %19 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %20 = tile.expand_dims %19 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked1>
    %21 = tile.broadcast %20 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
    %22 = tile.addptr %18, %21 : tensor<64x64x!tile.ptr<f32>, #blocked1>, tensor<64x64xi32, #blocked1>
    %23 = tilegpu.convert_layout %12 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked1>
    tile.store %22, %23 : tensor<64x64x!tile.ptr<f32>, #blocked1>
    return
  }
}


// -----

// Descriptor loads feeding the dot become TMA copies into the stage
// buffers, one mbarrier per buffer: the prologue arms stages 0 and 1 with
// both tiles' bytes (for iterations that exist), each iteration waits on
// its buffer's barrier at the current phase parity, then arms and fills
// the buffer two iterations on. The parity flips when the read index
// wraps. No cp.async group or proxy fence is needed, and the barriers are
// invalidated after the loop.
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// CHECK-LABEL: func.func @tma_mm
// CHECK-DAG: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<4x64x64xf16, #nvmma>
// CHECK-DAG: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<4x64x64xf16, #nvmma>
// CHECK: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<4x1xi64, #shared>
// CHECK: tilegpu.init_barrier %[[BARS]], 1
// CHECK: %[[RUN0:.*]] = arith.cmpi sgt, %arg3, %c0_i32
// CHECK: %[[BAR0:.*]] = tilegpu.memdesc_index %[[BARS]][%c0_i32]
// CHECK: tilegpu.barrier_expect %[[BAR0]], 16384, %[[RUN0]]
// CHECK: tilegpu.async_tma_copy_global_to_local %arg0[%arg4, %c0_i32] %{{.*}}, %{{.*}}, %[[RUN0]]
// CHECK: tilegpu.async_tma_copy_global_to_local %arg1[%c0_i32, %arg4] %{{.*}}, %{{.*}}, %[[RUN0]]
// CHECK: tilegpu.barrier_expect %{{.*}}, 16384
// CHECK: tilegpu.async_tma_copy_global_to_local %arg0[%arg4, %c64_i32]
// CHECK: scf.for %[[IV:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[FILL:.*]] = %c2_i32, %[[READ:.*]] = %c0_i32, %[[PHASE:.*]] = %c0_i32)
// CHECK-NOT: tilegpu.async_wait
// CHECK: %[[RBAR:.*]] = tilegpu.memdesc_index %[[BARS]][%[[READ]]]
// CHECK-NEXT: tilegpu.wait_barrier %[[RBAR]], %[[PHASE]]
// CHECK: %[[FBAR:.*]] = tilegpu.memdesc_index %[[BARS]][%[[FILL]]]
// CHECK: tilegpu.barrier_expect %[[FBAR]], 16384
// CHECK: tilegpu.async_tma_copy_global_to_local %arg0
// CHECK: tilegpu.async_tma_copy_global_to_local %arg1
// CHECK-NOT: tilegpu.async_commit_group
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %[[ACC]] async
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[READ]], %c3_i32
// CHECK: %[[FLIP:.*]] = arith.xori %[[PHASE]], %c1_i32
// CHECK: %[[NEXT:.*]] = arith.select %[[LAST]], %[[FLIP]], %[[PHASE]]
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[NEXT]]
// CHECK: tilegpu.inval_barrier %[[BARS]]
// CHECK-NOT: tilegpu.async_wait
func.func @tma_mm(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                  %acc0: tensor<64x64xf32, #mma>, %n: i32, %m: i32) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
}
