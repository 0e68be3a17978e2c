// RUN: tile-opt %s --tilegpu-remove-layout-conversions | FileCheck %s

// The pointers are recomputed in the load's layout (backward), and the
// loaded value's conversion moves past the elementwise ops that use it
// twice (x * x) until it meets the store's conversion and both vanish.
// CHECK: #[[V:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @square
// CHECK-NOT: convert_layout
// CHECK: %[[X:.*]] = tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[V]]>
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : tensor<1024xf32, #[[V]]>
// CHECK: %[[Z:.*]] = math.exp %[[Y]] : tensor<1024xf32, #[[V]]>
// CHECK-NOT: convert_layout
// CHECK: tile.store %{{.*}}, %[[Z]] : tensor<1024x!tile.ptr<f32>, #[[V]]>
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @square(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %3 = tilegpu.convert_layout %2 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  %4 = tile.load %3 : tensor<1024x!tile.ptr<f32>, #blocked1>
  %5 = tilegpu.convert_layout %4 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
  %6 = arith.mulf %5, %5 : tensor<1024xf32, #blocked>
  %7 = math.exp %6 : tensor<1024xf32, #blocked>
  %8 = tilegpu.convert_layout %2 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  %9 = tilegpu.convert_layout %7 : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked1>
  tile.store %8, %9 : tensor<1024x!tile.ptr<f32>, #blocked1>
  return
}


// A reduction reads the loaded value in the load's own layout.
// CHECK-LABEL: func.func @rowsum
// CHECK-NOT: convert_layout
// CHECK: tile.reduce
func.func @rowsum(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %1 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %2 = tile.addptr %1, %0 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %3 = tilegpu.convert_layout %2 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  %4 = tile.load %3 : tensor<1024x!tile.ptr<f32>, #blocked1>
  %5 = tilegpu.convert_layout %4 : tensor<1024xf32, #blocked1> -> tensor<1024xf32, #blocked>
  %6 = "tile.reduce"(%5) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.reduce.return %t : f32
  }) : (tensor<1024xf32, #blocked>) -> f32
  tile.store %q, %6 : !tile.ptr<f32>
  return
}

// A loop-carried accumulator converted into the mma layout on entry and out
// of it for the yield is carried in the mma layout: the conversions leave
// the loop. The pointer tensor, converted only for the load, is carried in
// the load's layout and its update follows.
// CHECK-LABEL: func.func @carried
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #mma>, tensor<64x64x!tile.ptr<f16>, #blocked{{[0-9]*}}>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.load
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tilegpu.warpgroup_dot
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.yield
// CHECK: tilegpu.convert_layout {{.*}} #mma> ->
#cb = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#cmma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#cs = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @carried(%p: tensor<64x64x!tile.ptr<f16>, #cb>, %bs: !tilegpu.memdesc<64x64xf16, #cs>, %init: tensor<64x64xf32, #cb>, %n: i32) -> tensor<64x64xf32, #cb> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<64> : tensor<64x64xi32, #cb>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %ptr = %p) -> (tensor<64x64xf32, #cb>, tensor<64x64x!tile.ptr<f16>, #cb>) : i32 {
      %pc = tilegpu.convert_layout %ptr : tensor<64x64x!tile.ptr<f16>, #cb> -> tensor<64x64x!tile.ptr<f16>, #cl>
      %x = tile.load %pc : tensor<64x64x!tile.ptr<f16>, #cl>
      %xc = tilegpu.convert_layout %x : tensor<64x64xf16, #cl> -> tensor<64x64xf16, #cb>
      %as = tilegpu.local_alloc %xc : (tensor<64x64xf16, #cb>) -> !tilegpu.memdesc<64x64xf16, #cs>
      %am = tilegpu.convert_layout %acc : tensor<64x64xf32, #cb> -> tensor<64x64xf32, #cmma>
      %d = tilegpu.warpgroup_dot %as, %bs, %am : !tilegpu.memdesc<64x64xf16, #cs> * !tilegpu.memdesc<64x64xf16, #cs> -> tensor<64x64xf32, #cmma>
      %back = tilegpu.convert_layout %d : tensor<64x64xf32, #cmma> -> tensor<64x64xf32, #cb>
      %next = tile.addptr %ptr, %step : tensor<64x64x!tile.ptr<f16>, #cb>, tensor<64x64xi32, #cb>
      scf.yield %back, %next : tensor<64x64xf32, #cb>, tensor<64x64x!tile.ptr<f16>, #cb>
    }
    return %r#0 : tensor<64x64xf32, #cb>
  }
}

// Attention's shape: the scores leave the dot in the mma layout and flow
// through a row max, the running maximum carried by the loop, a broadcast
// back over the row and the accumulator update. Everything moves into the
// mma layout (the row statistics into its slice), so nothing inside the
// loop is converted; the reduction runs on the mma layout directly.
// CHECK-LABEL: func.func @softmax_loop
// CHECK: scf.for {{.*}} -> (tensor<64xf32, #[[SLICE:slice[0-9]*]]>, tensor<64x64xf32, #mma>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tilegpu.warpgroup_dot
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.reduce %{{.*}} axis = 1 : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #[[SLICE]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.broadcast {{.*}} -> tensor<64x64xf32, #mma>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.yield
// CHECK: tilegpu.convert_layout {{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked{{[0-9]*}}>
#sb = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#smma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#ss = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @softmax_loop(%qs: !tilegpu.memdesc<64x64xf16, #ss>, %ks: !tilegpu.memdesc<64x64xf16, #ss>, %m0: tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #sb}>>, %init: tensor<64x64xf32, #sb>, %n: i32) -> tensor<64x64xf32, #sb> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #smma>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%m = %m0, %acc = %init) -> (tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #sb}>>, tensor<64x64xf32, #sb>) : i32 {
      %s = tilegpu.warpgroup_dot %qs, %ks, %zero : !tilegpu.memdesc<64x64xf16, #ss> * !tilegpu.memdesc<64x64xf16, #ss> -> tensor<64x64xf32, #smma>
      %sb = tilegpu.convert_layout %s : tensor<64x64xf32, #smma> -> tensor<64x64xf32, #sb>
      %mx = tile.reduce %sb axis = 1 : (tensor<64x64xf32, #sb>) -> tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #sb}>> {
      ^bb0(%x: f32, %y: f32):
        %t = arith.maxnumf %x, %y : f32
        tile.reduce.return %t : f32
      }
      %mn = arith.maxnumf %m, %mx : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #sb}>>
      %e = tile.expand_dims %mn {axis = 1 : i32} : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #sb}>> -> tensor<64x1xf32, #sb>
      %eb = tile.broadcast %e : tensor<64x1xf32, #sb> -> tensor<64x64xf32, #sb>
      %p = arith.subf %sb, %eb : tensor<64x64xf32, #sb>
      %accn = arith.addf %acc, %p : tensor<64x64xf32, #sb>
      scf.yield %mn, %accn : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #sb}>>, tensor<64x64xf32, #sb>
    }
    return %r#1 : tensor<64x64xf32, #sb>
  }
}


