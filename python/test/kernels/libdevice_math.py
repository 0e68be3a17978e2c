"""A kernel applying a set of libdevice functions to fp32 inputs, and the
numpy float64 reference of each, for the interpreter and GPU tests."""

import math

import numpy as np

import tile
import tile.language as tl
from tile.language.extra.cuda import libdevice

# (name, numpy reference, relative tolerance): fp32 libdevice is within a
# few ulp; the fast_ approximations are looser.
CASES = [
    ("sin", np.sin, 1e-6), ("cos", np.cos, 1e-6), ("tan", np.tan, 1e-6),
    ("asin", np.arcsin, 1e-6), ("acos", np.arccos, 1e-6),
    ("atan", np.arctan, 1e-6), ("sinh", np.sinh, 1e-6),
    ("cosh", np.cosh, 1e-6), ("tanh", np.tanh, 1e-6),
    ("asinh", np.arcsinh, 1e-6), ("atanh", np.arctanh, 1e-6),
    ("exp", np.exp, 1e-6), ("exp2", np.exp2, 1e-6),
    ("exp10", lambda x: 10.0 ** x, 1e-6), ("expm1", np.expm1, 1e-6),
    ("log", np.log, 1e-6), ("log2", np.log2, 1e-6),
    ("log10", np.log10, 1e-6), ("log1p", np.log1p, 1e-6),
    ("sqrt", np.sqrt, 1e-6), ("rsqrt", lambda x: 1 / np.sqrt(x), 1e-6),
    ("cbrt", np.cbrt, 1e-6), ("erf", np.vectorize(math.erf), 1e-6),
    ("erfc", np.vectorize(math.erfc), 1e-6),
    ("tgamma", np.vectorize(math.gamma), 1e-5),
    ("floor", np.floor, 0),
    ("round", lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), 0),
    ("fast_expf", np.exp, 1e-5), ("fast_logf", np.log, 1e-5),
]

# fp32 functions of two arguments, on (x, y).
BINARY = [("pow", np.power, 1e-6), ("atan2", np.arctan2, 1e-6),
          ("hypot", np.hypot, 1e-6), ("fmod", np.fmod, 1e-6),
          ("copysign", np.copysign, 0),
          ("fdim", lambda x, y: np.maximum(x - y, 0), 1e-6)]


@tile.jit
def libdevice_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    # One row per entry of CASES, then of BINARY, in their order.
    tl.store(out_ptr + 0 * N + offs, libdevice.sin(x))
    tl.store(out_ptr + 1 * N + offs, libdevice.cos(x))
    tl.store(out_ptr + 2 * N + offs, libdevice.tan(x))
    tl.store(out_ptr + 3 * N + offs, libdevice.asin(x))
    tl.store(out_ptr + 4 * N + offs, libdevice.acos(x))
    tl.store(out_ptr + 5 * N + offs, libdevice.atan(x))
    tl.store(out_ptr + 6 * N + offs, libdevice.sinh(x))
    tl.store(out_ptr + 7 * N + offs, libdevice.cosh(x))
    tl.store(out_ptr + 8 * N + offs, libdevice.tanh(x))
    tl.store(out_ptr + 9 * N + offs, libdevice.asinh(x))
    tl.store(out_ptr + 10 * N + offs, libdevice.atanh(x))
    tl.store(out_ptr + 11 * N + offs, libdevice.exp(x))
    tl.store(out_ptr + 12 * N + offs, libdevice.exp2(x))
    tl.store(out_ptr + 13 * N + offs, libdevice.exp10(x))
    tl.store(out_ptr + 14 * N + offs, libdevice.expm1(x))
    tl.store(out_ptr + 15 * N + offs, libdevice.log(x))
    tl.store(out_ptr + 16 * N + offs, libdevice.log2(x))
    tl.store(out_ptr + 17 * N + offs, libdevice.log10(x))
    tl.store(out_ptr + 18 * N + offs, libdevice.log1p(x))
    tl.store(out_ptr + 19 * N + offs, libdevice.sqrt(x))
    tl.store(out_ptr + 20 * N + offs, libdevice.rsqrt(x))
    tl.store(out_ptr + 21 * N + offs, libdevice.cbrt(x))
    tl.store(out_ptr + 22 * N + offs, libdevice.erf(x))
    tl.store(out_ptr + 23 * N + offs, libdevice.erfc(x))
    tl.store(out_ptr + 24 * N + offs, libdevice.tgamma(x))
    tl.store(out_ptr + 25 * N + offs, libdevice.floor(x * 10))
    tl.store(out_ptr + 26 * N + offs, libdevice.round(x * 10))
    tl.store(out_ptr + 27 * N + offs, libdevice.fast_expf(x))
    tl.store(out_ptr + 28 * N + offs, libdevice.fast_logf(x))
    tl.store(out_ptr + 29 * N + offs, libdevice.pow(x, y))
    tl.store(out_ptr + 30 * N + offs, libdevice.atan2(x, y))
    tl.store(out_ptr + 31 * N + offs, libdevice.hypot(x, y))
    tl.store(out_ptr + 32 * N + offs, libdevice.fmod(x, y))
    tl.store(out_ptr + 33 * N + offs, libdevice.copysign(x, y))
    tl.store(out_ptr + 34 * N + offs, libdevice.fdim(x, y))


def inputs(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.05, 0.95, n).astype(np.float32)
    y = rng.uniform(0.2, 2.0, n).astype(np.float32)
    return x, y


def check(out, x, y):
    n = x.size
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    rows = out.reshape(len(CASES) + len(BINARY), n)
    for row, (name, ref, tol) in zip(rows, CASES):
        # floor and round see x * 10, rounded to fp32 as the kernel does.
        arg = np.float32(x * np.float32(10)).astype(np.float64) \
            if name in ("floor", "round") else x64
        want = ref(arg)
        np.testing.assert_allclose(row, want, rtol=tol, atol=tol * 1e-2,
                                   err_msg=name)
    for row, (name, ref, tol) in zip(rows[len(CASES):], BINARY):
        np.testing.assert_allclose(row, ref(x64, y64), rtol=tol,
                                   atol=tol * 1e-2, err_msg=name)


def total(n):
    return (len(CASES) + len(BINARY)) * n
