// RUN: tile-opt %s --inline --symbol-dce | FileCheck %s

// @jit helpers reach the IR as private functions; every Tile op in them, and
// the combiner regions of reductions, must inline into any caller region
// (here a loop body).

// CHECK-LABEL: func.func @kernel
// CHECK-NOT: func.call
// CHECK: scf.for
// CHECK: tile.splat
// CHECK: tile.reduce
// CHECK-NOT: func.func private
func.func private @helper(%a: tensor<32xi32>, %c: i32) -> tensor<32xi32> {
  %0 = tile.splat %c : i32 -> tensor<32xi32>
  %1 = arith.subi %a, %0 : tensor<32xi32>
  %2 = tile.reduce %1 axis = 0 : (tensor<32xi32>) -> i32 {
  ^bb0(%x: i32, %y: i32):
    %s = arith.addi %x, %y : i32
    tile.reduce.return %s : i32
  }
  %3 = tile.splat %2 : i32 -> tensor<32xi32>
  %4 = arith.addi %1, %3 : tensor<32xi32>
  return %4 : tensor<32xi32>
}

func.func @kernel(%out: !tile.ptr<i32>, %n: i32, %c: i32) attributes {tile.kernel} {
  %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %1 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %0) -> (tensor<32xi32>) : i32 {
    %2 = func.call @helper(%x, %c) : (tensor<32xi32>, i32) -> tensor<32xi32>
    scf.yield %2 : tensor<32xi32>
  }
  %p = tile.splat %out : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>>
  %q = tile.addptr %p, %0 : tensor<32x!tile.ptr<i32>>, tensor<32xi32>
  tile.store %q, %1 : tensor<32x!tile.ptr<i32>>
  return
}