// Gathered pointers (`w + offs // k`) are recomputed in the load's layout
// too: integer division has no side effects, though it is not speculatable.
// CHECK-LABEL: func.func @gathered_pointers
// CHECK-NOT: convert_layout
// CHECK: %[[Q:.*]] = arith.divsi %{{.*}}, %{{.*}} : tensor<1024xi32, #[[V]]>
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %[[Q]] : tensor<1024x!tile.ptr<f32>, #[[V]]>
// CHECK: tile.load %[[P]] : tensor<1024x!tile.ptr<f32>, #[[V]]>
// CHECK-NOT: convert_layout
func.func @gathered_pointers(%w: !tile.ptr<f32>, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32) attributes {tile.kernel} {
  %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
  %1 = tile.splat %k : i32 -> tensor<1024xi32, #blocked>
  %2 = arith.divsi %0, %1 : tensor<1024xi32, #blocked>
  %3 = tile.splat %w : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %4 = tile.addptr %3, %2 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %5 = tilegpu.convert_layout %4 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  %6 = tile.load %5 : tensor<1024x!tile.ptr<f32>, #blocked1>
  %7 = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #blocked>
  %8 = tile.addptr %7, %0 : tensor<1024x!tile.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
  %9 = tilegpu.convert_layout %8 : tensor<1024x!tile.ptr<f32>, #blocked> -> tensor<1024x!tile.ptr<f32>, #blocked1>
  tile.store %9, %6 : tensor<1024x!tile.ptr<f32>, #blocked1>
  return
}

// A partial sum updated under a condition, as in a lock's critical
// section: both branches yield conversions out of the load layout, so the
// if yields in that layout and the store needs no conversion at all.
// CHECK-LABEL: func.func @conditional_update
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.if {{.*}} -> (tensor<1024xf16, #[[VEC:blocked[0-9]*]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f16>, #[[VEC]]>
#iv = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#i1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @conditional_update(%p: tensor<1024x!tile.ptr<f16>, #iv>, %v: tensor<1024xf16, #iv>, %first: i1) {
    %r = scf.if %first -> (tensor<1024xf16, #i1>) {
      %c = tilegpu.convert_layout %v : tensor<1024xf16, #iv> -> tensor<1024xf16, #i1>
      scf.yield %c : tensor<1024xf16, #i1>
    } else {
      %old = tile.load %p : tensor<1024x!tile.ptr<f16>, #iv>
      %sum = arith.addf %v, %old : tensor<1024xf16, #iv>
      %c = tilegpu.convert_layout %sum : tensor<1024xf16, #iv> -> tensor<1024xf16, #i1>
      scf.yield %c : tensor<1024xf16, #i1>
    }
    %back = tilegpu.convert_layout %r : tensor<1024xf16, #i1> -> tensor<1024xf16, #iv>
    tile.store %p, %back : tensor<1024x!tile.ptr<f16>, #iv>
    return
  }
}

// Branches that yield conversions out of different layouts keep theirs.
// CHECK-LABEL: func.func @mixed_branches
// CHECK: %[[IF:.*]] = scf.if {{.*}} -> (tensor<1024xf16, #[[ONE:blocked[0-9]*]]>)
// CHECK: tilegpu.convert_layout {{.*}} -> tensor<1024xf16, #[[ONE]]>
// CHECK: return %[[IF]]
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @mixed_branches(%a: tensor<1024xf16, #iv>, %b: tensor<1024xf16, #i1>, %c: i1) -> tensor<1024xf16, #i1> {
    %r = scf.if %c -> (tensor<1024xf16, #i1>) {
      %x = arith.addf %a, %a : tensor<1024xf16, #iv>
      %y = tilegpu.convert_layout %x : tensor<1024xf16, #iv> -> tensor<1024xf16, #i1>
      scf.yield %y : tensor<1024xf16, #i1>
    } else {
      %x = arith.mulf %b, %b : tensor<1024xf16, #i1>
      scf.yield %x : tensor<1024xf16, #i1>
    }
    return %r : tensor<1024xf16, #i1>
  }
}


