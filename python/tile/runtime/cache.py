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

Entries heal: each holds a manifest (the size and SHA-256 of every other
file, written last before the rename), and `load` checks it and the shape
of the metadata. Any damage (a truncated cubin, an empty PTX, metadata that
parses but is not what tile wrote) is a miss with one warning, and the next
`store` replaces the entry, again by renames, so readers never see it half
replaced.
"""

import hashlib
import json
import os
import shutil
import tempfile
import uuid
import warnings

from tile import _C
from tile.compiler.compiler import CompiledKernel

_STAGES = ("tile", "tilegpu", "llir", "ptx")
_FILES = tuple("kernel." + stage for stage in _STAGES) + ("kernel.cubin",
                                                           "metadata.json")
_MANIFEST = "manifest.json"
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
    text = "\n".join([compiler_fingerprint(), fn.deps_key, repr(spec_key),
                      repr(options)])
    return hashlib.sha256(text.encode()).hexdigest()


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


def load(key):
    """The cached CompiledKernel for `key`, or None: none stored, or a
    damaged entry (warned about once; the next `store` replaces it)."""
    if not enabled():
        return None
    directory = _entry_dir(key)
    try:
        metadata, asm = _read_entry(directory)
    except FileNotFoundError:
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
    next process a compile."""
    if not enabled():
        return
    final = _entry_dir(key)
    if os.path.lexists(final):
        try:
            _read_entry(final)
            return   # another process stored it
        except (OSError, DamagedEntry):
            pass
    parent = os.path.dirname(final)
    tmp = None
    try:
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=parent)
        data = {"kernel." + stage: kernel.asm[stage].encode() for stage in _STAGES}
        data["kernel.cubin"] = kernel.asm["cubin"]
        data["metadata.json"] = json.dumps(kernel.metadata).encode()
        for name, content in data.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(content)
        # Written last: a complete entry has it, and it says what the others
        # must hold.
        with open(os.path.join(tmp, _MANIFEST), "w") as f:
            json.dump({name: _digest(content) for name, content in data.items()}, f)
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
    except OSError:
        pass
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
