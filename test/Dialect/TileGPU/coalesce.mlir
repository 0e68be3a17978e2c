// RUN: tile-opt %s --split-input-file --convert-tile-to-tilegpu --tilegpu-coalesce | FileCheck %s

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

// -----

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

// -----

// A gathered load (`w[offs // k]`: no contiguity) whose values meet a
// 128-bit load and store of the same shape takes their layout, so no
// conversion sits between them. A store never widens past its own vector
// (%u's alignment is unknown): a wider layout would split its writes.
// CHECK: #[[W4:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @gathered_joins_wide
// CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[W4]]>
// CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[W4]]>
// CHECK: tile.store %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[W4]]>
// CHECK: tile.store %{{.*}} : tensor<1024x!tile.ptr<f32>, #blocked>
func.func @gathered_joins_wide(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %w: !tile.ptr<f32>, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %u: !tile.ptr<f32>, %k: i32) attributes {tile.kernel} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %xv = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %ks = tile.splat %k : i32 -> tensor<1024xi32>
  %q = arith.divsi %r, %ks : tensor<1024xi32>
  %ws = tile.splat %w : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %wp = tile.addptr %ws, %q : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %wv = tile.load %wp : tensor<1024x!tile.ptr<f32>>
  %prod = arith.mulf %xv, %wv : tensor<1024xf32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %yp, %prod : tensor<1024x!tile.ptr<f32>>
  %us = tile.splat %u : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %up = tile.addptr %us, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %up, %prod : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// Alone, with a store of unknown alignment, a gathered load keeps one
// element per thread.
// CHECK-LABEL: func.func @gathered_alone
// CHECK-NOT: convert_layout
// CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #blocked>
// CHECK: tile.store %{{.*}} : tensor<1024x!tile.ptr<f32>, #blocked>
func.func @gathered_alone(%w: !tile.ptr<f32>, %u: !tile.ptr<f32>, %k: i32) attributes {tile.kernel} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %ks = tile.splat %k : i32 -> tensor<1024xi32>
  %q = arith.divsi %r, %ks : tensor<1024xi32>
  %ws = tile.splat %w : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %wp = tile.addptr %ws, %q : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %wv = tile.load %wp : tensor<1024x!tile.ptr<f32>>
  %us = tile.splat %u : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %up = tile.addptr %us, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %up, %wv : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// Offsets loaded from memory say nothing about contiguity; the kernel's
// tile.hint (tl.multiple_of / tl.max_contiguous) promises runs of 512
// starting at multiples of 16: 128-bit accesses. (Without it the loads
// are scalar whatever their layout; python/test/test_hints.py checks that
// in the PTX.)
// CHECK-DAG: #[[H4:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @hinted
// CHECK: tile.hint
// CHECK: tile.load %{{.*}} : tensor<512x!tile.ptr<f32>, #[[H4]]>
// CHECK: tile.store %{{.*}} : tensor<512x!tile.ptr<f32>, #[[H4]]>
func.func @hinted(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<i32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %qs = tile.splat %q : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>>
  %qp = tile.addptr %qs, %r : tensor<512x!tile.ptr<i32>>, tensor<512xi32>
  %offs = tile.load %qp : tensor<512x!tile.ptr<i32>>
  %h = tile.hint %offs {divisibility = array<i64: 16>, contiguity = array<i64: 512>} : tensor<512xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %hp = tile.addptr %ps, %h : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %x = tile.load %hp : tensor<512x!tile.ptr<f32>>
  tile.store %hp, %x : tensor<512x!tile.ptr<f32>>
  return
}


// -----

// 64 aligned bf16 scales, 128 threads: one element each would leave every
// thread less than the 4 bytes cp.async copies, so a load in a loop the
// pipeliner may stage (here one given num_stages; a dot's K loop too) takes
// a word per thread on half of them.
// CHECK-DAG: #[[WORD:.*]] = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @scales_in_a_loop
// CHECK: scf.for
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<bf16>, #[[WORD]]>
func.func @scales_in_a_loop(%s: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64xf32>) : i32 {
    %row = arith.muli %k, %stride : i32
    %base = tile.addptr %s, %row : !tile.ptr<bf16>, i32
    %bs = tile.splat %base : !tile.ptr<bf16> -> tensor<64x!tile.ptr<bf16>>
    %ptrs = tile.addptr %bs, %r : tensor<64x!tile.ptr<bf16>>, tensor<64xi32>
    %x = tile.load %ptrs : tensor<64x!tile.ptr<bf16>>
    %w = arith.extf %x : tensor<64xbf16> to tensor<64xf32>
    %m = arith.addf %a, %w : tensor<64xf32>
    scf.yield %m : tensor<64xf32>
  } {tile.num_stages = 3 : i32}
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %optrs = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %optrs, %acc : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// The same loop without num_stages (and without a dot) is not staged: its
// load keeps one element per thread.
// CHECK-DAG: #[[ONE:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @scales_in_a_plain_loop
// CHECK-NOT: convert_layout
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<bf16>, #[[ONE]]>
func.func @scales_in_a_plain_loop(%s: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64xf32>) : i32 {
    %row = arith.muli %k, %stride : i32
    %base = tile.addptr %s, %row : !tile.ptr<bf16>, i32
    %bs = tile.splat %base : !tile.ptr<bf16> -> tensor<64x!tile.ptr<bf16>>
    %ptrs = tile.addptr %bs, %r : tensor<64x!tile.ptr<bf16>>, tensor<64xi32>
    %x = tile.load %ptrs : tensor<64x!tile.ptr<bf16>>
    %w = arith.extf %x : tensor<64xbf16> to tensor<64xf32>
    %m = arith.addf %a, %w : tensor<64xf32>
    scf.yield %m : tensor<64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %optrs = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %optrs, %acc : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// The same load outside a loop keeps one element per thread: nothing
// copies it ahead.
// CHECK-DAG: #[[ONE:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @scales_once
// CHECK-NOT: convert_layout
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<bf16>, #[[ONE]]>
func.func @scales_once(%s: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ss = tile.splat %s : !tile.ptr<bf16> -> tensor<64x!tile.ptr<bf16>>
  %ptrs = tile.addptr %ss, %r : tensor<64x!tile.ptr<bf16>>, tensor<64xi32>
  %x = tile.load %ptrs : tensor<64x!tile.ptr<bf16>>
  %w = arith.extf %x : tensor<64xbf16> to tensor<64xf32>
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %optrs = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %optrs, %w : tensor<64x!tile.ptr<f32>>
  return
}
