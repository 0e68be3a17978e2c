// RUN: tile-opt %s -split-input-file --tilegpu-accelerate-matmul | FileCheck %s

// fp16 on sm_90a with 8 warps: two warpgroups along M, m64n128, A K-major
// with the 128-byte swizzle, B N-major (as loaded) with the 128-byte swizzle.
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
// CHECK-DAG: #[[SA:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-LABEL: func.func @fp16
// CHECK: %[[A:.*]] = tilegpu.local_alloc %arg0 : ({{.*}}) -> !tilegpu.memdesc<128x64xf16, #[[SA]]>
// CHECK: %[[B:.*]] = tilegpu.local_alloc %arg1 : ({{.*}}) -> !tilegpu.memdesc<64x128xf16, #[[SA]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %arg2 : {{.*}} -> tensor<128x128xf32, #[[MMA]]>
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %[[A]], %[[B]], %[[C]] :
// CHECK: tilegpu.convert_layout %[[D]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #blocked>
// CHECK-NOT: tile.dot
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @fp16(%a: tensor<128x64xf16, #blocked>, %b: tensor<64x128xf16, #blocked>, %c: tensor<128x128xf32, #blocked>) -> tensor<128x128xf32, #blocked> {
    %d = tile.dot %a, %b, %c : tensor<128x64xf16, #blocked> * tensor<64x128xf16, #blocked> -> tensor<128x128xf32, #blocked>
    return %d : tensor<128x128xf32, #blocked>
  }
}

// -----

// fp8 is K-major on both sides (wgmma transposes only 16-bit types); K =
// 32 bytes of fp8 takes the 32-byte swizzle. 4 warps over N = 256: one
// warpgroup, m64n256k32.
// CHECK-DAG: #[[MMA8:.*]] = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 256, 32]}>
// CHECK-DAG: #[[KA:.*]] = #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>
// CHECK-DAG: #[[KB:.*]] = #tilegpu.nvmma_shared<{swizzle = 32, order = [0, 1]}>
// CHECK-LABEL: func.func @fp8
// CHECK: tilegpu.local_alloc %arg0 : ({{.*}}) -> !tilegpu.memdesc<64x32xf8E4M3FN, #[[KA]]>
// CHECK: tilegpu.local_alloc %arg1 : ({{.*}}) -> !tilegpu.memdesc<32x256xf8E4M3FN, #[[KB]]>
// CHECK: tilegpu.warpgroup_dot
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @fp8(%a: tensor<64x32xf8E4M3FN, #blocked>, %b: tensor<32x256xf8E4M3FN, #blocked>, %c: tensor<64x256xf32, #blocked>) -> tensor<64x256xf32, #blocked> {
    %d = tile.dot %a, %b, %c : tensor<64x32xf8E4M3FN, #blocked> * tensor<32x256xf8E4M3FN, #blocked> -> tensor<64x256xf32, #blocked>
    return %d : tensor<64x256xf32, #blocked>
  }
}

// -----

// max_num_imprecise_acc travels onto the warpgroup dot (the lowering
// slices K by it).
// CHECK-LABEL: func.func @fp8_imprecise_bound
// CHECK: tilegpu.warpgroup_dot {{.*}} maxNumImpreciseAcc = 32
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @fp8_imprecise_bound(%a: tensor<64x64xf8E5M2, #blocked>, %b: tensor<64x64xf8E5M2, #blocked>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %d = tile.dot %a, %b, %c {maxNumImpreciseAcc = 32 : i32} : tensor<64x64xf8E5M2, #blocked> * tensor<64x64xf8E5M2, #blocked> -> tensor<64x64xf32, #blocked>
    return %d : tensor<64x64xf32, #blocked>
  }
}

// -----

