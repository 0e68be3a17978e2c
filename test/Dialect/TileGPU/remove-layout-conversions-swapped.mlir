// RUN: tile-opt %s --tilegpu-swap-dot-operands --tilegpu-accelerate-matmul --tilegpu-remove-layout-conversions --canonicalize --cse | FileCheck %s

// A swapped product in a K loop (an int4-style weight unpacked from int8):
//  - the register operand's conversion moves through the transposition and
//    the unpacking to the packed int8 tile, the only tile that changes
//    threads; the shifts and the cast run in the (permuted) operand layout;
//  - the accumulator is carried in the transposed mma layout, so the
//    transpositions around the dot are register renamings in the loop.
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16], adjacentRows = true}>
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHECK-DAG: #[[PA:.*]] = #tilegpu.permuted<{order = [1, 0], parent = #[[OPA]]}>
// CHECK-DAG: #[[PACC:.*]] = #tilegpu.permuted<{order = [1, 0], parent = #[[MMA]]}>
// CHECK-LABEL: func.func @int4_loop
// CHECK: scf.for {{.*}} -> (tensor<64x128xf32, #[[PACC]]>)
// CHECK: %[[P:.*]] = tile.load %{{.*}} : tensor<32x128x!tile.ptr<i8>
// CHECK: %[[Q:.*]] = tilegpu.convert_layout %[[P]] : tensor<32x128xi8, #{{.*}}> -> tensor<32x128xi8, #[[PA]]>
// CHECK: arith.shli %[[Q]], %{{.*}} : tensor<32x128xi8, #[[PA]]>
// CHECK: %[[W:.*]] = arith.sitofp %{{.*}} : tensor<32x128xi8, #[[PA]]> to tensor<32x128xbf16, #[[PA]]>
// CHECK: %[[A:.*]] = tile.trans %[[W]] {order = array<i32: 1, 0>} : tensor<32x128xbf16, #[[PA]]> -> tensor<128x32xbf16, #[[OPA]]>
// CHECK-NOT: convert_layout
// CHECK: tilegpu.warpgroup_dot %[[A]]
// CHECK-NOT: convert_layout
// CHECK: scf.yield %{{.*}} : tensor<64x128xf32, #[[PACC]]>
#bl = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#al = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#cl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @int4_loop(%pa: tensor<64x32x!tile.ptr<bf16>, #al>, %pw: tensor<32x128x!tile.ptr<i8>, #bl>, %out: tensor<64x128x!tile.ptr<f32>, #cl>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %four = arith.constant dense<4> : tensor<32x128xi8, #bl>
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #cl>
    %acc = scf.for %k = %c0 to %n step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #cl>) : i32 {
      %a = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #al>
      %packed = tile.load %pw : tensor<32x128x!tile.ptr<i8>, #bl>
      %s = arith.shli %packed, %four : tensor<32x128xi8, #bl>
      %lo = arith.shrsi %s, %four : tensor<32x128xi8, #bl>
      %w = arith.sitofp %lo : tensor<32x128xi8, #bl> to tensor<32x128xbf16, #bl>
      %d = tile.dot %a, %w, %c : tensor<64x32xbf16, #al> * tensor<32x128xbf16, #bl> -> tensor<64x128xf32, #cl>
      scf.yield %d : tensor<64x128xf32, #cl>
    }
    tile.store %out, %acc : tensor<64x128x!tile.ptr<f32>, #cl>
    return
  }
}
