// RUN: tile-opt %s -split-input-file --tilegpu-warp-specialize --canonicalize | FileCheck %s

// A TMA reduction in the body of a warp-specialised loop goes to the
// writer warp. Before the warp_specialize: two buffers for the block and
// two mbarrier arrays, `written` (one arrival per consumer thread) and
// `drained` (one per writer lane). The consumers wait until the buffer of
// iteration k (k % 2) is drained, at the parity of its round flipped (the
// first round passes), fill it, fence it for the async proxy and arrive.
// The writer follows the same iterations: it waits for the tile, reduces it
// into memory at the coordinates computed from its own induction variable,
// waits until the TMA unit has read the buffer and arrives on `drained`.
// The buffers and barriers live through the whole op.
// CHECK-LABEL: func.func @split_k_partials
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x64xf32, #nvmma>
// CHECK-NEXT: %[[WRITTEN:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared>
// CHECK-NEXT: tilegpu.init_barrier %[[WRITTEN]], 128
// CHECK-NEXT: %[[DRAINED:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared>
// CHECK-NEXT: tilegpu.init_barrier %[[DRAINED]], 32
// CHECK: tilegpu.warp_specialize producer(4 warps, 24 registers) {
// CHECK-NOT: tilegpu.async_tma_copy_local_to_global
// CHECK: } consumers(256 registers) {
// CHECK: scf.for %[[IV:[^ ]*]] = %c0_i32 to %arg3 step %c1_i32
// CHECK:   tilegpu.warpgroup_dot
// CHECK:   %[[CK:.*]] = arith.remsi %[[IV]], %c2_i32
// CHECK:   %[[CR:.*]] = arith.divsi %[[IV]], %c2_i32
// CHECK:   %[[CP:.*]] = arith.andi %[[CR]], %c1_i32
// CHECK:   %[[PASS:.*]] = arith.xori %[[CP]], %c1_i32
// CHECK:   %[[D:.*]] = tilegpu.memdesc_index %[[DRAINED]][%[[CK]]]
// CHECK:   tilegpu.wait_barrier %[[D]], %[[PASS]]
// CHECK:   %[[B:.*]] = tilegpu.memdesc_index %[[BUF]][%[[CK]]]
// CHECK:   tilegpu.local_store %{{.*}}, %[[B]] : tensor<64x64xf32, #mma>
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: %[[W:.*]] = tilegpu.memdesc_index %[[WRITTEN]][%[[CK]]]
// CHECK-NEXT: tilegpu.arrive_barrier %[[W]], %true
// CHECK-NOT: tile.descriptor_reduce
// CHECK: } {tile.warp_specialize}
// CHECK: } writer {
// CHECK: %[[PID:.*]] = tile.get_program_id x
// CHECK: %[[M:.*]] = arith.muli %[[PID]], %c64_i32
// CHECK: scf.for %[[WIV:[^ ]*]] = %c0_i32 to %arg3 step %c1_i32 : i32 {
// CHECK:   %[[WK:.*]] = arith.remsi %[[WIV]], %c2_i32
// CHECK:   %[[WR:.*]] = arith.divsi %[[WIV]], %c2_i32
// CHECK:   %[[WP:.*]] = arith.andi %[[WR]], %c1_i32
// CHECK:   %[[WW:.*]] = tilegpu.memdesc_index %[[WRITTEN]][%[[WK]]]
// CHECK:   tilegpu.wait_barrier %[[WW]], %[[WP]]
// CHECK:   %[[WB:.*]] = tilegpu.memdesc_index %[[BUF]][%[[WK]]]
// CHECK:   tilegpu.async_tma_copy_local_to_global %arg2[%[[M]], %{{.*}}] %[[WB]] reduce fadd
// CHECK-NEXT: tilegpu.async_tma_store_wait {pending = 0 : i32}
// CHECK-NEXT: %[[WD:.*]] = tilegpu.memdesc_index %[[DRAINED]][%[[WK]]]
// CHECK-NEXT: tilegpu.arrive_barrier %[[WD]], %true
// CHECK: tilegpu.local_dealloc %[[BUF]]
// CHECK-NEXT: tilegpu.local_dealloc %[[WRITTEN]]
// CHECK-NEXT: tilegpu.local_dealloc %[[DRAINED]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @split_k_partials(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                            %cd: !tile.tensordesc<tensor<64x64xf32>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %col = arith.addi %k, %c64 : i32
    tile.descriptor_reduce fadd, %cd[%m, %col], %d : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  return
}
}

// -----

