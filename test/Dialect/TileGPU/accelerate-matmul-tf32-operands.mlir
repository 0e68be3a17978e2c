// RUN: tile-opt %s -split-input-file --tilegpu-accelerate-matmul | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-accelerate-matmul="stage-register-loads=false" | FileCheck %s --check-prefix=UNSTAGED
// RUN: tile-opt %s -split-input-file --tilegpu-accelerate-matmul="num-stages=1" | FileCheck %s --check-prefix=UNSTAGED

// Where a tf32 A lives. A tile widened from a bf16 load in a loop that
// tilegpu-pipeline will copy ahead is read from that copy straight into
// the fragment layout, so wgmma takes it from registers (kWidth 1); the
// product of another dot is shuffled into the fragment within each warp.
// When the pipeliner will not copy the load ahead (register loads not
// staged, or no pipelining), the widened tile is staged in shared memory
// as before: its conversion to the fragment would cost a trip through
// shared memory on top of the copy.
// CHECK-DAG: #[[OP:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #{{.*}}, kWidth = 1}>
// CHECK-LABEL: func.func @widened_load_in_a_loop
// CHECK: scf.for
// CHECK: arith.extf
// CHECK: %[[A:.*]] = tilegpu.convert_layout {{.*}} -> tensor<64x32xf32, #[[OP]]>
// CHECK: tilegpu.warpgroup_dot %[[A]], {{.*}} : tensor<64x32xf32, #[[OP]]> *
// UNSTAGED-LABEL: func.func @widened_load_in_a_loop
// UNSTAGED: scf.for
// UNSTAGED: %[[A:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x32xf32
// UNSTAGED: tilegpu.warpgroup_dot %[[A]],
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @widened_load_in_a_loop(%p: tensor<64x32x!tile.ptr<bf16>, #blocked>, %b: tensor<32x64xf32, #blocked>, %n: i32) -> tensor<64x64xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #blocked>) : i32 {
      %x = tile.load %p : tensor<64x32x!tile.ptr<bf16>, #blocked>
      %a = arith.extf %x : tensor<64x32xbf16, #blocked> to tensor<64x32xf32, #blocked>
      %d = tile.dot %a, %b, %acc inputPrecision = tf32 : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
      scf.yield %d : tensor<64x64xf32, #blocked>
    }
    return %r : tensor<64x64xf32, #blocked>
  }
}

// -----

// Outside any loop, and in a loop of two steps (fewer than its three
// stages, which the pipeliner leaves alone), the widened tile is staged.
// CHECK-LABEL: func.func @widened_load_not_copied_ahead
// CHECK: %[[A:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x32xf32
// CHECK: tilegpu.warpgroup_dot %[[A]],
// CHECK: scf.for
// CHECK: %[[B:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x32xf32
// CHECK: tilegpu.warpgroup_dot %[[B]],
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @widened_load_not_copied_ahead(%p: tensor<64x32x!tile.ptr<bf16>, #blocked>, %b: tensor<32x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
    %x = tile.load %p : tensor<64x32x!tile.ptr<bf16>, #blocked>
    %a = arith.extf %x : tensor<64x32xbf16, #blocked> to tensor<64x32xf32, #blocked>
    %first = tile.dot %a, %b, %zero inputPrecision = tf32 : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %first) -> (tensor<64x64xf32, #blocked>) : i32 {
      %y = tile.load %p : tensor<64x32x!tile.ptr<bf16>, #blocked>
      %e = arith.extf %y : tensor<64x32xbf16, #blocked> to tensor<64x32xf32, #blocked>
      %d = tile.dot %e, %b, %acc inputPrecision = tf32 : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
      scf.yield %d : tensor<64x64xf32, #blocked>
    }
    return %r : tensor<64x64xf32, #blocked>
  }
}

// -----

// A computed tf32 tile (a scaled product) takes registers; a carried one
// is read from shared memory, as Triton does: as an operand it would take
// as many registers again as the accumulator that carries it.
// CHECK-LABEL: func.func @computed_and_carried
// CHECK: scf.for {{.*}} iter_args(%[[T:arg[0-9]+]] =
// CHECK: %[[S:.*]] = tilegpu.local_alloc %[[T]] : (tensor<64x64xf32
// CHECK: %[[P:.*]] = tilegpu.warpgroup_dot %[[S]],
// CHECK: %[[R:.*]] = tilegpu.convert_layout {{.*}} -> tensor<64x64xf32, #dot_op{{[0-9]*}}>
// CHECK: tilegpu.warpgroup_dot %[[R]],
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @computed_and_carried(%t0: tensor<64x64xf32, #blocked>, %b: tensor<64x64xf32, #blocked>, %n: i32) -> tensor<64x64xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %half = arith.constant dense<0.5> : tensor<64x64xf32, #blocked>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%t = %t0, %acc = %zero) -> (tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>) : i32 {
      %p = tile.dot %t, %b, %zero inputPrecision = tf32 : tensor<64x64xf32, #blocked> * tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
      %s = arith.mulf %p, %half : tensor<64x64xf32, #blocked>
      %d = tile.dot %s, %b, %acc inputPrecision = tf32 : tensor<64x64xf32, #blocked> * tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
      scf.yield %s, %d : tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>
    }
    return %r#1 : tensor<64x64xf32, #blocked>
  }
}
