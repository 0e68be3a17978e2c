"""`@jit(noinline=True)`: a function that takes and returns numbers and
pointers stays a device function, called from the kernel (`no_inline` in
the Tile IR, a `.func` and `call` in the PTX), with its shared memory after
its caller's and a barrier before its first access; one that passes tensors
is inlined, with a warning. Compiled without a GPU;
test_gpu_noinline.py runs them."""

import re
import warnings

import pytest

import tile
import tile.language as tl
from kernels.noinline import (add_rows_inline, add_twice, add_twice_inline,
                              doubles_a_tensor, scaled_tile, softmax_twice,
                              sum_and_maxes, sums_a_pair)


PTRS = dict(a="*fp32", b="*fp32", o="*fp32")


def test_a_noinline_function_is_called():
    kernel = tile.compile(add_twice, signature=PTRS, constexprs=dict(N=128))
    assert re.search(r"func\.func private @add_rows_\d+\(.*\) attributes "
                     r"\{no_inline\}", kernel.asm["tile"])
    ptx = kernel.asm["ptx"]
    assert re.search(r"\.func add_rows_\d+\(", ptx)
    assert ptx.count("call.uni") == 2
    inlined = tile.compile(add_twice_inline, signature=PTRS,
                           constexprs=dict(N=128))
    assert "no_inline" not in inlined.asm["tile"]
    assert "call.uni" not in inlined.asm["ptx"]
    assert ".func" not in inlined.asm["ptx"]


def test_a_device_function_gets_its_own_shared_memory():
    kernel = tile.compile(sum_and_maxes,
                          signature=dict(x="*fp32", y="*fp32", out="*fp32"),
                          constexprs=dict(N=1024))
    tilegpu = kernel.asm["tilegpu"]
    function = tilegpu[tilegpu.index("func.func private @row_max"):
                       tilegpu.index("func.func @sum_and_maxes")]
    caller = tilegpu[tilegpu.index("func.func @sum_and_maxes"):]
    # The kernel's reduction scratch at 0 (16 bytes), the function's after.
    assert "tilegpu.offset = 0 : i64" in caller
    assert "tilegpu.offset = 16 : i64" in function
    assert kernel.metadata["shared"] == 32
    # The function waits for earlier readers before its first access.
    assert function.index("tilegpu.barrier") < function.index("tile.reduce")
    assert kernel.asm["ptx"].count("call.uni") == 2


@pytest.mark.parametrize("kernel,signature,constexprs,calls", [
    (doubles_a_tensor, dict(x="*fp32", o="*fp32"), dict(N=1024), 1),
    (softmax_twice, dict(x_ptr="*fp32", o_ptr="*fp32"), dict(N=2048), 2),
    (scaled_tile, dict(x_ptr="*fp32", s_ptr="*fp32", o_ptr="*fp16"),
     dict(M=64, N=64), 1),
])
def test_tensors_pass_as_registers(kernel, signature, constexprs, calls):
    # Each thread's registers of a tensor argument or result are parameters
    # of the device function (a .func with one .param per register).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = tile.compile(kernel, signature=signature,
                                constexprs=constexprs)
    assert "no_inline" in compiled.asm["tile"]
    assert compiled.asm["ptx"].count("call.uni") == calls
    functions = re.findall(r"\.func\s+\(([^)]*)\)\s*\w+\(([^)]*)\)",
                           compiled.asm["ptx"])
    assert functions
    for result, params in functions:
        assert ".param" in result and params.count(".param") >= 1
    if kernel is doubles_a_tensor:
        # 1024 floats over 128 threads: 8 registers in, 8 out (32 bytes).
        assert functions[0][1].count(".param") == 8
        assert "func_retval0[32]" in functions[0][0]


def test_noinline_with_a_tuple_is_inlined_with_a_warning():
    with pytest.warns(UserWarning, match="pair_sum is noinline, but tile "
                                         "inlines it") as record:
        kernel = tile.compile(sums_a_pair, signature=dict(
            a="*fp32", b="*fp32", o="*fp32"))
    assert "call.uni" not in kernel.asm["ptx"]
    # The warning points at the function's definition.
    assert record[0].filename.endswith("noinline.py")
    source = open(record[0].filename).read().splitlines()
    assert source[record[0].lineno - 1].startswith("def pair_sum(")


def test_warp_specialized_loop_with_a_call_is_not_specialized():
    @tile.jit(noinline=True)
    def offset_of(k, BLOCK_K: tl.constexpr):
        return k * BLOCK_K

    @tile.jit
    def mm(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr,
           BLOCK_K: tl.constexpr):
        r = tl.arange(0, BLOCK)
        kk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for k in tl.range(0, K // BLOCK_K, warp_specialize=True):
            off = offset_of(k, BLOCK_K)
            a = tl.load(a_ptr + r[:, None] * K + off + kk[None, :])
            b = tl.load(b_ptr + (off + kk[:, None]) * BLOCK + r[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)

    kernel = tile.compile(mm, signature=dict(a_ptr="*fp16", b_ptr="*fp16",
                                             c_ptr="*fp32", K="i32"),
                          constexprs=dict(BLOCK=128, BLOCK_K=64), num_warps=8,
                          divisibility=["a_ptr", "b_ptr", "c_ptr", "K"])
    assert "tilegpu.warp_specialize" not in kernel.asm["tilegpu"]
    assert kernel.asm["ptx"].count("call.uni") == 1


def test_the_interpreter_runs_noinline_functions(monkeypatch):
    np = pytest.importorskip("numpy")
    from tile.runtime import jit
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    a = np.arange(128, dtype=np.float32)
    b = np.full(128, 2.0, dtype=np.float32)
    o = np.full(256, np.nan, dtype=np.float32)
    add_twice[(1,)](a, b, o, N=128)
    assert (o[:128] == a + b).all() and (o[128:] == b + a).all()


def test_toggling_noinline_recompiles(tmp_path, monkeypatch):
    # Triton's test_jit_noinline: set `noinline` on a compiled function,
    # clear the hashes and the caches, and the next compile calls it.
    from tile.runtime.launcher import use_launcher
    from launch_helpers import FakeTensor, Recorder
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    with use_launcher(Recorder()):
        inline = add_twice_inline.warmup(FakeTensor(256), FakeTensor(256),
                                         FakeTensor(256), N=128, grid=(1,))
        try:
            add_rows_inline.noinline = True
            add_rows_inline.hash = None
            add_twice_inline.hash = None
            add_twice_inline.cache.clear()
            called = add_twice_inline.warmup(FakeTensor(256), FakeTensor(256),
                                             FakeTensor(256), N=128,
                                             grid=(1,))
        finally:
            add_rows_inline.noinline = None
            add_rows_inline.hash = None
            add_twice_inline.hash = None
            add_twice_inline.cache.clear()
    assert inline.asm["tile"] != called.asm["tile"]
    assert "call.uni" not in inline.asm["ptx"]
    assert called.asm["ptx"].count("call.uni") == 2
