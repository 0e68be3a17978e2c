"""tl.extra.cuda: CUDA's libdevice, under Triton's names."""

from tile.language.extra.cuda import libdevice  # noqa: F401
from tile.language.extra.cuda.utils import (  # noqa: F401
    gdc_launch_dependents, gdc_wait, globaltimer, num_threads, num_warps,
    smid)
