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

# Imported here so that a tile that cannot be imported fails the whole run
# at once (the alias would otherwise refuse every module one by one).
import tile  # noqa: F401

HELPERS = "triton._internal_testing"


class _Existing(importlib.abc.Loader):
    """Hands back a module that is already imported under another name.
    The import system stamps the alias's spec and loader on the module;
    exec_module puts the module's own back, or a later import or reload
    of `tile.X` would see a half-initialised `triton` spec and load tile
    a second time."""

    def __init__(self, module):
        self.module = module
        self.own = (module.__spec__, module.__loader__)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        module.__spec__, module.__loader__ = self.own


class TritonToTile(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        # Never None: the finders after this one would find the real
        # Triton where it is installed, and its module would be counted as
        # tile's.
        if fullname == HELPERS:
            helpers = os.environ.get("TILE_CONFORMANCE_HELPERS")
            if not helpers:
                raise ModuleNotFoundError(
                    "%s: set TILE_CONFORMANCE_HELPERS to the suite's copy" % HELPERS,
                    name=fullname)
            return importlib.util.spec_from_file_location(fullname, helpers)
        target = "tile" + fullname[len("triton"):]
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            # The test sees triton's name missing, as it is in tile.
            raise ModuleNotFoundError("No module named %r (tile has no %r)" % (
                fullname, target), name=fullname) from error
        _alias_loaded(except_for=fullname)
        return importlib.util.spec_from_loader(fullname, _Existing(module))


def _alias_loaded(except_for):
    """Every tile module already imported is also in sys.modules under its
    triton name, as importing triton would have put it there. The one being
    imported is left to the import system: finding it in sys.modules
    already, it would load it again from its own spec."""
    for name, module in list(sys.modules.items()):
        alias = "triton" + name[len("tile"):]
        if (name == "tile" or name.startswith("tile.")) and alias != except_for:
            sys.modules.setdefault(alias, module)


def install():
    # No Triton module may be loaded already: it would run Triton's code
    # under tile's column.
    loaded = sorted(n for n in sys.modules
                    if n == "triton" or n.startswith("triton."))
    if loaded:
        raise RuntimeError("Triton was imported before the alias: %s" % loaded[:5])
    if not any(isinstance(f, TritonToTile) for f in sys.meta_path):
        sys.meta_path.insert(0, TritonToTile())


install()
