"""Layout conversions larger than one scratch buffer go in rounds
(issue 27, item 14), compiled without a GPU: the kernel's shared memory
stays at the 64 KiB round buffer however large the block, and gathered
loads no longer need conversions at all. test_gpu_conversions.py runs the
same kernels on the GPU."""

import re

import pytest

import tile
from kernels import conversions as cv

ROUND_BUFFER = 64 * 1024

SIG_1D = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}
SIG_2D = {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32",
          "stride_y": "i32"}


def conversions(kernel):
    return len(re.findall(r"tilegpu\.convert_layout", kernel.asm["tilegpu"]))


# (elements, warps): 16 KiB and 64 KiB go at once, larger ones in rounds.
@pytest.mark.parametrize("size,warps", [(4096, 4), (16384, 4), (65536, 4),
                                        (262144, 32)])
def test_1d_conversion_scratch_is_bounded(size, warps):
    # y is not known to be aligned: its store takes one element per thread
    # while the aligned load takes four.
    k = tile.compile(cv.scale_1d_kernel, SIG_1D, {"BLOCK": size},
                     num_warps=warps, divisibility=["x_ptr", "n"])
    assert conversions(k) == 1
    assert k.metadata["shared"] == min(4 * size, ROUND_BUFFER)


@pytest.mark.parametrize("rows,cols,warps", [(64, 64, 4), (256, 256, 4),
                                             (512, 512, 32)])
def test_2d_conversion_scratch_is_bounded(rows, cols, warps):
    k = tile.compile(cv.scale_2d_kernel, SIG_2D, {"ROWS": rows, "COLS": cols},
                     num_warps=warps, divisibility=["x_ptr", "y_ptr", "M", "N"])
    assert conversions(k) == 1
    assert k.metadata["shared"] <= ROUND_BUFFER


# Transposing layouts share no register bits: at 8 warps and more the
# rounds split between whole warps of one side (issue 27, item 14).
@pytest.mark.parametrize("rows,cols,warps", [(256, 256, 8), (256, 256, 16),
                                             (512, 512, 8)])
def test_transposing_conversion_scratch_is_bounded(rows, cols, warps):
    sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32"}
    k = tile.compile(cv.transpose_kernel, sig, {"ROWS": rows, "COLS": cols},
                     num_warps=warps, divisibility=["x_ptr", "y_ptr", "M", "N"])
    assert conversions(k) == 1
    assert k.metadata["shared"] == ROUND_BUFFER


def test_gathered_loads_need_no_conversion():
    sig = {"x_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32", "y_ptr": "*fp32",
           "N": "i32", "per_channel": "i32", "eps": "fp32"}
    aligned = ["x_ptr", "w_ptr", "b_ptr", "y_ptr", "N", "per_channel"]
    for block in (16384, 65536):
        k = tile.compile(cv.channel_norm_kernel, sig, {"BLOCK": block},
                         divisibility=aligned)
        assert conversions(k) == 0, block
        assert k.metadata["shared"] <= 64  # the reductions' few words
