"""Triton internals that kernel libraries reach for (fla's argsort copies
Triton's bitonic network and spells its helpers through `tl.core` and
`tl.standard`; its math goes through `triton.language.extra.libdevice`):
each name exists, means what it does in Triton, and compiles and
interprets in a kernel."""

import importlib

import numpy as np
import pytest

import tile
import tile.language as tl
from tile.runtime import jit
import tile.language.extra.libdevice as tldevice


def test_the_names_exist_where_libraries_import_them():
    assert importlib.import_module("tile.language.extra.libdevice") is tl.extra.libdevice
    assert tl.extra.libdevice.tanh is tl.extra.cuda.libdevice.tanh
    assert importlib.import_module("tile.language.standard") is tl.standard
    assert tl.standard.sum is tl.sum and tl.standard.sort is tl.sort
    assert tl.core.CONSTEXPR_0 == 0 and isinstance(tl.core.CONSTEXPR_0, tl.constexpr)


@pytest.mark.parametrize("bits,signed,want", [
    (1, True, tl.int1), (8, True, tl.int8), (16, False, tl.uint16),
    (32, True, tl.int32), (64, False, tl.uint64)])
def test_get_int_dtype(bits, signed, want):
    assert tl.core.get_int_dtype(bitwidth=bits, signed=signed) == want


def test_get_int_dtype_rejects_odd_widths():
    with pytest.raises(Exception, match="no 24-bit integer"):
        tl.core.get_int_dtype(24, True)


@pytest.mark.parametrize("n,want", [(1, 0), (2, 1), (64, 6), (1024, 10)])
def test_log2(n, want):
    assert tl.standard._log2(n) == want


def test_log2_refuses_non_powers_of_two():
    with pytest.raises(ValueError, match="not a power of two"):
        tl.standard._log2(48)


@tile.jit
def _swap_by_bits(x, other, swap):
    # Exchange through the integer view, as Triton's sort does, so that
    # -0.0 and NaN payloads survive.
    ity = tl.core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)
    ix = x.to(ity, bitcast=True)
    io = other.to(ity, bitcast=True)
    picked = ix ^ tl.where(swap, ix ^ io, tl.zeros_like(ix))
    return picked.to(x.dtype, bitcast=True)


@tile.jit
def _network(x, DESCENDING: tl.constexpr = tl.core.CONSTEXPR_0):
    # A bitonic sort of a power-of-two block, written against the helpers.
    N: tl.constexpr = x.shape[0]
    LOG: tl.constexpr = tl.standard._log2(N)
    idx = tl.arange(0, N)
    for stage in tl.static_range(1, LOG + 1):
        for step in tl.static_range(stage):
            dist: tl.constexpr = 1 << (stage - 1 - step)
            partner = idx ^ dist
            other = tl.gather(x, partner, 0)
            up = ((idx >> stage) & 1) == DESCENDING
            lower = (idx & dist) == 0
            keep_small = up == lower
            swap = tl.where(keep_small, other < x, other > x)
            x = _swap_by_bits(x, other, swap)
    return x


@tile.jit
def sort_rows(x_ptr, out_ptr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if DESCENDING:
        y = _network(x, 1)
    else:
        y = _network(x)
    tl.store(out_ptr + offs, tldevice.tanh(y))


def test_the_network_compiles_with_the_helpers():
    kernel = tile.compile(sort_rows, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
                          {"N": 64, "DESCENDING": 0})
    assert 'symbol = "__nv_tanhf"' in kernel.asm["tile"]
    assert ".extern .func" not in kernel.asm["ptx"]


@pytest.mark.parametrize("descending", [0, 1])
def test_the_network_sorts_in_the_interpreter(monkeypatch, descending):
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    x = np.random.default_rng(7).standard_normal(64).astype(np.float32)
    out = np.full(64, np.nan, np.float32)
    sort_rows[(1,)](x, out, N=64, DESCENDING=descending)
    want = np.tanh(np.sort(x)[::-1] if descending else np.sort(x))
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_kernel_interface_is_where_torch_imports_it():
    # torch's inductor does `from triton.runtime.jit import JITFunction,
    # KernelInterface`; every launchable kernel object derives from it.
    from tile.runtime.jit import JITFunction, KernelInterface
    assert issubclass(JITFunction, KernelInterface)
    assert isinstance(sort_rows, KernelInterface)
    assert isinstance(tile.autotune([tile.Config({})], key=[])(sort_rows),
                      KernelInterface)


def test_params_describe_themselves_as_triton_does():
    # torch.library.wrap_triton reads num, name and is_constexpr.
    params = _network.params
    assert [p.name for p in params] == ["x", "DESCENDING"]
    assert [p.num for p in params] == [0, 1]
    assert [p.is_constexpr for p in params] == [False, True]
    assert params[1].has_default and not params[0].has_default
    assert params[1].default == 0
