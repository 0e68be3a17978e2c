"""tl.extra: device libraries (Triton's `triton.language.extra`)."""

from tile.language.extra import cuda  # noqa: F401
from tile.language.extra import libdevice  # noqa: F401
