"""tl.extern_elementwise in the interpreter: libdevice's functions as numpy
computes them (in float64, then rounded to the result type). A symbol with
no numpy version here is an error naming it, never a wrong value."""

import math

import numpy as np

from tile.language import semantic as sem
from tile.runtime.interpreter import numbers
from tile.runtime.interpreter import tensor as T
from tile.runtime.interpreter.tensor import SemanticError, cast, lift, like


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _vectorized(fn):
    return np.vectorize(fn, otypes=[np.float64])


# libdevice base names (the symbol without __nv_, the fp32 `f` and the
# fast_ prefix) -> a numpy function of float64 or integer arrays.
NUMPY = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "exp": np.exp, "exp2": np.exp2,
    "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1, "log": np.log,
    "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt,
    "rcbrt": lambda x: 1.0 / np.cbrt(x), "pow": np.power, "powi": np.power,
    "erf": _vectorized(math.erf), "erfc": _vectorized(math.erfc),
    "tgamma": _vectorized(math.gamma), "lgamma": _vectorized(math.lgamma),
    "fabs": np.abs, "abs": np.abs, "llabs": np.abs, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "round": _round_half_away,
    "rint": np.rint, "nearbyint": np.rint, "fmod": np.fmod,
    "remainder": np.remainder, "hypot": np.hypot, "copysign": np.copysign,
    "fmin": np.fmin, "fmax": np.fmax, "min": np.minimum, "max": np.maximum,
    "umin": np.minimum, "umax": np.maximum, "llmin": np.minimum,
    "llmax": np.maximum, "fdim": lambda x, y: np.maximum(x - y, 0.0),
    "fma": lambda x, y, z: x * y + z, "isnan": np.isnan, "isinf": np.isinf,
    "signbit": np.signbit, "finite": np.isfinite, "isfinite": np.isfinite,
    "sinpi": lambda x: np.sin(np.pi * x), "cospi": lambda x: np.cos(np.pi * x),
    "ldexp": np.ldexp, "scalbn": np.ldexp, "fdivide": np.divide,
    "saturate": lambda x: np.clip(x, 0.0, 1.0),
}


def _base(symbol):
    name = symbol[len("__nv_"):] if symbol.startswith("__nv_") else symbol
    if name.startswith("fast_"):
        name = name[len("fast_"):]
    if name not in NUMPY and name.endswith(("f", "d")) and name[:-1] in NUMPY:
        name = name[:-1]
    return name


def extern_elementwise(lib_name, lib_path, args, table, is_pure):
    values = [lift(a) for a in args]
    types, symbol, result = sem.extern_signature(
        lib_name, tuple(v.type.scalar for v in values), table)
    values = [cast(v, t) for v, t in zip(values, types)]
    # Two passes bring every argument to the one broadcast shape.
    for _ in range(2):
        for i in range(1, len(values)):
            values[0], values[i] = T.broadcast(values[0], values[i])
    fn = NUMPY.get(_base(symbol))
    if fn is None:
        raise SemanticError("the interpreter has no numpy version of %s's %s"
                            % (lib_name, symbol))
    floating = any(t.is_floating() for t in types)
    data = [v.data.astype(np.float64) if floating else v.data for v in values]
    with np.errstate(all="ignore"):
        out = np.asarray(fn(*data))
    if result.is_floating():
        return like(values[0], numbers.to_float(out.astype(np.float64), result),
                    result)
    # numpy's integer casts wrap, as the hardware's do.
    return like(values[0], out.astype(np.int64).astype(
        numbers.compute_type(result)), result)