// tf32 only when asked for: an IEEE fp32 dot stays on the FMA path. A
// 32-row fp16 tile is too small for a warpgroup MMA (64 rows) and takes
// mma.sync instead.
// CHECK-LABEL: func.func @stays
// CHECK: tilegpu.warpgroup_dot {{.*}} inputPrecision = tf32
// CHECK: tile.dot {{.*}} : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked>
// CHECK: tile.dot {{.*}} : tensor<32x32xf16, #dot_op{{[0-9]*}}> * tensor<32x32xf16, #dot_op{{[0-9]*}}> -> tensor<32x32xf32, #mma{{[0-9]+}}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @stays(%a: tensor<64x32xf32, #blocked>, %b: tensor<32x64xf32, #blocked>, %c: tensor<64x64xf32, #blocked>,
                   %h: tensor<32x32xf16, #blocked>, %hc: tensor<32x32xf32, #blocked>) {
    %0 = tile.dot %a, %b, %c inputPrecision = tf32 : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    %1 = tile.dot %a, %b, %c : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    %2 = tile.dot %h, %h, %hc : tensor<32x32xf16, #blocked> * tensor<32x32xf16, #blocked> -> tensor<32x32xf32, #blocked>
    return
  }
}

// -----

// Before sm_90a: mma.sync (version 2, m16n8k16), warps along M first. The
// operands move into the register fragments of the mma; the dot keeps its
// op. IEEE fp32 operands stay on FMA.
// CHECK-DAG: #mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>
// CHECK-DAG: #[[OA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-DAG: #[[OB:.*]] = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
// CHECK-LABEL: func.func @sm80
// CHECK: %[[A:.*]] = tilegpu.convert_layout %arg0 : {{.*}} -> tensor<64x32xf16, #[[OA]]>
// CHECK: %[[B:.*]] = tilegpu.convert_layout %arg1 : {{.*}} -> tensor<32x64xf16, #[[OB]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %arg2 : {{.*}} -> tensor<64x64xf32, #mma>
// CHECK: tile.dot %[[A]], %[[B]], %[[C]]
// CHECK: tile.dot {{.*}} : tensor<64x32xf32, #blocked>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @sm80(%a: tensor<64x32xf16, #blocked>, %b: tensor<32x64xf16, #blocked>, %c: tensor<64x64xf32, #blocked>,
                  %a32: tensor<64x32xf32, #blocked>, %b32: tensor<32x64xf32, #blocked>) -> (tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>) {
    %d = tile.dot %a, %b, %c : tensor<64x32xf16, #blocked> * tensor<32x64xf16, #blocked> -> tensor<64x64xf32, #blocked>
    %e = tile.dot %a32, %b32, %c : tensor<64x32xf32, #blocked> * tensor<32x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
    return %d, %e : tensor<64x64xf32, #blocked>, tensor<64x64xf32, #blocked>
  }
}

// -----

// Attention's shape: Q is loaded once before the key loop, so its shared
// copy is made once, before the loop; K arrives K-contiguous (a transposed
// load, through a conversion) and is staged K-major as it arrives, before
// the conversion: here that value is loop-invariant, so its copy is also
// made once, before the loop.
// CHECK-DAG: #[[QA:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-DAG: #[[KK:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
// CHECK-LABEL: func.func @loop_invariant_a
// CHECK: %[[Q:.*]] = tilegpu.local_alloc %arg0 : ({{.*}}) -> !tilegpu.memdesc<128x64xf16, #[[QA]]>
// CHECK-NEXT: %[[K:.*]] = tilegpu.local_alloc %arg1 : ({{.*}}) -> !tilegpu.memdesc<64x64xf16, #[[KK]]>
// CHECK-NEXT: scf.for
// CHECK: tilegpu.warpgroup_dot %[[Q]], %[[K]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#kmajor = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @loop_invariant_a(%q: tensor<128x64xf16, #blocked>, %k: tensor<64x64xf16, #kmajor>, %n: i32, %c: tensor<128x64xf32, #blocked>) -> tensor<128x64xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<128x64xf32, #blocked>) : i32 {
      %kb = tilegpu.convert_layout %k : tensor<64x64xf16, #kmajor> -> tensor<64x64xf16, #blocked>
      %d = tile.dot %q, %kb, %acc : tensor<128x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<128x64xf32, #blocked>
      scf.yield %d : tensor<128x64xf32, #blocked>
    }
    return %r : tensor<128x64xf32, #blocked>
  }
}

// -----

