// RUN: tile-opt %s -split-input-file --tilegpu-pipeline=num-stages=3 --canonicalize | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-pipeline="num-stages=3 stage-register-loads=false" --canonicalize | FileCheck %s --check-prefix=DOTS-ONLY

// With stage-register-loads=false (what the compiler retries with when
// the staged buffers do not fit in shared memory) only the dot's operand
// is copied ahead; the weight stays a load in the loop, as Triton's
// pipeliner leaves such tiles.
// DOTS-ONLY-NOT: tilegpu.staged_register_loads
// DOTS-ONLY-LABEL: func.func @unpacked_weight
// DOTS-ONLY: tilegpu.local_alloc : () -> !tilegpu.memdesc<{{[0-9]+}}x64x32xbf16, #nvmma>
// DOTS-ONLY-NOT: xi8, #{{.*}}shared
// DOTS-ONLY: scf.for
// DOTS-ONLY: tile.load {{.*}} : tensor<32x64x!tile.ptr<i8>
// DOTS-ONLY: scf.yield

// A weight loaded through a pointer the loop advances and unpacked in
// registers (int4 in int8) used to keep the whole loop from being
// pipelined: its load was neither a dot's staged operand nor address
// arithmetic. It is now copied ahead like the dot's operand, into a
// multi-buffered row-major buffer, and read back where the load was.
// CHECK-DAG: #[[ROWS:.*]] = #tilegpu.shared<{order = [1, 0]}>
// The module records that register loads were staged (what the compiler's
// retry without them would change); without them it is not set.
// CHECK: tilegpu.staged_register_loads
// CHECK-LABEL: func.func @unpacked_weight
// CHECK-DAG: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<{{[0-9]+}}x64x32xbf16, #nvmma>
// CHECK-DAG: %[[W:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<{{[0-9]+}}x32x64xi8, #[[ROWS]]>
// CHECK: tilegpu.async_copy_global_to_local {{.*}} -> <32x64xi8, #[[ROWS]]>
// CHECK: scf.for
// CHECK: tilegpu.async_wait {pending = 1 : i32}
// CHECK: tilegpu.async_copy_global_to_local {{.*}} -> <64x32xbf16, #nvmma>
// CHECK: tilegpu.async_copy_global_to_local {{.*}} -> <32x64xi8, #[[ROWS]]>
// CHECK: %[[SLOT:.*]] = tilegpu.memdesc_index %[[W]]
// CHECK: %[[PACKED:.*]] = tilegpu.local_load %[[SLOT]] : <32x64xi8, #[[ROWS]]> -> tensor<32x64xi8, #blocked1>
// CHECK: arith.sitofp %[[PACKED]]
// CHECK-NOT: tile.load
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#sa0 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#sa1 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#sb0 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#sb1 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @unpacked_weight(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %w: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %n: i32, %lda: i32 {tile.divisibility = 16 : i32}, %ldw: i32 {tile.divisibility = 16 : i32}) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %rows_a = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sa1>
    %ra = tile.expand_dims %rows_a {axis = 1 : i32} : tensor<64xi32, #sa1> -> tensor<64x1xi32, #blocked>
    %lda_t = tile.splat %lda : i32 -> tensor<64x1xi32, #blocked>
    %ra_off = arith.muli %ra, %lda_t : tensor<64x1xi32, #blocked>
    %ra_b = tile.broadcast %ra_off : tensor<64x1xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %cols_a = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sa0>
    %ca = tile.expand_dims %cols_a {axis = 0 : i32} : tensor<32xi32, #sa0> -> tensor<1x32xi32, #blocked>
    %ca_b = tile.broadcast %ca : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %a_off = arith.addi %ra_b, %ca_b : tensor<64x32xi32, #blocked>
    %a_base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #blocked>
    %a_ptrs = tile.addptr %a_base, %a_off : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
    %rows_w = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sb1>
    %rw = tile.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32, #sb1> -> tensor<32x1xi32, #blocked1>
    %ldw_t = tile.splat %ldw : i32 -> tensor<32x1xi32, #blocked1>
    %rw_off = arith.muli %rw, %ldw_t : tensor<32x1xi32, #blocked1>
    %rw_b = tile.broadcast %rw_off : tensor<32x1xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %cols_w = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sb0>
    %cw = tile.expand_dims %cols_w {axis = 0 : i32} : tensor<64xi32, #sb0> -> tensor<1x64xi32, #blocked1>
    %cw_b = tile.broadcast %cw : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %w_off = arith.addi %rw_b, %cw_b : tensor<32x64xi32, #blocked1>
    %w_base = tile.splat %w : !tile.ptr<i8> -> tensor<32x64x!tile.ptr<i8>, #blocked1>
    %w_ptrs = tile.addptr %w_base, %w_off : tensor<32x64x!tile.ptr<i8>, #blocked1>, tensor<32x64xi32, #blocked1>
    %a_step = tile.splat %c32 : i32 -> tensor<64x32xi32, #blocked>
    %w_step_s = arith.muli %ldw, %c32 : i32
    %w_step = tile.splat %w_step_s : i32 -> tensor<32x64xi32, #blocked1>
    %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %pa = %a_ptrs, %pw = %w_ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<i8>, #blocked1>) : i32 {
      %x = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #blocked>
      %packed = tile.load %pw : tensor<32x64x!tile.ptr<i8>, #blocked1>
      %wf = arith.sitofp %packed : tensor<32x64xi8, #blocked1> to tensor<32x64xbf16, #blocked1>
      %xa = tilegpu.local_alloc %x : (tensor<64x32xbf16, #blocked>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %wb = tilegpu.local_alloc %wf : (tensor<32x64xbf16, #blocked1>) -> !tilegpu.memdesc<32x64xbf16, #nvmma1>
      %d = tilegpu.warpgroup_dot %xa, %wb, %acc : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %pa2 = tile.addptr %pa, %a_step : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
      %pw2 = tile.addptr %pw, %w_step : tensor<32x64x!tile.ptr<i8>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %d, %pa2, %pw2 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<i8>, #blocked1>
    }
    return %r#0 : tensor<64x64xf32, #mma>
  }
}

// -----

