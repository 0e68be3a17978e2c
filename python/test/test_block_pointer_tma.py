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
ALIGNED = ["src", "dst", "stride_src", "stride_dst", "N"]


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
    ("row length not known to be 16-byte whole", {"BM": 32, "BN": 64},
     {"divisibility": ["src", "dst", "stride_src", "stride_dst"]}),
    ("sm_80 has no TMA", {"BM": 32, "BN": 64},
     {"divisibility": ALIGNED, "target": "sm_80"}),
    ("rows of 8 bytes", {"BM": 32, "BN": 4}, {"divisibility": ALIGNED}),
    ("a side above 256", {"BM": 512, "BN": 64}, {"divisibility": ALIGNED}),
    # Shapes TMA copies cannot stage (these failed to compile before the
    # block pointer asked dtypes.tma_block_supported).
    ("rows of 16 bytes, under the 32-byte swizzle", {"BM": 64, "BN": 8},
     {"divisibility": ALIGNED}),
    ("4 rows, not a multiple of 8", {"BM": 4, "BN": 64},
     {"divisibility": ALIGNED}),
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
                             "stride_bk", "stride_cm", "N", "K"], num_warps=8)
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
                            divisibility=["x_ptr", "out_ptr", "stride", "N"])
    loads, stores = copies(compiled.asm["ptx"])
    assert (loads, stores) == (0, 1)
    # One descriptor, for the store; none from the loop's assumed recipe.
    assert len(compiled.metadata["host_descriptors"]) == 1


@tile.jit
def made_descriptor_store(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr,
                          BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [stride, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [stride, 1], [BM, BN])
    dst.store([0, 0], src.load([0, 0]))


def test_a_stored_descriptor_is_flagged_for_the_launch_check():
    compiled = tile.compile(made_descriptor_store, {"x_ptr": "*fp16", "out_ptr": "*fp16",
                                                    "M": "i32", "N": "i32", "stride": "i32"},
                            {"BM": 64, "BN": 64},
                            divisibility=["x_ptr", "out_ptr", "N", "stride"])
    loaded, stored = compiled.metadata["host_descriptors"]
    assert not loaded.get("stored") and stored["stored"]


def test_a_store_through_ragged_rows_is_refused_at_launch():
    # TMA stores write up to 16 bytes past a row's end (measured on the
    # H100), so a row of 75 fp16 (150 bytes) cannot be stored through.
    from launch_helpers import FakeTensor, Recorder
    from tile.runtime.launcher import use_launcher
    with use_launcher(Recorder()) as recorder:
        with pytest.raises(ValueError, match="rows \\(75 elements of 2 bytes\\)"):
            made_descriptor_store[(1,)](FakeTensor(1 << 20, "torch.float16"),
                                        FakeTensor(1 << 21, "torch.float16"),
                                        64, 75, 128, BM=64, BN=64)
        made_descriptor_store[(1,)](FakeTensor(1 << 20, "torch.float16"),
                                    FakeTensor(1 << 21, "torch.float16"),
                                    64, 80, 128, BM=64, BN=64)
    assert len(recorder.launches) == 1


@tile.jit
def host_descriptor_copy(src_desc, dst_desc, BM: tl.constexpr, BN: tl.constexpr):
    dst_desc.store([0, 0], src_desc.load([0, 0]))


def test_a_host_descriptor_with_ragged_rows_cannot_be_stored_through():
    ragged = {"src_desc": "tensordesc<fp16[64,64]>",
              "dst_desc": "tensordesc<fp16[64,64],ragged>"}
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(host_descriptor_copy, ragged, {"BM": 64, "BN": 64})
    assert "rows are not a multiple of 16 bytes" in str(info.value)
    assert "^" in str(info.value)
    # Loading from ragged rows is exact, and allowed.
    tile.compile(host_descriptor_copy, {"src_desc": "tensordesc<fp16[64,64],ragged>",
                                        "dst_desc": "tensordesc<fp16[64,64]>"},
                 {"BM": 64, "BN": 64})
