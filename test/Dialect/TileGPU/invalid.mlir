// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 16}}
func.func @f(%a: tensor<16xf32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [1], order = [0]}>>) { return }

// -----

// expected-error @+1 {{order must be a permutation of [0, 2)}}
func.func @f(%a: tensor<16x16xf32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 1]}>>) { return }

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%a: tensor<128xf32>) {
  // expected-error @+1 {{source must have a distributed layout}}
  %0 = tilegpu.convert_layout %a : tensor<128xf32> -> tensor<128xf32, #b>
  return
}

// -----

// expected-error @+1 {{slice parent must have rank >= 2}}
func.func @f(%a: tensor<16xf32, #tilegpu.slice<{dim = 0, parent = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>}>>) { return }

// -----

// expected-error @+1 {{'tilegpu.num_warps' must be a power-of-two integer in [1, 32] on a module}}
module attributes {tilegpu.num_warps = 3 : i32} {}

