"""The on-disk kernel cache: hits across JIT instances, keys that follow
callee sources and options, atomic writes, and failed compiles that leave
nothing behind."""

import importlib.util
import os
import shutil
import sys
import types

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


def forbid_compiles(monkeypatch):
    """From here on a compile fails the test: launches must hit the disk."""
    def no_compile(*args, **kwargs):
        raise AssertionError("compiled although the disk cache had it")
    monkeypatch.setattr(jit, "compile_to_gpu", no_compile)
    monkeypatch.setattr(jit, "lower_to_tile_ir", no_compile)


def launch(module, n=1000, **options):
    module.kernel[(4,)](FakeTensor(4096), n, BLOCK=256, **options)


def test_second_process_hits_the_disk(cache_dir, tmp_path, monkeypatch):
    launch(load_module(tmp_path, "first"))
    (entry,) = entries(cache_dir)
    assert sorted(os.listdir(entry)) == sorted(
        ["metadata.json", "kernel.cubin", "kernel.ptx", "kernel.llir",
         "kernel.tile", "kernel.tilegpu", "manifest.json"])
    # Same source in a fresh JIT instance (as in a new process): no compile.
    forbid_compiles(monkeypatch)
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
    real_open = open

    def disk_full_at_the_manifest(path, *args, **kwargs):
        if str(path).endswith(cache._MANIFEST) and "w" in (args[0] if args else ""):
            raise OSError("disk full")
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(cache, "open", disk_full_at_the_manifest, raising=False)
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


def _write(path, content):
    with open(path, "wb") as f:
        f.write(content)