// A register load whose masked-off lanes read a value other than zero, in
// a loop with dots: cp.async fills zeros, and selecting `other` back in
// would need this iteration's mask, which the shifted address iter args no
// longer give; it stays a load in the loop, and only the dot's operand is
// copied ahead.
// CHECK-LABEL: func.func @nonzero_other
// CHECK-NOT: xi8, #shared
// CHECK: scf.for
// CHECK: tilegpu.async_copy_global_to_local {{.*}} -> <64x32xbf16, #nvmma>
// CHECK-NOT: xi8, #shared
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64x!tile.ptr<i8>
// CHECK-NOT: xi8, #shared
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#sa0 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#sa1 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#sb0 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#sb1 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @nonzero_other(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %w: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %n: i32, %lda: i32 {tile.divisibility = 16 : i32}, %ldw: i32 {tile.divisibility = 16 : i32}, %mask: tensor<32x64xi1, #blocked1>) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %seven = arith.constant dense<7> : tensor<32x64xi8, #blocked1>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %rows_a = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sa1>
    %ra = tile.expand_dims %rows_a {axis = 1 : i32} : tensor<64xi32, #sa1> -> tensor<64x1xi32, #blocked>
    %lda_t = tile.splat %lda : i32 -> tensor<64x1xi32, #blocked>
    %ra_off = arith.muli %ra, %lda_t : tensor<64x1xi32, #blocked>
    %ra_b = tile.broadcast %ra_off : tensor<64x1xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %cols_a = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sa0>
    %ca = tile.expand_dims %cols_a {axis = 0 : i32} : tensor<32xi32, #sa0> -> tensor<1x32xi32, #blocked>
    %ca_b = tile.broadcast %ca : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %a_off = arith.addi %ra_b, %ca_b : tensor<64x32xi32, #blocked>
    %a_base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #blocked>
    %a_ptrs = tile.addptr %a_base, %a_off : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
    %rows_w = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sb1>
    %rw = tile.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32, #sb1> -> tensor<32x1xi32, #blocked1>
    %ldw_t = tile.splat %ldw : i32 -> tensor<32x1xi32, #blocked1>
    %rw_off = arith.muli %rw, %ldw_t : tensor<32x1xi32, #blocked1>
    %rw_b = tile.broadcast %rw_off : tensor<32x1xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %cols_w = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sb0>
    %cw = tile.expand_dims %cols_w {axis = 0 : i32} : tensor<64xi32, #sb0> -> tensor<1x64xi32, #blocked1>
    %cw_b = tile.broadcast %cw : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %w_off = arith.addi %rw_b, %cw_b : tensor<32x64xi32, #blocked1>
    %w_base = tile.splat %w : !tile.ptr<i8> -> tensor<32x64x!tile.ptr<i8>, #blocked1>
    %w_ptrs = tile.addptr %w_base, %w_off : tensor<32x64x!tile.ptr<i8>, #blocked1>, tensor<32x64xi32, #blocked1>
    %a_step = tile.splat %c32 : i32 -> tensor<64x32xi32, #blocked>
    %w_step_s = arith.muli %ldw, %c32 : i32
    %w_step = tile.splat %w_step_s : i32 -> tensor<32x64xi32, #blocked1>
    %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %pa = %a_ptrs, %pw = %w_ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<i8>, #blocked1>) : i32 {
      %x = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #blocked>
      %packed = tile.load %pw, %mask, %seven : tensor<32x64x!tile.ptr<i8>, #blocked1>
      %wf = arith.sitofp %packed : tensor<32x64xi8, #blocked1> to tensor<32x64xbf16, #blocked1>
      %xa = tilegpu.local_alloc %x : (tensor<64x32xbf16, #blocked>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %wb = tilegpu.local_alloc %wf : (tensor<32x64xbf16, #blocked1>) -> !tilegpu.memdesc<32x64xbf16, #nvmma1>
      %d = tilegpu.warpgroup_dot %xa, %wb, %acc : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %pa2 = tile.addptr %pa, %a_step : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
      %pw2 = tile.addptr %pw, %w_step : tensor<32x64x!tile.ptr<i8>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %d, %pa2, %pw2 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<i8>, #blocked1>
    }
    return %r#0 : tensor<64x64xf32, #mma>
  }
}

// -----

// Two dots on one accumulator per K step (an int4 weight's two nibble
// planes) whose weights the body stores to shared memory itself: that
// buffer is not multi-buffered, so the chain is not kept in flight and
// each dot is waited for as before.
// CHECK-LABEL: func.func @accumulator_chain
// CHECK: scf.for
// CHECK-NOT: pendings = 2
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#sa0 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#sa1 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#sb0 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#sb1 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @accumulator_chain(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %w: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %n: i32, %lda: i32 {tile.divisibility = 16 : i32}, %ldw: i32 {tile.divisibility = 16 : i32}) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %rows_a = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sa1>
    %ra = tile.expand_dims %rows_a {axis = 1 : i32} : tensor<64xi32, #sa1> -> tensor<64x1xi32, #blocked>
    %lda_t = tile.splat %lda : i32 -> tensor<64x1xi32, #blocked>
    %ra_off = arith.muli %ra, %lda_t : tensor<64x1xi32, #blocked>
    %ra_b = tile.broadcast %ra_off : tensor<64x1xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %cols_a = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sa0>
    %ca = tile.expand_dims %cols_a {axis = 0 : i32} : tensor<32xi32, #sa0> -> tensor<1x32xi32, #blocked>
    %ca_b = tile.broadcast %ca : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %a_off = arith.addi %ra_b, %ca_b : tensor<64x32xi32, #blocked>
    %a_base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #blocked>
    %a_ptrs = tile.addptr %a_base, %a_off : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
    %rows_w = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sb1>
    %rw = tile.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32, #sb1> -> tensor<32x1xi32, #blocked1>
    %ldw_t = tile.splat %ldw : i32 -> tensor<32x1xi32, #blocked1>
    %rw_off = arith.muli %rw, %ldw_t : tensor<32x1xi32, #blocked1>
    %rw_b = tile.broadcast %rw_off : tensor<32x1xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %cols_w = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sb0>
    %cw = tile.expand_dims %cols_w {axis = 0 : i32} : tensor<64xi32, #sb0> -> tensor<1x64xi32, #blocked1>
    %cw_b = tile.broadcast %cw : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %w_off = arith.addi %rw_b, %cw_b : tensor<32x64xi32, #blocked1>
    %w_base = tile.splat %w : !tile.ptr<i8> -> tensor<32x64x!tile.ptr<i8>, #blocked1>
    %w_ptrs = tile.addptr %w_base, %w_off : tensor<32x64x!tile.ptr<i8>, #blocked1>, tensor<32x64xi32, #blocked1>
    %a_step = tile.splat %c32 : i32 -> tensor<64x32xi32, #blocked>
    %w_step_s = arith.muli %ldw, %c32 : i32
    %w_step = tile.splat %w_step_s : i32 -> tensor<32x64xi32, #blocked1>
    %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %pa = %a_ptrs, %pw = %w_ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<i8>, #blocked1>) : i32 {
      %x = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #blocked>
      %packed = tile.load %pw : tensor<32x64x!tile.ptr<i8>, #blocked1>
      %wf = arith.sitofp %packed : tensor<32x64xi8, #blocked1> to tensor<32x64xbf16, #blocked1>
      %xa = tilegpu.local_alloc %x : (tensor<64x32xbf16, #blocked>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %wb = tilegpu.local_alloc %wf : (tensor<32x64xbf16, #blocked1>) -> !tilegpu.memdesc<32x64xbf16, #nvmma1>
      %d0 = tilegpu.warpgroup_dot %xa, %wb, %acc : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %wf2 = arith.sitofp %packed : tensor<32x64xi8, #blocked1> to tensor<32x64xbf16, #blocked1>
      %wb2 = tilegpu.local_alloc %wf2 : (tensor<32x64xbf16, #blocked1>) -> !tilegpu.memdesc<32x64xbf16, #nvmma1>
      %d = tilegpu.warpgroup_dot %xa, %wb2, %d0 : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %pa2 = tile.addptr %pa, %a_step : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
      %pw2 = tile.addptr %pw, %w_step : tensor<32x64x!tile.ptr<i8>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %d, %pa2, %pw2 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<i8>, #blocked1>
    }
    return %r#0 : tensor<64x64xf32, #mma>
  }
}

// -----

