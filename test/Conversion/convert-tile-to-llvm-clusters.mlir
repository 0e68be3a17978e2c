// RUN: tile-opt %s --convert-tile-to-llvm="num-ctas=2 maxnreg=96" --reconcile-unrealized-casts | FileCheck %s
// RUN: tile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=PLAIN

// num_ctas=2: the kernel is launched as clusters of two CTAs along x. A
// program is a cluster: program id and count along x read the cluster
// registers (y and z are still the CTA's), and only the cluster's first
// CTA runs the body; the other returns at entry.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-SAME: nvvm.maxnreg = 96 : i32
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq" %[[RANK]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[LEADER]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK: ^[[BODY]]:
// CHECK-DAG: nvvm.read.ptx.sreg.clusterid.x
// CHECK-DAG: nvvm.read.ptx.sreg.nclusterid.x
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.y
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: llvm.return

// Without clusters nothing of this appears.
// PLAIN-LABEL: llvm.func @k(
// PLAIN-NOT: cluster
// PLAIN-NOT: maxnreg
// PLAIN: nvvm.read.ptx.sreg.ctaid.x
// PLAIN: nvvm.read.ptx.sreg.nctaid.x
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @k(%p: !tile.ptr<i32>) attributes {tile.kernel} {
    %x = tile.get_program_id x
    %n = tile.get_num_programs x
    %y = tile.get_program_id y
    %s = arith.addi %x, %n : i32
    %t = arith.addi %s, %y : i32
    %q = tile.addptr %p, %t : !tile.ptr<i32>, i32
    return
  }
}