// A transposed A (held M-contiguous) is staged M-major, as loaded: a
// 64-row warpgroup slab is one 128-byte swizzle atom; wgmma transposes it.
// CHECK-DAG: #[[MA:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
// CHECK-LABEL: func.func @m_major_a
// CHECK: tilegpu.local_alloc %{{.*}} : ({{.*}}) -> !tilegpu.memdesc<128x64xf16, #[[MA]]>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#mmajor = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @m_major_a(%a: tensor<128x64xf16, #mmajor>, %b: tensor<64x128xf16, #blocked>, %c: tensor<128x128xf32, #blocked>) -> tensor<128x128xf32, #blocked> {
    %ab = tilegpu.convert_layout %a : tensor<128x64xf16, #mmajor> -> tensor<128x64xf16, #blocked>
    %d = tile.dot %ab, %b, %c : tensor<128x64xf16, #blocked> * tensor<64x128xf16, #blocked> -> tensor<128x128xf32, #blocked>
    return %d : tensor<128x128xf32, #blocked>
  }
}

// -----

// A computed in registers (scaled, then rounded to f16) feeds wgmma from
// registers: a conversion into the accumulator fragment's dot_op layout,
// no shared-memory copy. B still comes from shared memory.
// CHECK-DAG: #mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-LABEL: func.func @register_a
// CHECK-NOT: tilegpu.local_alloc %0
// CHECK: %[[A:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #[[OPA]]>
// CHECK: %[[B:.*]] = tilegpu.local_alloc %arg1
// CHECK: tilegpu.warpgroup_dot %[[A]], %[[B]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @register_a(%x: tensor<64x32xf32, #blocked>, %b: tensor<32x64xf16, #blocked>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %a = arith.truncf %x : tensor<64x32xf32, #blocked> to tensor<64x32xf16, #blocked>
    %d = tile.dot %a, %b, %c : tensor<64x32xf16, #blocked> * tensor<32x64xf16, #blocked> -> tensor<64x64xf32, #blocked>
    return %d : tensor<64x64xf32, #blocked>
  }
}

// -----

// A transposition of a tile computed in registers (attention backward's
// dS^T in dQ = dS^T K) would cross warps on its way into the operand's
// registers; it is staged instead, M-major as the untransposed tile holds
// it, and wgmma reads it from shared memory.
// CHECK-DAG: #[[TA:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
// CHECK-LABEL: func.func @transposed_computed_a
// CHECK: %[[T:.*]] = tile.trans
// CHECK: %[[A:.*]] = tilegpu.local_alloc %[[T]] : ({{.*}}) -> !tilegpu.memdesc<64x128xf16, #[[TA]]>
// CHECK: tilegpu.warpgroup_dot %[[A]],
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#blockedt = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @transposed_computed_a(%x: tensor<128x64xf32, #blocked>, %b: tensor<128x128xf16, #blocked>, %c: tensor<64x128xf32, #blocked>) -> tensor<64x128xf32, #blocked> {
    %h = arith.truncf %x : tensor<128x64xf32, #blocked> to tensor<128x64xf16, #blocked>
    %t = tile.trans %h {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedt>
    %a = tilegpu.convert_layout %t : tensor<64x128xf16, #blockedt> -> tensor<64x128xf16, #blocked>
    %d = tile.dot %a, %b, %c : tensor<64x128xf16, #blocked> * tensor<128x128xf16, #blocked> -> tensor<64x128xf32, #blocked>
    return %d : tensor<64x128xf32, #blocked>
  }
}

// -----