// Row statistics in a warp-specialised loop (attention's log-sum-exp in the
// dK/dV kernel): the vector is loaded again in the slice layout its users
// hold, pointers recomputed there, instead of converting through shared
// memory, which would be a barrier across the consumer warpgroups every
// iteration. Without the loop's mark the conversion stays (the pipeliner
// stages such loads and reads them in the slice layout).
// CHECK-LABEL: func.func @statistic_in_warp_specialized_loop
// CHECK: scf.for
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<f32>, #[[WSL:slice[0-9]*]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: arith.addf %{{.*}} : tensor<64xf32, #[[WSL]]>
// CHECK: } {tile.warp_specialize}
// CHECK-LABEL: func.func @statistic_in_plain_loop
// CHECK: scf.for
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<f32>, #blocked{{[0-9]*}}>
// CHECK: tilegpu.convert_layout
// A persistent kernel marks its tile loop instead; the loop inside it is
// the one warp-specialised, so its statistics are reloaded as well.
// CHECK-LABEL: func.func @statistic_in_marked_tile_loop
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<f32>, #[[WSL2:slice[0-9]*]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: arith.addf %{{.*}} : tensor<64xf32, #[[WSL2]]>
#wb = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#wmma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @statistic_in_warp_specialized_loop(%lse: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %init: tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>, %n: i32) -> tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>> {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>) : i32 {
      %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #wb>
      %start = tile.splat %i : i32 -> tensor<64xi32, #wb>
      %rows = arith.addi %start, %range : tensor<64xi32, #wb>
      %base = tile.splat %lse : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #wb>
      %ptrs = tile.addptr %base, %rows : tensor<64x!tile.ptr<f32>, #wb>, tensor<64xi32, #wb>
      %x = tile.load %ptrs : tensor<64x!tile.ptr<f32>, #wb>
      %xs = tilegpu.convert_layout %x : tensor<64xf32, #wb> -> tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
      %next = arith.addf %acc, %xs : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
      scf.yield %next : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
    } {tile.warp_specialize}
    return %r : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
  }

  func.func @statistic_in_plain_loop(%lse: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %init: tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>, %n: i32) -> tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>> {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %init) -> (tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>) : i32 {
      %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #wb>
      %start = tile.splat %i : i32 -> tensor<64xi32, #wb>
      %rows = arith.addi %start, %range : tensor<64xi32, #wb>
      %base = tile.splat %lse : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #wb>
      %ptrs = tile.addptr %base, %rows : tensor<64x!tile.ptr<f32>, #wb>, tensor<64xi32, #wb>
      %x = tile.load %ptrs : tensor<64x!tile.ptr<f32>, #wb>
      %xs = tilegpu.convert_layout %x : tensor<64xf32, #wb> -> tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
      %next = arith.addf %acc, %xs : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
      scf.yield %next : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
    }
    return %r : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
  }

  func.func @statistic_in_marked_tile_loop(%lse: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %init: tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>, %n: i32, %tiles: i32) -> tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %t = scf.for %j = %c0 to %tiles step %c1 iter_args(%outer = %init) -> (tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>) : i32 {
      %r = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %outer) -> (tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>) : i32 {
        %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #wb>
        %start = tile.splat %i : i32 -> tensor<64xi32, #wb>
        %rows = arith.addi %start, %range : tensor<64xi32, #wb>
        %base = tile.splat %lse : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #wb>
        %ptrs = tile.addptr %base, %rows : tensor<64x!tile.ptr<f32>, #wb>, tensor<64xi32, #wb>
        %x = tile.load %ptrs : tensor<64x!tile.ptr<f32>, #wb>
        %xs = tilegpu.convert_layout %x : tensor<64xf32, #wb> -> tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
        %next = arith.addf %acc, %xs : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
        scf.yield %next : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
      }
      scf.yield %r : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
    } {tile.warp_specialize}
    return %t : tensor<64xf32, #tilegpu.slice<{dim = 0, parent = #wmma}>>
  }
}


// A vector loaded before a loop and converted where the loop uses it (the
// dQ kernel's log-sum-exp) is converted once, before the loop. (Here the
// vector is also stored as loaded; with the conversion its only use, it
// would be loaded in the loop's layout instead, @small_vector_reloaded.)
// CHECK-LABEL: func.func @invariant_conversion
// CHECK: %[[X:.*]] = tile.load
// CHECK: %[[XS:.*]] = tilegpu.convert_layout %[[X]]
// CHECK: scf.for
// CHECK-NOT: tilegpu.convert_layout
// CHECK: arith.addf %{{.*}}, %[[XS]]
// CHECK: scf.yield
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @invariant_conversion(%lse: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %init: tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #wmma}>>, %n: i32) -> tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #wmma}>> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #wb>
    %base = tile.splat %lse : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #wb>
    %ptrs = tile.addptr %base, %range : tensor<64x!tile.ptr<f32>, #wb>, tensor<64xi32, #wb>
    %x = tile.load %ptrs : tensor<64x!tile.ptr<f32>, #wb>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #wmma}>>) : i32 {
      %xs = tilegpu.convert_layout %x : tensor<64xf32, #wb> -> tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #wmma}>>
      %next = arith.addf %acc, %xs : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #wmma}>>
      scf.yield %next : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #wmma}>>
    }
    tile.store %ptrs, %x : tensor<64x!tile.ptr<f32>, #wb>
    return %r : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #wmma}>>
  }
}


// A dot's result added into global memory by an atomic whose old values
// nobody reads stays in the mma layout: pointers and mask follow it, the
// value does not move through shared memory. An atomic whose result is
// used keeps its layout.
// CHECK-LABEL: func.func @sum_into_global
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.atomic_rmw fadd, relaxed, gpu, %{{.*}}, %arg1, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #mma{{[0-9]*}}>
// CHECK-LABEL: func.func @fetch_and_add
// CHECK: %[[V:.*]] = tilegpu.convert_layout %arg1
// CHECK: tile.atomic_rmw fadd, relaxed, gpu, %{{.*}}, %[[V]] : tensor<64x64x!tile.ptr<f32>, #blocked{{[0-9]*}}>
#ab = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @sum_into_global(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %acc: tensor<64x64xf32, #wmma>, %n: i32) {
    %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ab}>>
    %c = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #ab}>>
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ab}>> -> tensor<64x1xi32, #ab>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #ab}>> -> tensor<1x64xi32, #ab>
    %c64 = arith.constant dense<64> : tensor<64x1xi32, #ab>
    %rs = arith.muli %re, %c64 : tensor<64x1xi32, #ab>
    %rb = tile.broadcast %rs : tensor<64x1xi32, #ab> -> tensor<64x64xi32, #ab>
    %cb = tile.broadcast %ce : tensor<1x64xi32, #ab> -> tensor<64x64xi32, #ab>
    %offs = arith.addi %rb, %cb : tensor<64x64xi32, #ab>
    %base = tile.splat %out : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #ab>
    %ptrs = tile.addptr %base, %offs : tensor<64x64x!tile.ptr<f32>, #ab>, tensor<64x64xi32, #ab>
    %nb = tile.splat %n : i32 -> tensor<64x64xi32, #ab>
    %mask = arith.cmpi slt, %rb, %nb : tensor<64x64xi32, #ab>
    %v = tilegpu.convert_layout %acc : tensor<64x64xf32, #wmma> -> tensor<64x64xf32, #ab>
    %old = tile.atomic_rmw fadd, relaxed, gpu, %ptrs, %v, %mask : tensor<64x64x!tile.ptr<f32>, #ab>
    return
  }

  func.func @fetch_and_add(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %acc: tensor<64x64xf32, #wmma>) -> tensor<64x64xf32, #ab> {
    %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ab}>>
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ab}>> -> tensor<64x1xi32, #ab>
    %rb = tile.broadcast %re : tensor<64x1xi32, #ab> -> tensor<64x64xi32, #ab>
    %base = tile.splat %out : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #ab>
    %ptrs = tile.addptr %base, %rb : tensor<64x64x!tile.ptr<f32>, #ab>, tensor<64x64xi32, #ab>
    %v = tilegpu.convert_layout %acc : tensor<64x64xf32, #wmma> -> tensor<64x64xf32, #ab>
    %old = tile.atomic_rmw fadd, relaxed, gpu, %ptrs, %v : tensor<64x64x!tile.ptr<f32>, #ab>
    return %old : tensor<64x64xf32, #ab>
  }
}


