// RUN: tile-opt %s --convert-tilegpu-to-llvm | FileCheck %s

// Turns among two consumer warpgroups: g = (consumer warp) / 4 with
// consumer warps counted from thread 128 (lane 0's, broadcast). The last warpgroup arrives on
// warpgroup 0's barrier 2 once; a wait syncs on barrier 2 + g, a pass
// arrives on 2 + (g + 1) % 2, each with both warpgroups' 256 threads.
// CHECK-LABEL: func.func @k
// CHECK: %[[W0:.*]] = arith.shrui %{{.*}}, %c5_i32
// CHECK: %[[WARP0:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[W0]], %c0_i32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[CTID:.*]] = arith.subi %[[TID]], %c128_i32
// CHECK: %[[W:.*]] = arith.shrui %[[CTID]], %c5_i32
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[W]], %c0_i32
// CHECK: arith.cmpi ult, %[[WARP0]], %c4_i32
// CHECK: "setmaxnreg.inc.sync.aligned.u32 240;"
// CHECK: %[[G0:.*]] = arith.shrui %[[WARP]], %c2_i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[G0]], %c1_i32
// CHECK: "@$0 bar.arrive 2, 256;", "b" %[[LAST]]
// CHECK: %[[G1:.*]] = arith.shrui %[[WARP]], %c2_i32
// CHECK: %[[MINE:.*]] = arith.addi %[[G1]], %c2_i32
// The wait sits alone in a block (a back edge never taken) so that ptxas
// cannot slide the arithmetic before it under it.
// CHECK: "{\0A.reg .pred again;\0Asetp.gt.u32 again, $0, 15;\0Aturn_wait:\0Abar.sync $0, 256;\0A@again bra.uni turn_wait;\0A}", "r" %[[MINE]]
// CHECK: %[[G2:.*]] = arith.shrui %[[WARP]], %c2_i32
// CHECK: %[[PLUS:.*]] = arith.addi %[[G2]], %c1_i32
// CHECK: %[[NEXT:.*]] = arith.remui %[[PLUS]], %c2_i32
// CHECK: %[[ID:.*]] = arith.addi %[[NEXT]], %c2_i32
// CHECK: "bar.arrive $0, 256;", "r" %[[ID]]
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @k() attributes {tile.kernel} {
  tilegpu.warp_specialize producer(4 warps, 24 registers) {
  } consumers(240 registers) {
    tilegpu.turn_init warpgroups(2) barrier(2)
    tilegpu.turn_wait warpgroups(2) barrier(2)
    tilegpu.turn_pass warpgroups(2) barrier(2)
  }
  return
}
}