// The same chain with every operand staged by the pipeliner: both dots run
// async, back to back (wgmma orders MMAs on one accumulator), and the body
// waits once, after the second, leaving this iteration's two in flight.
// CHECK-LABEL: func.func @accumulator_chain_staged
// CHECK: scf.for
// CHECK-NOT: warpgroup_dot_wait
// CHECK: tilegpu.warpgroup_dot {{.*}} async
// CHECK-NOT: warpgroup_dot_wait
// CHECK: %[[D:.*]] = tilegpu.warpgroup_dot {{.*}} async
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[D]] {pendings = 2 : i32}
// CHECK: scf.yield
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#sa0 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#sa1 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#sb0 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#sb1 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @accumulator_chain_staged(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %w: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %n: i32, %lda: i32 {tile.divisibility = 16 : i32}, %ldw: i32 {tile.divisibility = 16 : i32}) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %rows_a = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sa1>
    %ra = tile.expand_dims %rows_a {axis = 1 : i32} : tensor<64xi32, #sa1> -> tensor<64x1xi32, #blocked>
    %lda_t = tile.splat %lda : i32 -> tensor<64x1xi32, #blocked>
    %ra_off = arith.muli %ra, %lda_t : tensor<64x1xi32, #blocked>
    %ra_b = tile.broadcast %ra_off : tensor<64x1xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %cols_a = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sa0>
    %ca = tile.expand_dims %cols_a {axis = 0 : i32} : tensor<32xi32, #sa0> -> tensor<1x32xi32, #blocked>
    %ca_b = tile.broadcast %ca : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %a_off = arith.addi %ra_b, %ca_b : tensor<64x32xi32, #blocked>
    %a_base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #blocked>
    %a_ptrs = tile.addptr %a_base, %a_off : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
    %rows_w = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #sb1>
    %rw = tile.expand_dims %rows_w {axis = 1 : i32} : tensor<32xi32, #sb1> -> tensor<32x1xi32, #blocked1>
    %ldw_t = tile.splat %ldw : i32 -> tensor<32x1xi32, #blocked1>
    %rw_off = arith.muli %rw, %ldw_t : tensor<32x1xi32, #blocked1>
    %rw_b = tile.broadcast %rw_off : tensor<32x1xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %cols_w = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #sb0>
    %cw = tile.expand_dims %cols_w {axis = 0 : i32} : tensor<64xi32, #sb0> -> tensor<1x64xi32, #blocked1>
    %cw_b = tile.broadcast %cw : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
    %w_off = arith.addi %rw_b, %cw_b : tensor<32x64xi32, #blocked1>
    %w_base = tile.splat %w : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>, #blocked1>
    %w_ptrs = tile.addptr %w_base, %w_off : tensor<32x64x!tile.ptr<bf16>, #blocked1>, tensor<32x64xi32, #blocked1>
    %a_step = tile.splat %c32 : i32 -> tensor<64x32xi32, #blocked>
    %w_step_s = arith.muli %ldw, %c32 : i32
    %w_step = tile.splat %w_step_s : i32 -> tensor<32x64xi32, #blocked1>
    %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %pa = %a_ptrs, %pw = %w_ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<bf16>, #blocked1>) : i32 {
      %x = tile.load %pa : tensor<64x32x!tile.ptr<bf16>, #blocked>
      %pb = tile.addptr %pa, %a_step : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
      %packed = tile.load %pw : tensor<32x64x!tile.ptr<bf16>, #blocked1>
      %xa = tilegpu.local_alloc %x : (tensor<64x32xbf16, #blocked>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %wb = tilegpu.local_alloc %packed : (tensor<32x64xbf16, #blocked1>) -> !tilegpu.memdesc<32x64xbf16, #nvmma1>
      %d0 = tilegpu.warpgroup_dot %xa, %wb, %acc : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %x2 = tile.load %pb : tensor<64x32x!tile.ptr<bf16>, #blocked>
      %xa2 = tilegpu.local_alloc %x2 : (tensor<64x32xbf16, #blocked>) -> !tilegpu.memdesc<64x32xbf16, #nvmma>
      %d = tilegpu.warpgroup_dot %xa2, %wb, %d0 : !tilegpu.memdesc<64x32xbf16, #nvmma> * <32x64xbf16, #nvmma1> -> tensor<64x64xf32, #mma>
      %pa2 = tile.addptr %pa, %a_step : tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<64x32xi32, #blocked>
      %pw2 = tile.addptr %pw, %w_step : tensor<32x64x!tile.ptr<bf16>, #blocked1>, tensor<32x64xi32, #blocked1>
      scf.yield %d, %pa2, %pw2 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<bf16>, #blocked>, tensor<32x64x!tile.ptr<bf16>, #blocked1>
    }
    return %r#0 : tensor<64x64xf32, #mma>
  }
}


// -----

// A loop with no dot, whose `tl.range(..., num_stages=4)` asks for a
// pipeline (Triton's test_hooks): its load is copied ahead like a dot
// loop's register load. The pointer offsets also serve the store, so they
// are not shifted: the loop keeps them for the store, and each step
// computes from them the offsets three steps on (%[[AHEAD]]) for its copy,
// instead of carrying a second, run-ahead set.
// CHECK-LABEL: func.func @loads_and_stores
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: scf.for {{.*}} iter_args(%[[OFFS:.*]] = %{{.*}}, %{{.*}} = %c3_i32, %[[READ:.*]] = %c0_i32)
// CHECK-NEXT: tilegpu.async_wait {pending = 2 : i32}
// CHECK: %[[NEXT:.*]] = arith.addi %[[OFFS]], %[[STEP:.*]] :
// CHECK: %[[NEXT2:.*]] = arith.addi %[[NEXT]], %[[STEP]] :
// CHECK: %[[AHEAD:.*]] = arith.addi %[[NEXT2]], %[[STEP]] :
// CHECK: tile.addptr %{{.*}}, %[[AHEAD]]
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: %[[PTRS:.*]] = tile.addptr %{{.*}}, %[[OFFS]]
// CHECK: %[[SLOT:.*]] = tilegpu.memdesc_index %{{.*}}[%[[READ]]]
// CHECK: %[[X:.*]] = tilegpu.local_load %[[SLOT]]
// CHECK: tile.store %[[PTRS]], %[[X]]
// CHECK-NOT: tile.load
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @loads_and_stores(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<32> : tensor<32xi32, #blocked>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #blocked>
    %1 = arith.addi %arg1, %c31_i32 : i32
    %2 = arith.divsi %1, %c32_i32 : i32
    %3 = scf.for %arg2 = %c0_i32 to %2 step %c1_i32 iter_args(%arg3 = %0) -> (tensor<32xi32, #blocked>)  : i32 {
      %4 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #blocked>
      %5 = tile.addptr %4, %arg3 : tensor<32x!tile.ptr<f32>, #blocked>, tensor<32xi32, #blocked>
      %6 = tile.splat %arg1 : i32 -> tensor<32xi32, #blocked>
      %7 = arith.cmpi slt, %arg3, %6 : tensor<32xi32, #blocked>
      %8 = tile.load %5, %7 : tensor<32x!tile.ptr<f32>, #blocked>
      tile.store %5, %8, %7 : tensor<32x!tile.ptr<f32>, #blocked>
      %9 = arith.addi %arg3, %cst : tensor<32xi32, #blocked>
      scf.yield %9 : tensor<32xi32, #blocked>
    } {tile.num_stages = 4 : i32}
    return
  }
}


// -----

// The same without dots and with masked-off lanes reading -inf (an online
// max over a row): the copies fill zeros, and `other` is selected back in
// with this iteration's mask, computed from the offsets the loop keeps for
// the current iteration (%[[OFFS]]), not from those the copy runs ahead on.
// CHECK-LABEL: func.func @nonzero_other_dotless
// CHECK: scf.for {{.*}} iter_args(%[[OFFS:[^ ]*]] = %{{[^,]*}},
// CHECK: %[[NEXT:.*]] = arith.addi %[[OFFS]], %[[STEP:.*]] :
// CHECK: %[[NEXT2:.*]] = arith.addi %[[NEXT]], %[[STEP]] :
// CHECK: %[[AHEAD:.*]] = arith.addi %[[NEXT2]], %[[STEP]] :
// CHECK: tile.addptr %{{.*}}, %[[AHEAD]]
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[OFFS]], %{{.*}}
// CHECK: %[[X:.*]] = tilegpu.local_load
// CHECK: %[[Y:.*]] = arith.select %[[MASK]], %[[X]], %[[NEGINF:.*]] : tensor<32xi1, #blocked>, tensor<32xf32, #blocked>
// CHECK: tile.store %{{.*}}, %[[Y]]
// CHECK-NOT: tile.load
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @nonzero_other_dotless(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<32> : tensor<32xi32, #blocked>
    %neginf = arith.constant dense<0xFF800000> : tensor<32xf32, #blocked>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #blocked>
    %1 = arith.addi %arg1, %c31_i32 : i32
    %2 = arith.divsi %1, %c32_i32 : i32
    %3 = scf.for %arg2 = %c0_i32 to %2 step %c1_i32 iter_args(%arg3 = %0) -> (tensor<32xi32, #blocked>)  : i32 {
      %4 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #blocked>
      %5 = tile.addptr %4, %arg3 : tensor<32x!tile.ptr<f32>, #blocked>, tensor<32xi32, #blocked>
      %6 = tile.splat %arg1 : i32 -> tensor<32xi32, #blocked>
      %7 = arith.cmpi slt, %arg3, %6 : tensor<32xi32, #blocked>
      %8 = tile.load %5, %7, %neginf : tensor<32x!tile.ptr<f32>, #blocked>
      %o = tile.splat %out : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #blocked>
      %p = tile.addptr %o, %arg3 : tensor<32x!tile.ptr<f32>, #blocked>, tensor<32xi32, #blocked>
      tile.store %p, %8 : tensor<32x!tile.ptr<f32>, #blocked>
      %9 = arith.addi %arg3, %cst : tensor<32xi32, #blocked>
      scf.yield %9 : tensor<32xi32, #blocked>
    } {tile.num_stages = 4 : i32}
    return
  }
}