def _truncate(path):
    with open(path, "rb") as f:
        data = f.read()
    _write(path, data[:len(data) // 2])


# Each kind of damage a disk, a crash or a person can do to an entry.
DAMAGE = {
    "metadata {}": lambda e: _write(os.path.join(e, "metadata.json"), b"{}"),
    "metadata [1,2]": lambda e: _write(os.path.join(e, "metadata.json"), b"[1,2]"),
    "metadata null": lambda e: _write(os.path.join(e, "metadata.json"), b"null"),
    "metadata garbage": lambda e: _write(os.path.join(e, "metadata.json"), b"\xff{"),
    "empty cubin": lambda e: _write(os.path.join(e, "kernel.cubin"), b""),
    "truncated cubin": lambda e: _truncate(os.path.join(e, "kernel.cubin")),
    "empty ptx": lambda e: _write(os.path.join(e, "kernel.ptx"), b""),
    "truncated ptx": lambda e: _truncate(os.path.join(e, "kernel.ptx")),
    "flipped byte": lambda e: _write(os.path.join(e, "kernel.llir"), b"X" + open(
        os.path.join(e, "kernel.llir"), "rb").read()[1:]),
    "missing cubin": lambda e: os.remove(os.path.join(e, "kernel.cubin")),
    "missing manifest": lambda e: os.remove(os.path.join(e, "manifest.json")),
    "manifest garbage": lambda e: _write(os.path.join(e, "manifest.json"), b"]"),
    "manifest {}": lambda e: _write(os.path.join(e, "manifest.json"), b"{}"),
    "manifest null": lambda e: _write(os.path.join(e, "manifest.json"), b"null"),
    "entry is a file": lambda e: (shutil.rmtree(e), _write(e, b"x")),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_entries_heal(cache_dir, tmp_path, monkeypatch, damage):
    launch(load_module(tmp_path, "first"))
    (entry,) = entries(cache_dir)
    DAMAGE[damage](entry)
    # A fresh JIT instance (a new process) compiles again, with one warning,
    # and replaces the entry; the one after it hits the disk.
    second = load_module(tmp_path, "second")
    with pytest.warns(RuntimeWarning, match="is damaged") as caught:
        launch(second)
    assert len([w for w in caught if "damaged" in str(w.message)]) == 1
    (kernel,) = second.kernel.cache.values()
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    assert not leftovers(cache_dir)
    assert not [d for d in os.listdir(os.path.dirname(entry))
                if d.startswith(".damaged-")]

    forbid_compiles(monkeypatch)
    third = load_module(tmp_path, "third")
    launch(third)
    (kernel,) = third.kernel.cache.values()
    assert kernel.metadata["name"] == "kernel"


RACER = r"""
import importlib.util, sys
sys.path.insert(0, {test_dir!r})
from launch_helpers import FakeTensor, Recorder
from tile.runtime.launcher import use_launcher
spec = importlib.util.spec_from_file_location("racer", {module!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
with use_launcher(Recorder()):
    module.kernel[(4,)](FakeTensor(4096), 1000, BLOCK=256)
(kernel,) = module.kernel.cache.values()
assert kernel.asm["cubin"][:4] == b"\x7fELF"
print("ok")
"""


@pytest.mark.parametrize("damaged", [False, True])
def test_processes_racing_on_one_entry(cache_dir, tmp_path, damaged):
    import subprocess
    import sys
    path = tmp_path / "racer.py"
    path.write_text(MODULE.format(factor=2.0, scale=1.0))
    script = RACER.format(test_dir=os.path.dirname(os.path.abspath(__file__)),
                          module=str(path))
    run = lambda: subprocess.Popen([sys.executable, "-c", script],  # noqa: E731
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env=dict(os.environ))
    if damaged:
        assert run().wait() == 0
        (entry,) = entries(cache_dir)
        _truncate(os.path.join(entry, "kernel.cubin"))
    procs = [run() for _ in range(8)]
    results = [p.communicate() for p in procs]
    assert all(p.returncode == 0 for p in procs), [r[1][-500:] for r in results]
    (entry,) = entries(cache_dir)
    assert cache._read_entry(entry)   # one whole, valid entry
    assert not leftovers(cache_dir)


# ------------------------------------------------------------- remote cache

class DictBackend(cache.RemoteCacheBackend):
    """A remote cache in a dict (what a Redis or S3 backend would hold)."""
    store = {}
    fail = False

    def get(self, filenames):
        if DictBackend.fail:
            raise ConnectionError("remote down")
        return {name: self.store[(self.key, name)] for name in filenames
                if (self.key, name) in self.store}

    def put(self, filename, data):
        if DictBackend.fail:
            raise ConnectionError("remote down")
        self.store[(self.key, filename)] = data


@pytest.fixture
def remote(monkeypatch):
    DictBackend.store, DictBackend.fail = {}, False
    monkeypatch.setenv("TILE_REMOTE_CACHE_BACKEND",
                       "%s:DictBackend" % __name__)
    yield DictBackend


def test_a_remote_entry_serves_another_machine(cache_dir, tmp_path, monkeypatch,
                                               remote):
    launch(load_module(tmp_path, "writer"))
    names = {name for _, name in remote.store}
    assert names == {"metadata.json", "kernel.cubin", "kernel.ptx", "kernel.llir",
                     "kernel.tile", "kernel.tilegpu", "manifest.json"}
    # Another machine: an empty local cache, the same remote.
    shutil.rmtree(cache_dir)
    forbid_compiles(monkeypatch)
    reader = load_module(tmp_path, "reader")
    launch(reader)
    (kernel,) = reader.kernel.cache.values()
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    assert len(entries(cache_dir)) == 1   # now also local


def test_a_damaged_remote_entry_is_compiled_instead(cache_dir, tmp_path, remote):
    launch(load_module(tmp_path, "writer"))
    for key in [k for k in remote.store if k[1] == "kernel.cubin"]:
        remote.store[key] = remote.store[key][:-8]   # truncated
    shutil.rmtree(cache_dir)
    with pytest.warns(RuntimeWarning, match="remote cache's entry .* is damaged"):
        launch(load_module(tmp_path, "reader"))
    (entry,) = entries(cache_dir)   # compiled and stored afresh, undamaged
    cache._read_entry(entry)


def test_a_failing_remote_costs_a_warning_only(cache_dir, tmp_path, remote):
    remote.fail = True
    with pytest.warns(RuntimeWarning, match="remote cache failed"):
        launch(load_module(tmp_path, "offline"))
    assert len(entries(cache_dir)) == 1


def test_a_misnamed_backend_is_a_warning(cache_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_REMOTE_CACHE_BACKEND", "no_such_module:Backend")
    with pytest.warns(RuntimeWarning, match="remote cache backend .* is unusable"):
        launch(load_module(tmp_path, "misnamed"))
    assert len(entries(cache_dir)) == 1


class FakeRedis:
    """What RedisRemoteCacheBackend uses of `redis.Redis`, over a dict
    shared by every client of one (host, port): a stand-in server."""
    servers = {}

    def __init__(self, host, port):
        self.data = FakeRedis.servers.setdefault((host, port), {})

    def mget(self, names):
        return [self.data.get(name) for name in names]

    def set(self, name, value):
        self.data[name] = bytes(value)


def test_redis_backend_shares_entries_between_machines(cache_dir, tmp_path,
                                                       monkeypatch):
    monkeypatch.setitem(sys.modules, "redis",
                        types.SimpleNamespace(Redis=FakeRedis))
    FakeRedis.servers = {}
    monkeypatch.setenv("TILE_REMOTE_CACHE_BACKEND",
                       "tile.runtime.cache:RedisRemoteCacheBackend")
    monkeypatch.setenv("TILE_REDIS_HOST", "cache.example")
    monkeypatch.setenv("TILE_REDIS_PORT", "7000")
    monkeypatch.setenv("TILE_REDIS_KEY_FORMAT", "k/{key}/{filename}")
    launch(load_module(tmp_path, "writer"))
    (server,) = FakeRedis.servers
    assert server == ("cache.example", 7000)
    names = FakeRedis.servers[server]
    assert {n.split("/")[-1] for n in names} >= {"kernel.cubin",
                                                 "manifest.json"}
    assert all(n.startswith("k/") for n in names)
    # Another machine: an empty local cache, the same server.
    shutil.rmtree(cache_dir)
    forbid_compiles(monkeypatch)
    reader = load_module(tmp_path, "reader")
    launch(reader)
    (kernel,) = reader.kernel.cache.values()
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


def test_redis_backend_without_the_client_is_a_warning(cache_dir, tmp_path,
                                                       monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)   # import fails
    monkeypatch.setenv("TILE_REMOTE_CACHE_BACKEND",
                       "tile.runtime.cache:RedisRemoteCacheBackend")
    with pytest.warns(RuntimeWarning, match="pip install redis"):
        launch(load_module(tmp_path, "noclient"))
    assert len(entries(cache_dir)) == 1

