"""tl.extra.cuda: CUDA's libdevice, under Triton's names."""

from tile.language.extra.cuda import libdevice  # noqa: F401