// Scores masked on some blocks only (`if diagonal: s = where(...)`): the
// scf.if's result takes the mma layout too, and both branches yield it, so
// the reduction after the if runs on the mma layout with no conversion of
// the scores.
// CHECK-LABEL: func.func @masked_in_branch
// CHECK: scf.if %{{.*}} -> (tensor<64x64xf32, #mma{{[0-9]*}}>)
// CHECK: arith.select %{{.*}} : tensor<64x64xi1, #mma{{[0-9]*}}>, tensor<64x64xf32, #mma{{[0-9]*}}>
// CHECK-NOT: tilegpu.convert_layout %{{.*}} : tensor<64x64xf32
// CHECK: tile.reduce %{{.*}} axis = 1 : (tensor<64x64xf32, #mma{{[0-9]*}}>)
// CHECK-LABEL: func.func @other_branch_unreached
// CHECK: scf.if %{{.*}} -> (tensor<64x64xf32, #mma{{[0-9]*}}>)
// CHECK: } else {
// CHECK-NEXT: %[[O:.*]] = tilegpu.convert_layout %arg3 : tensor<64x64xf32, #blocked{{[0-9]*}}> -> tensor<64x64xf32, #mma{{[0-9]*}}>
// CHECK-NEXT: scf.yield %[[O]]
#ib = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#imma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#iss = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @masked_in_branch(%qs: !tilegpu.memdesc<64x64xf16, #iss>, %ks: !tilegpu.memdesc<64x64xf16, #iss>, %c: i1, %mask: tensor<64x64xi1, #ib>) -> tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #ib}>> {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #imma>
    %s = tilegpu.warpgroup_dot %qs, %ks, %zero : !tilegpu.memdesc<64x64xf16, #iss> * !tilegpu.memdesc<64x64xf16, #iss> -> tensor<64x64xf32, #imma>
    %sb = tilegpu.convert_layout %s : tensor<64x64xf32, #imma> -> tensor<64x64xf32, #ib>
    %r = scf.if %c -> (tensor<64x64xf32, #ib>) {
      %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #ib>
      %w = arith.select %mask, %sb, %ninf : tensor<64x64xi1, #ib>, tensor<64x64xf32, #ib>
      scf.yield %w : tensor<64x64xf32, #ib>
    } else {
      scf.yield %sb : tensor<64x64xf32, #ib>
    }
    %mx = tile.reduce %r axis = 1 : (tensor<64x64xf32, #ib>) -> tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #ib}>> {
    ^bb0(%x: f32, %y: f32):
      %t = arith.maxnumf %x, %y : f32
      tile.reduce.return %t : f32
    }
    return %mx : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #ib}>>
  }

  // The other branch yields a value the propagation never reached (an
  // argument): its yield still converts into the if's new layout.
  func.func @other_branch_unreached(%qs: !tilegpu.memdesc<64x64xf16, #iss>, %ks: !tilegpu.memdesc<64x64xf16, #iss>, %c: i1, %other: tensor<64x64xf32, #ib>) -> tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #ib}>> {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #imma>
    %s = tilegpu.warpgroup_dot %qs, %ks, %zero : !tilegpu.memdesc<64x64xf16, #iss> * !tilegpu.memdesc<64x64xf16, #iss> -> tensor<64x64xf32, #imma>
    %sb = tilegpu.convert_layout %s : tensor<64x64xf32, #imma> -> tensor<64x64xf32, #ib>
    %r = scf.if %c -> (tensor<64x64xf32, #ib>) {
      %w = arith.addf %sb, %sb : tensor<64x64xf32, #ib>
      scf.yield %w : tensor<64x64xf32, #ib>
    } else {
      scf.yield %other : tensor<64x64xf32, #ib>
    }
    %mx = tile.reduce %r axis = 1 : (tensor<64x64xf32, #ib>) -> tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #ib}>> {
    ^bb0(%x: f32, %y: f32):
      %t = arith.maxnumf %x, %y : f32
      tile.reduce.return %t : f32
    }
    return %mx : tensor<64xf32, #tilegpu.slice<{dim = 1, parent = #ib}>>
  }
}