// -----

// The same loop without the request is left alone (as Triton leaves it).
// CHECK-LABEL: func.func @not_asked
// CHECK-NOT: async_copy
// CHECK: tile.load
// CHECK-NOT: async_copy
// CHECK: tile.store
#blocked = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @not_asked(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<32> : tensor<32xi32, #blocked>
    %c31_i32 = arith.constant 31 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #blocked>
    %1 = arith.addi %arg1, %c31_i32 : i32
    %2 = arith.divsi %1, %c32_i32 : i32
    %3 = scf.for %arg2 = %c0_i32 to %2 step %c1_i32 iter_args(%arg3 = %0) -> (tensor<32xi32, #blocked>)  : i32 {
      %4 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #blocked>
      %5 = tile.addptr %4, %arg3 : tensor<32x!tile.ptr<f32>, #blocked>, tensor<32xi32, #blocked>
      %6 = tile.splat %arg1 : i32 -> tensor<32xi32, #blocked>
      %7 = arith.cmpi slt, %arg3, %6 : tensor<32xi32, #blocked>
      %8 = tile.load %5, %7 : tensor<32x!tile.ptr<f32>, #blocked>
      tile.store %5, %8, %7 : tensor<32x!tile.ptr<f32>, #blocked>
      %9 = arith.addi %arg3, %cst : tensor<32xi32, #blocked>
      scf.yield %9 : tensor<32xi32, #blocked>
    }
    return
  }
}

// -----