// Attention backward with the queries as rows: dS (64 x 128, computed) is
// the A of dQ = dS K, and its transpose the A of dK += dS^T Q. The dots
// whose A is a transposed computed tile are rewritten first: dS^T gets its
// shared copy (moved up with its transposition to before dQ's dot), and
// dQ, whose two warpgroups split N and so would both need all of dS in
// registers, reads that copy through a transposed view (K-major). With M =
// 128 (warpgroups along M) a register A stays: @one_group_per_rows.
// CHECK-LABEL: func.func @a_from_its_transposes_copy
// CHECK: %[[T:.*]] = tile.trans %[[H:.*]] {order
// CHECK-NEXT: %[[COPY:.*]] = tilegpu.local_alloc %[[T]] : ({{.*}}) -> !tilegpu.memdesc<128x64xf16, #[[MMAJOR:.*]]>
// CHECK: %[[VIEW:.*]] = tilegpu.memdesc_trans %[[COPY]] : <128x64xf16, #[[MMAJOR]]> -> <64x128xf16, #[[KMAJOR:.*]]>
// CHECK: tilegpu.warpgroup_dot %[[VIEW]], %{{.*}} -> tensor<64x128xf32, #[[MMA42:.*]]>
// CHECK: tilegpu.warpgroup_dot %[[COPY]], %{{.*}} -> tensor<128x64xf32,
// CHECK-NOT: tilegpu.local_alloc %[[H]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#blockedt = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @a_from_its_transposes_copy(%x: tensor<64x128xf32, #blocked>, %k: tensor<128x128xf16, #blocked>, %q: tensor<64x64xf16, #blocked>, %c: tensor<64x128xf32, #blocked>, %c2: tensor<128x64xf32, #blocked>) -> (tensor<64x128xf32, #blocked>, tensor<128x64xf32, #blocked>) {
    %h = arith.truncf %x : tensor<64x128xf32, #blocked> to tensor<64x128xf16, #blocked>
    %dq = tile.dot %h, %k, %c : tensor<64x128xf16, #blocked> * tensor<128x128xf16, #blocked> -> tensor<64x128xf32, #blocked>
    %t = tile.trans %h {order = array<i32: 1, 0>} : tensor<64x128xf16, #blocked> -> tensor<128x64xf16, #blockedt>
    %a = tilegpu.convert_layout %t : tensor<128x64xf16, #blockedt> -> tensor<128x64xf16, #blocked>
    %dk = tile.dot %a, %q, %c2 : tensor<128x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<128x64xf32, #blocked>
    return %dq, %dk : tensor<64x128xf32, #blocked>, tensor<128x64xf32, #blocked>
  }
}

// -----

// The same pair with dS 128 x 64: dQ's warpgroups split M, each holds its
// own rows of dS in registers, and the transposed copy is not read.
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-LABEL: func.func @one_group_per_rows
// CHECK: %[[A:.*]] = tilegpu.convert_layout %{{.*}} : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #[[OPA]]>
// CHECK-NOT: tilegpu.memdesc_trans
// CHECK: tilegpu.warpgroup_dot %[[A]],
// CHECK-NOT: tilegpu.memdesc_trans
// CHECK: return
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#blockedt = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 8], order = [0, 1]}>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func @one_group_per_rows(%x: tensor<128x64xf32, #blocked>, %k: tensor<64x128xf16, #blocked>, %q: tensor<128x64xf16, #blocked>, %c: tensor<128x128xf32, #blocked>, %c2: tensor<64x64xf32, #blocked>) -> (tensor<128x128xf32, #blocked>, tensor<64x64xf32, #blocked>) {
    %h = arith.truncf %x : tensor<128x64xf32, #blocked> to tensor<128x64xf16, #blocked>
    %dq = tile.dot %h, %k, %c : tensor<128x64xf16, #blocked> * tensor<64x128xf16, #blocked> -> tensor<128x128xf32, #blocked>
    %t = tile.trans %h {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedt>
    %a = tilegpu.convert_layout %t : tensor<64x128xf16, #blockedt> -> tensor<64x128xf16, #blocked>
    %dk = tile.dot %a, %q, %c2 : tensor<64x128xf16, #blocked> * tensor<128x64xf16, #blocked> -> tensor<64x64xf32, #blocked>
    return %dq, %dk : tensor<128x128xf32, #blocked>, tensor<64x64xf32, #blocked>
  }
}

// -----

