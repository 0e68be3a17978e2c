"""The on-disk kernel cache.

Compiled kernels live in ``~/.cache/tile`` (``TILE_CACHE_DIR`` overrides it;
``TILE_CACHE=0`` turns the cache off), one directory per kernel named by a
hash of everything the machine code depends on: the kernel's source and the
sources of the @jit functions it calls, the global values it reads, the
specialization, the options (which include the target) and the compiler
that built it. A directory appears whole or not at all: it is written under
a temporary name and renamed into place, so concurrent processes and
interrupted writes never leave a partial entry, and a failed compile leaves
nothing.

A remote cache shared between machines (Triton's `RemoteCacheBackend`
interface) plugs in with ``TILE_REMOTE_CACHE_BACKEND=module:Class`` or
``tile.knobs.cache.remote_backend = Class``: a local miss asks it for the
entry's files, which are checked as a local entry is before they are used;
each `store` also puts them there. A backend that fails costs a warning and
a compile, never a wrong kernel.

Entries heal: each holds a manifest (the size and SHA-256 of every other
file, written last before the rename), and `load` checks it and the shape
of the metadata. Any damage (a truncated cubin, an empty PTX, metadata that
parses but is not what tile wrote) is a miss with one warning, and the next
`store` replaces the entry, again by renames, so readers never see it half
replaced.
"""

import hashlib
import importlib
import json
import os
import shutil
import tempfile
import uuid
import warnings

from tile import _C
from tile import knobs
from tile.compiler.compiler import CompiledKernel

_STAGES = ("tile", "tilegpu", "llir", "ptx")
_FILES = tuple("kernel." + stage for stage in _STAGES) + ("kernel.cubin",
                                                           "metadata.json")
_MANIFEST = "manifest.json"
# Every file of an entry, in the order it is written (the manifest last).
_ENTRY_FILES = _FILES + (_MANIFEST,)
# What CompiledKernel users read from the metadata, by type.
_METADATA = {"name": str, "num_warps": int, "num_stages": int, "target": str,
             "shared": int, "host_descriptors": list}
_fingerprint = None