// Packed weights read back in a (swapped) dot operand's layout: each thread
// takes k-adjacent bytes from rows 64 bytes apart, so in plain rows the
// four threads of a quad (rows 0, 2, 4, 6: 128 bytes apart, one bank) hit
// one bank four times. The buffer's rows are XOR-swizzled in 16-byte
// chunks (the copies' vectors) every two rows, which spreads them.
// CHECK-DAG: #[[SWIZZLED:.*]] = #tilegpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// CHECK-LABEL: func.func @packed_weight_columns
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xi8, #[[SWIZZLED]]>
// CHECK: scf.for
// CHECK: tilegpu.local_load %{{.*}} : <64x64xi8, #[[SWIZZLED]]> -> tensor<64x64xi8, #permuted
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#permuted = #tilegpu.permuted<{order = [1, 0], parent = #mma}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked2}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked}>
#permuted1 = #tilegpu.permuted<{order = [1, 0], parent = #dot_op}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @packed_weight_columns(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<16x1xi32, #blocked>
    %cst_0 = arith.constant dense<64> : tensor<64x1xi32, #blocked1>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #permuted>
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = scf.for %arg4 = %c0_i32 to %arg3 step %c64_i32 iter_args(%arg5 = %cst_1) -> (tensor<16x64xf32, #permuted>)  : i32 {
      %12 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<16x1x!tile.ptr<bf16>, #blocked2>
      %13 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
      %14 = tile.expand_dims %13 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked2>
      %15 = tile.splat %arg3 : i32 -> tensor<16x1xi32, #blocked2>
      %16 = arith.muli %14, %15 : tensor<16x1xi32, #blocked2>
      %17 = tile.addptr %12, %16 : tensor<16x1x!tile.ptr<bf16>, #blocked2>, tensor<16x1xi32, #blocked2>
      %18 = tile.splat %arg4 : i32 -> tensor<16x1xi32, #blocked2>
      %19 = tile.addptr %17, %18 : tensor<16x1x!tile.ptr<bf16>, #blocked2>, tensor<16x1xi32, #blocked2>
      %20 = tile.broadcast %19 : tensor<16x1x!tile.ptr<bf16>, #blocked2> -> tensor<16x64x!tile.ptr<bf16>, #blocked2>
      %21 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice1>
      %22 = tile.expand_dims %21 {axis = 0 : i32} : tensor<64xi32, #slice1> -> tensor<1x64xi32, #blocked2>
      %23 = tile.broadcast %22 : tensor<1x64xi32, #blocked2> -> tensor<16x64xi32, #blocked2>
      %24 = tile.addptr %20, %23 : tensor<16x64x!tile.ptr<bf16>, #blocked2>, tensor<16x64xi32, #blocked2>
      %25 = tile.load %24 : tensor<16x64x!tile.ptr<bf16>, #blocked2>
      %26 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<64x1x!tile.ptr<i8>, #blocked1>
      %27 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
      %28 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
      %29 = tile.expand_dims %28 {axis = 1 : i32} : tensor<64xi32, #slice2> -> tensor<64x1xi32, #blocked1>
      %30 = arith.addi %27, %29 : tensor<64x1xi32, #blocked1>
      %31 = arith.muli %30, %cst_0 : tensor<64x1xi32, #blocked1>
      %32 = tile.addptr %26, %31 : tensor<64x1x!tile.ptr<i8>, #blocked1>, tensor<64x1xi32, #blocked1>
      %33 = tile.broadcast %32 : tensor<64x1x!tile.ptr<i8>, #blocked1> -> tensor<64x64x!tile.ptr<i8>, #blocked1>
      %34 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
      %35 = tile.expand_dims %34 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked1>
      %36 = tile.broadcast %35 : tensor<1x64xi32, #blocked1> -> tensor<64x64xi32, #blocked1>
      %37 = tile.addptr %33, %36 : tensor<64x64x!tile.ptr<i8>, #blocked1>, tensor<64x64xi32, #blocked1>
      %38 = tile.load %37 : tensor<64x64x!tile.ptr<i8>, #blocked1>
      %39 = tile.trans %arg5 {order = array<i32: 1, 0>} : tensor<16x64xf32, #permuted> -> tensor<64x16xf32, #mma>
      %40 = tilegpu.convert_layout %38 : tensor<64x64xi8, #blocked1> -> tensor<64x64xi8, #permuted1>
      %41 = arith.sitofp %40 : tensor<64x64xi8, #permuted1> to tensor<64x64xbf16, #permuted1>
      %42 = tile.trans %41 {order = array<i32: 1, 0>} : tensor<64x64xbf16, #permuted1> -> tensor<64x64xbf16, #dot_op>
      %43 = tilegpu.local_alloc %25 : (tensor<16x64xbf16, #blocked2>) -> !tilegpu.memdesc<16x64xbf16, #nvmma>
      %44 = tilegpu.memdesc_trans %43 : <16x64xbf16, #nvmma> -> <64x16xbf16, #nvmma1>
      %45 = tilegpu.warpgroup_dot %42, %44, %39 : tensor<64x64xbf16, #dot_op> * <64x16xbf16, #nvmma1> -> tensor<64x16xf32, #mma>
      %46 = tile.trans %45 {order = array<i32: 1, 0>} : tensor<64x16xf32, #mma> -> tensor<16x64xf32, #permuted>
      scf.yield %46 : tensor<16x64xf32, #permuted>
    }
    %1 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>, #blocked>
    %2 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice4>
    %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<16xi32, #slice4> -> tensor<16x1xi32, #blocked>
    %4 = arith.muli %3, %cst : tensor<16x1xi32, #blocked>
    %5 = tile.addptr %1, %4 : tensor<16x1x!tile.ptr<f32>, #blocked>, tensor<16x1xi32, #blocked>
    %6 = tile.broadcast %5 : tensor<16x1x!tile.ptr<f32>, #blocked> -> tensor<16x64x!tile.ptr<f32>, #blocked>
    %7 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %8 = tile.expand_dims %7 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked>
    %9 = tile.broadcast %8 : tensor<1x64xi32, #blocked> -> tensor<16x64xi32, #blocked>
    %10 = tile.addptr %6, %9 : tensor<16x64x!tile.ptr<f32>, #blocked>, tensor<16x64xi32, #blocked>
    %11 = tilegpu.convert_layout %0 : tensor<16x64xf32, #permuted> -> tensor<16x64xf32, #blocked>
    tile.store %10, %11 : tensor<16x64x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// A loop whose dots take no staged operand still waits on its loads when
// they reach a dot through registers. Here the product has 16 rows, too few
// for wgmma, so it is an mma.sync whose operands are converted to their
// dot_op layouts: both loads are copied ahead and read back from their
// buffers straight into those layouts (Triton pipelines such loops too).
// With stage-register-loads=false the loop is left as it was.
// CHECK-LABEL: func.func @mma_sync_operands
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x16x16xbf16, #{{.*}}>
// CHECK: scf.for
// CHECK-NEXT: tilegpu.async_wait {pending = 1 : i32}
// CHECK-COUNT-2: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.local_load {{.*}} -> tensor<16x16xbf16, #dot_op>
// CHECK: tilegpu.local_load {{.*}} -> tensor<16x16xbf16, #dot_op1>
// CHECK-NOT: tile.load
// CHECK: tile.dot
// CHECK: scf.yield
// DOTS-ONLY-LABEL: func.func @mma_sync_operands
// DOTS-ONLY-NOT: async_copy
// DOTS-ONLY: tile.load
// DOTS-ONLY: tile.load
// DOTS-ONLY: tile.dot
#blocked = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_op1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @mma_sync_operands(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<16> : tensor<16x1xi32, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #mma>
    %c16_i32 = arith.constant 16 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = scf.for %arg4 = %c0_i32 to %arg3 step %c16_i32 iter_args(%arg5 = %cst_0) -> (tensor<16x16xf32, #mma>)  : i32 {
      %12 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<16x1x!tile.ptr<bf16>, #blocked>
      %13 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
      %14 = tile.expand_dims %13 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
      %15 = tile.splat %arg3 : i32 -> tensor<16x1xi32, #blocked>
      %16 = arith.muli %14, %15 : tensor<16x1xi32, #blocked>
      %17 = tile.addptr %12, %16 : tensor<16x1x!tile.ptr<bf16>, #blocked>, tensor<16x1xi32, #blocked>
      %18 = tile.broadcast %17 : tensor<16x1x!tile.ptr<bf16>, #blocked> -> tensor<16x16x!tile.ptr<bf16>, #blocked>
      %19 = tile.splat %arg4 : i32 -> tensor<16xi32, #slice1>
      %20 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice1>
      %21 = arith.addi %19, %20 : tensor<16xi32, #slice1>
      %22 = tile.expand_dims %21 {axis = 0 : i32} : tensor<16xi32, #slice1> -> tensor<1x16xi32, #blocked>
      %23 = tile.broadcast %22 : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
      %24 = tile.addptr %18, %23 : tensor<16x16x!tile.ptr<bf16>, #blocked>, tensor<16x16xi32, #blocked>
      %25 = tile.load %24 : tensor<16x16x!tile.ptr<bf16>, #blocked>
      %26 = tile.splat %arg1 : !tile.ptr<bf16> -> tensor<16x1x!tile.ptr<bf16>, #blocked>
      %27 = tile.splat %arg4 : i32 -> tensor<16xi32, #slice>
      %28 = arith.addi %27, %13 : tensor<16xi32, #slice>
      %29 = tile.expand_dims %28 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
      %30 = arith.muli %29, %cst : tensor<16x1xi32, #blocked>
      %31 = tile.addptr %26, %30 : tensor<16x1x!tile.ptr<bf16>, #blocked>, tensor<16x1xi32, #blocked>
      %32 = tile.broadcast %31 : tensor<16x1x!tile.ptr<bf16>, #blocked> -> tensor<16x16x!tile.ptr<bf16>, #blocked>
      %33 = tile.expand_dims %20 {axis = 0 : i32} : tensor<16xi32, #slice1> -> tensor<1x16xi32, #blocked>
      %34 = tile.broadcast %33 : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
      %35 = tile.addptr %32, %34 : tensor<16x16x!tile.ptr<bf16>, #blocked>, tensor<16x16xi32, #blocked>
      %36 = tile.load %35 : tensor<16x16x!tile.ptr<bf16>, #blocked>
      %37 = tilegpu.convert_layout %25 : tensor<16x16xbf16, #blocked> -> tensor<16x16xbf16, #dot_op>
      %38 = tilegpu.convert_layout %36 : tensor<16x16xbf16, #blocked> -> tensor<16x16xbf16, #dot_op1>
      %39 = tile.dot %37, %38, %arg5 : tensor<16x16xbf16, #dot_op> * tensor<16x16xbf16, #dot_op1> -> tensor<16x16xf32, #mma>
      scf.yield %39 : tensor<16x16xf32, #mma>
    }
    %1 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>, #blocked>
    %2 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
    %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
    %4 = arith.muli %3, %cst : tensor<16x1xi32, #blocked>
    %5 = tile.addptr %1, %4 : tensor<16x1x!tile.ptr<f32>, #blocked>, tensor<16x1xi32, #blocked>
    %6 = tile.broadcast %5 : tensor<16x1x!tile.ptr<f32>, #blocked> -> tensor<16x16x!tile.ptr<f32>, #blocked>
    %7 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice1>
    %8 = tile.expand_dims %7 {axis = 0 : i32} : tensor<16xi32, #slice1> -> tensor<1x16xi32, #blocked>
    %9 = tile.broadcast %8 : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %10 = tile.addptr %6, %9 : tensor<16x16x!tile.ptr<f32>, #blocked>, tensor<16x16xi32, #blocked>
    %11 = tilegpu.convert_layout %0 : tensor<16x16xf32, #mma> -> tensor<16x16xf32, #blocked>
    tile.store %10, %11 : tensor<16x16x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// Operands computed from loads (a tf32 product of bf16 tiles converted and
// scaled in registers, then stored to shared memory for wgmma, as in
// Lightning Attention's backward): the two loads are copied ahead. They
// get three buffers, not the carried dot's four: that dot reads the
// buffers its operands are stored to in each step, not these. The vector
// loaded only to be stored back feeds no dot and stays a load.
// CHECK-LABEL: func.func @computed_operands
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xbf16, #{{.*}}>
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x32x64xbf16, #{{.*}}>
// CHECK: scf.for
// CHECK: tilegpu.async_wait {pending = 1 : i32}
// CHECK-COUNT-2: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.local_load {{.*}} -> tensor<64x32xbf16
// CHECK: tilegpu.local_load {{.*}} -> tensor<32x64xbf16
// CHECK: tile.load {{.*}} : tensor<32x!tile.ptr<f32>
// CHECK: tilegpu.warpgroup_dot
// CHECK: scf.yield
// DOTS-ONLY-LABEL: func.func @computed_operands
// DOTS-ONLY-NOT: async_copy
// DOTS-ONLY: tile.load
// DOTS-ONLY: tilegpu.warpgroup_dot
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked3 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#nvmma1 = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked3}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked3}>
#slice2 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice3 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @computed_operands(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<64> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<64> : tensor<32x1xi32, #blocked1>
    %cst_1 = arith.constant dense<5.000000e-01> : tensor<32x64xf32, #blocked1>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %cst_3 = arith.constant dense<1.000000e+00> : tensor<32xf32, #blocked2>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #blocked2>
    %1 = scf.for %arg5 = %c0_i32 to %arg4 step %c32_i32 iter_args(%arg6 = %cst_2) -> (tensor<64x64xf32, #mma>)  : i32 {
      %13 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked3>
      %14 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
      %15 = tile.expand_dims %14 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked3>
      %16 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked3>
      %17 = arith.muli %15, %16 : tensor<64x1xi32, #blocked3>
      %18 = tile.addptr %13, %17 : tensor<64x1x!tile.ptr<bf16>, #blocked3>, tensor<64x1xi32, #blocked3>
      %19 = tile.broadcast %18 : tensor<64x1x!tile.ptr<bf16>, #blocked3> -> tensor<64x32x!tile.ptr<bf16>, #blocked3>
      %20 = tile.splat %arg5 : i32 -> tensor<32xi32, #slice1>
      %21 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
      %22 = arith.addi %20, %21 : tensor<32xi32, #slice1>
      %23 = tile.expand_dims %22 {axis = 0 : i32} : tensor<32xi32, #slice1> -> tensor<1x32xi32, #blocked3>
      %24 = tile.broadcast %23 : tensor<1x32xi32, #blocked3> -> tensor<64x32xi32, #blocked3>
      %25 = tile.addptr %19, %24 : tensor<64x32x!tile.ptr<bf16>, #blocked3>, tensor<64x32xi32, #blocked3>
      %26 = tile.load %25 : tensor<64x32x!tile.ptr<bf16>, #blocked3>
      %27 = tile.splat %arg1 : !tile.ptr<bf16> -> tensor<32x1x!tile.ptr<bf16>, #blocked1>
      %28 = tile.splat %arg5 : i32 -> tensor<32xi32, #slice2>
      %29 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice2>
      %30 = arith.addi %28, %29 : tensor<32xi32, #slice2>
      %31 = tile.expand_dims %30 {axis = 1 : i32} : tensor<32xi32, #slice2> -> tensor<32x1xi32, #blocked1>
      %32 = arith.muli %31, %cst_0 : tensor<32x1xi32, #blocked1>
      %33 = tile.addptr %27, %32 : tensor<32x1x!tile.ptr<bf16>, #blocked1>, tensor<32x1xi32, #blocked1>
      %34 = tile.broadcast %33 : tensor<32x1x!tile.ptr<bf16>, #blocked1> -> tensor<32x64x!tile.ptr<bf16>, #blocked1>
      %35 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
      %36 = tile.expand_dims %35 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked1>
      %37 = tile.broadcast %36 : tensor<1x64xi32, #blocked1> -> tensor<32x64xi32, #blocked1>
      %38 = tile.addptr %34, %37 : tensor<32x64x!tile.ptr<bf16>, #blocked1>, tensor<32x64xi32, #blocked1>
      %39 = tile.load %38 : tensor<32x64x!tile.ptr<bf16>, #blocked1>
      %40 = arith.extf %39 : tensor<32x64xbf16, #blocked1> to tensor<32x64xf32, #blocked1>
      %41 = arith.mulf %40, %cst_1 : tensor<32x64xf32, #blocked1>
      %42 = tile.addptr %arg3, %arg5 : !tile.ptr<f32>, i32
      %43 = tile.splat %42 : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #blocked2>
      %44 = tile.addptr %43, %0 : tensor<32x!tile.ptr<f32>, #blocked2>, tensor<32xi32, #blocked2>
      %45 = tile.load %44 : tensor<32x!tile.ptr<f32>, #blocked2>
      %46 = arith.addf %45, %cst_3 : tensor<32xf32, #blocked2>
      tile.store %44, %46 : tensor<32x!tile.ptr<f32>, #blocked2>
      %47 = arith.extf %26 : tensor<64x32xbf16, #blocked3> to tensor<64x32xf32, #blocked3>
      %48 = tilegpu.local_alloc %47 : (tensor<64x32xf32, #blocked3>) -> !tilegpu.memdesc<64x32xf32, #nvmma>
      %49 = tilegpu.local_alloc %41 : (tensor<32x64xf32, #blocked1>) -> !tilegpu.memdesc<32x64xf32, #nvmma1>
      %50 = tilegpu.warpgroup_dot %48, %49, %arg6 inputPrecision = tf32 : !tilegpu.memdesc<64x32xf32, #nvmma> * <32x64xf32, #nvmma1> -> tensor<64x64xf32, #mma>
      scf.yield %50 : tensor<64x64xf32, #mma>
    }
    %2 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #blocked>
    %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
    %4 = tile.expand_dims %3 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked>
    %5 = arith.muli %4, %cst : tensor<64x1xi32, #blocked>
    %6 = tile.addptr %2, %5 : tensor<64x1x!tile.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
    %7 = tile.broadcast %6 : tensor<64x1x!tile.ptr<f32>, #blocked> -> tensor<64x64x!tile.ptr<f32>, #blocked>
    %8 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
    %9 = tile.expand_dims %8 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked>
    %10 = tile.broadcast %9 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %11 = tile.addptr %7, %10 : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xi32, #blocked>
    %12 = tilegpu.convert_layout %1 : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    tile.store %11, %12 : tensor<64x64x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// The same loop with two steps (fewer than the three stages): every copy
// would be issued before it and none in it, and its pointers' run-ahead
// values would only add registers (Lightning Attention's two-step inner
// loops ran 10% slower so), so it is left alone.
// CHECK-LABEL: func.func @two_steps
// CHECK-NOT: async_copy
// CHECK: scf.for
// CHECK: tile.load
// CHECK: tile.load
// CHECK: tile.dot
#blocked = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8, 16]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_op1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @two_steps(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<16> : tensor<16x1xi32, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<16x16xf32, #mma>
    %c16_i32 = arith.constant 16 : i32
    %c0_i32 = arith.constant 0 : i32
    %c32_i32 = arith.constant 32 : i32
    %0 = scf.for %arg4 = %c0_i32 to %c32_i32 step %c16_i32 iter_args(%arg5 = %cst_0) -> (tensor<16x16xf32, #mma>)  : i32 {
      %12 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<16x1x!tile.ptr<bf16>, #blocked>
      %13 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
      %14 = tile.expand_dims %13 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
      %15 = tile.splat %arg3 : i32 -> tensor<16x1xi32, #blocked>
      %16 = arith.muli %14, %15 : tensor<16x1xi32, #blocked>
      %17 = tile.addptr %12, %16 : tensor<16x1x!tile.ptr<bf16>, #blocked>, tensor<16x1xi32, #blocked>
      %18 = tile.broadcast %17 : tensor<16x1x!tile.ptr<bf16>, #blocked> -> tensor<16x16x!tile.ptr<bf16>, #blocked>
      %19 = tile.splat %arg4 : i32 -> tensor<16xi32, #slice1>
      %20 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice1>
      %21 = arith.addi %19, %20 : tensor<16xi32, #slice1>
      %22 = tile.expand_dims %21 {axis = 0 : i32} : tensor<16xi32, #slice1> -> tensor<1x16xi32, #blocked>
      %23 = tile.broadcast %22 : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
      %24 = tile.addptr %18, %23 : tensor<16x16x!tile.ptr<bf16>, #blocked>, tensor<16x16xi32, #blocked>
      %25 = tile.load %24 : tensor<16x16x!tile.ptr<bf16>, #blocked>
      %26 = tile.splat %arg1 : !tile.ptr<bf16> -> tensor<16x1x!tile.ptr<bf16>, #blocked>
      %27 = tile.splat %arg4 : i32 -> tensor<16xi32, #slice>
      %28 = arith.addi %27, %13 : tensor<16xi32, #slice>
      %29 = tile.expand_dims %28 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
      %30 = arith.muli %29, %cst : tensor<16x1xi32, #blocked>
      %31 = tile.addptr %26, %30 : tensor<16x1x!tile.ptr<bf16>, #blocked>, tensor<16x1xi32, #blocked>
      %32 = tile.broadcast %31 : tensor<16x1x!tile.ptr<bf16>, #blocked> -> tensor<16x16x!tile.ptr<bf16>, #blocked>
      %33 = tile.expand_dims %20 {axis = 0 : i32} : tensor<16xi32, #slice1> -> tensor<1x16xi32, #blocked>
      %34 = tile.broadcast %33 : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
      %35 = tile.addptr %32, %34 : tensor<16x16x!tile.ptr<bf16>, #blocked>, tensor<16x16xi32, #blocked>
      %36 = tile.load %35 : tensor<16x16x!tile.ptr<bf16>, #blocked>
      %37 = tilegpu.convert_layout %25 : tensor<16x16xbf16, #blocked> -> tensor<16x16xbf16, #dot_op>
      %38 = tilegpu.convert_layout %36 : tensor<16x16xbf16, #blocked> -> tensor<16x16xbf16, #dot_op1>
      %39 = tile.dot %37, %38, %arg5 : tensor<16x16xbf16, #dot_op> * tensor<16x16xbf16, #dot_op1> -> tensor<16x16xf32, #mma>
      scf.yield %39 : tensor<16x16xf32, #mma>
    }
    %1 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>, #blocked>
    %2 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice>
    %3 = tile.expand_dims %2 {axis = 1 : i32} : tensor<16xi32, #slice> -> tensor<16x1xi32, #blocked>
    %4 = arith.muli %3, %cst : tensor<16x1xi32, #blocked>
    %5 = tile.addptr %1, %4 : tensor<16x1x!tile.ptr<f32>, #blocked>, tensor<16x1xi32, #blocked>
    %6 = tile.broadcast %5 : tensor<16x1x!tile.ptr<f32>, #blocked> -> tensor<16x16x!tile.ptr<f32>, #blocked>
    %7 = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #slice1>
    %8 = tile.expand_dims %7 {axis = 0 : i32} : tensor<16xi32, #slice1> -> tensor<1x16xi32, #blocked>
    %9 = tile.broadcast %8 : tensor<1x16xi32, #blocked> -> tensor<16x16xi32, #blocked>
    %10 = tile.addptr %6, %9 : tensor<16x16x!tile.ptr<f32>, #blocked>, tensor<16x16xi32, #blocked>
    %11 = tilegpu.convert_layout %0 : tensor<16x16xf32, #mma> -> tensor<16x16xf32, #blocked>
    tile.store %10, %11 : tensor<16x16x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// Lightning Attention's forward (kernels/computed_operands.py's
// chained_tf32_kernel, at the pipeliner's input): q is converted to the A
// layouts of two tf32 dots of different widths, k^T to one A layout and
// used as loaded (widened for a B buffer). Each is read from its staged
// buffer straight into every layout it is used in, where first needed, so
// no bf16 tile goes through a conversion's shared scratch and the reads
// do not all stay live from the top of the body.
// CHECK-LABEL: func.func @chained_tf32_kernel
// CHECK: scf.for
// CHECK-NOT: tilegpu.convert_layout {{.*}}xbf16
// CHECK: %[[K:.*]] = tilegpu.local_load %[[KBUF:.*]] : <128x64xbf16, #{{.*}}> -> tensor<128x64xbf16, #blocked
// CHECK-NEXT: arith.extf %[[K]]
// CHECK-NOT: tilegpu.convert_layout {{.*}}xbf16
// CHECK: %[[Q:.*]] = tilegpu.local_load %[[QBUF:.*]] : <64x128xbf16, #{{.*}}> -> tensor<64x128xbf16, #dot_op>
// CHECK-NEXT: arith.extf %[[Q]]
// CHECK-NOT: tilegpu.convert_layout {{.*}}xbf16
// CHECK: tilegpu.warpgroup_dot
// CHECK-NOT: tilegpu.convert_layout {{.*}}xbf16
// CHECK: %[[Q1:.*]] = tilegpu.local_load %[[QBUF]] : <64x128xbf16, #{{.*}}> -> tensor<64x128xbf16, #dot_op1>
// CHECK-NEXT: arith.extf %[[Q1]]
// CHECK-NOT: tilegpu.convert_layout {{.*}}xbf16
// CHECK: %[[K1:.*]] = tilegpu.local_load %[[KBUF]] : <128x64xbf16, #{{.*}}> -> tensor<128x64xbf16, #dot_op1>
// CHECK-NEXT: arith.extf %[[K1]]
// CHECK-NEXT: tilegpu.warpgroup_dot
// CHECK: scf.yield
#blocked = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #tilegpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked3 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 32, 8]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma1, kWidth = 1}>
#dot_op1 = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>
#slice = #tilegpu.slice<{dim = 1, parent = #blocked3}>
#slice1 = #tilegpu.slice<{dim = 0, parent = #blocked3}>
#slice2 = #tilegpu.slice<{dim = 0, parent = #blocked2}>
#slice3 = #tilegpu.slice<{dim = 1, parent = #blocked2}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #blocked1}>
#slice5 = #tilegpu.slice<{dim = 0, parent = #blocked1}>
#slice6 = #tilegpu.slice<{dim = 1, parent = #blocked}>
#slice7 = #tilegpu.slice<{dim = 0, parent = #blocked}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @chained_tf32_kernel(%arg0: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %cst = arith.constant dense<32> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<64x1xi32, #blocked1>
    %cst_1 = arith.constant dense<128> : tensor<1x64xi32, #blocked2>
    %cst_2 = arith.constant dense<128> : tensor<64x1xi32, #blocked3>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
    %cst_5 = arith.constant dense<0.000000e+00> : tensor<64x32xbf16, #blocked1>
    %cst_6 = arith.constant dense<0.000000e+00> : tensor<128x64xbf16, #blocked2>
    %cst_7 = arith.constant dense<0.000000e+00> : tensor<64x128xbf16, #blocked3>
    %cst_8 = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %0 = scf.for %arg5 = %c0_i32 to %arg4 step %c64_i32 iter_args(%arg6 = %cst_8) -> (tensor<128x32xf32, #mma>)  : i32 {
      %1 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked3>
      %2 = tile.splat %arg5 : i32 -> tensor<64xi32, #slice>
      %3 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
      %4 = arith.addi %2, %3 : tensor<64xi32, #slice>
      %5 = tile.expand_dims %4 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked3>
      %6 = arith.muli %5, %cst_2 : tensor<64x1xi32, #blocked3>
      %7 = tile.addptr %1, %6 : tensor<64x1x!tile.ptr<bf16>, #blocked3>, tensor<64x1xi32, #blocked3>
      %8 = tile.broadcast %7 : tensor<64x1x!tile.ptr<bf16>, #blocked3> -> tensor<64x128x!tile.ptr<bf16>, #blocked3>
      %9 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice1>
      %10 = tile.expand_dims %9 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked3>
      %11 = tile.broadcast %10 : tensor<1x128xi32, #blocked3> -> tensor<64x128xi32, #blocked3>
      %12 = tile.addptr %8, %11 : tensor<64x128x!tile.ptr<bf16>, #blocked3>, tensor<64x128xi32, #blocked3>
      %13 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked3>
      %14 = arith.cmpi slt, %5, %13 : tensor<64x1xi32, #blocked3>
      %15 = tile.broadcast %14 : tensor<64x1xi1, #blocked3> -> tensor<64x128xi1, #blocked3>
      %16 = tile.load %12, %15, %cst_7 : tensor<64x128x!tile.ptr<bf16>, #blocked3>
      %17 = tile.splat %arg1 : !tile.ptr<bf16> -> tensor<1x64x!tile.ptr<bf16>, #blocked2>
      %18 = tile.splat %arg5 : i32 -> tensor<64xi32, #slice2>
      %19 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice2>
      %20 = arith.addi %18, %19 : tensor<64xi32, #slice2>
      %21 = tile.expand_dims %20 {axis = 0 : i32} : tensor<64xi32, #slice2> -> tensor<1x64xi32, #blocked2>
      %22 = arith.muli %21, %cst_1 : tensor<1x64xi32, #blocked2>
      %23 = tile.addptr %17, %22 : tensor<1x64x!tile.ptr<bf16>, #blocked2>, tensor<1x64xi32, #blocked2>
      %24 = tile.broadcast %23 : tensor<1x64x!tile.ptr<bf16>, #blocked2> -> tensor<128x64x!tile.ptr<bf16>, #blocked2>
      %25 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice3>
      %26 = tile.expand_dims %25 {axis = 1 : i32} : tensor<128xi32, #slice3> -> tensor<128x1xi32, #blocked2>
      %27 = tile.broadcast %26 : tensor<128x1xi32, #blocked2> -> tensor<128x64xi32, #blocked2>
      %28 = tile.addptr %24, %27 : tensor<128x64x!tile.ptr<bf16>, #blocked2>, tensor<128x64xi32, #blocked2>
      %29 = tile.splat %arg4 : i32 -> tensor<1x64xi32, #blocked2>
      %30 = arith.cmpi slt, %21, %29 : tensor<1x64xi32, #blocked2>
      %31 = tile.broadcast %30 : tensor<1x64xi1, #blocked2> -> tensor<128x64xi1, #blocked2>
      %32 = tile.load %28, %31, %cst_6 : tensor<128x64x!tile.ptr<bf16>, #blocked2>
      %33 = arith.extf %32 : tensor<128x64xbf16, #blocked2> to tensor<128x64xf32, #blocked2>
      %34 = tile.splat %arg2 : !tile.ptr<bf16> -> tensor<64x1x!tile.ptr<bf16>, #blocked1>
      %35 = tile.splat %arg5 : i32 -> tensor<64xi32, #slice4>
      %36 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
      %37 = arith.addi %35, %36 : tensor<64xi32, #slice4>
      %38 = tile.expand_dims %37 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked1>
      %39 = arith.muli %38, %cst_0 : tensor<64x1xi32, #blocked1>
      %40 = tile.addptr %34, %39 : tensor<64x1x!tile.ptr<bf16>, #blocked1>, tensor<64x1xi32, #blocked1>
      %41 = tile.broadcast %40 : tensor<64x1x!tile.ptr<bf16>, #blocked1> -> tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %42 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice5>
      %43 = tile.expand_dims %42 {axis = 0 : i32} : tensor<32xi32, #slice5> -> tensor<1x32xi32, #blocked1>
      %44 = tile.broadcast %43 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
      %45 = tile.addptr %41, %44 : tensor<64x32x!tile.ptr<bf16>, #blocked1>, tensor<64x32xi32, #blocked1>
      %46 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked1>
      %47 = arith.cmpi slt, %38, %46 : tensor<64x1xi32, #blocked1>
      %48 = tile.broadcast %47 : tensor<64x1xi1, #blocked1> -> tensor<64x32xi1, #blocked1>
      %49 = tile.load %45, %48, %cst_5 : tensor<64x32x!tile.ptr<bf16>, #blocked1>
      %50 = arith.extf %49 : tensor<64x32xbf16, #blocked1> to tensor<64x32xf32, #blocked1>
      %51 = tilegpu.convert_layout %16 : tensor<64x128xbf16, #blocked3> -> tensor<64x128xbf16, #dot_op>
      %52 = arith.extf %51 : tensor<64x128xbf16, #dot_op> to tensor<64x128xf32, #dot_op>
      %53 = tilegpu.local_alloc %33 : (tensor<128x64xf32, #blocked2>) -> !tilegpu.memdesc<128x64xf32, #nvmma>
      %54 = tilegpu.warpgroup_dot %52, %53, %cst_4 inputPrecision = tf32 : tensor<64x128xf32, #dot_op> * <128x64xf32, #nvmma> -> tensor<64x64xf32, #mma1>
      %55 = tilegpu.convert_layout %54 : tensor<64x64xf32, #mma1> -> tensor<64x64xf32, #dot_op1>
      %56 = tilegpu.local_alloc %50 : (tensor<64x32xf32, #blocked1>) -> !tilegpu.memdesc<64x32xf32, #nvmma>
      %57 = tilegpu.warpgroup_dot %55, %56, %cst_3 inputPrecision = tf32 : tensor<64x64xf32, #dot_op1> * <64x32xf32, #nvmma> -> tensor<64x32xf32, #mma>
      %58 = tilegpu.convert_layout %16 : tensor<64x128xbf16, #blocked3> -> tensor<64x128xbf16, #dot_op1>
      %59 = arith.extf %58 : tensor<64x128xbf16, #dot_op1> to tensor<64x128xf32, #dot_op1>
      %60 = tilegpu.local_alloc %arg6 : (tensor<128x32xf32, #mma>) -> !tilegpu.memdesc<128x32xf32, #nvmma>
      %61 = tilegpu.warpgroup_dot %59, %60, %57 inputPrecision = tf32 : tensor<64x128xf32, #dot_op1> * <128x32xf32, #nvmma> -> tensor<64x32xf32, #mma>
      %62 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #blocked>
      %63 = tile.splat %arg5 : i32 -> tensor<64xi32, #slice6>
      %64 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice6>
      %65 = arith.addi %63, %64 : tensor<64xi32, #slice6>
      %66 = tile.expand_dims %65 {axis = 1 : i32} : tensor<64xi32, #slice6> -> tensor<64x1xi32, #blocked>
      %67 = arith.muli %66, %cst : tensor<64x1xi32, #blocked>
      %68 = tile.addptr %62, %67 : tensor<64x1x!tile.ptr<f32>, #blocked>, tensor<64x1xi32, #blocked>
      %69 = tile.broadcast %68 : tensor<64x1x!tile.ptr<f32>, #blocked> -> tensor<64x32x!tile.ptr<f32>, #blocked>
      %70 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice7>
      %71 = tile.expand_dims %70 {axis = 0 : i32} : tensor<32xi32, #slice7> -> tensor<1x32xi32, #blocked>
      %72 = tile.broadcast %71 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
      %73 = tile.addptr %69, %72 : tensor<64x32x!tile.ptr<f32>, #blocked>, tensor<64x32xi32, #blocked>
      %74 = tilegpu.convert_layout %61 : tensor<64x32xf32, #mma> -> tensor<64x32xf32, #blocked>
      %75 = tile.splat %arg4 : i32 -> tensor<64x1xi32, #blocked>
      %76 = arith.cmpi slt, %66, %75 : tensor<64x1xi32, #blocked>
      %77 = tile.broadcast %76 : tensor<64x1xi1, #blocked> -> tensor<64x32xi1, #blocked>
      tile.store %73, %74, %77 : tensor<64x32x!tile.ptr<f32>, #blocked>
      %78 = tilegpu.convert_layout %32 : tensor<128x64xbf16, #blocked2> -> tensor<128x64xbf16, #dot_op1>
      %79 = arith.extf %78 : tensor<128x64xbf16, #dot_op1> to tensor<128x64xf32, #dot_op1>
      %80 = tilegpu.warpgroup_dot %79, %56, %arg6 inputPrecision = tf32 : tensor<128x64xf32, #dot_op1> * <64x32xf32, #nvmma> -> tensor<128x32xf32, #mma>
      scf.yield %80 : tensor<128x32xf32, #mma>
    }
    return
  }
}

