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
"""

import hashlib
import json
import os
import shutil
import tempfile

from tile import _C
from tile.compiler.compiler import CompiledKernel

_STAGES = ("tile", "tilegpu", "llir", "ptx")
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
    text = "\n".join([compiler_fingerprint(), fn.deps_key, repr(spec_key),
                      repr(options)])
    return hashlib.sha256(text.encode()).hexdigest()


def _entry_dir(key):
    return os.path.join(cache_dir(), key[:2], key)


def load(key):
    """The cached CompiledKernel for `key`, or None."""
    if not enabled():
        return None
    directory = _entry_dir(key)
    try:
        with open(os.path.join(directory, "metadata.json")) as f:
            metadata = json.load(f)
        asm = {}
        for stage in _STAGES:
            with open(os.path.join(directory, "kernel." + stage)) as f:
                asm[stage] = f.read()
        with open(os.path.join(directory, "kernel.cubin"), "rb") as f:
            asm["cubin"] = f.read()
    except (OSError, ValueError):
        return None
    return CompiledKernel(metadata["name"], asm, metadata)


def store(key, kernel):
    """Writes `kernel` under `key`, atomically. Failures to write (a
    read-only or full disk) only cost the next process a compile."""
    if not enabled():
        return
    final = _entry_dir(key)
    if os.path.isdir(final):
        return
    parent = os.path.dirname(final)
    tmp = None
    try:
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=parent)
        for stage in _STAGES:
            with open(os.path.join(tmp, "kernel." + stage), "w") as f:
                f.write(kernel.asm[stage])
        with open(os.path.join(tmp, "kernel.cubin"), "wb") as f:
            f.write(kernel.asm["cubin"])
        # Written last: its presence marks a complete entry.
        with open(os.path.join(tmp, "metadata.json"), "w") as f:
            json.dump(kernel.metadata, f)
        os.rename(tmp, final)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
