// RUN: tile-opt %s -split-input-file --tilegpu-warp-specialize --canonicalize | FileCheck %s

// A persistent kernel marks its tile loop (Triton's persistent tutorials);
// the K loop inside it takes the mark. The producer runs the same tile loop
// around its copy loop, carrying the stage and parity from tile to tile;
// the consumers' tile loop carries the read index and phase into each K
// loop and back out, releases each tile's last buffer after the loop's
// final wait (when the K loop ran), and frees the buffers after the tile
// loop, not after each K loop (the producer is filling them for the next
// tile meanwhile).
// CHECK-LABEL: func.func @persistent
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma>
// CHECK: %[[FULL:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x1xi64, #shared>
// CHECK: %[[EMPTY:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x1xi64, #shared>
// CHECK: tilegpu.warp_specialize producer
// CHECK: %[[PID:.*]] = tile.get_program_id x
// CHECK: scf.for %[[T:.*]] = %[[PID]] to %arg4 step %arg5 iter_args(%[[TS:.*]] = %c0_i32, %[[TP:.*]] = %c0_i32)
// CHECK:   %[[M:.*]] = arith.muli %[[T]], %c64_i32
// CHECK:   %[[C:.*]]:2 = scf.for %{{.*}} = %c0_i32 to %arg3 step %c1_i32 iter_args(%{{.*}} = %[[TS]], %{{.*}} = %[[TP]])
// CHECK:     tilegpu.async_tma_copy_global_to_local %arg0[%[[M]],
// CHECK:   scf.yield %[[C]]#0, %[[C]]#1
// CHECK: } consumers
// CHECK: %[[OUT:.*]]:2 = scf.for %{{.*}} iter_args(%[[RS:.*]] = %c0_i32, %[[RP:.*]] = %c0_i32)
// CHECK:   %[[G:.*]]:3 = scf.if
// CHECK:     scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[RS]], %{{.*}} = %[[RP]])
// CHECK:     } {tile.warp_specialize}
// CHECK:   } else {
// CHECK:     scf.yield %{{.*}}, %[[RS]], %[[RP]]
// CHECK:   %[[WRAP:.*]] = arith.cmpi eq, %[[G]]#1, %c0_i32
// CHECK:   %[[LAST:.*]] = arith.select %[[WRAP]], %c2_i32,
// CHECK:   %[[RAN:.*]] = arith.cmpi sgt, %arg3, %c0_i32
// CHECK:   %[[E:.*]] = tilegpu.memdesc_index %[[EMPTY]][%[[LAST]]]
// CHECK:   tilegpu.arrive_barrier %[[E]], %[[RAN]]
// CHECK:   tile.descriptor_store
// CHECK-NOT: tilegpu.local_dealloc %[[A]]
// CHECK:   scf.yield %[[G]]#1, %[[G]]#2
// CHECK: } {tile.warp_specialize}
// CHECK: tilegpu.local_dealloc %[[A]]
// CHECK: tilegpu.local_dealloc %[[B]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @persistent(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                      %cd: !tile.tensordesc<tensor<64x64xf32>>, %n: i32, %tiles: i32, %programs: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %t = %pid to %tiles step %programs : i32 {
    %m = arith.muli %t, %c64 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %d = tilegpu.warpgroup_dot %as, %bs, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tile.descriptor_store %cd[%m, %m], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  return
}
}

// -----

// Left alone: the K loop's coordinates follow a value the tile loop
// carries (the producer follows the tile loop's induction variable only),
// a K loop below an `scf.if` in the tile loop (the producer would have to
// follow the branch), and two K loops a tile (a causal attention's
// off-diagonal and diagonal blocks: the second would run without a
// producer). All keep the ordinary pipeline.
// CHECK-LABEL: func.func @carried_coordinate
// CHECK-NOT: tilegpu.warp_specialize
// CHECK-LABEL: func.func @below_a_branch
// CHECK-NOT: tilegpu.warp_specialize
// CHECK-LABEL: func.func @two_loops_a_tile
// CHECK-NOT: tilegpu.warp_specialize
// CHECK: return
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @carried_coordinate(%ad: !tile.tensordesc<tensor<64x64xf16>>, %cd: !tile.tensordesc<tensor<64x64xf32>>,
                              %n: i32, %tiles: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %last = scf.for %t = %c0 to %tiles step %c1 iter_args(%row = %c0) -> (i32) : i32 {
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %a = tile.descriptor_load %ad[%row, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %d = tilegpu.warpgroup_dot %as, %as, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tile.descriptor_store %cd[%row, %c0], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
    %next = arith.addi %row, %c64 : i32
    scf.yield %next : i32
  } {tile.warp_specialize}
  return
}
func.func @below_a_branch(%ad: !tile.tensordesc<tensor<64x64xf16>>, %cd: !tile.tensordesc<tensor<64x64xf32>>,
                          %n: i32, %tiles: i32, %run: i1) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %m = arith.muli %t, %c64 : i32
    scf.if %run {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
        %k = arith.muli %i, %c64 : i32
        %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
        %d = tilegpu.warpgroup_dot %as, %as, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
        scf.yield %d : tensor<64x64xf32, #mma>
      }
      tile.descriptor_store %cd[%m, %c0], %r : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
    }
  } {tile.warp_specialize}
  return
}
func.func @two_loops_a_tile(%ad: !tile.tensordesc<tensor<64x64xf16>>, %cd: !tile.tensordesc<tensor<64x64xf32>>,
                            %n: i32, %tiles: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %t = %c0 to %tiles step %c1 : i32 {
    %m = arith.muli %t, %c64 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %d = tilegpu.warpgroup_dot %as, %as, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32, #mma>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %a = tile.descriptor_load %ad[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %d = tilegpu.warpgroup_dot %as, %as, %acc : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tile.descriptor_store %cd[%m, %c0], %r2 : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  return
}
}