// A store at coordinates that a loaded value decides cannot be followed
// by the writer: it stays in the consumers' loop, and there is no writer.
// CHECK-LABEL: func.func @data_dependent_row
// CHECK-NOT: } writer {
// CHECK: } consumers(256 registers) {
// CHECK: scf.for
// CHECK:   tile.descriptor_store %arg2
// CHECK: } {tile.warp_specialize}
// CHECK-NOT: } writer {
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @data_dependent_row(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                              %cd: !tile.tensordesc<tensor<64x64xf32>>, %rows: !tile.ptr<i32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %p = tile.addptr %rows, %i : !tile.ptr<i32>, i32
    %row = tile.load %p : !tile.ptr<i32>
    tile.descriptor_store %cd[%row, %m], %d : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  return
}
}

// -----

// A store under a branch is not made every iteration, which the writer's
// count of rounds assumes: it stays in the consumers.
// CHECK-LABEL: func.func @conditional_store
// CHECK-NOT: } writer {
// CHECK: scf.if
// CHECK:   tile.descriptor_store %arg2
// CHECK: } {tile.warp_specialize}
// CHECK-NOT: } writer {
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @conditional_store(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                             %cd: !tile.tensordesc<tensor<64x64xf32>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %odd = arith.andi %i, %c1 : i32
    %write = arith.cmpi eq, %odd, %c1 : i32
    scf.if %write {
      tile.descriptor_store %cd[%k, %m], %d : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
    }
  } {tile.warp_specialize}
  return
}
}

// -----

// A descriptor the body picks (a select between two by the iteration's
// parity) is picked again by the writer from its own induction variable.
// CHECK-LABEL: func.func @picked_descriptor
// CHECK: } consumers(256 registers) {
// CHECK-NOT: tile.descriptor_store
// CHECK: } writer {
// CHECK: scf.for %[[IV:[^ ]*]] =
// CHECK:   %[[ODD:.*]] = arith.andi %[[IV]], %c1_i32
// CHECK:   %[[PICK:.*]] = arith.cmpi eq, %[[ODD]], %c1_i32
// CHECK:   %[[DESC:.*]] = arith.select %[[PICK]], %arg2, %arg3
// CHECK:   tilegpu.async_tma_copy_local_to_global %[[DESC]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @picked_descriptor(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x64xf16>>,
                             %cd: !tile.tensordesc<tensor<64x64xf32>>, %ed: !tile.tensordesc<tensor<64x64xf32>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %odd = arith.andi %i, %c1 : i32
    %pick = arith.cmpi eq, %odd, %c1 : i32
    %out = arith.select %pick, %cd, %ed : !tile.tensordesc<tensor<64x64xf32>>
    tile.descriptor_store %out[%k, %m], %d : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  return
}
}

// -----

// Three stages of 40 KiB of operands leave room for one 64 KiB buffer of
// the reduced 64x256 fp32 block, not two: the writer gets one (every
// iteration waits for the previous copy's read), and the phases still
// flip per round.
// CHECK-LABEL: func.func @one_buffer_fits
// CHECK: %[[ONE:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1x64x256xf32
// CHECK: %[[W1:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1x1xi64
// CHECK: } writer {
// CHECK: scf.for %[[IV:[^ ]*]] =
// CHECK:   %[[PAR:.*]] = arith.andi %[[IV]], %c1_i32
// CHECK:   %[[W:.*]] = tilegpu.memdesc_index %[[W1]][%c0_i32]
// CHECK:   tilegpu.wait_barrier %[[W]], %[[PAR]]
// CHECK:   tilegpu.memdesc_index %[[ONE]][%c0_i32]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 256, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @one_buffer_fits(%ad: !tile.tensordesc<tensor<64x64xf16>>, %bd: !tile.tensordesc<tensor<64x256xf16>>,
                           %cd: !tile.tensordesc<tensor<64x256xf32>>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %pid = tile.get_program_id x
  %m = arith.muli %pid, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x256xf32, #mma>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %k = arith.muli %i, %c64 : i32
    %a = tile.descriptor_load %ad[%m, %k] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %b = tile.descriptor_load %bd[%k, %m] : !tile.tensordesc<tensor<64x256xf16>> -> tensor<64x256xf16, #blocked>
    %as = tilegpu.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %bs = tilegpu.local_alloc %b : (tensor<64x256xf16, #blocked>) -> !tilegpu.memdesc<64x256xf16, #nvmma>
    %d = tilegpu.warpgroup_dot %as, %bs, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmma> -> tensor<64x256xf32, #mma>
    tile.descriptor_reduce fadd, %cd[%m, %k], %d : !tile.tensordesc<tensor<64x256xf32>>, tensor<64x256xf32, #mma>
  } {tile.warp_specialize}
  return
}
}
