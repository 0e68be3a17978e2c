"""tl.math: the elementwise math functions, as in Triton."""

from tile.language.core import (abs, ceil, cos, erf, exp, exp2, fdiv, floor,  # noqa: F401
                                fma, log, log2, rsqrt, sin, sqrt)
from tile.language.core import sigmoid, div_rn, sqrt_rn, umulhi  # noqa: F401
