#!/usr/bin/env python3
"""Mirror a Python package's source tree into the build tree with symlinks,
so that edits to the sources take effect without a rebuild."""
import os
import sys
from pathlib import Path

src, dst = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
for path in src.rglob("*.py"):
    target = dst / path.relative_to(src)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.exists():
        if target.is_symlink() and os.readlink(target) == str(path):
            continue
        target.unlink()
    target.symlink_to(path)