// An outer product of two loaded vectors, added to a loaded tile
// (b[None, :] * dt[:, None], a state-space update): the product is
// recomputed in the tile's load layout from the broadcast vectors, so only
// the vectors change layout, never the 4x128 tile.
// CHECK-LABEL: func.func @outer_product_update
// CHECK-NOT: convert_layout {{.*}}tensor<4x128x
// CHECK: %[[S:.*]] = tile.load %{{.*}} : tensor<4x128x!tile.ptr<f32>, #[[VEC:.*]]>
// CHECK-NOT: convert_layout {{.*}}tensor<4x128x
// CHECK: %[[D:.*]] = arith.mulf %[[S]], %{{.*}} : tensor<4x128xf32, #[[VEC]]>
// CHECK-NOT: convert_layout {{.*}}tensor<4x128x
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<4x128xf32, #[[VEC]]>
// CHECK: arith.addf %[[D]], %[[P]] : tensor<4x128xf32, #[[VEC]]>
// CHECK-NOT: convert_layout {{.*}}tensor<4x128x
// CHECK: tile.store
#outer_1d = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#outer_col = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#outer_row = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#outer_vec = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#outer_s1 = #tilegpu.slice<{dim = 1, parent = #outer_col}>
#outer_s0 = #tilegpu.slice<{dim = 0, parent = #outer_row}>
func.func @outer_product_update(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %0 = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #outer_1d>
  %1 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #outer_1d>
  %2 = tilegpu.convert_layout %0 : tensor<4xi32, #outer_1d> -> tensor<4xi32, #outer_s1>
  %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<4xi32, #outer_s1> -> tensor<4x1xi32, #outer_col>
  %c128_i32 = arith.constant 128 : i32
  %cst = arith.constant dense<128> : tensor<4x1xi32, #outer_col>
  %4 = arith.muli %3, %cst : tensor<4x1xi32, #outer_col>
  %5 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<4x1x!tile.ptr<f32>, #outer_col>
  %6 = tile.addptr %5, %4 : tensor<4x1x!tile.ptr<f32>, #outer_col>, tensor<4x1xi32, #outer_col>
  %7 = tilegpu.convert_layout %1 : tensor<128xi32, #outer_1d> -> tensor<128xi32, #outer_s0>
  %8 = tile.expand_dims %7 {axis = 0 : i32} : tensor<128xi32, #outer_s0> -> tensor<1x128xi32, #outer_row>
  %9 = tile.broadcast %6 : tensor<4x1x!tile.ptr<f32>, #outer_col> -> tensor<4x128x!tile.ptr<f32>, #outer_row>
  %10 = tile.broadcast %8 : tensor<1x128xi32, #outer_row> -> tensor<4x128xi32, #outer_row>
  %11 = tile.addptr %9, %10 : tensor<4x128x!tile.ptr<f32>, #outer_row>, tensor<4x128xi32, #outer_row>
  %12 = tilegpu.convert_layout %11 : tensor<4x128x!tile.ptr<f32>, #outer_row> -> tensor<4x128x!tile.ptr<f32>, #outer_vec>
  %13 = tile.load %12 : tensor<4x128x!tile.ptr<f32>, #outer_vec>
  %14 = tilegpu.convert_layout %13 : tensor<4x128xf32, #outer_vec> -> tensor<4x128xf32, #outer_row>
  %15 = tile.splat %arg1 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #outer_1d>
  %16 = tile.addptr %15, %1 : tensor<128x!tile.ptr<f32>, #outer_1d>, tensor<128xi32, #outer_1d>
  %17 = tile.load %16 : tensor<128x!tile.ptr<f32>, #outer_1d>
  %18 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>, #outer_1d>
  %19 = tile.addptr %18, %0 : tensor<4x!tile.ptr<f32>, #outer_1d>, tensor<4xi32, #outer_1d>
  %20 = tile.load %19 : tensor<4x!tile.ptr<f32>, #outer_1d>
  %21 = tilegpu.convert_layout %20 : tensor<4xf32, #outer_1d> -> tensor<4xf32, #outer_s1>
  %22 = tile.expand_dims %21 {axis = 1 : i32} : tensor<4xf32, #outer_s1> -> tensor<4x1xf32, #outer_col>
  %23 = math.exp %22 : tensor<4x1xf32, #outer_col>
  %24 = tile.broadcast %23 : tensor<4x1xf32, #outer_col> -> tensor<4x128xf32, #outer_row>
  %25 = arith.mulf %14, %24 : tensor<4x128xf32, #outer_row>
  %26 = tilegpu.convert_layout %17 : tensor<128xf32, #outer_1d> -> tensor<128xf32, #outer_s0>
  %27 = tile.expand_dims %26 {axis = 0 : i32} : tensor<128xf32, #outer_s0> -> tensor<1x128xf32, #outer_row>
  %28 = tilegpu.convert_layout %20 : tensor<4xf32, #outer_1d> -> tensor<4xf32, #outer_s1>
  %29 = tile.expand_dims %28 {axis = 1 : i32} : tensor<4xf32, #outer_s1> -> tensor<4x1xf32, #outer_col>
  %30 = tile.broadcast %27 : tensor<1x128xf32, #outer_row> -> tensor<4x128xf32, #outer_row>
  %31 = tile.broadcast %29 : tensor<4x1xf32, #outer_col> -> tensor<4x128xf32, #outer_row>
  %32 = arith.mulf %30, %31 : tensor<4x128xf32, #outer_row>
  %33 = arith.addf %25, %32 : tensor<4x128xf32, #outer_row>
  %34 = tilegpu.convert_layout %11 : tensor<4x128x!tile.ptr<f32>, #outer_row> -> tensor<4x128x!tile.ptr<f32>, #outer_vec>
  %35 = tilegpu.convert_layout %33 : tensor<4x128xf32, #outer_row> -> tensor<4x128xf32, #outer_vec>
  tile.store %34, %35 : tensor<4x128x!tile.ptr<f32>, #outer_vec>
  return
}

// A vector loaded outside loops with no more elements than the CTA has
// threads, widened and converted to a slice layout, is loaded again in
// that layout: the load and the cast move, no conversion is left.
// CHECK-LABEL: func.func @small_vector_reloaded
// CHECK-NOT: convert_layout
// CHECK: %[[X:.*]] = tile.load %{{.*}} : tensor<4x!tile.ptr<bf16>, #[[S:.*]]>
// CHECK: arith.extf %[[X]] : tensor<4xbf16, #[[S]]> to tensor<4xf32, #[[S]]>
// CHECK-NOT: convert_layout
// CHECK: tile.store
#rv_1d = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#rv_2d = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#rv_s1 = #tilegpu.slice<{dim = 1, parent = #rv_2d}>
func.func @small_vector_reloaded(%p: !tile.ptr<bf16>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #rv_1d>
  %s = tile.splat %p : !tile.ptr<bf16> -> tensor<4x!tile.ptr<bf16>, #rv_1d>
  %a = tile.addptr %s, %r : tensor<4x!tile.ptr<bf16>, #rv_1d>, tensor<4xi32, #rv_1d>
  %x = tile.load %a : tensor<4x!tile.ptr<bf16>, #rv_1d>
  %w = arith.extf %x : tensor<4xbf16, #rv_1d> to tensor<4xf32, #rv_1d>
  %c = tilegpu.convert_layout %w : tensor<4xf32, #rv_1d> -> tensor<4xf32, #rv_s1>
  %e = tile.expand_dims %c {axis = 1 : i32} : tensor<4xf32, #rv_s1> -> tensor<4x1xf32, #rv_2d>
  %rs = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #rv_s1>
  %re = tile.expand_dims %rs {axis = 1 : i32} : tensor<4xi32, #rv_s1> -> tensor<4x1xi32, #rv_2d>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<4x1x!tile.ptr<f32>, #rv_2d>
  %qa = tile.addptr %qs, %re : tensor<4x1x!tile.ptr<f32>, #rv_2d>, tensor<4x1xi32, #rv_2d>
  tile.store %qa, %e : tensor<4x1x!tile.ptr<f32>, #rv_2d>
  return
}

