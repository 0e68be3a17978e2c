// RUN: tile-opt %s --tilegpu-insert-barriers -verify-diagnostics

// An mbarrier initialised inside the producer and then waited on would
// need a CTA barrier between the two, which the producer's warps cannot
// take alone: the consumers never reach it.
#s = #tilegpu.shared<{order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.extra_warps = 4 : i32} {
// expected-error @+1 {{the producer of a warp_specialize would need a CTA barrier its warps cannot take}}
func.func @producer_hazard(%i: i32) {
  %bar = tilegpu.local_alloc {tilegpu.offset = 0 : i64} : () -> !tilegpu.memdesc<1xi64, #s>
  tilegpu.warp_specialize producer(4 warps, 40 registers) {
    tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #s>
    tilegpu.wait_barrier %bar, %i : !tilegpu.memdesc<1xi64, #s>
  } consumers(232 registers) {
  }
  return
}
}
