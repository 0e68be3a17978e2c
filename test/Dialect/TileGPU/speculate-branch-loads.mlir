// RUN: tile-opt %s -split-input-file --tilegpu-speculate-branch-loads | FileCheck %s

#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// A lock's critical section as the layer-norm backward writes it: the
// partial row is read only when the slot is taken already, and written
// either way. The read moves before the if, with the pointers it reads
// (recomputed in the branch by the front end), beside the count's load.
// CHECK-LABEL: func.func @partial_sum
// CHECK: %[[COUNT:.*]] = tile.load %arg1 : !tile.ptr<i32>
// CHECK: %[[SPLAT:.*]] = tile.splat %arg0
// CHECK-NEXT: %[[PTRS:.*]] = tile.addptr %[[SPLAT]], %arg3
// CHECK-NEXT: %[[OLD:.*]] = tile.load %[[PTRS]], %arg4
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.atomic_rmw xchg
// CHECK: } else {
// CHECK-NEXT: arith.addf %arg2, %[[OLD]]
// CHECK: tile.store
func.func @partial_sum(%base: !tile.ptr<f16>, %count: !tile.ptr<i32>, %v: tensor<512xf16, #blocked>, %offs: tensor<512xi32, #blocked>, %mask: tensor<512xi1, #blocked>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = tile.load %count : !tile.ptr<i32>
  %first = arith.cmpi eq, %n, %c0 : i32
  %sum = scf.if %first -> (tensor<512xf16, #blocked>) {
    %x = tile.atomic_rmw xchg, acq_rel, gpu, %count, %c1 : !tile.ptr<i32>
    scf.yield %v : tensor<512xf16, #blocked>
  } else {
    %s = tile.splat %base : !tile.ptr<f16> -> tensor<512x!tile.ptr<f16>, #blocked>
    %p = tile.addptr %s, %offs : tensor<512x!tile.ptr<f16>, #blocked>, tensor<512xi32, #blocked>
    %old = tile.load %p, %mask : tensor<512x!tile.ptr<f16>, #blocked>
    %new = arith.addf %v, %old : tensor<512xf16, #blocked>
    scf.yield %new : tensor<512xf16, #blocked>
  }
  %s2 = tile.splat %base : !tile.ptr<f16> -> tensor<512x!tile.ptr<f16>, #blocked>
  %p2 = tile.addptr %s2, %offs : tensor<512x!tile.ptr<f16>, #blocked>, tensor<512xi32, #blocked>
  tile.store %p2, %sum, %mask : tensor<512x!tile.ptr<f16>, #blocked>
  return
}

// Nothing after the if touches those pointers: the branch may be what
// makes them valid, so the load stays in it.
// CHECK-LABEL: func.func @not_accessed_after
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: tile.load %arg1, %arg3
func.func @not_accessed_after(%c: i1, %p: tensor<512x!tile.ptr<f16>, #blocked>, %v: tensor<512xf16, #blocked>, %mask: tensor<512xi1, #blocked>, %out: tensor<512x!tile.ptr<f16>, #blocked>) attributes {tile.kernel} {
  %sum = scf.if %c -> (tensor<512xf16, #blocked>) {
    scf.yield %v : tensor<512xf16, #blocked>
  } else {
    %old = tile.load %p, %mask : tensor<512x!tile.ptr<f16>, #blocked>
    scf.yield %old : tensor<512xf16, #blocked>
  }
  tile.store %out, %sum, %mask : tensor<512x!tile.ptr<f16>, #blocked>
  return
}

// The later store covers other elements (another mask): not hoisted.
// CHECK-LABEL: func.func @other_mask
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: tile.load %arg1, %arg3
func.func @other_mask(%c: i1, %p: tensor<512x!tile.ptr<f16>, #blocked>, %v: tensor<512xf16, #blocked>, %mask: tensor<512xi1, #blocked>, %mask2: tensor<512xi1, #blocked>) attributes {tile.kernel} {
  %sum = scf.if %c -> (tensor<512xf16, #blocked>) {
    scf.yield %v : tensor<512xf16, #blocked>
  } else {
    %old = tile.load %p, %mask : tensor<512x!tile.ptr<f16>, #blocked>
    scf.yield %old : tensor<512xf16, #blocked>
  }
  tile.store %p, %sum, %mask2 : tensor<512x!tile.ptr<f16>, #blocked>
  return
}

