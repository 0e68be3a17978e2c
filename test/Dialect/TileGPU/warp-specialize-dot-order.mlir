// RUN: tile-opt %s -split-input-file --tilegpu-warp-specialize --canonicalize | FileCheck %s

// In a warp-specialised loop a product that needs none of the iteration's
// other products (dP = dO V^T in attention's backward, written after P's
// softmax and dV's product) is issued right after the one before it that
// it may not pass (S): the wait for S leaves it in flight, and the softmax
// runs under it. dV, which needs S's result, stays where it was; the wait
// for dP leaves dV in flight.
// CHECK-LABEL: func.func @independent_product
// CHECK: } consumers(256 registers) {
// CHECK: tilegpu.wait_barrier
// CHECK-NEXT: %[[QS:.*]] = tilegpu.memdesc_index
// CHECK-NEXT: %[[S:.*]] = tilegpu.warpgroup_dot %[[QS]], %arg2, %{{.*}} async
// CHECK-NEXT: %[[OS:.*]] = tilegpu.memdesc_index
// CHECK-NEXT: %[[DP:.*]] = tilegpu.warpgroup_dot %[[OS]], %arg3, %{{.*}} async
// CHECK-NEXT: %[[SW:.*]] = tilegpu.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK: %[[P:.*]] = math.exp2 %[[SW]]
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %[[OS]], %{{.*}} async
// CHECK-NEXT: %[[DPW:.*]] = tilegpu.warpgroup_dot_wait %[[DP]] {pendings = 1 : i32}
// CHECK-NEXT: arith.mulf %[[P]], %[[DPW]]
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @independent_product(%qd: !tile.tensordesc<tensor<64x64xf16>>, %od: !tile.tensordesc<tensor<64x64xf16>>,
                               %kt: !tilegpu.memdesc<64x64xf16, #nvmma>, %vt: !tilegpu.memdesc<64x64xf16, #nvmma>,
                               %out: !tilegpu.memdesc<64x64xf32, #nvmma>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %k = %c0 to %n step %c64 iter_args(%dv = %zero, %last = %zero) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %q = tile.descriptor_load %qd[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %o = tile.descriptor_load %od[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %s = tilegpu.warpgroup_dot %qs, %kt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %p = math.exp2 %s : tensor<64x64xf32, #mma>
    %p16 = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ps = tilegpu.local_alloc %p16 : (tensor<64x64xf16, #mma>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %os = tilegpu.local_alloc %o : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %dv2 = tilegpu.warpgroup_dot %ps, %os, %dv : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %dp = tilegpu.warpgroup_dot %os, %vt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32, #mma>
    scf.yield %dv2, %ds : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  %sum = arith.addf %r#0, %r#1 : tensor<64x64xf32, #mma>
  tilegpu.local_store %sum, %out : tensor<64x64xf32, #mma> -> !tilegpu.memdesc<64x64xf32, #nvmma>
  return
}
}

// -----

// Ready first (its operand loaded first), dP still follows S, which was
// written before it and needs no product: S's wait would otherwise wait
// for dP too.
// CHECK-LABEL: func.func @loaded_first_issued_second
// CHECK: } consumers(256 registers) {
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot %{{.*}}, %arg2, %{{.*}} async
// CHECK-NEXT: tilegpu.warpgroup_dot %{{.*}}, %arg3, %{{.*}} async
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @loaded_first_issued_second(%qd: !tile.tensordesc<tensor<64x64xf16>>, %od: !tile.tensordesc<tensor<64x64xf16>>,
                               %kt: !tilegpu.memdesc<64x64xf16, #nvmma>, %vt: !tilegpu.memdesc<64x64xf16, #nvmma>,
                               %out: !tilegpu.memdesc<64x64xf32, #nvmma>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %k = %c0 to %n step %c64 iter_args(%dv = %zero, %last = %zero) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %o = tile.descriptor_load %od[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %q = tile.descriptor_load %qd[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %s = tilegpu.warpgroup_dot %qs, %kt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %p = math.exp2 %s : tensor<64x64xf32, #mma>
    %p16 = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ps = tilegpu.local_alloc %p16 : (tensor<64x64xf16, #mma>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %os = tilegpu.local_alloc %o : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %dv2 = tilegpu.warpgroup_dot %ps, %os, %dv : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %dp = tilegpu.warpgroup_dot %os, %vt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32, #mma>
    scf.yield %dv2, %ds : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  %sum = arith.addf %r#0, %r#1 : tensor<64x64xf32, #mma>
  tilegpu.local_store %sum, %out : tensor<64x64xf32, #mma> -> !tilegpu.memdesc<64x64xf32, #nvmma>
  return
}
}

// -----