// A register A unpacked from a loaded tile of bytes (the transposed int4
// weights of a swapped product) takes its rows in the adjacentRows order,
// in the accumulator and in the operand: a lane's bytes then form the 2x2
// blocks of an ldmatrix.trans word.
// CHECK-DAG: #mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], adjacentRows = true}>
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-LABEL: func.func @unpacked_bytes
// CHECK: tilegpu.convert_layout %{{.*}} : tensor<64x32xbf16, #blocked1> -> tensor<64x32xbf16, #[[OPA]]>
// CHECK: tilegpu.warpgroup_dot {{.*}} -> tensor<64x16xf32, #mma>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @unpacked_bytes(%w: tensor<32x64x!tile.ptr<i8>, #blocked>, %x: tensor<32x16xbf16, #blocked>, %c: tensor<64x16xf32, #blocked>) -> tensor<64x16xf32, #blocked> {
    %packed = tile.load %w : tensor<32x64x!tile.ptr<i8>, #blocked>
    %four = arith.constant dense<4> : tensor<32x64xi8, #blocked>
    %high = arith.shrsi %packed, %four : tensor<32x64xi8, #blocked>
    %f = arith.sitofp %high : tensor<32x64xi8, #blocked> to tensor<32x64xbf16, #blocked>
    %t = tile.trans %f {order = array<i32: 1, 0>} : tensor<32x64xbf16, #blocked> -> tensor<64x32xbf16, #blocked1>
    %d = tile.dot %t, %x, %c : tensor<64x32xbf16, #blocked1> * tensor<32x16xbf16, #blocked> -> tensor<64x16xf32, #blocked>
    return %d : tensor<64x16xf32, #blocked>
  }
}

// -----

// The same from a loaded tile of 16-bit values keeps the plain row order.
// CHECK-DAG: #mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
// CHECK-LABEL: func.func @unpacked_halves
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @unpacked_halves(%w: tensor<32x64x!tile.ptr<i16>, #blocked>, %x: tensor<32x16xbf16, #blocked>, %c: tensor<64x16xf32, #blocked>) -> tensor<64x16xf32, #blocked> {
    %packed = tile.load %w : tensor<32x64x!tile.ptr<i16>, #blocked>
    %f = arith.sitofp %packed : tensor<32x64xi16, #blocked> to tensor<32x64xbf16, #blocked>
    %t = tile.trans %f {order = array<i32: 1, 0>} : tensor<32x64xbf16, #blocked> -> tensor<64x32xbf16, #blocked1>
    %d = tile.dot %t, %x, %c : tensor<64x32xbf16, #blocked1> * tensor<32x16xbf16, #blocked> -> tensor<64x16xf32, #blocked>
    return %d : tensor<64x16xf32, #blocked>
  }
}

// -----

// B = tl.trans of a descriptor load (attention's K^T on descriptors): the
// 32x64 K tile is staged as TMA writes it (row-major, the descriptor's
// 128-byte swizzle) and read through a transposed view as the 64x32
// K-major B, no copy through registers.
// CHECK-LABEL: func.func @transposed_descriptor_b
// CHECK: %[[A:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, {{.*}}>) -> !tilegpu.memdesc<64x64xf16, #[[SA:.*]]>
// CHECK: %[[K:.*]] = tilegpu.local_alloc %[[LOAD:.*]] : (tensor<32x64xf16, {{.*}}>) -> !tilegpu.memdesc<32x64xf16, #[[SA]]>
// CHECK: %[[KT:.*]] = tilegpu.memdesc_trans %[[K]] : <32x64xf16, #[[SA]]> -> <64x32xf16, #[[SKT:.*]]>
// CHECK: tilegpu.warpgroup_dot %[[A]], %[[KT]], %{{.*}} : !tilegpu.memdesc<64x64xf16, #[[SA]]> * <64x32xf16, #[[SKT]]>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @transposed_descriptor_b(%arg0: !tile.tensordesc<tensor<64x64xf16>>, %arg1: !tile.tensordesc<tensor<32x64xf16>>) -> tensor<64x32xf32, #blocked1> {
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #blocked1>
    %c0_i32 = arith.constant 0 : i32
    %0 = tile.descriptor_load %arg0[%c0_i32, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked2>
    %1 = tile.descriptor_load %arg1[%c0_i32, %c0_i32] : !tile.tensordesc<tensor<32x64xf16>> -> tensor<32x64xf16, #blocked2>
    %2 = tile.trans %1 {order = array<i32: 1, 0>} : tensor<32x64xf16, #blocked2> -> tensor<64x32xf16, #blocked1>
    %3 = tile.dot %0, %2, %cst_0 : tensor<64x64xf16, #blocked2> * tensor<64x32xf16, #blocked1> -> tensor<64x32xf32, #blocked1>
    return %3 : tensor<64x32xf32, #blocked1>
  }
}

// -----

