// RUN: tile-opt %s -split-input-file --tilegpu-unmask-full-blocks | FileCheck %s

#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tilegpu.slice<{dim = 0, parent = #blocked}>
#col = #tilegpu.slice<{dim = 1, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// Attention's key mask: a block of columns starting at the loop's index,
// compared with the sequence length. Full blocks (start + 63 < n, and the
// sums do not wrap) take the scores as they are; the mask, its compare
// and the select run only in the other branch.
// CHECK-LABEL: func.func @key_mask
// CHECK: scf.for %[[IV:[^ ]*]] = %c0_i32 to %[[N:[^ ]*]] step
// CHECK: %[[START:.*]] = arith.extsi %[[IV]] : i32 to i64
// CHECK: %[[LAST:.*]] = arith.addi %[[START]], %c63_i64 : i64
// CHECK: %[[LO:.*]] = arith.cmpi sge, %[[START]], %c-2147483648_i64 : i64
// CHECK: %[[HI:.*]] = arith.cmpi sle, %[[LAST]], %c2147483647_i64 : i64
// CHECK: %[[END:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK: %[[INSIDE:.*]] = arith.cmpi slt, %[[LAST]], %[[END]] : i64
// CHECK: %[[W:.*]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK: %[[FULL:.*]] = arith.andi %[[INSIDE]], %[[W]] : i1
// CHECK: %[[QK:.*]] = scf.if %[[FULL]] -> (tensor<64x64xf32, #blocked>) {
// CHECK-NEXT: scf.yield %arg1
// CHECK-NEXT: } else {
// CHECK: arith.cmpi slt, %{{.*}} : tensor<1x64xi32, #blocked>
// CHECK: arith.select
// CHECK: scf.yield
// CHECK: tile.reduce %[[QK]]
func.func @key_mask(%n: i32, %x: tensor<64x64xf32, #blocked>, %acc0: tensor<64xf32, #col>) -> tensor<64xf32, #col> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #blocked>
  %r = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (tensor<64xf32, #col>) : i32 {
    %s = tile.splat %start : i32 -> tensor<64xi32, #row>
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #row>
    %cols = arith.addi %s, %range : tensor<64xi32, #row>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #row> -> tensor<1x64xi32, #blocked>
    %ns = tile.splat %n : i32 -> tensor<1x64xi32, #blocked>
    %m = arith.cmpi slt, %cols2, %ns : tensor<1x64xi32, #blocked>
    %mask = tile.broadcast %m : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %qk = arith.select %mask, %x, %ninf : tensor<64x64xi1, #blocked>, tensor<64x64xf32, #blocked>
    %max = "tile.reduce"(%qk) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %mx = arith.maxnumf %a, %b : f32
      tile.reduce.return %mx : f32
    }) : (tensor<64x64xf32, #blocked>) -> tensor<64xf32, #col>
    %next = arith.addf %acc, %max : tensor<64xf32, #col>
    scf.yield %next : tensor<64xf32, #col>
  }
  return %r : tensor<64xf32, #col>
}
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#row = #tilegpu.slice<{dim = 0, parent = #blocked}>
#col = #tilegpu.slice<{dim = 1, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// A causal mask and a row bound: rows (m*64 + r) >= cols (start + 2*c),
// and rows < n. All true when the first row is at least the last column
// (bounds through the product by 2) and the last row is below n.
// CHECK-LABEL: func.func @causal_and_rows
// CHECK: scf.for %[[IV:[^ ]*]] =
// CHECK: %[[ROW0:.*]] = arith.extsi %arg0 : i32 to i64
// CHECK: %[[ROWN:.*]] = arith.addi %[[ROW0]], %c63_i64 : i64
// CHECK: %[[COL0:.*]] = arith.extsi %[[IV]] : i32 to i64
// CHECK: %[[COLN:.*]] = arith.addi %[[COL0]], %c126_i64 : i64
// CHECK: %[[DIAG:.*]] = arith.cmpi sge, %[[ROW0]], %[[COLN]] : i64
// CHECK: %[[ROWS:.*]] = arith.cmpi slt, %[[ROWN]], %{{.*}} : i64
// CHECK: %[[BOTH:.*]] = arith.andi %[[DIAG]], %[[ROWS]] : i1
// CHECK: %[[FULL:.*]] = arith.andi %[[BOTH]], %{{.*}} : i1
// CHECK: scf.if %[[FULL]]
// CHECK-NEXT: scf.yield %arg2
// CHECK: } else {
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: arith.andi
// CHECK: arith.select
func.func @causal_and_rows(%m0: i32, %n: i32, %x: tensor<64x64xf32, #blocked>, %acc0: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #blocked>
  %two = arith.constant dense<2> : tensor<64xi32, #row>
  %r = scf.for %start = %c0 to %n step %c128 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #blocked>) : i32 {
    %ms = tile.splat %m0 : i32 -> tensor<64xi32, #col>
    %rr = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #col>
    %rows = arith.addi %ms, %rr : tensor<64xi32, #col>
    %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32, #col> -> tensor<64x1xi32, #blocked>
    %rowsb = tile.broadcast %rows2 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %s = tile.splat %start : i32 -> tensor<64xi32, #row>
    %cr = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #row>
    %twice = arith.muli %cr, %two : tensor<64xi32, #row>
    %cols = arith.addi %s, %twice : tensor<64xi32, #row>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #row> -> tensor<1x64xi32, #blocked>
    %colsb = tile.broadcast %cols2 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %diag = arith.cmpi sge, %rowsb, %colsb : tensor<64x64xi32, #blocked>
    %ns = tile.splat %n : i32 -> tensor<64x64xi32, #blocked>
    %inrows = arith.cmpi slt, %rowsb, %ns : tensor<64x64xi32, #blocked>
    %keep = arith.andi %diag, %inrows : tensor<64x64xi1, #blocked>
    %p = arith.select %keep, %x, %zero : tensor<64x64xi1, #blocked>, tensor<64x64xf32, #blocked>
    %next = arith.addf %acc, %p : tensor<64x64xf32, #blocked>
    scf.yield %next : tensor<64x64xf32, #blocked>
  }
  return %r : tensor<64x64xf32, #blocked>
}
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// Left alone: a mask the loop does not change (computing it once is
// cheaper than a branch per iteration), an unsigned compare, a compare of
// loaded values, and a select outside any loop.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK-COUNT-3: arith.select
// CHECK-NOT: scf.if
// CHECK: scf.yield
// CHECK-NOT: scf.if
// CHECK: arith.select
// CHECK-NOT: scf.if
func.func @left_alone(%n: i32, %k: i32, %x: tensor<512xf32, #blocked>, %p: tensor<512x!tile.ptr<i32>, #blocked>) -> tensor<512xf32, #blocked> {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %zero = arith.constant dense<0.0> : tensor<512xf32, #blocked>
  %r = scf.for %start = %c0 to %n step %c512 iter_args(%acc = %x) -> (tensor<512xf32, #blocked>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<512xi32, #blocked>
    %range = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %fixed = arith.cmpi slt, %range, %ks : tensor<512xi32, #blocked>
    %a = arith.select %fixed, %acc, %zero : tensor<512xi1, #blocked>, tensor<512xf32, #blocked>
    %s = tile.splat %start : i32 -> tensor<512xi32, #blocked>
    %cols = arith.addi %s, %range : tensor<512xi32, #blocked>
    %ns = tile.splat %n : i32 -> tensor<512xi32, #blocked>
    %unsigned = arith.cmpi ult, %cols, %ns : tensor<512xi32, #blocked>
    %b = arith.select %unsigned, %a, %zero : tensor<512xi1, #blocked>, tensor<512xf32, #blocked>
    %loaded = tile.load %p : tensor<512x!tile.ptr<i32>, #blocked>
    %moved = arith.addi %loaded, %s : tensor<512xi32, #blocked>
    %data = arith.cmpi slt, %moved, %ns : tensor<512xi32, #blocked>
    %c = arith.select %data, %b, %zero : tensor<512xi1, #blocked>, tensor<512xf32, #blocked>
    scf.yield %c : tensor<512xf32, #blocked>
  }
  %ns2 = tile.splat %n : i32 -> tensor<512xi32, #blocked>
  %range2 = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
  %tail = arith.cmpi slt, %range2, %ns2 : tensor<512xi32, #blocked>
  %out = arith.select %tail, %r, %zero : tensor<512xi1, #blocked>, tensor<512xf32, #blocked>
  return %out : tensor<512xf32, #blocked>
}
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// Left alone: the selected value is computed by elementwise work in the
// same block (an attention backward's P = exp2(...) masked to zero). A
// branch there would split the exp2s from the ops after the select, which
// ptxas then cannot interleave with them.
// CHECK-LABEL: func.func @inside_elementwise_work
// CHECK-NOT: scf.if
// CHECK: math.exp2
// CHECK-NEXT: arith.select
func.func @inside_elementwise_work(%n: i32, %x: tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked> {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %zero = arith.constant dense<0.0> : tensor<512xf32, #blocked>
  %r = scf.for %start = %c0 to %n step %c512 iter_args(%acc = %x) -> (tensor<512xf32, #blocked>) : i32 {
    %s = tile.splat %start : i32 -> tensor<512xi32, #blocked>
    %range = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %cols = arith.addi %s, %range : tensor<512xi32, #blocked>
    %ns = tile.splat %n : i32 -> tensor<512xi32, #blocked>
    %m = arith.cmpi slt, %cols, %ns : tensor<512xi32, #blocked>
    %e = math.exp2 %acc : tensor<512xf32, #blocked>
    %p = arith.select %m, %e, %zero : tensor<512xi1, #blocked>, tensor<512xf32, #blocked>
    scf.yield %p : tensor<512xf32, #blocked>
  }
  return %r : tensor<512xf32, #blocked>
}
}

