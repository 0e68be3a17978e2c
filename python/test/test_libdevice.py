"""tl.extra.cuda.libdevice: every symbol of the table compiles and links
(no libdevice call is left in the PTX), dispatch by argument types with
Triton's promotion, errors at the call's line, and the interpreter's numpy
versions against float64 references."""

import numpy as np
import pytest

import tile
import tile.language as tl
from tile.language.extra.cuda import libdevice
from tile.language.extra.cuda.libdevice_table import FUNCTIONS
from kernels import libdevice_math as lm
from kernels.libdevice_sources import POINTERS, every_signature_source, load

CHUNKS = 4


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_symbol_compiles_and_links(chunk, tmp_path):
    text, picked = every_signature_source(chunk, CHUNKS)
    module = load(str(tmp_path), "libdevice_chunk%d" % chunk, text)
    signature = {"out": "*fp32"}
    signature.update({p: "*" + t for t, p in POINTERS.items()})
    kernel = tile.compile(module.every_signature, signature, {"N": 32})
    for name, args in picked:
        symbol = FUNCTIONS[name][args][0]
        assert 'symbol = "%s"' % symbol in kernel.asm["tile"], symbol
    # libdevice was linked in: no symbol is left undefined.
    assert ".extern .func" not in kernel.asm["ptx"]


def test_the_table_covers_libdevice():
    assert len(FUNCTIONS) >= 200
    assert sum(len(v) for v in FUNCTIONS.values()) >= 330
    assert set(FUNCTIONS["abs"]) == {("i32",), ("i64",), ("fp32",), ("fp64",)}
    assert libdevice.sin.tile_libdevice[(tl.float32,)] == ("__nv_sinf", tl.float32)
    assert set(libdevice.__all__) == set(FUNCTIONS)


@tile.jit
def promote(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    # pow(fp32, int literal) and min(i32 block, fp64 scalar) promote.
    tl.store(out_ptr + offs, libdevice.pow(x, 2))
    tl.store(out_ptr + N + offs, libdevice.min(offs, 3.5).to(tl.float32))


def test_promotion_follows_triton():
    kernel = tile.compile(promote, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
                          {"N": 16})
    assert 'symbol = "__nv_powf"' in kernel.asm["tile"]
    # The Python float is fp32 (as Triton's to_tensor makes it).
    assert 'symbol = "__nv_fminf"' in kernel.asm["tile"]


@tile.jit
def half_sin(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr + tl.arange(0, N), libdevice.sin(x))


@tile.jit
def wrong_arity(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr + tl.arange(0, N), libdevice.pow(x))


@pytest.mark.parametrize("fn,signature,message", [
    (half_sin, {"x_ptr": "*fp16"},
     r"libdevice has no function for arguments of type \(tl.float16\); it "
     r"takes \(tl.float64\); \(tl.float32\)"),
    (wrong_arity, {"x_ptr": "*fp32"}, "libdevice.pow takes 2 argument"),
])
def test_errors_point_at_the_call(fn, signature, message):
    with pytest.raises(tile.CompilationError, match=message) as info:
        tile.compile(fn, signature, {"N": 16})
    assert "test_libdevice.py:" in str(info.value) and "^" in str(info.value)


def test_interpreter_matches_float64():
    n = 64
    x, y = lm.inputs(n, 3)
    out = np.full(lm.total(n), np.nan, np.float32)
    tile.jit(lm.libdevice_kernel.fn, interpret=True)[(1,)](x, y, out, n)
    lm.check(out, x, y)


# Triton 2.x kept libdevice's functions in tl.math; Liger-Kernel, for one,
# imports `tanh` from there when the Triton it sees is older than 3.0
# (tile's own version is).
from tile.language.math import tanh as math_tanh  # noqa: E402


@tile.jit
def math_module_names(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, math_tanh(x) + tl.math.pow(x, 2.0))


def test_math_module_keeps_triton2_libdevice_names():
    kernel = tile.compile(math_module_names, {"x_ptr": "*fp32",
                                              "out_ptr": "*fp32"}, {"N": 16})
    assert 'symbol = "__nv_tanhf"' in kernel.asm["tile"]
    assert 'symbol = "__nv_powf"' in kernel.asm["tile"]
    x = np.linspace(-2, 2, 16, dtype=np.float32)
    out = np.full(16, np.nan, np.float32)
    tile.jit(math_module_names.fn, interpret=True)[(1,)](x, out, 16)
    np.testing.assert_allclose(out, np.tanh(x) + x * x, rtol=1e-5)
    assert tl.math.sqrt is tl.sqrt
    with pytest.raises(AttributeError):
        tl.math.not_a_function
