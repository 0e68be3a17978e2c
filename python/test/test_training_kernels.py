"""bench/training_src.py's kernels (issue 18): each compiles for sm_90a,
and in the interpreter each matches a float64 numpy reference at shapes
with masked edges (bench/training.py checks them on the GPU against torch
before timing them)."""

import importlib.util
import pathlib

import numpy as np
import pytest

import tile

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "training_src", ROOT / "bench" / "training_src.py")
src = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(src)

KERNELS = {
    "layer_norm_fwd": (
        "X Y W B Mean Rstd stride N eps", "*fp16 *fp16 *fp16 *fp16 *fp32 *fp32 i32 i32 fp32",
        dict(BLOCK_N=8192), 8),
    "layer_norm_bwd_dx": (
        "DX DY PartialDW PartialDB X W Mean Rstd Lock stride N",
        "*fp16 *fp16 *fp16 *fp16 *fp16 *fp16 *fp32 *fp32 *i32 i32 i32",
        dict(GROUP_M=96, BLOCK_N=8192), 8),
    "layer_norm_bwd_dwdb": (
        "PartialDW PartialDB DW DB M N", "*fp16 *fp16 *fp16 *fp16 i32 i32",
        dict(BLOCK_M=32, BLOCK_N=128), 4),
    "softmax_fwd": ("Y X stride N", "*fp16 *fp16 i32 i32", dict(BLOCK_N=8192), 16),
    "softmax_bwd": ("DX DY Y stride N", "*fp16 *fp16 *fp16 i32 i32",
                    dict(BLOCK_N=8192), 16),
    "cross_entropy_fwd": ("Logits Targets Loss Lse stride V",
                          "*bf16 *i64 *fp32 *fp32 i32 i32", dict(BLOCK_V=4096), 8),
    "cross_entropy_bwd": ("DLogits Logits Targets Lse DLoss stride V",
                          "*bf16 *bf16 *i64 *fp32 *fp32 i32 i32",
                          dict(BLOCK_V=4096), 8),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_compiles_for_sm90_without_spills(name):
    names, types, constexprs, warps = KERNELS[name]
    signature = dict(zip(names.split(), types.split()))
    compiled = tile.compile(getattr(src, name), signature, constexprs,
                            num_warps=warps,
                            divisibility=[p for p, t in signature.items()
                                          if t.startswith("*")])
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
    assert 0 < compiled.metadata["num_regs"] <= 255


@pytest.fixture
def interpreted():
    kernels = [getattr(src, name) for name in KERNELS]
    for kernel in kernels:
        kernel.interpret = True
    yield
    for kernel in kernels:
        kernel.interpret = False


def rng():
    return np.random.default_rng(20261125)


def nan(*shape, dtype=np.float32):
    return np.full(shape, np.nan, dtype=dtype)


def test_layer_norm_backward_with_locks(interpreted):
    # 7 rows into 3 partial rows: each slot is taken by several programs,
    # the first writes it (its count word is 0) and the others add.
    M, N, group, eps = 7, 300, 3, 1e-5
    r = rng()
    x = (r.standard_normal((M, N)) * 2).astype(np.float16)
    w = (r.random(N) + 0.5).astype(np.float16)
    b = r.standard_normal(N).astype(np.float16)
    dy = r.standard_normal((M, N)).astype(np.float16)
    y, mean, rstd = nan(M, N, dtype=np.float16), nan(M), nan(M)
    src.layer_norm_fwd[(M,)](x, y, w, b, mean, rstd, N, N, eps, BLOCK_N=512)
    dx = nan(M, N, dtype=np.float16)
    partial_dw = nan(group, N, dtype=np.float16)
    partial_db = nan(group, N, dtype=np.float16)
    locks = np.zeros(2 * group, dtype=np.int32)
    src.layer_norm_bwd_dx[(M,)](dx, dy, partial_dw, partial_db, x, w, mean,
                                rstd, locks, N, N, GROUP_M=group, BLOCK_N=512)
    assert (locks[:group] == 0).all() and (locks[group:] == 1).all()
    dw, db = nan(N, dtype=np.float16), nan(N, dtype=np.float16)
    src.layer_norm_bwd_dwdb[(tile.cdiv(N, 128),)](
        partial_dw, partial_db, dw, db, group, N, BLOCK_M=2, BLOCK_N=128)

    x64, w64, b64, dy64 = (a.astype(np.float64) for a in (x, w, b, dy))
    mu = x64.mean(1, keepdims=True)
    inv = 1 / np.sqrt(((x64 - mu) ** 2).mean(1, keepdims=True) + eps)
    xhat = (x64 - mu) * inv
    wdy = w64 * dy64
    want_dx = inv * (wdy - xhat * (xhat * wdy).mean(1, keepdims=True)
                     - wdy.mean(1, keepdims=True))
    np.testing.assert_allclose(y, xhat * w64 + b64, atol=2e-2, rtol=1e-2)
    np.testing.assert_allclose(dx, want_dx, atol=2e-2, rtol=1e-2)
    np.testing.assert_allclose(dw, (dy64 * xhat).sum(0), atol=5e-2, rtol=1e-2)
    np.testing.assert_allclose(db, dy64.sum(0), atol=5e-2, rtol=1e-2)


def test_softmax_forward_and_backward(interpreted):
    M, N = 5, 300
    r = rng()
    x = (r.standard_normal((M, N)) * 3).astype(np.float16)
    dy = r.standard_normal((M, N)).astype(np.float16)
    y, dx = nan(M, N, dtype=np.float16), nan(M, N, dtype=np.float16)
    src.softmax_fwd[(M,)](y, x, N, N, BLOCK_N=512)
    src.softmax_bwd[(M,)](dx, dy, y, N, N, BLOCK_N=512)
    x64 = x.astype(np.float64)
    p = np.exp(x64 - x64.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dy64 = dy.astype(np.float64)
    np.testing.assert_allclose(y, p, atol=1e-3, rtol=1e-2)
    np.testing.assert_allclose(
        dx, p * (dy64 - (p * dy64).sum(1, keepdims=True)), atol=1e-3,
        rtol=2e-2)


def test_cross_entropy_streams_the_vocabulary(interpreted):
    # 1000 columns in blocks of 256: the last block is masked, and the
    # targets include both ends of the vocabulary.
    rows, vocab = 4, 1000
    r = rng()
    logits = (r.standard_normal((rows, vocab)) * 4).astype(np.float16)
    targets = np.array([0, 999, 511, 256], dtype=np.int64)
    dloss = (r.random(rows) + 0.5).astype(np.float32)
    loss, lse = nan(rows), nan(rows)
    src.cross_entropy_fwd[(rows,)](logits, targets, loss, lse, vocab, vocab,
                                   BLOCK_V=256)
    dlogits = nan(rows, vocab, dtype=np.float16)
    src.cross_entropy_bwd[(rows, tile.cdiv(vocab, 256))](
        dlogits, logits, targets, lse, dloss, vocab, vocab, BLOCK_V=256)
    x = logits.astype(np.float64)
    want_lse = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-5)
    np.testing.assert_allclose(loss, want_lse - x[np.arange(rows), targets],
                               rtol=1e-4)
    p = np.exp(x - want_lse[:, None])
    p[np.arange(rows), targets] -= 1
    np.testing.assert_allclose(dlogits, p * dloss[:, None], atol=1e-3,
                               rtol=1e-2)
