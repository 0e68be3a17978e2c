"""A pytest plugin that makes `import triton...` import tile.

`-p triton_alias` (with this directory on PYTHONPATH) maps every module
`triton.X` to `tile.X`: the same module object under both names, nothing
added. The one exception is `triton._internal_testing`, the test suite's
own helpers (dtype lists, numpy <-> torch conversion): it is loaded from
the file named by TILE_CONFORMANCE_HELPERS (the copy fetched with the test
files), and runs against tile through the same alias.
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys

HELPERS = "triton._internal_testing"


class _Existing(importlib.abc.Loader):
    """Hands back a module that is already imported under another name."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class TritonToTile(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        if fullname == HELPERS:
            helpers = os.environ.get("TILE_CONFORMANCE_HELPERS")
            if not helpers:
                return None
            return importlib.util.spec_from_file_location(fullname, helpers)
        try:
            module = importlib.import_module("tile" + fullname[len("triton"):])
        except ImportError:
            return None   # the test sees triton's name missing, as it is
        _alias_loaded()
        return importlib.util.spec_from_loader(fullname, _Existing(module))


def _alias_loaded():
    """Every tile module already imported is also in sys.modules under its
    triton name, as importing triton would have put it there."""
    for name, module in list(sys.modules.items()):
        if name == "tile" or name.startswith("tile."):
            sys.modules.setdefault("triton" + name[len("tile"):], module)


def install():
    if not any(isinstance(f, TritonToTile) for f in sys.meta_path):
        sys.meta_path.insert(0, TritonToTile())


install()
