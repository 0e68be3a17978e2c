// RUN: tile-opt %s -split-input-file --tilegpu-swap-dot-operands | FileCheck %s

// B unpacked from int8 in registers, A loaded: the product is transposed.
// The computed tile becomes the first operand, the loaded one the second,
// and every transposition keeps each element in its thread (permuted
// layouts), ending in the dot's own result layout.
// CHECK-DAG: #[[BL:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8]
// CHECK-DAG: #[[PB:.*]] = #tilegpu.permuted<{order = [1, 0], parent = #[[BL]]}>
// CHECK-LABEL: func.func @unpacked_b
// CHECK: %[[W:.*]] = arith.sitofp
// CHECK: %[[BT:.*]] = tile.trans %[[W]] {order = array<i32: 1, 0>} : tensor<32x128xbf16, #[[BL]]> -> tensor<128x32xbf16, #[[PB]]>
// CHECK: %[[AT:.*]] = tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x32xbf16, #{{.*}}> -> tensor<32x64xbf16, #permuted{{[0-9]*}}>
// CHECK: %[[CT:.*]] = tile.trans %arg2 {order = array<i32: 1, 0>} : tensor<64x128xf32, #{{.*}}> -> tensor<128x64xf32, #permuted{{[0-9]*}}>
// CHECK: %[[DT:.*]] = tile.dot %[[BT]], %[[AT]], %[[CT]] : tensor<128x32xbf16, #[[PB]]> * tensor<32x64xbf16, {{.*}}> -> tensor<128x64xf32,
// CHECK: %[[D:.*]] = tile.trans %[[DT]] {order = array<i32: 1, 0>} : tensor<128x64xf32, {{.*}}> -> tensor<64x128xf32, #blocked{{[0-9]*}}>
// CHECK: return %[[D]]
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#al = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#cl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @unpacked_b(%pa: tensor<64x32x!tile.ptr<bf16>, #al>, %pw: tensor<32x128x!tile.ptr<i8>, #bl>, %c: tensor<64x128xf32, #cl>) -> tensor<64x128xf32, #cl> {
    %a = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #al>
    %packed = tile.load %pw : tensor<32x128x!tile.ptr<i8>, #bl>
    %w = arith.sitofp %packed : tensor<32x128xi8, #bl> to tensor<32x128xbf16, #bl>
    %d = tile.dot %a, %w, %c : tensor<64x32xbf16, #al> * tensor<32x128xbf16, #bl> -> tensor<64x128xf32, #cl>
    return %d : tensor<64x128xf32, #cl>
  }
}

// -----

// Decode: M = 16 is too few rows for a warpgroup, but the transposed
// product (N = 128 rows) gets one, so it is swapped too.
// CHECK-LABEL: func.func @skinny
// CHECK: tile.dot {{.*}} : tensor<128x64xf16, {{.*}}> * tensor<64x16xf16, {{.*}}> -> tensor<128x16xf32,
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#al = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @skinny(%pa: tensor<16x64x!tile.ptr<f16>, #al>, %w: tensor<64x128xf32, #bl>, %c: tensor<16x128xf32, #bl>) -> tensor<16x128xf32, #bl> {
    %a = tile.load %pa : tensor<16x64x!tile.ptr<f16>, #al>
    %b = arith.truncf %w : tensor<64x128xf32, #bl> to tensor<64x128xf16, #bl>
    %d = tile.dot %a, %b, %c : tensor<16x64xf16, #al> * tensor<64x128xf16, #bl> -> tensor<16x128xf32, #bl>
    return %d : tensor<16x128xf32, #bl>
  }
}

// -----

