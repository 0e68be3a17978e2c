"""tilegpu-swap-dot-operands on the compile path (no GPU): a weight-only
quantised matmul's unpacked weights become wgmma's register operand on
sm_90a, so no dequantised tile is stored to shared memory per iteration;
elsewhere the product is left as written."""

import re

import pytest

import tile
from kernels import quantized as q

SIG = dict(a_ptr="*bf16", b_ptr="*i8", c_ptr="*fp32", M="i32", N="i32",
           K="i32", stride_am="i32", stride_bk="i32", stride_cm="i32")
ALIGNED = ["a_ptr", "b_ptr", "c_ptr", "N", "K", "stride_am", "stride_bk",
           "stride_cm"]


def compile_int4(target, bm, bn, bk, warps, stages=3):
    return tile.compile(q.int4_weight_matmul_kernel, signature=SIG,
                        constexprs=dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk),
                        num_warps=warps, num_stages=stages, target=target,
                        divisibility=ALIGNED)


def stored_bf16_tiles(tilegpu):
    """local_allocs filled from a bf16 tensor: tiles stored to shared
    memory by the kernel itself."""
    return re.findall(r"tilegpu\.local_alloc %\S+ .*: \(tensor<\d+x\d+xbf16",
                      tilegpu)


@pytest.mark.parametrize("bm,bn,bk,warps", [(64, 64, 64, 4), (128, 128, 64, 8),
                                            (16, 64, 128, 4)])
def test_unpacked_weights_feed_wgmma_from_registers(bm, bn, bk, warps):
    kernel = compile_int4("sm_90a", bm, bn, bk, warps)
    ir = kernel.asm["tilegpu"]
    assert "#tilegpu.permuted" in ir
    assert stored_bf16_tiles(ir) == []
    # The packed weights are copied ahead like the activations.
    assert re.search(r"async_copy_global_to_local .*xi8", ir)
    ptx = kernel.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "mma.sync" not in ptx


def test_left_alone_without_wgmma():
    ir = compile_int4("sm_80", 64, 64, 64, 4).asm["tilegpu"]
    assert "#tilegpu.permuted" not in ir


def test_left_alone_when_the_transposed_product_has_no_warpgroup_tiling():
    # N = 32 rows for the transposed product: below wgmma's 64.
    ir = compile_int4("sm_90a", 64, 32, 64, 4).asm["tilegpu"]
    assert "#tilegpu.permuted" not in ir
    assert stored_bf16_tiles(ir)
