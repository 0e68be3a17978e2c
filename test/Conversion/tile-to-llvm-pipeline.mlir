// RUN: tile-opt %s --convert-tile-to-tilegpu | FileCheck %s --check-prefix=LAYOUT
// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-coalesce --tilegpu-remove-layout-conversions --cse | FileCheck %s --check-prefix=COALESCE
// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-coalesce --tilegpu-remove-layout-conversions --cse --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --convert-tilegpu-to-llvm --convert-scf-to-cf --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// LAYOUT: #[[B:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// LAYOUT: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"}
// LAYOUT: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[B]]>

// The pointers are 16-byte aligned and contiguous: four f32 per thread, and
// no conversion left behind.
// COALESCE: #[[B4:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// COALESCE-NOT: convert_layout
// COALESCE: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[B4]]>
// COALESCE-NOT: convert_layout
// COALESCE: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[B4]]>

// LLVM: llvm.func @add_kernel({{.*}}) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
// LLVM: nvvm.read.ptx.sreg.tid.x
// LLVM: llvm.inline_asm {{.*}}ld.global.v4.b32
// LLVM: llvm.inline_asm has_side_effects {{.*}}st.global.v4.b32

func.func @add_kernel(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %0 = tile.get_program_id x
  %c1024_i32 = arith.constant 1024 : i32
  %1 = arith.muli %0, %c1024_i32 : i32
  %2 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %3 = tile.splat %1 : i32 -> tensor<1024xi32>
  %4 = arith.addi %3, %2 : tensor<1024xi32>
  %5 = tile.splat %arg3 : i32 -> tensor<1024xi32>
  %6 = arith.cmpi slt, %4, %5 : tensor<1024xi32>
  %7 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %8 = tile.addptr %7, %4 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %9 = tile.load %8, %6 : tensor<1024x!tile.ptr<f32>>
  %10 = tile.splat %arg1 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %11 = tile.addptr %10, %4 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %12 = tile.load %11, %6 : tensor<1024x!tile.ptr<f32>>
  %13 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %14 = tile.addptr %13, %4 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %15 = arith.addf %9, %12 : tensor<1024xf32>
  tile.store %14, %15, %6 : tensor<1024x!tile.ptr<f32>>
  return
}