// More elements than threads (256 against 128): the conversion stays, a
// reload would read each element from every warp.
// CHECK-LABEL: func.func @large_vector_converted
// CHECK: tile.load %{{.*}} : tensor<256x!tile.ptr<f32>, #{{[a-z0-9_]+}}>
// CHECK: tilegpu.convert_layout
// (4 warps: the pass reads the module's tilegpu.num_warps, 4 without one.)
#rv_2d_wide = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#rv_s1_wide = #tilegpu.slice<{dim = 1, parent = #rv_2d_wide}>
func.func @large_vector_converted(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #rv_1d>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #rv_1d>
  %a = tile.addptr %s, %r : tensor<256x!tile.ptr<f32>, #rv_1d>, tensor<256xi32, #rv_1d>
  %x = tile.load %a : tensor<256x!tile.ptr<f32>, #rv_1d>
  %c = tilegpu.convert_layout %x : tensor<256xf32, #rv_1d> -> tensor<256xf32, #rv_s1_wide>
  %e = tile.expand_dims %c {axis = 1 : i32} : tensor<256xf32, #rv_s1_wide> -> tensor<256x1xf32, #rv_2d_wide>
  %rs = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #rv_s1_wide>
  %re = tile.expand_dims %rs {axis = 1 : i32} : tensor<256xi32, #rv_s1_wide> -> tensor<256x1xi32, #rv_2d_wide>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<256x1x!tile.ptr<f32>, #rv_2d_wide>
  %qa = tile.addptr %qs, %re : tensor<256x1x!tile.ptr<f32>, #rv_2d_wide>, tensor<256x1xi32, #rv_2d_wide>
  tile.store %qa, %e : tensor<256x1x!tile.ptr<f32>, #rv_2d_wide>
  return
}

// An offsets vector carried by a loop, advanced by a block each step, and
// read as the rows of one tile and the columns of another (Lightning
// Attention's `off_block`): each conversion went through shared memory,
// with its barriers, in every iteration. It is carried in both layouts
// instead, each copy advanced there; the copy in the old layout, unused
// after the loop, now yields itself (the pipeline's canonicalization then
// drops it).
// CHECK-LABEL: func.func @offsets_in_two_layouts
// CHECK: scf.for {{.*}} iter_args(%[[OLD:[^ ]*]] = {{.*}} -> (tensor<64xi32, #{{blocked[0-9]*}}>, tensor<64xi32, #slice{{[0-9]*}}>, tensor<64xi32, #slice{{[0-9]*}}>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.yield %[[OLD]], %{{.*}}, %{{.*}} :
// The same vector also used after the loop keeps advancing its own copy.
// CHECK-LABEL: func.func @offsets_also_returned
// CHECK: scf.for {{.*}} iter_args(%[[OLD:[^ ]*]] = {{.*}} -> (tensor<64xi32, #{{blocked[0-9]*}}>, tensor<64xi32, #slice{{[0-9]*}}>, tensor<64xi32, #slice{{[0-9]*}}>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[NEXT:.*]] = arith.addi %[[OLD]]
// CHECK: scf.yield %[[NEXT]], %{{.*}}, %{{.*}} :
// Converted to one layout only, it is left to the rule above (carried in
// that layout alone).
// CHECK-LABEL: func.func @offsets_in_one_layout
// CHECK: scf.for {{.*}} -> (tensor<64xi32, #slice{{[0-9]*}}>)
#ob = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#o1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @offsets_in_two_layouts(%p: !tile.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #o1>
    %step = arith.constant dense<64> : tensor<64xi32, #o1>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%off = %range) -> (tensor<64xi32, #o1>) : i32 {
      %a = tilegpu.convert_layout %off : tensor<64xi32, #o1> -> tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ob}>>
      %b = tilegpu.convert_layout %off : tensor<64xi32, #o1> -> tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #ob}>>
      %ea = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ob}>> -> tensor<64x1xi32, #ob>
      %eb = tile.expand_dims %b {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #ob}>> -> tensor<1x64xi32, #ob>
      %ba = tile.broadcast %ea : tensor<64x1xi32, #ob> -> tensor<64x64xi32, #ob>
      %bb = tile.broadcast %eb : tensor<1x64xi32, #ob> -> tensor<64x64xi32, #ob>
      %s = arith.addi %ba, %bb : tensor<64x64xi32, #ob>
      %base = tile.splat %p : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>, #ob>
      %ptrs = tile.addptr %base, %s : tensor<64x64x!tile.ptr<i32>, #ob>, tensor<64x64xi32, #ob>
      tile.store %ptrs, %s : tensor<64x64x!tile.ptr<i32>, #ob>
      %next = arith.addi %off, %step : tensor<64xi32, #o1>
      scf.yield %next : tensor<64xi32, #o1>
    }
    return
  }
  func.func @offsets_also_returned(%p: !tile.ptr<i32>, %n: i32) -> tensor<64xi32, #o1> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #o1>
    %step = arith.constant dense<64> : tensor<64xi32, #o1>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%off = %range) -> (tensor<64xi32, #o1>) : i32 {
      %a = tilegpu.convert_layout %off : tensor<64xi32, #o1> -> tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ob}>>
      %b = tilegpu.convert_layout %off : tensor<64xi32, #o1> -> tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #ob}>>
      %ea = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ob}>> -> tensor<64x1xi32, #ob>
      %eb = tile.expand_dims %b {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #ob}>> -> tensor<1x64xi32, #ob>
      %ba = tile.broadcast %ea : tensor<64x1xi32, #ob> -> tensor<64x64xi32, #ob>
      %bb = tile.broadcast %eb : tensor<1x64xi32, #ob> -> tensor<64x64xi32, #ob>
      %s = arith.addi %ba, %bb : tensor<64x64xi32, #ob>
      %base = tile.splat %p : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>, #ob>
      %ptrs = tile.addptr %base, %s : tensor<64x64x!tile.ptr<i32>, #ob>, tensor<64x64xi32, #ob>
      tile.store %ptrs, %s : tensor<64x64x!tile.ptr<i32>, #ob>
      %next = arith.addi %off, %step : tensor<64xi32, #o1>
      scf.yield %next : tensor<64xi32, #o1>
    }
    return %r : tensor<64xi32, #o1>
  }
  func.func @offsets_in_one_layout(%p: !tile.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #o1>
    %step = arith.constant dense<64> : tensor<64xi32, #o1>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%off = %range) -> (tensor<64xi32, #o1>) : i32 {
      %a = tilegpu.convert_layout %off : tensor<64xi32, #o1> -> tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ob}>>
      %ea = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #ob}>> -> tensor<64x1xi32, #ob>
      %ba = tile.broadcast %ea : tensor<64x1xi32, #ob> -> tensor<64x64xi32, #ob>
      %base = tile.splat %p : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>, #ob>
      %ptrs = tile.addptr %base, %ba : tensor<64x64x!tile.ptr<i32>, #ob>, tensor<64x64xi32, #ob>
      tile.store %ptrs, %ba : tensor<64x64x!tile.ptr<i32>, #ob>
      %next = arith.addi %off, %step : tensor<64xi32, #o1>
      scf.yield %next : tensor<64xi32, #o1>
    }
    return
  }
}

