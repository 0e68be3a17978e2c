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
// CHECK-NOT: tilegpu.fence_async_shared
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
// The loop's last MMAs are waited for on the path that ran it; the path
// that skipped it passes the initial accumulator through a wait of its own
// (nothing in flight there), which keeps LLVM from merging constants into
// the epilogue.
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}}#0 {pendings = 0 : i32}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[SKIPPED:.*]] = tilegpu.warpgroup_dot_wait %cst{{.*}} {pendings = 0 : i32}
// CHECK-NEXT: scf.yield %[[SKIPPED]]
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.local_dealloc %[[A]]
// CHECK-NEXT: tilegpu.local_dealloc %[[B]]

// FOUR-LABEL: func.func @mm
// FOUR: tilegpu.local_alloc : () -> !tilegpu.memdesc<5x64x32xf16, #nvmma>
// FOUR-COUNT-3: tilegpu.async_commit_group
// FOUR: scf.for
// FOUR-NEXT: tilegpu.async_wait {pending = 2 : i32}

// Four buffers of 8 KiB would not fit in 16 KiB: three buffers. The
// copies still run two iterations ahead, but they fill the buffer the
// previous iteration's MMA read, so they start once the wait behind this
// iteration's MMA has retired it, after a barrier (every warpgroup's).
// SMALL-LABEL: func.func @mm
// SMALL: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf16, #nvmma>
// SMALL-COUNT-2: tilegpu.async_commit_group
// SMALL: scf.for
// SMALL-NEXT: tilegpu.async_wait {pending = 1 : i32}
// SMALL: %[[D:.*]] = tilegpu.warpgroup_dot {{.*}} async
// SMALL-NEXT: tilegpu.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
// SMALL-NEXT: tilegpu.barrier
// SMALL: tilegpu.async_copy_global_to_local
// SMALL: tilegpu.async_commit_group
// SMALL-NEXT: arith.addi
// SMALL: scf.yield

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

// The dot's result feeds an add before it is carried: the dot finishes
// within the iteration (it runs under the next copies' address arithmetic
// and is waited for at the add), so three buffers suffice.
// CHECK-LABEL: func.func @acc_updated
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf16, #nvmma>
// CHECK: scf.for
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot {{.*}} async
// CHECK: %[[W:.*]] = tilegpu.warpgroup_dot_wait %[[D]] {pendings = 0 : i32}
// CHECK: arith.addf %[[W]]
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
// CHECK-NEXT: tilegpu.warpgroup_dot_wait
// CHECK-NEXT: scf.yield
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// On an SM of 120000 bytes, 4 buffers of K and V (64 KiB) plus Q (8 KiB)
// fit once, 3 fit twice: 3 buffers, copies two iterations ahead. They
// start after Q*K, which as a synchronous dot has retired the previous
// iteration's P*V (whose V buffer they refill), and a barrier.
// OCC-LABEL: func.func @attn
// OCC-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma1>
// OCC-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
// OCC: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %c2_i32, %{{.*}} = %c0_i32)
// OCC-NEXT: tilegpu.async_wait {pending = 1 : i32}
// OCC: tilegpu.warpgroup_dot {{.*}} : !tilegpu.memdesc
// OCC-NEXT: tilegpu.barrier
// OCC: tilegpu.async_copy_global_to_local
// OCC: tilegpu.async_commit_group
// OCC: tilegpu.warpgroup_dot_wait
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

