"""The on-disk kernel cache: hits across JIT instances, keys that follow
callee sources and options, atomic writes, and failed compiles that leave
nothing behind."""

import importlib.util
import os

import pytest

import tile
from tile.runtime import cache, jit
from tile.runtime.launcher import use_launcher
from launch_helpers import FakeTensor, Recorder

MODULE = '''
import tile
import tile.language as tl

SCALE = {scale}


@tile.jit
def helper(x):
    return x * {factor}


@tile.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, helper(x) + SCALE, mask=offs < n)


@tile.jit
def broken(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
'''


def load_module(tmp_path, name, factor=2.0, scale=1.0):
    path = tmp_path / (name + ".py")
    path.write_text(MODULE.format(factor=factor, scale=scale))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries(directory):
    found = []
    for root, dirs, files in os.walk(directory):
        if "metadata.json" in files:
            found.append(root)
    return found


def leftovers(directory):
    return [d for root, dirs, _ in os.walk(directory) for d in dirs
            if d.startswith(".tmp-")]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("TILE_CACHE_DIR", str(directory))
    monkeypatch.delenv("TILE_CACHE", raising=False)
    monkeypatch.delenv("TILE_DUMP_IR", raising=False)
    with use_launcher(Recorder()):
        yield directory


def launch(module, n=1000, **options):
    module.kernel[(4,)](FakeTensor(4096), n, BLOCK=256, **options)


def test_second_process_hits_the_disk(cache_dir, tmp_path, monkeypatch):
    launch(load_module(tmp_path, "first"))
    (entry,) = entries(cache_dir)
    assert sorted(os.listdir(entry)) == sorted(
        ["metadata.json", "kernel.cubin", "kernel.ptx", "kernel.llir",
         "kernel.tile", "kernel.tilegpu"])
    # Same source in a fresh JIT instance (as in a new process): no compile.
    def no_compile(*args, **kwargs):
        raise AssertionError("compiled although the disk cache had it")
    monkeypatch.setattr(jit, "compile_to_gpu", no_compile)
    monkeypatch.setattr(jit, "lower_to_tile_ir", no_compile)
    second = load_module(tmp_path, "second")
    launch(second)
    (kernel,) = second.kernel.cache.values()
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    assert kernel.metadata["name"] == "kernel"


@pytest.mark.parametrize("change", [
    dict(factor=3.0),        # a callee's source
    dict(scale=2.0),         # a global the kernel reads
])
def test_key_follows_callees_and_globals(cache_dir, tmp_path, change):
    launch(load_module(tmp_path, "base"))
    launch(load_module(tmp_path, "changed", **change))
    assert len(entries(cache_dir)) == 2


def test_key_follows_specialization_and_options(cache_dir, tmp_path):
    module = load_module(tmp_path, "spec")
    launch(module)
    launch(module, n=1024)           # divisible by 16
    launch(module, num_warps=8)
    launch(module, num_warps=8)      # a hit
    assert len(entries(cache_dir)) == 3


def test_failed_compile_leaves_nothing(cache_dir, tmp_path):
    module = load_module(tmp_path, "bad")
    with pytest.raises(tile.CompilationError):
        module.broken[(1,)](FakeTensor(4096), BLOCK=100)
    assert not os.path.exists(cache_dir) or (not entries(cache_dir) and
                                             not leftovers(cache_dir))


def test_interrupted_write_leaves_nothing(cache_dir, tmp_path, monkeypatch):
    def fail(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(cache.json, "dump", fail)
    launch(load_module(tmp_path, "interrupted"))   # still compiles and runs
    assert entries(cache_dir) == [] and leftovers(cache_dir) == []


def test_cache_can_be_turned_off(cache_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE", "0")
    launch(load_module(tmp_path, "off"))
    assert not os.path.exists(cache_dir)


def test_default_directory(monkeypatch, tmp_path):
    monkeypatch.delenv("TILE_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache.cache_dir() == str(tmp_path / ".cache" / "tile")