// A row sum (a slice layout) then `out += x * d` and `out *= z * sigmoid(z)`
// on vectors in the 1-D layout (mamba's decode step): the forward rule used
// to pass one conversion between the two ops, back and forth, every round
// until the round cap. An op it has moved out of a layout no longer moves
// back, so the rules converge: x and d are loaded again in the slice
// layout and one conversion is left, before the second op.
// CHECK-LABEL: func.func @chain_after_a_row_sum
// CHECK-COUNT-1: tilegpu.convert_layout
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store
#ru_blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#ru_blocked1 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#ru_blocked2 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#ru_blocked3 = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#ru_slice = #tilegpu.slice<{dim = 1, parent = #ru_blocked1}>
#ru_slice1 = #tilegpu.slice<{dim = 0, parent = #ru_blocked2}>
#ru_slice2 = #tilegpu.slice<{dim = 1, parent = #ru_blocked2}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @chain_after_a_row_sum(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg5: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<1.000000e+00> : tensor<16xf32, #ru_blocked>
    %cst_0 = arith.constant dense<128> : tensor<16x1xi32, #ru_blocked1>
    %0 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #ru_blocked>
    %1 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ru_blocked>
    %2 = tilegpu.convert_layout %0 : tensor<16xi32, #ru_blocked> -> tensor<16xi32, #ru_slice>
    %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<16xi32, #ru_slice> -> tensor<16x1xi32, #ru_blocked1>
    %4 = arith.muli %3, %cst_0 : tensor<16x1xi32, #ru_blocked1>
    %5 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>, #ru_blocked1>
    %6 = tile.addptr %5, %4 : tensor<16x1x!tile.ptr<f32>, #ru_blocked1>, tensor<16x1xi32, #ru_blocked1>
    %7 = tilegpu.convert_layout %1 : tensor<128xi32, #ru_blocked> -> tensor<128xi32, #ru_slice1>
    %8 = tile.expand_dims %7 {axis = 0 : i32} : tensor<128xi32, #ru_slice1> -> tensor<1x128xi32, #ru_blocked2>
    %9 = tile.broadcast %6 : tensor<16x1x!tile.ptr<f32>, #ru_blocked1> -> tensor<16x128x!tile.ptr<f32>, #ru_blocked2>
    %10 = tile.broadcast %8 : tensor<1x128xi32, #ru_blocked2> -> tensor<16x128xi32, #ru_blocked2>
    %11 = tile.addptr %9, %10 : tensor<16x128x!tile.ptr<f32>, #ru_blocked2>, tensor<16x128xi32, #ru_blocked2>
    %12 = tilegpu.convert_layout %11 : tensor<16x128x!tile.ptr<f32>, #ru_blocked2> -> tensor<16x128x!tile.ptr<f32>, #ru_blocked3>
    %13 = tile.load %12 : tensor<16x128x!tile.ptr<f32>, #ru_blocked3>
    %14 = tilegpu.convert_layout %13 : tensor<16x128xf32, #ru_blocked3> -> tensor<16x128xf32, #ru_blocked2>
    %15 = tile.splat %arg4 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #ru_blocked>
    %16 = tile.addptr %15, %1 : tensor<128x!tile.ptr<f32>, #ru_blocked>, tensor<128xi32, #ru_blocked>
    %17 = tile.load %16 : tensor<128x!tile.ptr<f32>, #ru_blocked>
    %18 = tile.splat %arg1 : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #ru_blocked>
    %19 = tile.addptr %18, %0 : tensor<16x!tile.ptr<f32>, #ru_blocked>, tensor<16xi32, #ru_blocked>
    %20 = tile.load %19 : tensor<16x!tile.ptr<f32>, #ru_blocked>
    %21 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #ru_blocked>
    %22 = tile.addptr %21, %0 : tensor<16x!tile.ptr<f32>, #ru_blocked>, tensor<16xi32, #ru_blocked>
    %23 = tile.load %22 : tensor<16x!tile.ptr<f32>, #ru_blocked>
    %24 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #ru_blocked>
    %25 = tile.addptr %24, %0 : tensor<16x!tile.ptr<f32>, #ru_blocked>, tensor<16xi32, #ru_blocked>
    %26 = tile.load %25 : tensor<16x!tile.ptr<f32>, #ru_blocked>
    %27 = tilegpu.convert_layout %17 : tensor<128xf32, #ru_blocked> -> tensor<128xf32, #ru_slice1>
    %28 = tile.expand_dims %27 {axis = 0 : i32} : tensor<128xf32, #ru_slice1> -> tensor<1x128xf32, #ru_blocked2>
    %29 = tile.broadcast %28 : tensor<1x128xf32, #ru_blocked2> -> tensor<16x128xf32, #ru_blocked2>
    %30 = arith.mulf %14, %29 : tensor<16x128xf32, #ru_blocked2>
    %31 = tile.reduce %30 axis = 1 : (tensor<16x128xf32, #ru_blocked2>) -> tensor<16xf32, #ru_slice2> {
    ^bb0(%arg6: f32, %arg7: f32):
      %43 = arith.addf %arg6, %arg7 : f32
      tile.reduce.return %43 : f32
    }
    %32 = tilegpu.convert_layout %31 : tensor<16xf32, #ru_slice2> -> tensor<16xf32, #ru_blocked>
    %33 = arith.mulf %20, %23 : tensor<16xf32, #ru_blocked>
    %34 = arith.addf %32, %33 : tensor<16xf32, #ru_blocked>
    %35 = arith.negf %26 : tensor<16xf32, #ru_blocked>
    %36 = math.exp %35 : tensor<16xf32, #ru_blocked>
    %37 = arith.addf %36, %cst : tensor<16xf32, #ru_blocked>
    %38 = arith.divf %cst, %37 : tensor<16xf32, #ru_blocked>
    %39 = arith.mulf %26, %38 : tensor<16xf32, #ru_blocked>
    %40 = arith.mulf %34, %39 : tensor<16xf32, #ru_blocked>
    %41 = tile.splat %arg5 : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>, #ru_blocked>
    %42 = tile.addptr %41, %0 : tensor<16x!tile.ptr<f32>, #ru_blocked>, tensor<16xi32, #ru_blocked>
    tile.store %42, %40 : tensor<16x!tile.ptr<f32>, #ru_blocked>
    return
  }
}