// FlashAttention-3's intra-warpgroup overlap as written in the source
// (bench/kernels_src.py attention_fwd_overlap_kernel, 64x32 blocks): the
// next key block's Q*K^T and this block's P*V are issued back to back,
// then the softmax of the next block runs while both are in flight. Q*K^T
// is waited for one group behind (P*V may stay pending) where the softmax
// first reads it. P*V takes the probabilities carried in registers from
// the previous iteration, which the back edge overwrites, so it is waited
// for in this iteration, not in the next: no MMA crosses the back edge
// (ptxas would serialise every wgmma otherwise) and three buffers do. The
// wait sits where the next probabilities are cast to fp16, so the old and
// new operand registers are never live together.
// CHECK-LABEL: func.func @attn_overlap
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x32x32xf16, #nvmma1>
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x32x32xf16, #nvmma>
// CHECK: scf.for
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot {{.*}} async : !tilegpu.memdesc
// CHECK-NOT: warpgroup_dot_wait
// CHECK: %[[O:.*]] = tilegpu.warpgroup_dot {{.*}} async : tensor<64x32xf16, #dot_op>
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK: %[[DONE:.*]] = tilegpu.warpgroup_dot_wait %[[O]] {pendings = 0 : i32}
// CHECK-NEXT: arith.truncf
// CHECK: scf.yield %[[DONE]]
// CHECK-NOT: warpgroup_dot_wait
// CHECK: tilegpu.async_wait {pending = 0 : i32}
#blocked = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 0, parent = #mma}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #mma}>
#slice3 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice4 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice5 = #tilegpu.slice<{dim = 1, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @attn_overlap(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: f32, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}, %arg9: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<32> : tensor<32xi32, #slice>
    %cst_0 = arith.constant dense<32> : tensor<32xi32, #slice1>
    %cst_1 = arith.constant dense<1.000000e+00> : tensor<64xf32, #slice2>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<32x32xf16, #blocked1>
    %cst_3 = arith.constant dense<0xFF800000> : tensor<64x32xf32, #mma>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<32x32xf16, #blocked>
    %cst_6 = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked1>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_7 = arith.constant 1.44269502 : f32
    %c64_i32 = arith.constant 64 : i32
    %0 = tile.get_program_id x
    %1 = tile.get_program_id y
    %2 = arith.muli %0, %c64_i32 : i32
    %3 = arith.muli %1, %arg9 : i32
    %4 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked1>
    %5 = tile.splat %3 : i32 -> tensor<64x1xi32, #blocked1>
    %6 = tile.splat %2 : i32 -> tensor<64xi32, #slice3>
    %7 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %8 = arith.addi %6, %7 : tensor<64xi32, #slice3>
    %9 = tile.expand_dims %8 {axis = 1 : i32} : tensor<64xi32, #slice3> -> tensor<64x1xi32, #blocked1>
    %10 = arith.addi %5, %9 : tensor<64x1xi32, #blocked1>
    %11 = tile.splat %arg5 : i32 -> tensor<64x1xi32, #blocked1>
    %12 = arith.muli %10, %11 : tensor<64x1xi32, #blocked1>
    %13 = tile.addptr %4, %12 : tensor<64x1x!tile.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %14 = tile.broadcast %13 : tensor<64x1x!tile.ptr<f16>, #blocked1> -> tensor<64x32x!tile.ptr<f16>, #blocked1>
    %15 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice4>
    %16 = tile.expand_dims %15 {axis = 0 : i32} : tensor<32xi32, #slice4> -> tensor<1x32xi32, #blocked1>
    %17 = tile.broadcast %16 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %18 = tile.addptr %14, %17 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %19 = tile.splat %arg9 : i32 -> tensor<64x1xi32, #blocked1>
    %20 = arith.cmpi slt, %9, %19 : tensor<64x1xi32, #blocked1>
    %21 = tile.broadcast %20 : tensor<64x1xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
    %22 = tile.load %18, %21, %cst_6 : tensor<64x32x!tile.ptr<f16>, #blocked1>
    %23 = arith.mulf %arg4, %cst_7 : f32
    %24 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<1x32x!tile.ptr<f16>, #blocked>
    %25 = tile.splat %3 : i32 -> tensor<1x32xi32, #blocked>
    %26 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %27 = tile.expand_dims %26 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked>
    %28 = arith.addi %25, %27 : tensor<1x32xi32, #blocked>
    %29 = tile.splat %arg6 : i32 -> tensor<1x32xi32, #blocked>
    %30 = arith.muli %28, %29 : tensor<1x32xi32, #blocked>
    %31 = tile.addptr %24, %30 : tensor<1x32x!tile.ptr<f16>, #blocked>, tensor<1x32xi32, #blocked>
    %32 = tile.broadcast %31 : tensor<1x32x!tile.ptr<f16>, #blocked> -> tensor<32x32x!tile.ptr<f16>, #blocked>
    %33 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice5>
    %34 = tile.expand_dims %33 {axis = 1 : i32} : tensor<32xi32, #slice5> -> tensor<32x1xi32, #blocked>
    %35 = tile.broadcast %34 : tensor<32x1xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %36 = tile.addptr %32, %35 : tensor<32x32x!tile.ptr<f16>, #blocked>, tensor<32x32xi32, #blocked>
    %37 = tile.splat %arg9 : i32 -> tensor<1x32xi32, #blocked>
    %38 = arith.cmpi slt, %27, %37 : tensor<1x32xi32, #blocked>
    %39 = tile.broadcast %38 : tensor<1x32xi1, #blocked> -> tensor<32x32xi1, #blocked>
    %40 = tile.load %36, %39, %cst_5 : tensor<32x32x!tile.ptr<f16>, #blocked>
    %41 = tilegpu.local_alloc %22 : (tensor<64x32xf16, #blocked1>) -> !tilegpu.memdesc<64x32xf16, #nvmma>
    %42 = tilegpu.local_alloc %40 : (tensor<32x32xf16, #blocked>) -> !tilegpu.memdesc<32x32xf16, #nvmma1>
    %43 = tilegpu.warpgroup_dot %41, %42, %cst_4 : !tilegpu.memdesc<64x32xf16, #nvmma> * <32x32xf16, #nvmma1> -> tensor<64x32xf32, #mma>
    %44 = tile.splat %23 : f32 -> tensor<64x32xf32, #mma>
    %45 = arith.mulf %43, %44 : tensor<64x32xf32, #mma>
    %46 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice>
    %47 = tile.expand_dims %46 {axis = 0 : i32} : tensor<32xi32, #slice> -> tensor<1x32xi32, #mma>
    %48 = tile.splat %arg9 : i32 -> tensor<1x32xi32, #mma>
    %49 = arith.cmpi slt, %47, %48 : tensor<1x32xi32, #mma>
    %50 = tile.broadcast %49 : tensor<1x32xi1, #mma> -> tensor<64x32xi1, #mma>
    %51 = arith.select %50, %45, %cst_3 : tensor<64x32xi1, #mma>, tensor<64x32xf32, #mma>
    %52 = tile.reduce %51 axis = 1 : (tensor<64x32xf32, #mma>) -> tensor<64xf32, #slice2> {
    ^bb0(%arg10: f32, %arg11: f32):
      %73 = arith.maxnumf %arg10, %arg11 : f32
      tile.reduce.return %73 : f32
    }
    %53 = tile.expand_dims %52 {axis = 1 : i32} : tensor<64xf32, #slice2> -> tensor<64x1xf32, #mma>
    %54 = tile.broadcast %53 : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
    %55 = arith.subf %51, %54 : tensor<64x32xf32, #mma>
    %56 = math.exp2 %55 : tensor<64x32xf32, #mma>
    %57 = tile.reduce %56 axis = 1 : (tensor<64x32xf32, #mma>) -> tensor<64xf32, #slice2> {
    ^bb0(%arg10: f32, %arg11: f32):
      %73 = arith.addf %arg10, %arg11 : f32
      tile.reduce.return %73 : f32
    }
    %58 = arith.truncf %56 : tensor<64x32xf32, #mma> to tensor<64x32xf16, #mma>
    %59 = tilegpu.local_alloc %22 : (tensor<64x32xf16, #blocked1>) -> !tilegpu.memdesc<64x32xf16, #nvmma>
    %60 = tilegpu.convert_layout %58 : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_op>
    %61:5 = scf.for %arg10 = %c0_i32 to %arg9 step %c32_i32 iter_args(%arg11 = %cst_4, %arg12 = %60, %arg13 = %cst_1, %arg14 = %57, %arg15 = %52) -> (tensor<64x32xf32, #mma>, tensor<64x32xf16, #dot_op>, tensor<64xf32, #slice2>, tensor<64xf32, #slice2>, tensor<64xf32, #slice2>)  : i32 {
      %73 = tile.splat %arg10 : i32 -> tensor<32xi32, #slice1>
      %74 = arith.addi %73, %26 : tensor<32xi32, #slice1>
      %75 = arith.addi %74, %cst_0 : tensor<32xi32, #slice1>
      %76 = tile.expand_dims %75 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked>
      %77 = arith.addi %25, %76 : tensor<1x32xi32, #blocked>
      %78 = arith.muli %77, %29 : tensor<1x32xi32, #blocked>
      %79 = tile.addptr %24, %78 : tensor<1x32x!tile.ptr<f16>, #blocked>, tensor<1x32xi32, #blocked>
      %80 = tile.broadcast %79 : tensor<1x32x!tile.ptr<f16>, #blocked> -> tensor<32x32x!tile.ptr<f16>, #blocked>
      %81 = tile.addptr %80, %35 : tensor<32x32x!tile.ptr<f16>, #blocked>, tensor<32x32xi32, #blocked>
      %82 = arith.cmpi slt, %76, %37 : tensor<1x32xi32, #blocked>
      %83 = tile.broadcast %82 : tensor<1x32xi1, #blocked> -> tensor<32x32xi1, #blocked>
      %84 = tile.load %81, %83, %cst_5 : tensor<32x32x!tile.ptr<f16>, #blocked>
      %85 = tilegpu.local_alloc %84 : (tensor<32x32xf16, #blocked>) -> !tilegpu.memdesc<32x32xf16, #nvmma1>
      %86 = tilegpu.warpgroup_dot %59, %85, %cst_4 : !tilegpu.memdesc<64x32xf16, #nvmma> * <32x32xf16, #nvmma1> -> tensor<64x32xf32, #mma>
      %87 = tile.expand_dims %arg13 {axis = 1 : i32} : tensor<64xf32, #slice2> -> tensor<64x1xf32, #mma>
      %88 = tile.broadcast %87 : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
      %89 = arith.mulf %arg11, %88 : tensor<64x32xf32, #mma>
      %90 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>, #blocked1>
      %91 = tile.splat %3 : i32 -> tensor<32x1xi32, #blocked1>
      %92 = tile.splat %arg10 : i32 -> tensor<32xi32, #slice3>
      %93 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice3>
      %94 = arith.addi %92, %93 : tensor<32xi32, #slice3>
      %95 = tile.expand_dims %94 {axis = 1 : i32} : tensor<32xi32, #slice3> -> tensor<32x1xi32, #blocked1>
      %96 = arith.addi %91, %95 : tensor<32x1xi32, #blocked1>
      %97 = tile.splat %arg7 : i32 -> tensor<32x1xi32, #blocked1>
      %98 = arith.muli %96, %97 : tensor<32x1xi32, #blocked1>
      %99 = tile.addptr %90, %98 : tensor<32x1x!tile.ptr<f16>, #blocked1>, tensor<32x1xi32, #blocked1>
      %100 = tile.broadcast %99 : tensor<32x1x!tile.ptr<f16>, #blocked1> -> tensor<32x32x!tile.ptr<f16>, #blocked1>
      %101 = tile.broadcast %16 : tensor<1x32xi32, #blocked1> -> tensor<32x32xi32, #blocked1>
      %102 = tile.addptr %100, %101 : tensor<32x32x!tile.ptr<f16>, #blocked1>, tensor<32x32xi32, #blocked1>
      %103 = tile.splat %arg9 : i32 -> tensor<32x1xi32, #blocked1>
      %104 = arith.cmpi slt, %95, %103 : tensor<32x1xi32, #blocked1>
      %105 = tile.broadcast %104 : tensor<32x1xi1, #blocked1> -> tensor<32x32xi1, #blocked1>
      %106 = tile.load %102, %105, %cst_2 : tensor<32x32x!tile.ptr<f16>, #blocked1>
      %107 = tilegpu.local_alloc %106 : (tensor<32x32xf16, #blocked1>) -> !tilegpu.memdesc<32x32xf16, #nvmma>
      %108 = tilegpu.warpgroup_dot %arg12, %107, %89 : tensor<64x32xf16, #dot_op> * <32x32xf16, #nvmma> -> tensor<64x32xf32, #mma>
      %109 = arith.mulf %86, %44 : tensor<64x32xf32, #mma>
      %110 = tile.splat %arg10 : i32 -> tensor<32xi32, #slice>
      %111 = arith.addi %110, %46 : tensor<32xi32, #slice>
      %112 = arith.addi %111, %cst : tensor<32xi32, #slice>
      %113 = tile.expand_dims %112 {axis = 0 : i32} : tensor<32xi32, #slice> -> tensor<1x32xi32, #mma>
      %114 = arith.cmpi slt, %113, %48 : tensor<1x32xi32, #mma>
      %115 = tile.broadcast %114 : tensor<1x32xi1, #mma> -> tensor<64x32xi1, #mma>
      %116 = arith.select %115, %109, %cst_3 : tensor<64x32xi1, #mma>, tensor<64x32xf32, #mma>
      %117 = tile.reduce %116 axis = 1 : (tensor<64x32xf32, #mma>) -> tensor<64xf32, #slice2> {
      ^bb0(%arg16: f32, %arg17: f32):
        %130 = arith.maxnumf %arg16, %arg17 : f32
        tile.reduce.return %130 : f32
      }
      %118 = arith.maxnumf %arg15, %117 : tensor<64xf32, #slice2>
      %119 = tile.expand_dims %118 {axis = 1 : i32} : tensor<64xf32, #slice2> -> tensor<64x1xf32, #mma>
      %120 = tile.broadcast %119 : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
      %121 = arith.subf %116, %120 : tensor<64x32xf32, #mma>
      %122 = math.exp2 %121 : tensor<64x32xf32, #mma>
      %123 = arith.subf %arg15, %118 : tensor<64xf32, #slice2>
      %124 = math.exp2 %123 : tensor<64xf32, #slice2>
      %125 = arith.mulf %arg14, %124 : tensor<64xf32, #slice2>
      %126 = tile.reduce %122 axis = 1 : (tensor<64x32xf32, #mma>) -> tensor<64xf32, #slice2> {
      ^bb0(%arg16: f32, %arg17: f32):
        %130 = arith.addf %arg16, %arg17 : f32
        tile.reduce.return %130 : f32
      }
      %127 = arith.addf %125, %126 : tensor<64xf32, #slice2>
      %128 = arith.truncf %122 : tensor<64x32xf32, #mma> to tensor<64x32xf16, #mma>
      %129 = tilegpu.convert_layout %128 : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_op>
      scf.yield %108, %129, %124, %127, %118 : tensor<64x32xf32, #mma>, tensor<64x32xf16, #dot_op>, tensor<64xf32, #slice2>, tensor<64xf32, #slice2>, tensor<64xf32, #slice2>
    }
    %62 = tile.expand_dims %61#3 {axis = 1 : i32} : tensor<64xf32, #slice2> -> tensor<64x1xf32, #mma>
    %63 = tile.broadcast %62 : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
    %64 = arith.divf %61#0, %63 : tensor<64x32xf32, #mma>
    %65 = arith.truncf %64 : tensor<64x32xf32, #mma> to tensor<64x32xf16, #mma>
    %66 = tile.splat %arg3 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>, #blocked1>
    %67 = tile.splat %arg8 : i32 -> tensor<64x1xi32, #blocked1>
    %68 = arith.muli %10, %67 : tensor<64x1xi32, #blocked1>
    %69 = tile.addptr %66, %68 : tensor<64x1x!tile.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %70 = tile.broadcast %69 : tensor<64x1x!tile.ptr<f16>, #blocked1> -> tensor<64x32x!tile.ptr<f16>, #blocked1>
    %71 = tile.addptr %70, %17 : tensor<64x32x!tile.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    %72 = tilegpu.convert_layout %65 : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #blocked1>
    tile.store %71, %72, %21 : tensor<64x32x!tile.ptr<f16>, #blocked1>
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

// -----

// A TMA-loaded tile that the dot reads through a transposed view (K^T of
// attention on descriptors) is staged like any other: the copies fill a
// multi-buffer of row-major 32x64 tiles and each iteration's view is
// transposed again for the wgmma.
// CHECK-LABEL: func.func @tma_transposed_b
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<4x32x64xf16, #nvmma>
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: scf.for
// CHECK: tilegpu.wait_barrier
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: %[[STAGE:.*]] = tilegpu.memdesc_index %[[BUF]][%{{.*}}] : <4x32x64xf16, #nvmma> -> <32x64xf16, #nvmma>
// CHECK-NEXT: %[[KT:.*]] = tilegpu.memdesc_trans %[[STAGE]] : <32x64xf16, #nvmma> -> <64x32xf16, #nvmma1>
// CHECK-NEXT: tilegpu.warpgroup_dot %{{.*}}, %[[KT]], %{{.*}} async
// CHECK-NOT: tile.descriptor_load
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @tma_transposed_b(%arg0: !tile.tensordesc<tensor<64x64xf16>>, %arg1: !tile.tensordesc<tensor<32x64xf16>>, %arg2: !tile.ptr<f32>, %arg3: i32) attributes {tile.kernel} {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %cst_0 = arith.constant dense<32> : tensor<64x1xi32, #blocked>
    %c32_i32 = arith.constant 32 : i32
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tile.descriptor_load %arg0[%c0_i32, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked1>
    %1 = tilegpu.local_alloc %0 : (tensor<64x64xf16, #blocked1>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %2 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %cst) -> (tensor<64x32xf32, #mma>)  : i32 {
      %14 = arith.muli %arg4, %c32_i32 : i32
      %15 = tile.descriptor_load %arg1[%14, %c0_i32] : !tile.tensordesc<tensor<32x64xf16>> -> tensor<32x64xf16, #blocked1>
      %16 = tilegpu.local_alloc %15 : (tensor<32x64xf16, #blocked1>) -> !tilegpu.memdesc<32x64xf16, #nvmma>
      %17 = tilegpu.memdesc_trans %16 : <32x64xf16, #nvmma> -> <64x32xf16, #nvmma1>
      %18 = tilegpu.warpgroup_dot %1, %17, %arg5 : !tilegpu.memdesc<64x64xf16, #nvmma> * <64x32xf16, #nvmma1> -> tensor<64x32xf32, #mma>
      scf.yield %18 : tensor<64x32xf32, #mma>
    }
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked>
    %5 = arith.muli %4, %cst_0 : tensor<64x1xi32, #blocked>
    %6 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #blocked>
    %7 = tile.addptr %6, %5 : tensor<64x1x!tile.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %8 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %9 = tile.expand_dims %8 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked2>
    %10 = tile.broadcast %7 : tensor<64x1x!tile.ptr<f32>, #blocked> -> tensor<64x32x!tile.ptr<f32>, #blocked2>
    %11 = tile.broadcast %9 : tensor<1x32xi32, #blocked2> -> tensor<64x32xi32, #blocked2>
    %12 = tile.addptr %10, %11 : tensor<64x32x!tile.ptr<f32>, #blocked2>, tensor<64x32xi32, #blocked2>
    %13 = tilegpu.convert_layout %2 : tensor<64x32xf32, #mma> -> tensor<64x32xf32, #blocked2>
    tile.store %12, %13 : tensor<64x32x!tile.ptr<f32>, #blocked2>
    return
  }
}

// -----

// A pointer-loaded tile that the dot reads through a transposed view
// (attention's K^T, K loaded row-major) is copied by cp.async into a
// multi-buffer of row-major 32x64 tiles, and each iteration's stage is
// viewed transposed for the wgmma: no register load is left in the loop.
// CHECK-LABEL: func.func @pointer_transposed_b
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<{{[0-9]+}}x32x64xf16, #nvmma>
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: scf.for
// CHECK: tilegpu.async_copy_global_to_local
// CHECK-NOT: tile.load
// CHECK: %[[STAGE:.*]] = tilegpu.memdesc_index %[[BUF]][%{{.*}}] : <{{[0-9]+}}x32x64xf16, #nvmma> -> <32x64xf16, #nvmma>
// CHECK-NEXT: %[[KT:.*]] = tilegpu.memdesc_trans %[[STAGE]] : <32x64xf16, #nvmma> -> <64x32xf16, #nvmma1>
// CHECK-NEXT: tilegpu.warpgroup_dot %{{.*}}, %[[KT]], %{{.*}} async
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#rows = #tilegpu.slice<{dim = 1, parent = #blocked}>
#cols = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @pointer_transposed_b(%q: !tilegpu.memdesc<64x64xf16, #nvmma>, %kbase: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) -> tensor<64x32xf32, #mma> {
    %cst = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %step = arith.constant dense<2048> : tensor<32x64xi32, #blocked>
    %width = arith.constant dense<64> : tensor<32x1xi32, #blocked>
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %r0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #rows>
    %r1 = tile.expand_dims %r0 {axis = 1 : i32} : tensor<32xi32, #rows> -> tensor<32x1xi32, #blocked>
    %r2 = arith.muli %r1, %width : tensor<32x1xi32, #blocked>
    %r3 = tile.broadcast %r2 : tensor<32x1xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %c0 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #cols>
    %c1 = tile.expand_dims %c0 {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #blocked>
    %c2 = tile.broadcast %c1 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %offs = arith.addi %r3, %c2 : tensor<32x64xi32, #blocked>
    %base = tile.splat %kbase : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %k = tile.addptr %base, %offs : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %r:2 = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%acc = %cst, %kp = %k) -> (tensor<64x32xf32, #mma>, tensor<32x64x!tile.ptr<f16>, #blocked>)  : i32 {
      %kv = tile.load %kp : tensor<32x64x!tile.ptr<f16>, #blocked>
      %kb = tilegpu.local_alloc %kv : (tensor<32x64xf16, #blocked>) -> !tilegpu.memdesc<32x64xf16, #nvmma>
      %kt = tilegpu.memdesc_trans %kb : <32x64xf16, #nvmma> -> <64x32xf16, #nvmma1>
      %d = tilegpu.warpgroup_dot %q, %kt, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * <64x32xf16, #nvmma1> -> tensor<64x32xf32, #mma>
      %next = tile.addptr %kp, %step : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
      scf.yield %d, %next : tensor<64x32xf32, #mma>, tensor<32x64x!tile.ptr<f16>, #blocked>
    }
    return %r#0 : tensor<64x32xf32, #mma>
  }
}
