// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --split-input-file | FileCheck %s --check-prefix=ALLOC
// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-allocate-shared-memory --tilegpu-insert-barriers --convert-tilegpu-to-llvm --split-input-file | FileCheck %s

// 256 elements over 4 warps: 2 registers, 5 lane shuffles, 4 warp partials.
// ALLOC: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16 : i64
// ALLOC: tile.reduce {{.*}} {tilegpu.offset = 0 : i64}
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK: nvvm.barrier0
// CHECK-NOT: tile.reduce
func.func @sum(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %a = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %a : tensor<256x!tile.ptr<f32>>
  %s = tile.reduce %x axis = 0 : (tensor<256xf32>) -> f32 {
  ^bb0(%l: f32, %rr: f32):
    %t = arith.addf %l, %rr : f32
    tile.reduce.return %t : f32
  }
  tile.store %p, %s : !tile.ptr<f32>
  return
}
// -----

// Four registers of a row per thread combine as a tree, neighbours first
// ((r0, r1), (r2, r3)), before the lane shuffles.
// CHECK-LABEL: func.func @row_max
// CHECK: %[[R0:.*]] = llvm.inline_asm {{.*}}ld.global.b32
// CHECK: %[[R1:.*]] = llvm.inline_asm {{.*}}ld.global.b32
// CHECK: %[[R2:.*]] = llvm.inline_asm {{.*}}ld.global.b32
// CHECK: %[[R3:.*]] = llvm.inline_asm {{.*}}ld.global.b32
// CHECK-NEXT: %[[P0:.*]] = arith.maxnumf %[[R0]], %[[R1]] : f32
// CHECK-NEXT: %[[P1:.*]] = arith.maxnumf %[[R2]], %[[R3]] : f32
// CHECK-NEXT: %[[ROW:.*]] = arith.maxnumf %[[P0]], %[[P1]] : f32
// CHECK: nvvm.shfl.sync bfly
// CHECK: arith.maxnumf %[[ROW]]
#row = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tilegpu.slice<{dim = 1, parent = #row}>
#cols = #tilegpu.slice<{dim = 0, parent = #row}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @row_max(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %c64 = arith.constant dense<64> : tensor<8x1xi32, #row>
  %r = tile.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32, #rows>
  %c = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #cols>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<8xi32, #rows> -> tensor<8x1xi32, #row>
  %rs = arith.muli %r2, %c64 : tensor<8x1xi32, #row>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #row>
  %rb = tile.broadcast %rs : tensor<8x1xi32, #row> -> tensor<8x64xi32, #row>
  %cb = tile.broadcast %c2 : tensor<1x64xi32, #row> -> tensor<8x64xi32, #row>
  %o = arith.addi %rb, %cb : tensor<8x64xi32, #row>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<8x64x!tile.ptr<f32>, #row>
  %a = tile.addptr %ps, %o : tensor<8x64x!tile.ptr<f32>, #row>, tensor<8x64xi32, #row>
  %x = tile.load %a : tensor<8x64x!tile.ptr<f32>, #row>
  %m = tile.reduce %x axis = 1 : (tensor<8x64xf32, #row>) -> tensor<8xf32, #rows> {
  ^bb0(%l: f32, %rr: f32):
    %t = arith.maxnumf %l, %rr : f32
    tile.reduce.return %t : f32
  }
  %ps8 = tile.splat %p : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>, #rows>
  %a8 = tile.addptr %ps8, %r : tensor<8x!tile.ptr<f32>, #rows>, tensor<8xi32, #rows>
  tile.store %a8, %m : tensor<8x!tile.ptr<f32>, #rows>
  return
}
}
