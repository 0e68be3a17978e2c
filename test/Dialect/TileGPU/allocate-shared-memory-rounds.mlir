// RUN: tile-opt %s --split-input-file --tilegpu-allocate-shared-memory | FileCheck %s --check-prefix=ALLOC
// RUN: tile-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s --check-prefix=LOWER

// A conversion of 256 KiB (65,536 f32 from 4 to 1 element per thread) goes
// in four rounds through 64 KiB: index bits 15 and 14 are register bits of
// both layouts. Each round stores its registers, waits at a barrier and
// loads; a barrier keeps the next round's stores until those loads are done.
// ALLOC: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 65536 : i64
// ALLOC: tilegpu.convert_layout {{.*}} {tilegpu.offset = 0 : i64} : tensor<65536xf32
// LOWER-LABEL: func.func @rounds
// LOWER-COUNT-7: nvvm.barrier0
// LOWER-NOT: nvvm.barrier0
// LOWER: return
#wide = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#narrow = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @rounds(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>) attributes {tile.kernel} {
    %r = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #wide>
    %xs = tile.splat %x : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #wide>
    %xp = tile.addptr %xs, %r : tensor<65536x!tile.ptr<f32>, #wide>, tensor<65536xi32, #wide>
    %v = tile.load %xp : tensor<65536x!tile.ptr<f32>, #wide>
    %c = tilegpu.convert_layout %v : tensor<65536xf32, #wide> -> tensor<65536xf32, #narrow>
    %q = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #narrow>
    %ys = tile.splat %y : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #narrow>
    %yp = tile.addptr %ys, %q : tensor<65536x!tile.ptr<f32>, #narrow>, tensor<65536xi32, #narrow>
    tile.store %yp, %c : tensor<65536x!tile.ptr<f32>, #narrow>
    return
  }
}

// -----

// One of 16 KiB goes at once: one barrier between the stores and the loads.
// ALLOC: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 16384 : i64
// LOWER-LABEL: func.func @once
// LOWER-COUNT-1: nvvm.barrier0
// LOWER-NOT: nvvm.barrier0
// LOWER: return
#wide = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#narrow = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @once(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32>) attributes {tile.kernel} {
    %r = tile.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #wide>
    %xs = tile.splat %x : !tile.ptr<f32> -> tensor<4096x!tile.ptr<f32>, #wide>
    %xp = tile.addptr %xs, %r : tensor<4096x!tile.ptr<f32>, #wide>, tensor<4096xi32, #wide>
    %v = tile.load %xp : tensor<4096x!tile.ptr<f32>, #wide>
    %c = tilegpu.convert_layout %v : tensor<4096xf32, #wide> -> tensor<4096xf32, #narrow>
    %q = tile.make_range {end = 4096 : i32, start = 0 : i32} : tensor<4096xi32, #narrow>
    %ys = tile.splat %y : !tile.ptr<f32> -> tensor<4096x!tile.ptr<f32>, #narrow>
    %yp = tile.addptr %ys, %q : tensor<4096x!tile.ptr<f32>, #narrow>, tensor<4096xi32, #narrow>
    tile.store %yp, %c : tensor<4096x!tile.ptr<f32>, #narrow>
    return
  }
}

// -----

// Transposing layouts at 8 warps: no index bit is a register bit of both.
// 256 KiB in four rounds by index bits 9 and 8 (rows 1 and 0): warps of
// the source, registers of the result. A thread's registers change rounds
// with its warp, so the rounds are a loop (one copy of each access): a
// warp stores all its registers in its own round; the result's four
// register groups each load in one round and keep their values otherwise.
// ALLOC: module attributes {tilegpu.num_warps = 8 : i32, tilegpu.shared = 65536 : i64
// The carried registers start at zero, not poison (wrong results on the
// H100 with poison).
// LOWER-LABEL: func.func @transposed
// LOWER: %[[ZERO:.*]] = llvm.mlir.zero : f32
// LOWER-NOT: llvm.mlir.poison
// LOWER: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]], {{.*}} -> ({{(f32, ){255}f32}})
// LOWER-NEXT: nvvm.barrier0
// LOWER: scf.if %{{.*}} {
// LOWER: nvvm.barrier0
// LOWER-COUNT-4: scf.if %{{.*}} -> ({{(f32, ){63}f32}})
// LOWER-NOT: scf.if
// LOWER-NOT: nvvm.barrier0
// LOWER: return
#rows = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]}>
#cols = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @transposed(%s: f32, %y: !tile.ptr<f32>) attributes {tile.kernel} {
    %v = tile.splat %s : f32 -> tensor<256x256xf32, #rows>
    %c = tilegpu.convert_layout %v : tensor<256x256xf32, #rows> -> tensor<256x256xf32, #cols>
    %ys = tile.splat %y : !tile.ptr<f32> -> tensor<256x256x!tile.ptr<f32>, #cols>
    tile.store %ys, %c : tensor<256x256x!tile.ptr<f32>, #cols>
    return
  }
}