// Masks computed alike but for the predicate are different masks.
// CHECK-LABEL: func.func @other_predicate
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: tile.load %arg1
func.func @other_predicate(%c: i1, %p: tensor<512x!tile.ptr<f16>, #blocked>, %v: tensor<512xf16, #blocked>, %a: tensor<512xi32, #blocked>, %b: tensor<512xi32, #blocked>) attributes {tile.kernel} {
  %sum = scf.if %c -> (tensor<512xf16, #blocked>) {
    scf.yield %v : tensor<512xf16, #blocked>
  } else {
    %m = arith.cmpi slt, %a, %b : tensor<512xi32, #blocked>
    %old = tile.load %p, %m : tensor<512x!tile.ptr<f16>, #blocked>
    scf.yield %old : tensor<512xf16, #blocked>
  }
  %m2 = arith.cmpi sle, %a, %b : tensor<512xi32, #blocked>
  tile.store %p, %sum, %m2 : tensor<512x!tile.ptr<f16>, #blocked>
  return
}

// A write before the load in its branch may change what it reads (an
// atomic here): the load stays after it.
// CHECK-LABEL: func.func @write_first
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: tile.atomic_rmw
// CHECK-NEXT: tile.load %arg1, %arg3
func.func @write_first(%c: i1, %p: tensor<512x!tile.ptr<f16>, #blocked>, %v: tensor<512xf16, #blocked>, %mask: tensor<512xi1, #blocked>, %flag: !tile.ptr<i32>) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %sum = scf.if %c -> (tensor<512xf16, #blocked>) {
    scf.yield %v : tensor<512xf16, #blocked>
  } else {
    %x = tile.atomic_rmw xchg, acq_rel, gpu, %flag, %c1 : !tile.ptr<i32>
    %old = tile.load %p, %mask : tensor<512x!tile.ptr<f16>, #blocked>
    scf.yield %old : tensor<512xf16, #blocked>
  }
  tile.store %p, %sum, %mask : tensor<512x!tile.ptr<f16>, #blocked>
  return
}

// A volatile load keeps its place.
// CHECK-LABEL: func.func @volatile
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: tile.load %arg1, %arg3 volatile
func.func @volatile(%c: i1, %p: tensor<512x!tile.ptr<f16>, #blocked>, %v: tensor<512xf16, #blocked>, %mask: tensor<512xi1, #blocked>) attributes {tile.kernel} {
  %sum = scf.if %c -> (tensor<512xf16, #blocked>) {
    scf.yield %v : tensor<512xf16, #blocked>
  } else {
    %old = tile.load %p, %mask volatile : tensor<512x!tile.ptr<f16>, #blocked>
    scf.yield %old : tensor<512xf16, #blocked>
  }
  tile.store %p, %sum, %mask : tensor<512x!tile.ptr<f16>, #blocked>
  return
}

// Pointers computed from a value the branch loads cannot move.
// CHECK-LABEL: func.func @pointer_from_branch
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: tile.load %arg4
// CHECK: tile.load
func.func @pointer_from_branch(%c: i1, %p: tensor<512x!tile.ptr<f16>, #blocked>, %v: tensor<512xf16, #blocked>, %mask: tensor<512xi1, #blocked>, %step: !tile.ptr<i32>) attributes {tile.kernel} {
  %sum = scf.if %c -> (tensor<512xf16, #blocked>) {
    scf.yield %v : tensor<512xf16, #blocked>
  } else {
    %k = tile.load %step : !tile.ptr<i32>
    %ks = tile.splat %k : i32 -> tensor<512xi32, #blocked>
    %q = tile.addptr %p, %ks : tensor<512x!tile.ptr<f16>, #blocked>, tensor<512xi32, #blocked>
    %old = tile.load %q, %mask : tensor<512x!tile.ptr<f16>, #blocked>
    scf.yield %old : tensor<512xf16, #blocked>
  }
  tile.store %p, %sum, %mask : tensor<512x!tile.ptr<f16>, #blocked>
  return
}
}