// A pointer tensor advanced before it is used (`ptr -= BLOCK` at the top of
// the body, a backward walk over blocks as Lightning Attention's backward
// does) and converted after the update, under a branch, for its load: it
// is carried in the load's layout, and no conversion is left in the loop.
// CHECK-LABEL: func.func @pointer_advanced_first
// CHECK: scf.for {{.*}} -> (tensor<64x64x!tile.ptr<f16>, #[[LOAD:blocked[0-9]*]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.load {{.*}} : tensor<64x64x!tile.ptr<f16>, #[[LOAD]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.yield
// A value also used as it is, beside its update, keeps its layout:
// carried converted, it would only move the conversion to that use.
// CHECK-LABEL: func.func @advanced_and_used_as_is
// CHECK: scf.for {{.*}} -> (tensor<64x64x!tile.ptr<f16>, #[[KEPT:blocked[0-9]*]]>)
// CHECK-NEXT: tile.addptr
// CHECK-NEXT: tile.load %{{.*}} : tensor<64x64x!tile.ptr<f16>, #[[KEPT]]>
// CHECK-NOT: tilegpu.convert_layout {{.*}} -> tensor<64x64x!tile.ptr<f16>, #[[KEPT]]>
// CHECK: return
// The same for an offsets vector advanced first and converted to two
// layouts: carried in both, each copy advanced where the body advanced it.
// CHECK-LABEL: func.func @offsets_advanced_first
// CHECK: scf.for {{.*}} -> (tensor<64xi32, #{{blocked[0-9]*}}>, tensor<64xi32, #slice{{[0-9]*}}>, tensor<64xi32, #slice{{[0-9]*}}>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.yield
#fb = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#fl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#f1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @pointer_advanced_first(%p: tensor<64x64x!tile.ptr<f16>, #fb>, %out: tensor<64x64x!tile.ptr<f16>, #fl>, %n: i32, %c: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<-64> : tensor<64x64xi32, #fb>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ptr = %p) -> (tensor<64x64x!tile.ptr<f16>, #fb>) : i32 {
      %next = tile.addptr %ptr, %step : tensor<64x64x!tile.ptr<f16>, #fb>, tensor<64x64xi32, #fb>
      scf.if %c {
        %pc = tilegpu.convert_layout %next : tensor<64x64x!tile.ptr<f16>, #fb> -> tensor<64x64x!tile.ptr<f16>, #fl>
        %x = tile.load %pc : tensor<64x64x!tile.ptr<f16>, #fl>
        tile.store %out, %x : tensor<64x64x!tile.ptr<f16>, #fl>
      }
      scf.yield %next : tensor<64x64x!tile.ptr<f16>, #fb>
    }
    return
  }
  func.func @advanced_and_used_as_is(%p: tensor<64x64x!tile.ptr<f16>, #fb>, %out: tensor<64x64x!tile.ptr<f16>, #fl>, %out2: tensor<64x64x!tile.ptr<f16>, #fb>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %step = arith.constant dense<-64> : tensor<64x64xi32, #fb>
    %c64 = arith.constant dense<64> : tensor<64x64xi32, #fb>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%ptr = %p) -> (tensor<64x64x!tile.ptr<f16>, #fb>) : i32 {
      %q = tile.addptr %ptr, %c64 : tensor<64x64x!tile.ptr<f16>, #fb>, tensor<64x64xi32, #fb>
      %y = tile.load %q : tensor<64x64x!tile.ptr<f16>, #fb>
      tile.store %out2, %y : tensor<64x64x!tile.ptr<f16>, #fb>
      %next = tile.addptr %ptr, %step : tensor<64x64x!tile.ptr<f16>, #fb>, tensor<64x64xi32, #fb>
      %pc = tilegpu.convert_layout %next : tensor<64x64x!tile.ptr<f16>, #fb> -> tensor<64x64x!tile.ptr<f16>, #fl>
      %x = tile.load %pc : tensor<64x64x!tile.ptr<f16>, #fl>
      tile.store %out, %x : tensor<64x64x!tile.ptr<f16>, #fl>
      scf.yield %next : tensor<64x64x!tile.ptr<f16>, #fb>
    }
    return
  }
  func.func @offsets_advanced_first(%p: !tile.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #f1>
    %step = arith.constant dense<-64> : tensor<64xi32, #f1>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%off = %range) -> (tensor<64xi32, #f1>) : i32 {
      %next = arith.addi %off, %step : tensor<64xi32, #f1>
      %a = tilegpu.convert_layout %next : tensor<64xi32, #f1> -> tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #fl}>>
      %b = tilegpu.convert_layout %next : tensor<64xi32, #f1> -> tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #fl}>>
      %ea = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 1, parent = #fl}>> -> tensor<64x1xi32, #fl>
      %eb = tile.expand_dims %b {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #fl}>> -> tensor<1x64xi32, #fl>
      %ba = tile.broadcast %ea : tensor<64x1xi32, #fl> -> tensor<64x64xi32, #fl>
      %bb = tile.broadcast %eb : tensor<1x64xi32, #fl> -> tensor<64x64xi32, #fl>
      %s = arith.addi %ba, %bb : tensor<64x64xi32, #fl>
      %base = tile.splat %p : !tile.ptr<i32> -> tensor<64x64x!tile.ptr<i32>, #fl>
      %ptrs = tile.addptr %base, %s : tensor<64x64x!tile.ptr<i32>, #fl>, tensor<64x64xi32, #fl>
      tile.store %ptrs, %s : tensor<64x64x!tile.ptr<i32>, #fl>
      scf.yield %next : tensor<64xi32, #f1>
    }
    return
  }
}