// -----

#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#flat = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#row = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
// A mask that goes through a layout conversion with shared-memory scratch
// (allocated, and fenced by barriers, before this pass): the conversion
// stays where it was, and only what follows it moves into the branch.
// CHECK-LABEL: func.func @through_shared_memory
// CHECK: %[[COLS:.*]] = tilegpu.convert_layout {{.*}} {tilegpu.offset = 0 : i64}
// CHECK: scf.if
// CHECK: } else {
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.expand_dims %[[COLS]]
// CHECK: arith.select
func.func @through_shared_memory(%n: i32, %x: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #blocked>
  %r = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %x) -> (tensor<64x64xf32, #blocked>) : i32 {
    %s = tile.splat %start : i32 -> tensor<64xi32, #flat>
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #flat>
    %flatcols = arith.addi %s, %range : tensor<64xi32, #flat>
    %cols = tilegpu.convert_layout %flatcols {tilegpu.offset = 0 : i64} : tensor<64xi32, #flat> -> tensor<64xi32, #row>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32, #row> -> tensor<1x64xi32, #blocked>
    %ns = tile.splat %n : i32 -> tensor<1x64xi32, #blocked>
    %m = arith.cmpi slt, %cols2, %ns : tensor<1x64xi32, #blocked>
    %mask = tile.broadcast %m : tensor<1x64xi1, #blocked> -> tensor<64x64xi1, #blocked>
    %qk = arith.select %mask, %x, %ninf : tensor<64x64xi1, #blocked>, tensor<64x64xf32, #blocked>
    %next = arith.addf %acc, %qk : tensor<64x64xf32, #blocked>
    scf.yield %next : tensor<64x64xf32, #blocked>
  }
  return %r : tensor<64x64xf32, #blocked>
}
}