// Both operands loaded, M = 16: the product has no warpgroup tiling (it
// would run on mma.sync, whose operands the pipeliner does not stage); the
// transposed one has, so it is swapped (and both tiles get copied ahead).
// CHECK-LABEL: func.func @skinny_loaded
// CHECK: tile.trans
// CHECK: tile.dot {{.*}} : tensor<128x64xf16, {{.*}}> * tensor<64x16xf16, {{.*}}> -> tensor<128x16xf32,
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#al = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @skinny_loaded(%pa: tensor<16x64x!tile.ptr<f16>, #al>, %pb: tensor<64x128x!tile.ptr<f16>, #bl>, %c: tensor<16x128xf32, #bl>) -> tensor<16x128xf32, #bl> {
    %a = tile.load %pa : tensor<16x64x!tile.ptr<f16>, #al>
    %b = tile.load %pb : tensor<64x128x!tile.ptr<f16>, #bl>
    %d = tile.dot %a, %b, %c : tensor<16x64xf16, #al> * tensor<64x128xf16, #bl> -> tensor<16x128xf32, #bl>
    return %d : tensor<16x128xf32, #bl>
  }
}

// -----

// Left alone: both operands loaded with M >= 64 (wgmma takes the product
// as it is: nothing is stored per iteration); B
// computed but A computed too (A is already the register operand); an
// int8 product (wgmma's register A is 16-bit only); N = 32, too few rows
// for the transposed product's warpgroup; and sm_80 (no wgmma) below.
// CHECK-LABEL: func.func @stays
// CHECK-NOT: tile.trans
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16, #{{[a-z0-9]*}}> * tensor<32x128xbf16
// CHECK-NOT: tile.trans
// CHECK: tile.dot
// CHECK-NOT: tile.trans
// CHECK: tile.dot
// CHECK-NOT: tile.trans
// CHECK: tile.dot
// CHECK-NOT: tile.trans
// CHECK: return
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#al = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @stays(%pa: tensor<64x32x!tile.ptr<bf16>, #al>, %pb: tensor<32x128x!tile.ptr<bf16>, #bl>, %x: tensor<64x32xf32, #al>, %w: tensor<32x128xf32, #bl>, %pa8: tensor<64x32x!tile.ptr<i8>, #al>, %w8: tensor<32x128xi32, #bl>, %w32: tensor<32x32xf32, #bl>, %c: tensor<64x128xf32, #bl>, %ci: tensor<64x128xi32, #bl>, %c32: tensor<64x32xf32, #bl>) {
    %a = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #al>
    %b = tile.load %pb : tensor<32x128x!tile.ptr<bf16>, #bl>
    %d0 = tile.dot %a, %b, %c : tensor<64x32xbf16, #al> * tensor<32x128xbf16, #bl> -> tensor<64x128xf32, #bl>
    %xa = arith.truncf %x : tensor<64x32xf32, #al> to tensor<64x32xbf16, #al>
    %wb = arith.truncf %w : tensor<32x128xf32, #bl> to tensor<32x128xbf16, #bl>
    %d1 = tile.dot %xa, %wb, %c : tensor<64x32xbf16, #al> * tensor<32x128xbf16, #bl> -> tensor<64x128xf32, #bl>
    %a8 = tile.load %pa8 : tensor<64x32x!tile.ptr<i8>, #al>
    %b8 = arith.trunci %w8 : tensor<32x128xi32, #bl> to tensor<32x128xi8, #bl>
    %d2 = tile.dot %a8, %b8, %ci : tensor<64x32xi8, #al> * tensor<32x128xi8, #bl> -> tensor<64x128xi32, #bl>
    %wn = arith.truncf %w32 : tensor<32x32xf32, #bl> to tensor<32x32xbf16, #bl>
    %d3 = tile.dot %a, %wn, %c32 : tensor<64x32xbf16, #al> * tensor<32x32xbf16, #bl> -> tensor<64x32xf32, #bl>
    return
  }
}

// -----

// CHECK-LABEL: func.func @no_wgmma
// CHECK-NOT: tile.trans
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#al = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @no_wgmma(%pa: tensor<64x32x!tile.ptr<bf16>, #al>, %w: tensor<32x128xf32, #bl>, %c: tensor<64x128xf32, #bl>) -> tensor<64x128xf32, #bl> {
    %a = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #al>
    %b = arith.truncf %w : tensor<32x128xf32, #bl> to tensor<32x128xbf16, #bl>
    %d = tile.dot %a, %b, %c : tensor<64x32xbf16, #al> * tensor<32x128xbf16, #bl> -> tensor<64x128xf32, #bl>
    return %d : tensor<64x128xf32, #bl>
  }
}
