// The pipeline depth is bounded (tile/Support/Limits.h): a huge one used to
// make the pipeliner allocate until the machine ran out of memory.
// RUN: not tile-opt %s --tilegpu-pipeline=num-stages=1073741824 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tilegpu-warp-specialize=num-stages=0 2>&1 | FileCheck %s --check-prefix=ZERO
// CHECK: error: num-stages must be in [1, 1024], got 1073741824
// ZERO: error: num-stages must be in [1, 1024], got 0
module {
}
