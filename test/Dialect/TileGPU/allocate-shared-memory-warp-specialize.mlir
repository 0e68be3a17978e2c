// RUN: tile-opt %s --tilegpu-allocate-shared-memory | FileCheck %s

// Both sides of a warp_specialize run at once. %b, used by the producer,
// lives through the whole op; %a, which the consumers free inside (a
// pipeline's buffers once its last copy has been waited for), ends there,
// so %c, made by the consumers afterwards, takes %a's bytes but not %b's.
// CHECK: tilegpu.shared = 32 : i64
// CHECK: %[[A:.*]] = tilegpu.local_alloc {tilegpu.offset = 0 : i64}
// CHECK: %[[B:.*]] = tilegpu.local_alloc {tilegpu.offset = 16 : i64}
// CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i64}
#s = #tilegpu.shared<{order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.extra_warps = 4 : i32} {
func.func @specialized(%i: i32) attributes {tile.kernel} {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #s>
  %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #s>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
    tilegpu.wait_barrier %a, %i : !tilegpu.memdesc<1xi64, #s>
    tilegpu.wait_barrier %b, %i : !tilegpu.memdesc<1xi64, #s>
  } consumers(232 registers) {
    tilegpu.wait_barrier %a, %i : !tilegpu.memdesc<1xi64, #s>
    tilegpu.local_dealloc %a : !tilegpu.memdesc<1xi64, #s>
    %c = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #s>
    tilegpu.wait_barrier %c, %i : !tilegpu.memdesc<1xi64, #s>
  }
  tilegpu.local_dealloc %b : !tilegpu.memdesc<1xi64, #s>
  return
}
}
