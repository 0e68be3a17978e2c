// RUN: tile-opt %s --tilegpu-allocate-shared-memory | FileCheck %s

// A gather's scratch holds its whole source (any index may name any
// element): 16 x 32 f32 is 2048 bytes, whatever the indices' shape.
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 2048 : i64
// CHECK: tile.gather {{.*}} {tilegpu.offset = 0 : i64}
#row = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @gather(%x: tensor<16x32xf32, #row>, %i: tensor<16x8xi32, #row>) attributes {tile.kernel} {
    %0 = tile.gather %x[%i] axis = 1 : (tensor<16x32xf32, #row>, tensor<16x8xi32, #row>) -> tensor<16x8xf32, #row>
    return
  }
}
