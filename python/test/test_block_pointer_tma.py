"""Which block-pointer accesses become TMA copies (compiled on the CPU):
sm_90 or later, a 2-D row-major window, an aligned base and row stride,
values the launcher can compute. A loop that carries a block pointer keeps
its TMA path (its base, shape and strides pass through tl.advance), and a
loop whose pointer really changes falls back to pointer arithmetic."""

import pytest

import tile
import tile.language as tl
from kernels import aggregates as ag

COPY = {"src": "*fp16", "dst": "*fp16", "M": "i32", "N": "i32",
        "stride_src": "i32", "stride_dst": "i32"}
ALIGNED = ["src", "dst", "stride_src", "stride_dst"]


def ptx(fn, signature, constexprs, **options):
    return tile.compile(fn, signature, constexprs, **options).asm["ptx"]


def copies(text):
    return (text.count("cp.async.bulk.tensor.2d.shared"),
            text.count("cp.async.bulk.tensor.2d.global"))


def test_aligned_window_on_sm90_is_a_tma_load_and_store():
    assert copies(ptx(ag.block_copy_2d, COPY, {"BM": 32, "BN": 64},
                      divisibility=ALIGNED)) == (1, 1)


@pytest.mark.parametrize("why,constexprs,options", [
    ("no alignment known", {"BM": 32, "BN": 64}, {}),
    ("sm_80 has no TMA", {"BM": 32, "BN": 64},
     {"divisibility": ALIGNED, "target": "sm_80"}),
    ("rows of 8 bytes", {"BM": 32, "BN": 4}, {"divisibility": ALIGNED}),
    ("a side above 256", {"BM": 512, "BN": 64}, {"divisibility": ALIGNED}),
])
def test_other_windows_use_pointer_arithmetic(why, constexprs, options):
    assert copies(ptx(ag.block_copy_2d, COPY, constexprs, **options)) == (0, 0), why


MATMUL = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
          "N": "i32", "K": "i32", "stride_am": "i32", "stride_bk": "i32",
          "stride_cm": "i32"}
UNIT = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}


def test_advance_in_a_loop_keeps_the_tma_path():
    text = ptx(ag.block_matmul, MATMUL,
               dict(UNIT, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=3),
               divisibility=["a_ptr", "b_ptr", "c_ptr", "stride_am",
                             "stride_bk", "stride_cm"], num_warps=8)
    loads, stores = copies(text)
    assert loads >= 2 and stores >= 1
    assert "wgmma.mma_async" in text


@tile.jit
def moving_base(x_ptr, out_ptr, N, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    """The pointer a block pointer is made from changes in the loop: each
    iteration's window is a new tensor, which no launch-time descriptor
    can describe."""
    p = x_ptr
    acc = tl.zeros((ROWS, COLS), tl.float32)
    for i in range(4):
        window = tl.make_block_ptr(p, (ROWS, N), (stride, 1), (0, 0),
                                   (ROWS, COLS), (1, 0))
        acc += tl.load(window, boundary_check=(0, 1))
        p += ROWS * stride
    out = tl.make_block_ptr(out_ptr, (ROWS, N), (stride, 1), (0, 0),
                            (ROWS, COLS), (1, 0))
    tl.store(out, acc, boundary_check=(0, 1))


def test_a_changing_base_falls_back_to_pointers():
    compiled = tile.compile(moving_base, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                          "N": "i32", "stride": "i32"},
                            {"ROWS": 16, "COLS": 32},
                            divisibility=["x_ptr", "out_ptr", "stride"])
    loads, stores = copies(compiled.asm["ptx"])
    assert (loads, stores) == (0, 1)
    # One descriptor, for the store; none from the loop's assumed recipe.
    assert len(compiled.metadata["host_descriptors"]) == 1