def cache_dir():
    return os.environ.get("TILE_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "tile")


def enabled():
    # IR dumps need the compile to run.
    return (os.environ.get("TILE_CACHE", "1") != "0" and
            not os.environ.get("TILE_DUMP_IR"))


def compiler_fingerprint():
    """The compiler's version and the identity of the binaries that
    compile: a rebuilt libtile invalidates the cache."""
    global _fingerprint
    if _fingerprint is None:
        parts = [_C.version()]
        here = os.path.dirname(_C.__file__)
        for name in sorted(os.listdir(here)):
            if name.startswith(("_C", "libtile")):
                st = os.stat(os.path.join(here, name))
                parts.append("%s:%d:%d" % (name, st.st_size, st.st_mtime_ns))
        _fingerprint = "|".join(parts)
    return _fingerprint


def kernel_key(fn, spec_key, options):
    parts = [compiler_fingerprint(), fn.deps_key, repr(spec_key),
             repr(options)]
    # An overriding stage is named by its path: the key holds its text too.
    override = getattr(options, "ir_override", None)
    if override is not None:
        with open(override, "rb") as f:
            parts.append(hashlib.sha256(f.read()).hexdigest())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _entry_dir(key):
    return os.path.join(cache_dir(), key[:2], key)


class DamagedEntry(Exception):
    """A cache entry that is not what `store` wrote."""


def _digest(data):
    return [len(data), hashlib.sha256(data).hexdigest()]


def _read_entry(directory):
    """(metadata, asm) of a complete, undamaged entry; DamagedEntry if it
    is not one, FileNotFoundError if there is none."""
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise DamagedEntry("not a directory")
    try:
        with open(os.path.join(directory, _MANIFEST), "rb") as f:
            manifest = json.loads(f.read())
    except FileNotFoundError:
        if os.path.isdir(directory):
            raise DamagedEntry("no manifest") from None
        raise
    except ValueError:
        raise DamagedEntry("unreadable manifest") from None
    if not isinstance(manifest, dict) or sorted(manifest) != sorted(_FILES):
        raise DamagedEntry("manifest lists other files")
    data = {}
    for name in _FILES:
        try:
            with open(os.path.join(directory, name), "rb") as f:
                data[name] = f.read()
        except OSError:
            raise DamagedEntry("%s is missing" % name) from None
        if _digest(data[name]) != manifest[name]:
            raise DamagedEntry("%s does not match its checksum" % name)
    try:
        metadata = json.loads(data["metadata.json"])
        asm = {stage: data["kernel." + stage].decode() for stage in _STAGES}
    except ValueError:
        raise DamagedEntry("unreadable metadata or IR") from None
    if not isinstance(metadata, dict) or any(
            not isinstance(metadata.get(field), kind)
            for field, kind in _METADATA.items()):
        raise DamagedEntry("metadata is not a kernel's")
    asm["cubin"] = data["kernel.cubin"]
    if not asm["cubin"] or not asm["ptx"]:
        raise DamagedEntry("empty cubin or PTX")
    return metadata, asm


class RemoteCacheBackend:
    """A store of compiled kernels shared between machines, as Triton's
    interface has it: one instance per kernel `key`; `get(filenames)`
    returns {name: bytes} of the files it holds, `put(filename, data)`
    keeps one. Subclass it and name the class in
    TILE_REMOTE_CACHE_BACKEND ("module:Class") or knobs.cache.remote_backend."""

    def __init__(self, key):
        self.key = key

    def get(self, filenames):
        raise NotImplementedError

    def put(self, filename, data):
        raise NotImplementedError


class RedisRemoteCacheBackend(RemoteCacheBackend):
    """The remote cache on a Redis server (the `redis` client package,
    which tile does not bundle: `pip install redis`). The server is
    knobs.cache.redis_host/redis_port (TILE_REDIS_HOST, TILE_REDIS_PORT);
    each file of an entry is one string value, named by
    knobs.cache.redis_key_format (TILE_REDIS_KEY_FORMAT, with {key} and
    {filename}). Select it with
    TILE_REMOTE_CACHE_BACKEND=tile.runtime.cache:RedisRemoteCacheBackend."""

    def __init__(self, key):
        super().__init__(key)
        try:
            import redis
        except ImportError as e:
            raise ImportError("RedisRemoteCacheBackend needs the `redis` "
                              "package (pip install redis)") from e
        self._names = knobs.cache.redis_key_format
        self._client = redis.Redis(host=knobs.cache.redis_host,
                                   port=knobs.cache.redis_port)

    def _name(self, filename):
        return self._names.format(key=self.key, filename=filename)

    def get(self, filenames):
        values = self._client.mget([self._name(f) for f in filenames])
        return {f: v for f, v in zip(filenames, values) if v is not None}

    def put(self, filename, data):
        self._client.set(self._name(filename), data)


def _remote(key):
    """The configured remote backend for `key`, or None."""
    backend = knobs.cache.remote_backend
    if not backend:
        return None
    try:
        if isinstance(backend, str):
            module, _, name = backend.partition(":")
            backend = getattr(importlib.import_module(module), name)
        return backend(key)
    except Exception as e:   # a misconfigured backend only costs the cache
        warnings.warn("tile: the remote cache backend %r is unusable (%s)"
                      % (knobs.cache.remote_backend, e), RuntimeWarning,
                      stacklevel=3)
        return None


def _fetch_remote(key):
    """Copies `key`'s entry from the remote backend into the local cache,
    checked as a local entry is; True if it is there now."""
    remote = _remote(key)
    if remote is None:
        return False
    try:
        files = remote.get(list(_ENTRY_FILES))
    except Exception as e:
        warnings.warn("tile: the remote cache failed to read %s (%s)"
                      % (key, e), RuntimeWarning, stacklevel=3)
        return False
    if not isinstance(files, dict) or any(
            not isinstance(files.get(name), bytes) for name in _ENTRY_FILES):
        return False   # not (all) there: a miss
    return _write_entry(key, files, check=True)


def load(key):
    """The cached CompiledKernel for `key`, or None: none stored (locally
    or, if one is configured, remotely), or a damaged entry (warned about
    once; the next `store` replaces it)."""
    if not enabled():
        return None
    directory = _entry_dir(key)
    try:
        metadata, asm = _read_entry(directory)
    except FileNotFoundError:
        if not _fetch_remote(key):
            return None
        try:
            metadata, asm = _read_entry(directory)
        except (OSError, DamagedEntry):
            return None
    except OSError:
        return None
    except DamagedEntry as e:
        warnings.warn("tile: the cache entry %s is damaged (%s); compiling "
                      "again and replacing it" % (directory, e), RuntimeWarning,
                      stacklevel=2)
        return None
    return CompiledKernel(metadata["name"], asm, metadata)


def store(key, kernel):
    """Writes `kernel` under `key`, atomically; a damaged entry there is
    replaced. Failures to write (a read-only or full disk) only cost the
    next process a compile. A configured remote backend gets the files
    too, the manifest last."""
    if not enabled():
        return
    data = {"kernel." + stage: kernel.asm[stage].encode() for stage in _STAGES}
    data["kernel.cubin"] = kernel.asm["cubin"]
    data["metadata.json"] = json.dumps(kernel.metadata).encode()
    data[_MANIFEST] = json.dumps(
        {name: _digest(content) for name, content in data.items()}).encode()
    _write_entry(key, data)
    remote = _remote(key)
    if remote is not None:
        try:
            for name in _ENTRY_FILES:
                remote.put(name, data[name])
        except Exception as e:
            warnings.warn("tile: the remote cache failed to store %s (%s)"
                          % (key, e), RuntimeWarning, stacklevel=2)


def _write_entry(key, files, check=False):
    """Puts the entry `files` ({name: bytes}, the manifest among them) in
    place under `key` by renames; with `check`, only if they read back as
    an undamaged entry. True if an undamaged entry is there afterwards."""
    final = _entry_dir(key)
    if os.path.lexists(final):
        try:
            _read_entry(final)
            return True   # another process stored it
        except (OSError, DamagedEntry):
            pass
    parent = os.path.dirname(final)
    tmp = None
    try:
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=parent)
        # The manifest is written last: a complete entry has it, and it says
        # what the others must hold.
        for name in _ENTRY_FILES:
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(files[name])
        if check:
            try:
                _read_entry(tmp)
            except DamagedEntry as e:
                warnings.warn("tile: the remote cache's entry %s is damaged "
                              "(%s); compiling instead" % (key, e),
                              RuntimeWarning, stacklevel=3)
                return False
        if os.path.lexists(final):
            # The damaged entry moves aside (one rename) before ours moves in.
            aside = os.path.join(parent, ".damaged-" + uuid.uuid4().hex)
            try:
                os.rename(final, aside)
            except OSError:
                pass   # another process moved it first
            else:
                if os.path.isdir(aside):
                    shutil.rmtree(aside, ignore_errors=True)
                else:
                    os.remove(aside)
        os.rename(tmp, final)
        tmp = None
        return True
    except OSError:
        return False
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
