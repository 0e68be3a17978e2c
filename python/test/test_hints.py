"""tl.multiple_of, tl.max_contiguous and tl.max_constancy (issue 17): a
tile.hint op the axis analysis reads, so loads whose offsets it cannot see
through become vector accesses; checked on the compile path (PTX), in the
interpreter (no-ops) and for their errors."""

import re

import numpy as np
import pytest

import tile
from kernels import hints

SIG = {"src": "*fp32", "dst": "*fp32", "start_ptr": "*i32"}


def ptx_of(hint):
    return tile.compile(hints.shifted_copy, SIG, {"BLOCK": 1024, "HINT": hint},
                        divisibility=list(SIG))


def test_hints_make_loaded_offsets_vector_accesses():
    plain, hinted = ptx_of(False), ptx_of(True)
    assert "tile.hint" in hinted.asm["tile"] and "tile.hint" not in plain.asm["tile"]
    assert re.search(r"ld\.global(\.\w+)*\.v4\.\w32", hinted.asm["ptx"])
    assert re.search(r"st\.global(\.\w+)*\.v4\.\w32", hinted.asm["ptx"])
    assert not re.search(r"\.v4\.\w32", plain.asm["ptx"])


def test_two_dimensional_and_scalar_hints():
    kernel = tile.compile(hints.rows_scaled, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                              "stride": "i32"}, {"BLOCK": 32})
    ir = kernel.asm["tile"]
    assert re.search(r"tile\.hint %\S+ \{divisibility = array<i64: 16>\} : i32", ir)
    assert "divisibility = array<i64: 16, 16>" in ir
    assert "constancy = array<i64: 1, 1>" in ir


def test_a_hint_needs_one_value_per_dimension():
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(hints.wrong_rank, {"x_ptr": "*fp32"}, {"BLOCK": 16})
    text = str(info.value)
    assert "multiple_of takes one value per dimension: 2 for a rank-2 value, got 1" in text
    assert "tl.multiple_of(offs, 16)" in text   # the kernel's line, with a caret


def test_hints_are_no_ops_in_the_interpreter():
    src = np.arange(4096, dtype=np.float32)
    dst = np.full(4096, -1.0, np.float32)
    start = np.array([1024], np.int32)
    tile.jit(hints.shifted_copy.fn, interpret=True)[(1,)](
        src, dst, start, BLOCK=1024, HINT=True)
    np.testing.assert_array_equal(dst[1024:2048], 2 * src[1024:2048])
    assert (dst[:1024] == -1).all() and (dst[2048:] == -1).all()


@pytest.mark.parametrize("where, vector", [("top", True), ("branch", False),
                                           ("none", False)])
def test_a_dropped_hint_marks_the_value(where, vector):
    # Triton's hints mark the value they are given (an attribute on its
    # defining op), so `tl.multiple_of(offs, 16)` on its own line still
    # vectorises the loads of `offs`. tile does the same in the region the
    # value was made in; inside a branch the value outside stays unhinted
    # (the hint's result would not be visible after the branch).
    kernel = tile.compile(hints.hinted_in_place, SIG,
                          {"BLOCK": 1024, "WHERE": where},
                          divisibility=list(SIG))
    ptx = kernel.asm["ptx"]
    assert bool(re.search(r"ld\.global(\.\w+)*\.v4\.\w32", ptx)) == vector
    assert bool(re.search(r"st\.global(\.\w+)*\.v4\.\w32", ptx)) == vector
