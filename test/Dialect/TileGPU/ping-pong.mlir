// RUN: tile-opt %s -split-input-file --tilegpu-ping-pong | FileCheck %s

// Attention's shape: Q*K^T, a wait, the softmax, then P*V carried to the
// next iteration. P*V and the next Q*K^T are one turn (no wait between
// them across the back edge): the turn starts before P*V and ends after
// Q*K^T; the first iteration's Q*K^T ends a turn begun before the loop and
// the last P*V begins one ended after it. The last warpgroup hands the
// first turn to warpgroup 0 at the consumers' start.
// CHECK-LABEL: func.func @attention_like
// CHECK: } consumers(232 registers) {
// CHECK-NEXT: tilegpu.turn_init warpgroups(2) barrier(2)
// CHECK: tilegpu.turn_wait warpgroups(2) barrier(2)
// CHECK-NEXT: scf.for
// CHECK-NEXT:   %[[QK:.*]] = tilegpu.warpgroup_dot
// CHECK-NEXT:   tilegpu.turn_pass warpgroups(2) barrier(2)
// CHECK-NEXT:   tilegpu.warpgroup_dot_wait %[[QK]]
// CHECK-NEXT:   arith.addf
// CHECK-NEXT:   tilegpu.turn_wait warpgroups(2) barrier(2)
// CHECK-NEXT:   tilegpu.warpgroup_dot
// CHECK-NEXT:   scf.yield
// CHECK-NEXT: } {tile.warp_specialize}
// CHECK-NEXT: tilegpu.turn_pass warpgroups(2) barrier(2)
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @attention_like(%a: !tilegpu.memdesc<128x64xf16, #nvmma>, %b: !tilegpu.memdesc<64x64xf16, #nvmma>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %acc0, %o = %acc0) -> (tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>) : i32 {
      %qk = tilegpu.warpgroup_dot %a, %b, %acc0 async : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #mma>
      %w = tilegpu.warpgroup_dot_wait %qk {pendings = 0 : i32} : tensor<128x64xf32, #mma>
      %p = arith.addf %w, %s : tensor<128x64xf32, #mma>
      %pv = tilegpu.warpgroup_dot %a, %b, %o async : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #mma>
      scf.yield %p, %pv : tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>
    } {tile.warp_specialize}
  }
  return
}
}

// -----

// A consumer barrier in the loop: a warpgroup waiting for its turn would
// never meet the other at it, so no turns.
// CHECK-LABEL: func.func @barrier_in_loop
// CHECK-NOT: tilegpu.turn_
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @barrier_in_loop(%a: !tilegpu.memdesc<128x64xf16, #nvmma>, %b: !tilegpu.memdesc<64x64xf16, #nvmma>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %acc0, %o = %acc0) -> (tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>) : i32 {
      %qk = tilegpu.warpgroup_dot %a, %b, %acc0 async : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #mma>
      %w = tilegpu.warpgroup_dot_wait %qk {pendings = 0 : i32} : tensor<128x64xf32, #mma>
      tilegpu.barrier
      %pv = tilegpu.warpgroup_dot %a, %b, %o async : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #mma>
      scf.yield %w, %pv : tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>
    } {tile.warp_specialize}
  }
  return
}
}

// -----

// A K loop (one dot): turns would only serialise the warpgroups' MMAs.
// CHECK-LABEL: func.func @k_loop
// CHECK-NOT: tilegpu.turn_
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @k_loop(%a: !tilegpu.memdesc<128x64xf16, #nvmma>, %b: !tilegpu.memdesc<64x64xf16, #nvmma>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%o = %acc0) -> (tensor<128x64xf32, #mma>) : i32 {
      %d = tilegpu.warpgroup_dot %a, %b, %o async : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #mma>
      %w = tilegpu.warpgroup_dot_wait %d {pendings = 1 : i32} : tensor<128x64xf32, #mma>
      scf.yield %w : tensor<128x64xf32, #mma>
    } {tile.warp_specialize}
  }
  return
}
}

// -----

// One consumer warpgroup has nobody to take turns with.
// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT: tilegpu.turn_
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @one_warpgroup(%a: !tilegpu.memdesc<64x64xf16, #nvmma>, %b: !tilegpu.memdesc<64x64xf16, #nvmma>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
  } consumers(232 registers) {
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %acc0, %o = %acc0) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
      %qk = tilegpu.warpgroup_dot %a, %b, %acc0 async : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      %w = tilegpu.warpgroup_dot_wait %qk {pendings = 0 : i32} : tensor<64x64xf32, #mma>
      %pv = tilegpu.warpgroup_dot %a, %b, %o async : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %w, %pv : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
    } {tile.warp_specialize}
  }
  return
}
}
