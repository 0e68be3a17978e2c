// RUN: tile-opt %s --convert-tile-to-tilegpu --tilegpu-coalesce | FileCheck %s

// Rows 16-byte aligned (stride a multiple of 16): 128-bit loads along the
// minor dimension. Rows of unknown alignment: one element per access, but
// still a warp along the row.
// CHECK-DAG: #[[V4:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[V1:.*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-LABEL: func.func @rows
// CHECK: %[[P:.*]] = tilegpu.convert_layout %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[V1]]> -> tensor<32x64x!tile.ptr<f32>, #[[V4]]>
// CHECK: tile.load %[[P]] : tensor<32x64x!tile.ptr<f32>, #[[V4]]>
// CHECK: tile.store %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[V1]]>

func.func @rows(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %ustride: i32) attributes {tile.kernel} {
  %r = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %c = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %s = tile.splat %stride : i32 -> tensor<32x1xi32>
  %ro = arith.muli %r2, %s : tensor<32x1xi32>
  %rb = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %o = arith.addi %rb, %cb : tensor<32x64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %o : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %x = tile.load %ptrs : tensor<32x64x!tile.ptr<f32>>
  %us = tile.splat %ustride : i32 -> tensor<32x1xi32>
  %uo = arith.muli %r2, %us : tensor<32x1xi32>
  %ub = tile.broadcast %uo : tensor<32x1xi32> -> tensor<32x64xi32>
  %uoffs = arith.addi %ub, %cb : tensor<32x64xi32>
  %uptrs = tile.addptr %ps, %uoffs : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  tile.store %uptrs, %x : tensor<32x64x!tile.ptr<f32>>
  return
}


// Without alignment facts the default layout stays.
// CHECK-LABEL: func.func @unaligned_1d
// CHECK-NOT: convert_layout
// CHECK: tile.load %{{.*}} : tensor<256x!tile.ptr<f16>, #blocked>
func.func @unaligned_1d(%p: !tile.ptr<f16>) attributes {tile.kernel} {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<256x!tile.ptr<f16>>
  %ptrs = tile.addptr %ps, %r : tensor<256x!tile.ptr<f16>>, tensor<256xi32>
  %x = tile.load %ptrs : tensor<256x!tile.ptr<f16>>
  tile.store %ptrs, %x : tensor<256x!tile.ptr<f16>>
  return
}
