"""tl.dot(max_num_imprecise_acc=n) on fp8 wgmma: each n-deep slice of K is
summed by the tensor cores into a zeroed partial accumulator and added in
f32 (Triton's Hopper rule, whose PTX count of add.f32 its test_core checks)."""

import pytest

import tile
from kernels.imprecise_acc import fp8_matmul

SIGNATURE = {"a_ptr": "*fp8e5", "b_ptr": "*fp8e5", "c_ptr": "*fp32", "M": "i32",
             "N": "i32", "K": "i32", "stride_am": "i32", "stride_bk": "i32",
             "stride_cm": "i32"}


def compile_matmul(block, imprecise, dtype="fp8e5"):
    bm, bn, bk = block
    signature = {k: (v.replace("fp8e5", dtype)) for k, v in SIGNATURE.items()}
    return tile.compile(fp8_matmul, signature=signature, num_warps=8,
                        constexprs=dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                        IMPRECISE=imprecise),
                        divisibility=list(signature))


@pytest.mark.parametrize("block", [(128, 256, 128), (64, 64, 64)])
@pytest.mark.parametrize("imprecise", [32, 64, 128])
def test_one_f32_add_per_register_and_slice(block, imprecise):
    bm, bn, bk = block
    if imprecise > bk:
        pytest.skip("a bound deeper than the block")
    ptx = compile_matmul(block, imprecise).asm["ptx"]
    # 256 threads; the loop body is emitted once.
    assert ptx.count("add.f32") == bm * bn // 256 * (bk // imprecise)
    assert "wgmma.mma_async" in ptx


@pytest.mark.parametrize("imprecise", [None, 0])
def test_no_bound_adds_nothing(imprecise):
    ptx = compile_matmul((128, 256, 128), imprecise).asm["ptx"]
    assert ptx.count("add.f32") == 0


def test_the_bound_is_ignored_where_products_are_exact():
    # fp16 products accumulate in f32 already: no slices.
    ptx = compile_matmul((128, 128, 64), 32, dtype="fp16").asm["ptx"]
    assert ptx.count("add.f32") == 0


def test_a_negative_bound_is_an_error_at_the_line():
    with pytest.raises(tile.CompilationError, match="max_num_imprecise_acc must be"):
        compile_matmul((64, 64, 64), -1)
