// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-llvm -verify-diagnostics

// A layout that repeats a 64K-element tensor in every thread (sizePerThread
// past the shape) would unroll into 65,536 values per thread and op; the
// lowering refuses it instead of exhausting the compiler's memory.
#wide = #tilegpu.blocked<{sizePerThread = [1073741824], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @repeated_everywhere(%y: !tile.ptr<f32>) attributes {tile.kernel} {
    // expected-error @below {{a thread would hold 65536 registers of}}
    %r = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #wide>
    %f = arith.sitofp %r : tensor<65536xi32, #wide> to tensor<65536xf32, #wide>
    %ys = tile.splat %y : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #wide>
    %yp = tile.addptr %ys, %r : tensor<65536x!tile.ptr<f32>, #wide>, tensor<65536xi32, #wide>
    tile.store %yp, %f : tensor<65536x!tile.ptr<f32>, #wide>
    return
  }
}

// -----

// The largest block (2^20 elements) over a single warp is still lowered:
// 32,768 registers a thread, the limit.
#one_warp = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
  func.func @largest_block_one_warp() attributes {tile.kernel} {
    %r = tile.make_range {end = 1048576 : i32, start = 0 : i32} : tensor<1048576xi32, #one_warp>
    return
  }
}
