"""tl.math: the elementwise math functions, as in Triton.

Triton 2.x kept every libdevice function here too (`tl.math.tanh`,
`tl.math.pow`, ...); code written for it, or libraries that pick that
import path from the Triton version they see (tile's own version is below
3), still finds them: a name not defined here resolves to libdevice's."""

from tile.language.core import (abs, ceil, cos, erf, exp, exp2, fdiv, floor,  # noqa: F401
                                fma, log, log2, rsqrt, sin, sqrt)
from tile.language.core import sigmoid, div_rn, sqrt_rn, umulhi  # noqa: F401
from tile.language.extra.cuda import libdevice as _libdevice


def __getattr__(name):
    if not name.startswith("_") and name in _libdevice.__all__:
        return getattr(_libdevice, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