// A product stays after a write to a buffer it reads.
// CHECK-LABEL: func.func @after_a_shared_write
// CHECK: } consumers(256 registers) {
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot %{{.*}}, %arg2, %{{.*}}
// CHECK-NOT: tilegpu.warpgroup_dot {{%.*}}, %arg3
// CHECK: math.exp2
// CHECK: tilegpu.local_store %{{.*}}, %arg3
// CHECK-NOT: tilegpu.warpgroup_dot {{%.*}}, %arg3
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %arg3, %{{.*}}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @after_a_shared_write(%qd: !tile.tensordesc<tensor<64x64xf16>>, %od: !tile.tensordesc<tensor<64x64xf16>>,
                               %kt: !tilegpu.memdesc<64x64xf16, #nvmma>, %vt: !tilegpu.memdesc<64x64xf16, #nvmma>,
                               %out: !tilegpu.memdesc<64x64xf32, #nvmma>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %k = %c0 to %n step %c64 iter_args(%dv = %zero, %last = %zero) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %q = tile.descriptor_load %qd[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %o = tile.descriptor_load %od[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %s = tilegpu.warpgroup_dot %qs, %kt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %p = math.exp2 %s : tensor<64x64xf32, #mma>
    %p16 = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ps = tilegpu.local_alloc %p16 : (tensor<64x64xf16, #mma>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %os = tilegpu.local_alloc %o : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %dv2 = tilegpu.warpgroup_dot %ps, %os, %dv : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    tilegpu.local_store %p16, %vt : tensor<64x64xf16, #mma> -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %dp = tilegpu.warpgroup_dot %os, %vt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32, #mma>
    scf.yield %dv2, %ds : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  %sum = arith.addf %r#0, %r#1 : tensor<64x64xf32, #mma>
  tilegpu.local_store %sum, %out : tensor<64x64xf32, #mma> -> !tilegpu.memdesc<64x64xf32, #nvmma>
  return
}
}

// -----

// A global write (a tile.store of P) does not change what a dot reads in
// shared memory: dP passes it.
// CHECK-LABEL: func.func @past_a_global_write
// CHECK: } consumers(256 registers) {
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot %{{.*}}, %arg2, %{{.*}} async
// CHECK-NEXT: %[[OS:.*]] = tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.warpgroup_dot %[[OS]], %arg3, %{{.*}} async
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK: tile.store
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @past_a_global_write(%qd: !tile.tensordesc<tensor<64x64xf16>>, %od: !tile.tensordesc<tensor<64x64xf16>>,
                               %kt: !tilegpu.memdesc<64x64xf16, #nvmma>, %vt: !tilegpu.memdesc<64x64xf16, #nvmma>,
                               %out: !tilegpu.memdesc<64x64xf32, #nvmma>, %n: i32, %P: !tile.ptr<f32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %k = %c0 to %n step %c64 iter_args(%dv = %zero, %last = %zero) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %q = tile.descriptor_load %qd[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %o = tile.descriptor_load %od[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %s = tilegpu.warpgroup_dot %qs, %kt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %p = math.exp2 %s : tensor<64x64xf32, #mma>
    %pp = tile.splat %P : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
    tile.store %pp, %p : tensor<64x64x!tile.ptr<f32>, #mma>
    %p16 = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ps = tilegpu.local_alloc %p16 : (tensor<64x64xf16, #mma>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %os = tilegpu.local_alloc %o : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %dv2 = tilegpu.warpgroup_dot %ps, %os, %dv : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %dp = tilegpu.warpgroup_dot %os, %vt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32, #mma>
    scf.yield %dv2, %ds : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  %sum = arith.addf %r#0, %r#1 : tensor<64x64xf32, #mma>
  tilegpu.local_store %sum, %out : tensor<64x64xf32, #mma> -> !tilegpu.memdesc<64x64xf32, #nvmma>
  return
}
}

// -----

// An op with regions (a branch) is not looked into: dP stays after it,
// and S is waited for alone (the branch becomes a select afterwards).
// CHECK-LABEL: func.func @after_a_branch
// CHECK: } consumers(256 registers) {
// CHECK: %[[S:.*]] = tilegpu.warpgroup_dot %{{.*}}, %arg2, %{{.*}} async
// CHECK-NEXT: tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[S]] {pendings = 0 : i32}
// CHECK-NOT: tilegpu.warpgroup_dot {{%.*}}, %arg3
// CHECK: math.exp2
// CHECK: tilegpu.warpgroup_dot %{{.*}}, %arg3, %{{.*}}
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#nvmma = #tilegpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
func.func @after_a_branch(%qd: !tile.tensordesc<tensor<64x64xf16>>, %od: !tile.tensordesc<tensor<64x64xf16>>,
                               %kt: !tilegpu.memdesc<64x64xf16, #nvmma>, %vt: !tilegpu.memdesc<64x64xf16, #nvmma>,
                               %out: !tilegpu.memdesc<64x64xf32, #nvmma>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r:2 = scf.for %k = %c0 to %n step %c64 iter_args(%dv = %zero, %last = %zero) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
    %q = tile.descriptor_load %qd[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %o = tile.descriptor_load %od[%k, %c0] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %qs = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %s = tilegpu.warpgroup_dot %qs, %kt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %e = math.exp2 %s : tensor<64x64xf32, #mma>
    %first = arith.cmpi eq, %k, %c0 : i32
    %p = scf.if %first -> tensor<64x64xf32, #mma> {
      scf.yield %zero : tensor<64x64xf32, #mma>
    } else {
      scf.yield %e : tensor<64x64xf32, #mma>
    }
    %p16 = arith.truncf %p : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
    %ps = tilegpu.local_alloc %p16 : (tensor<64x64xf16, #mma>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %os = tilegpu.local_alloc %o : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %dv2 = tilegpu.warpgroup_dot %ps, %os, %dv : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %dp = tilegpu.warpgroup_dot %os, %vt, %zero : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32, #mma>
    scf.yield %dv2, %ds : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  } {tile.warp_specialize}
  %sum = arith.addf %r#0, %r#1 : tensor<64x64xf32, #mma>
  tilegpu.local_store %sum, %out : tensor<64x64xf32, #mma> -> !tilegpu.memdesc<64x64xf32, #nvmma>
  return
}
}
