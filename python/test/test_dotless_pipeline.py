"""A loop with no dot is pipelined when its tl.range asks (CPU: the PTX);
test_gpu_dotless_pipeline.py checks the values."""

import pytest

import tile
from kernels import dotless_pipeline as k

SIGNATURE = {"src_ptr": "*fp32", "dst_ptr": "*fp32", "n": "i32"}


def ptx_of(stages, block=256):
    return tile.compile(k.scale_rows_kernel, signature=SIGNATURE,
                        constexprs={"STAGES": stages, "BLOCK": block},
                        divisibility=list(SIGNATURE)).asm["ptx"]


@pytest.mark.parametrize("stages", [2, 4])
def test_asked_for_stages_copy_ahead(stages):
    ptx = ptx_of(stages)
    assert "cp.async" in ptx and "cp.async.wait_group" in ptx


def test_one_stage_is_a_plain_loop():
    assert "cp.async" not in ptx_of(1)


def test_too_deep_is_out_of_resources():
    # 100 buffers of 4096 floats: 1.6 MB of shared memory.
    with pytest.raises(tile.OutOfResources, match="shared memory"):
        ptx_of(100, block=4096)


@pytest.mark.parametrize("stages", [2, 3])
def test_a_nonzero_other_is_selected_after_the_copy(stages):
    # cp.async fills masked-off lanes with zeros; -inf goes back in with
    # the iteration's own mask (arith.select after the buffer is read).
    signature = {"x_ptr": "*bf16", "out_ptr": "*fp32", "stride": "i32", "n": "i32"}
    kernel = tile.compile(k.row_logsumexp_kernel, signature=signature,
                          constexprs={"STAGES": stages, "BLOCK": 1024},
                          divisibility=list(signature), num_warps=8)
    assert "cp.async" in kernel.asm["ptx"]
    assert "arith.select" in kernel.asm["tilegpu"]