// B = tl.trans of a pointer-loaded NxK tile whose rows arrive K-contiguous
// (attention's K loaded row-major): the tile itself is staged row-major and
// read through a transposed view, so the pipeliner can fill it by cp.async;
// no register transpose, no second shared copy.
// CHECK-DAG: #[[ROWS:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-DAG: #[[KMAJOR:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
// CHECK-LABEL: func.func @transposed_pointer_b
// CHECK: %[[K:.*]] = tilegpu.local_alloc %0 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #[[ROWS]]>
// CHECK: %[[KT:.*]] = tilegpu.memdesc_trans %[[K]] : <64x64xf16, #[[ROWS]]> -> <64x64xf16, #[[KMAJOR]]>
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %[[KT]], %{{.*}} :
// CHECK-NOT: tile.trans
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @transposed_pointer_b(%a: tensor<64x64xf16, #blocked>, %kp: tensor<64x64x!tile.ptr<f16>, #blocked>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %k = tile.load %kp : tensor<64x64x!tile.ptr<f16>, #blocked>
    %kt = tile.trans %k {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
    %kb = tilegpu.convert_layout %kt : tensor<64x64xf16, #blocked1> -> tensor<64x64xf16, #blocked>
    %d = tile.dot %a, %kb, %c : tensor<64x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<64x64xf32, #blocked>
    return %d : tensor<64x64xf32, #blocked>
  }
}

// -----

// A transposed tile whose rows arrive N-contiguous (a column-major load)
// is already the N-major B wgmma transposes itself: it is staged as the
// transposed value, with no view.
// CHECK-DAG: #[[NMAJOR:.*]] = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-LABEL: func.func @transposed_column_major_b
// CHECK-NOT: tilegpu.memdesc_trans
// CHECK: %[[B:.*]] = tilegpu.local_alloc %0 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #[[NMAJOR]]>
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %[[B]], %{{.*}} :
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @transposed_column_major_b(%a: tensor<64x64xf16, #blocked>, %k: tensor<64x64xf16, #blocked1>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %kt = tile.trans %k {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked1> -> tensor<64x64xf16, #blocked>
    %d = tile.dot %a, %kt, %c : tensor<64x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<64x64xf32, #blocked>
    return %d : tensor<64x64xf32, #blocked>
  }
}

// -----

// Two dots read the same A (attention's Q before the loop and in it): the
// copy made for the first dominates the second, which reads it too.
// CHECK-LABEL: func.func @shared_a_copy
// CHECK-COUNT-1: tilegpu.local_alloc %arg0
// CHECK-NOT: tilegpu.local_alloc %arg0
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @shared_a_copy(%a: tensor<64x64xf16, #blocked>, %b: tensor<64x64xf16, #blocked>, %n: i32) -> tensor<64x64xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #blocked>
    %first = tile.dot %a, %b, %zero : tensor<64x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<64x64xf32, #blocked>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %first) -> (tensor<64x64xf32, #blocked>) : i32 {
      %next = tile.dot %a, %b, %acc : tensor<64x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<64x64xf32, #blocked>
      scf.yield %next : tensor<64x64xf32, #blocked>
    }
    return %r : tensor<64x64xf32, #blocked>
  }
}

// -----

