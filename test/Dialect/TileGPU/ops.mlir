// RUN: tile-opt %s | tile-opt | FileCheck %s
// The TileGPU encodings, types and ops print back as they parse.

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma2 = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8, 16]}>
#mma_tf32 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#mma_adjacent = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], adjacentRows = true}>
#nvmma_a = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvmma_b = #tilegpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
#swizzled = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#plain = #tilegpu.shared<{order = [0]}>
#bar = #tilegpu.shared<{order = [0]}>

// CHECK-DAG: #[[MMA:.*]] = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
// CHECK-DAG: #[[ADJ:.*]] = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16], adjacentRows = true}>
// CHECK-DAG: #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-DAG: #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-DAG: #tilegpu.shared<{order = [0]}>
// CHECK-DAG: #tilegpu.dot_op<{opIdx = 1, parent = #{{.*}}, kWidth = 2}>
// CHECK-DAG: #dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
module attributes {tilegpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @wgmma
  func.func @wgmma(%a: !tilegpu.memdesc<64x64xf16, #nvmma_a>,
                   %b: !tilegpu.memdesc<64x64xf16, #nvmma_b>,
                   %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    // CHECK: tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : !tilegpu.memdesc<64x64xf16, #nvmma> * <64x64xf16, #nvmma1> -> tensor<64x64xf32, #[[MMA]]>
    %d = tilegpu.warpgroup_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nvmma_a> * !tilegpu.memdesc<64x64xf16, #nvmma_b> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }

  // A from registers: the accumulator fragment layout of an m64nK wgmma.
  // CHECK-LABEL: func.func @register_a
  // CHECK: tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf16, #dot_op> * <64x64xf16
  func.func @register_a(%a: tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                        %b: !tilegpu.memdesc<64x64xf16, #nvmma_b>,
                        %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %d = tilegpu.warpgroup_dot %a, %b, %c : tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !tilegpu.memdesc<64x64xf16, #nvmma_b> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }

  // A tf32 A from registers: one f32 per register (kWidth 1).
  // CHECK-LABEL: func.func @register_a_tf32
  // CHECK: tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} inputPrecision = tf32 : tensor<64x32xf32, #dot_op{{[0-9]*}}> * <32x64xf32
  func.func @register_a_tf32(%a: tensor<64x32xf32, #tilegpu.dot_op<{opIdx = 0, parent = #mma_tf32, kWidth = 1}>>,
                             %b: !tilegpu.memdesc<32x64xf32, #nvmma_b>,
                             %c: tensor<64x64xf32, #mma_tf32>) -> tensor<64x64xf32, #mma_tf32> {
    %d = tilegpu.warpgroup_dot %a, %b, %c inputPrecision = tf32 : tensor<64x32xf32, #tilegpu.dot_op<{opIdx = 0, parent = #mma_tf32, kWidth = 1}>> * !tilegpu.memdesc<32x64xf32, #nvmma_b> -> tensor<64x64xf32, #mma_tf32>
    return %d : tensor<64x64xf32, #mma_tf32>
  }

  // A register operand computed in the transpose of its layout (a swapped
  // product's unpacked weights): the transposition renames registers.
  // CHECK-LABEL: func.func @permuted
  // CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x64xf16, #permuted> -> tensor<64x64xf16, #dot_op>
  func.func @permuted(%w: tensor<64x64xf16, #tilegpu.permuted<{order = [1, 0], parent = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>}>>) -> tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> {
    %a = tile.trans %w {order = array<i32: 1, 0>} : tensor<64x64xf16, #tilegpu.permuted<{order = [1, 0], parent = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>}>> -> tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    return %a : tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
  }

  // A register A operand passes through the wait that retires its MMA.
  // CHECK-LABEL: func.func @wait_keeps_operand
  // CHECK: tilegpu.warpgroup_dot_wait %{{.*}}, %{{.*}} {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf16, #dot_op>
  func.func @wait_keeps_operand(%a: tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                                %b: !tilegpu.memdesc<64x64xf16, #nvmma_b>,
                                %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %d = tilegpu.warpgroup_dot %a, %b, %c async : tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> * !tilegpu.memdesc<64x64xf16, #nvmma_b> -> tensor<64x64xf32, #mma>
    %r:2 = tilegpu.warpgroup_dot_wait %d, %a {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
    return %r#0 : tensor<64x64xf32, #mma>
  }

  // CHECK-LABEL: func.func @async_wgmma
  // CHECK: tilegpu.fence_async_shared
  // CHECK: %[[D:.*]] = tilegpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} async : !tilegpu.memdesc<64x64xf16
  // CHECK: tilegpu.warpgroup_dot_wait %[[D]], %{{.*}} {pendings = 0 : i32} : tensor<64x64xf32, #[[MMA]]>, tensor<64x64xf32, #[[MMA]]>
  func.func @async_wgmma(%a: !tilegpu.memdesc<64x64xf16, #nvmma_a>,
                         %b: !tilegpu.memdesc<64x64xf16, #nvmma_b>,
                         %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    tilegpu.fence_async_shared
    %d = tilegpu.warpgroup_dot %a, %b, %c async : !tilegpu.memdesc<64x64xf16, #nvmma_a> * !tilegpu.memdesc<64x64xf16, #nvmma_b> -> tensor<64x64xf32, #mma>
    %r:2 = tilegpu.warpgroup_dot_wait %d, %c {pendings = 0 : i32} : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
    return %r#0 : tensor<64x64xf32, #mma>
  }

  // CHECK-LABEL: func.func @tf32
  func.func @tf32(%a: !tilegpu.memdesc<64x8xf32, #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>>,
                  %b: !tilegpu.memdesc<8x64xf32, #tilegpu.nvmma_shared<{swizzle = 32, order = [0, 1]}>>,
                  %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    // CHECK: tilegpu.warpgroup_dot {{.*}} inputPrecision = tf32
    %d = tilegpu.warpgroup_dot %a, %b, %c inputPrecision = tf32 : !tilegpu.memdesc<64x8xf32, #tilegpu.nvmma_shared<{swizzle = 32, order = [1, 0]}>> * !tilegpu.memdesc<8x64xf32, #tilegpu.nvmma_shared<{swizzle = 32, order = [0, 1]}>> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }

  // CHECK-LABEL: func.func @buffers
  func.func @buffers(%t: tensor<32x64xf16, #mma2>, %o: tensor<16x32xf16, #tilegpu.dot_op<{opIdx = 1, parent = #mma2, kWidth = 2}>>) {
    // CHECK: tilegpu.local_alloc %{{.*}} : (tensor<32x64xf16, #mma{{.*}}>) -> !tilegpu.memdesc<32x64xf16, #shared>
    %s = tilegpu.local_alloc %t : (tensor<32x64xf16, #mma2>) -> !tilegpu.memdesc<32x64xf16, #swizzled>
    %v = tilegpu.local_load %s : !tilegpu.memdesc<32x64xf16, #swizzled> -> tensor<32x64xf16, #mma2>
    tilegpu.local_dealloc %s : !tilegpu.memdesc<32x64xf16, #swizzled>
    %p = tilegpu.local_alloc : () -> !tilegpu.memdesc<64xf32, #plain>
    return
  }

  // CHECK-LABEL: func.func @async_copies
  // CHECK: tilegpu.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} : tensor<32x64xi1, #mma{{.*}}> : tensor<32x64x!tile.ptr<f16>, #mma{{.*}}> -> <32x64xf16, #shared>
  // CHECK: tilegpu.async_copy_global_to_local %{{.*}}, %{{.*}} : tensor<32x64x!tile.ptr<f16>
  // CHECK: tilegpu.async_commit_group
  // CHECK: tilegpu.async_wait {pending = 1 : i32}
  func.func @async_copies(%p: tensor<32x64x!tile.ptr<f16>, #mma2>, %m: tensor<32x64xi1, #mma2>) {
    %s = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #swizzled>
    tilegpu.async_copy_global_to_local %p, %s mask %m : tensor<32x64xi1, #mma2> : tensor<32x64x!tile.ptr<f16>, #mma2> -> !tilegpu.memdesc<32x64xf16, #swizzled>
    tilegpu.async_copy_global_to_local %p, %s : tensor<32x64x!tile.ptr<f16>, #mma2> -> !tilegpu.memdesc<32x64xf16, #swizzled>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 1 : i32}
    return
  }

  // A multi-buffer: the leading dimension (any count) numbers buffers.
  // CHECK-LABEL: func.func @stages
  // CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma{{.*}}>
  // CHECK: tilegpu.memdesc_index %{{.*}}[%{{.*}}] : <3x64x64xf16, #nvmma{{.*}}> -> <64x64xf16, #nvmma{{.*}}>
  func.func @stages(%i: i32) -> !tilegpu.memdesc<64x64xf16, #nvmma_a> {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #nvmma_a>
    %one = tilegpu.memdesc_index %buf[%i] : !tilegpu.memdesc<3x64x64xf16, #nvmma_a> -> !tilegpu.memdesc<64x64xf16, #nvmma_a>
    return %one : !tilegpu.memdesc<64x64xf16, #nvmma_a>
  }

  // A row-major 64x128 tile read as its 128x64 transpose (K-major B).
  // CHECK-LABEL: func.func @transposed
  // CHECK: tilegpu.memdesc_trans %arg0 : <64x128xf16, #nvmma{{.*}}> -> <128x64xf16, #nvmma{{.*}}>
  func.func @transposed(%k: !tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>) -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>> {
    %kt = tilegpu.memdesc_trans %k : !tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>> -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>
    return %kt : !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>
  }
  // mbarriers and TMA copies.
  // CHECK-LABEL: func.func @tma
  // CHECK: tilegpu.init_barrier %{{.*}}, 1 : <2x1xi64, #shared{{.*}}>
  // CHECK: tilegpu.barrier_expect %{{.*}}, 8192, %{{.*}} : <1xi64, #shared{{.*}}>
  // CHECK: tilegpu.async_tma_copy_global_to_local %arg0[%arg1, %arg1] %{{.*}}, %{{.*}}, %{{.*}} : !tile.tensordesc<tensor<64x64xf16>>, <64x64xf16, #nvmma{{.*}}>, <1xi64, #shared{{.*}}>
  // CHECK: tilegpu.wait_barrier %{{.*}}, %arg1 : <1xi64, #shared{{.*}}>
  // CHECK: tilegpu.async_tma_copy_local_to_global %arg0[%arg1, %arg1] %{{.*}} : !tile.tensordesc<tensor<64x64xf16>>, <64x64xf16, #nvmma{{.*}}>
  // CHECK: tilegpu.async_tma_store_wait {pending = 0 : i32}
  // CHECK: tilegpu.inval_barrier %{{.*}} : <2x1xi64, #shared{{.*}}>
  func.func @tma(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %p: i1) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma_a>
    %bars = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #bar>
    %bar = tilegpu.memdesc_index %bars[%i] : !tilegpu.memdesc<2x1xi64, #bar> -> !tilegpu.memdesc<1xi64, #bar>
    tilegpu.init_barrier %bars, 1 : !tilegpu.memdesc<2x1xi64, #bar>
    tilegpu.barrier_expect %bar, 8192, %p : !tilegpu.memdesc<1xi64, #bar>
    tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<64x64xf16>>, !tilegpu.memdesc<64x64xf16, #nvmma_a>, !tilegpu.memdesc<1xi64, #bar>
    tilegpu.wait_barrier %bar, %i : !tilegpu.memdesc<1xi64, #bar>
    tilegpu.async_tma_copy_local_to_global %d[%i, %i] %buf : !tile.tensordesc<tensor<64x64xf16>>, !tilegpu.memdesc<64x64xf16, #nvmma_a>
    tilegpu.async_tma_store_wait {pending = 0 : i32}
    tilegpu.inval_barrier %bars : !tilegpu.memdesc<2x1xi64, #bar>
    return
  }
}

// Warp specialisation: a producer warpgroup and two consumer warpgroups
// taking turns.
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.extra_warps = 4 : i32} {
  // CHECK-LABEL: func.func @specialized
  // CHECK: tilegpu.warp_specialize producer(4 warps, 40 registers) {
  // CHECK:   tilegpu.wait_barrier
  // CHECK: } consumers(232 registers) {
  // CHECK:   tilegpu.turn_init warpgroups(2) barrier(2)
  // CHECK:   tilegpu.turn_wait warpgroups(2) barrier(2)
  // CHECK:   tilegpu.turn_pass warpgroups(2) barrier(2)
  // CHECK:   tilegpu.arrive_barrier %{{.*}}, %arg1 : <1xi64, #shared{{.*}}>
  // CHECK: }
  func.func @specialized(%i: i32, %p: i1) {
    %bars = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #bar>
    %bar = tilegpu.memdesc_index %bars[%i] : !tilegpu.memdesc<2x1xi64, #bar> -> !tilegpu.memdesc<1xi64, #bar>
    tilegpu.warp_specialize producer(4 warps, 40 registers) {
      tilegpu.wait_barrier %bar, %i : !tilegpu.memdesc<1xi64, #bar>
    } consumers(232 registers) {
      tilegpu.turn_init warpgroups(2) barrier(2)
      tilegpu.turn_wait warpgroups(2) barrier(2)
      tilegpu.turn_pass warpgroups(2) barrier(2)
      tilegpu.arrive_barrier %bar, %p : !tilegpu.memdesc<1xi64, #bar>
    }
    return
  }

  // A writer region (the second producer warp's TMA writes) prints after
  // the consumers; without one, the keyword is left out (above).
  // CHECK-LABEL: func.func @with_writer
  // CHECK: } consumers(232 registers) {
  // CHECK:   tilegpu.arrive_barrier
  // CHECK: } writer {
  // CHECK:   tilegpu.wait_barrier
  // CHECK:   tilegpu.async_tma_store_wait {pending = 0 : i32}
  // CHECK: }
  func.func @with_writer(%i: i32, %p: i1) {
    %bars = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #bar>
    %bar = tilegpu.memdesc_index %bars[%i] : !tilegpu.memdesc<2x1xi64, #bar> -> !tilegpu.memdesc<1xi64, #bar>
    tilegpu.warp_specialize producer(4 warps, 40 registers) {
      tilegpu.wait_barrier %bar, %i : !tilegpu.memdesc<1xi64, #bar>
    } consumers(232 registers) {
      tilegpu.arrive_barrier %bar, %p : !tilegpu.memdesc<1xi64, #bar>
    } writer {
      tilegpu.wait_barrier %bar, %i : !tilegpu.memdesc<1xi64, #bar>
      tilegpu.async_tma_store_wait {pending = 0 : i32}
    }
    return
  }

  // An accumulator and A operand whose rows are permuted in 16-row groups
  // (adjacentRows) print back with it; without it the key is left out.
  // CHECK-LABEL: func.func @adjacent_rows
  // CHECK-SAME: tensor<64x16xf32, #[[ADJ]]>
  func.func @adjacent_rows(%c: tensor<64x16xf32, #mma_adjacent>, %a: tensor<64x32xbf16, #tilegpu.dot_op<{opIdx = 0, parent = #mma_adjacent, kWidth = 2}>>) {
    return
  }
}
