"""tl.extra.libdevice: Triton's vendor-neutral spelling of the device math
library (it picks CUDA's or ROCm's); tile targets CUDA only, so these are
the functions of tl.extra.cuda.libdevice."""

from tile.language.extra.cuda.libdevice import *  # noqa: F401,F403
from tile.language.extra.cuda.libdevice import __all__  # noqa: F401
