"""tile's version: one rule (utils/packaging/tile_version.py) for libtile,
the wheel's metadata and the cache key."""

import importlib.metadata
import importlib.util
import os
import re

import pytest

import tile
from tile import _C
from tile.runtime import cache

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "tile_version", os.path.join(ROOT, "utils", "packaging", "tile_version.py"))
tile_version = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tile_version)

with open(os.path.join(ROOT, "VERSION")) as _f:
    RELEASE = _f.read().strip()


def test_version_is_the_release_and_the_commit():
    # A PEP 440 version: the release, then a local label naming the commit
    # (or "unknown" outside git); a release build has no label.
    match = re.fullmatch(r"(\d+\.\d+\.\d+)(\+g[0-9a-f]{7,}(\.dirty)?|\+unknown)?",
                         tile.__version__)
    assert match, tile.__version__
    assert match.group(1) == RELEASE
    assert tile.__version__ == _C.version()


def test_release_builds_have_no_commit(monkeypatch):
    monkeypatch.setenv("TILE_RELEASE", "1")
    assert tile_version.source_version() == RELEASE


def test_prebuilt_libtile_decides_the_version(monkeypatch):
    """A wheel made against a prebuilt libtile carries that libtile's
    version, read from the library itself."""
    with open("/proc/self/maps") as maps:
        loaded = {line.split()[-1] for line in maps
                  if line.rstrip().endswith("/libtile.so")}
    assert len(loaded) == 1, loaded
    libtile = loaded.pop()
    monkeypatch.setenv("TILE_PREBUILT_LIBTILE", libtile)
    assert tile_version.version() == tile.__version__


def test_installed_metadata_matches():
    """Where tile runs from an installed wheel, pip's version is tile's."""
    try:
        dist = importlib.metadata.distribution("tile")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("tile runs from the build tree, not an installed wheel")
    installed = os.path.realpath(str(dist.locate_file("tile/__init__.py")))
    if installed != os.path.realpath(tile.__file__):
        pytest.skip("another tile is installed; this one is the build tree's")
    assert dist.version == tile.__version__


def test_cache_key_includes_the_version():
    """A new wheel never reuses an old one's cubins."""
    assert cache.compiler_fingerprint().split("|")[0] == tile.__version__


def test_libdevice_and_ptxas_lookup(monkeypatch, tmp_path):
    """TILE_LIBDEVICE and TILE_PTXAS come first; a missing file is skipped."""
    bc = tmp_path / "libdevice.10.bc"
    bc.write_bytes(b"BC")
    monkeypatch.setenv("TILE_LIBDEVICE", str(bc))
    assert _C.libdevice_path() == str(bc)
    monkeypatch.setenv("TILE_LIBDEVICE", str(tmp_path / "absent.bc"))
    assert _C.libdevice_path() != str(tmp_path / "absent.bc")
    ptxas = tmp_path / "ptxas"
    ptxas.write_text("#!/bin/sh\n")
    monkeypatch.setenv("TILE_PTXAS", str(ptxas))
    assert _C.ptxas_path() == str(ptxas)
    assert tile.knobs.nvidia.ptxas.path == str(ptxas)