// Dots wgmma cannot take on sm_90a go to mma.sync with the instruction K
// and kWidth (K elements a 32-bit register packs) of their type: tf32 with
// too few rows for a warpgroup (m16n8k8, kWidth 1), int8 over two warps
// (m16n8k32, kWidth 4), and an f16 accumulator (m16n8k16, kWidth 2).
// CHECK-DAG: #[[TF:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 1], instrShape = [16, 8, 8]}>
// CHECK-DAG: #[[I8:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 1], instrShape = [16, 8, 32]}>
// CHECK-DAG: #[[H:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 1], instrShape = [16, 8, 16]}>
// CHECK-DAG: #[[TFA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[TF]], kWidth = 1}>
// CHECK-DAG: #[[I8B:.*]] = #tilegpu.dot_op<{opIdx = 1, parent = #[[I8]], kWidth = 4}>
// CHECK-DAG: #[[HA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[H]], kWidth = 2}>
// CHECK-LABEL: func.func @mma_sync_types
// CHECK: tile.dot {{.*}} : tensor<32x32xf32, #[[TFA]]> * {{.*}} -> tensor<32x32xf32, #[[TF]]>
// CHECK: tile.dot {{.*}} * tensor<64x64xi8, #[[I8B]]> -> tensor<64x64xi32, #[[I8]]>
// CHECK: tile.dot {{.*}} : tensor<64x64xf16, #[[HA]]> * {{.*}} -> tensor<64x64xf16, #[[H]]>
// CHECK: tile.dot {{.*}} : tensor<32x32xf32, #blocked> * tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 2 : i32, tilegpu.target = "sm_90a"} {
  func.func @mma_sync_types(%f: tensor<32x32xf32, #blocked>, %i: tensor<64x64xi8, #blocked>, %ic: tensor<64x64xi32, #blocked>,
                            %h: tensor<64x64xf16, #blocked>) -> (tensor<32x32xf32, #blocked>, tensor<64x64xi32, #blocked>, tensor<64x64xf16, #blocked>, tensor<32x32xf32, #blocked>) {
    %0 = tile.dot %f, %f, %f inputPrecision = tf32 : tensor<32x32xf32, #blocked> * tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked>
    %1 = tile.dot %i, %i, %ic : tensor<64x64xi8, #blocked> * tensor<64x64xi8, #blocked> -> tensor<64x64xi32, #blocked>
    %2 = tile.dot %h, %h, %h : tensor<64x64xf16, #blocked> * tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked>
    // IEEE fp32 has no tensor-core instruction: FMA.
    %3 = tile.dot %f, %f, %f : tensor<32x32xf32, #blocked> * tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked>
    return %0, %1, %2, %3 : tensor<32x32xf32, #blocked>, tensor<64x64xi32, #blocked>, tensor<64x64xf16, #blocked>, tensor<32x32xf32, #blocked>
  }
}

// -----

// fp8 has no mma.sync form: where wgmma cannot take the dot (two warps
// here), both operands widen exactly to f16 and the product runs as
// m16n8k16 f16 into f32.
// CHECK-DAG: #[[M:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 1], instrShape = [16, 8, 16]}>
// CHECK-LABEL: func.func @fp8_on_mma_sync
// CHECK: %[[A:.*]] = tile.fp_to_fp %arg0 : tensor<64x32xf8E5M2, #blocked> -> tensor<64x32xf16, #blocked>
// CHECK: %[[B:.*]] = tile.fp_to_fp %arg1 : tensor<32x64xf8E5M2, #blocked> -> tensor<32x64xf16, #blocked>
// CHECK: tilegpu.convert_layout %[[A]]
// CHECK: tilegpu.convert_layout %[[B]]
// CHECK: tile.dot {{.*}} : tensor<64x32xf16, #{{.*}}> * tensor<32x64xf16, #{{.*}}> -> tensor<64x64xf32, #[[M]]>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 2 : i32, tilegpu.target = "sm_90a"} {
  func.func @fp8_on_mma_sync(%a: tensor<64x32xf8E5M2, #blocked>, %b: tensor<32x64xf8E5M2, #blocked>, %c: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %0 = tile.dot %a, %b, %c : tensor<64x32xf8E5M2, #blocked> * tensor<32x64xf8E5M2, #blocked> -> tensor<64x64xf32, #blocked>
    return %0 : tensor<64x64xf32, #blocked>
  }
}

// -----

// More warps than 16x8 blocks (a 16x16 dot over four warps): two warps
// cover N, and the other two repeat them (their layout bases are zero),
// rather than leaving the dot on the CUDA cores.
// CHECK-DAG: #[[M:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]}>
// CHECK-LABEL: func.func @more_warps_than_blocks
// CHECK: tile.dot {{.*}} -> tensor<16x16xf32, #[[M]]>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @more_warps_than_blocks(%a: tensor<16x32xf16, #blocked>, %b: tensor<32x16xf16, #blocked>, %c: tensor<16x16xf32, #blocked>) -> tensor<16x16xf32, #blocked> {
    %0 = tile.dot %a, %b, %c : tensor<16x32xf16, #blocked> * tensor<32x16xf16, #blocked> -> tensor<16x16xf32, #blocked>
    return %0 : tensor<16x16xf32, #blocked>
  }
}
