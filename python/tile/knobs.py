"""tile.knobs: the configuration object, as `triton.knobs`.

Each setting mirrors an environment variable: until a program assigns it,
reading it reads the variable (at that moment, so `os.environ` changes are
seen); assigning it overrides the variable; `del` (or `scope()` ending)
goes back to the variable. Groups:

  knobs.runtime      debug, interpret, override_arch, launch/load/compile
                     hooks
  knobs.cache        dir, enabled, remote_backend, redis_host, redis_port,
                     redis_key_format
  knobs.autotuning   print, cache
  knobs.compilation  dump_ir, always_compile
  knobs.language     default_fp_fusion (enable_fp_fusion's default)
  knobs.nvidia       ptxas (its path and version)

Hooks are called with Triton's arguments:
  runtime.launch_enter_hook(LazyLaunchMetadata) / launch_exit_hook(...)
  runtime.kernel_load_start_hook(module, function, name, metadata_group, hash)
  runtime.kernel_load_end_hook(...)            (same arguments)
  runtime.jit_cache_hook(key=, repr=, fn=, compile=, is_manual_warmup=,
                         already_compiled=)   before a compile; a true result
                                              skips it (warmup returns None)
  runtime.jit_post_compile_hook(...)           (same arguments) after it
"""

import contextlib
import os
import re
import subprocess

from tile import _C


class HookChain:
    """Several callables behind one hook: `add`, `remove`, and a call that
    calls each in the order added."""

    def __init__(self):
        self.calls = []

    def add(self, fn):
        if fn not in self.calls:
            self.calls.append(fn)

    def remove(self, fn):
        if fn in self.calls:
            self.calls.remove(fn)

    def __call__(self, *args, **kwargs):
        for fn in list(self.calls):
            fn(*args, **kwargs)

    def __bool__(self):
        return bool(self.calls)


def _parse_bool(text):
    return text.strip().lower() not in ("", "0", "false", "off", "no")


class env_knob:
    """A setting read from `variable` until assigned."""

    def __init__(self, variable, default=None, parse=str):
        self.variable, self.default, self.parse = variable, default, parse

    @property
    def key(self):
        """Triton's name for the environment variable."""
        return self.variable

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, group, owner=None):
        if group is None:
            return self
        if self.name in group.__dict__:
            return group.__dict__[self.name]
        text = os.environ.get(self.variable) if self.variable else None
        if text is None:
            return self.default
        return self.parse(text)

    def __set__(self, group, value):
        group.__dict__[self.name] = value
        _changed()

    def __delete__(self, group):
        group.__dict__.pop(self.name, None)
        _changed()


# Called after a setting changes: what was specialised under the old value
# (the C++ launch tables, keyed without it) must be forgotten.
_listeners = []


def add_listener(fn):
    _listeners.append(fn)


def _changed():
    for fn in _listeners:
        fn()


class _Group:
    """A set of settings; `scope()` restores them on exit."""

    @contextlib.contextmanager
    def scope(self):
        saved = dict(self.__dict__)
        try:
            yield self
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)
            _changed()

    def reset(self):
        """Every setting back to its environment variable."""
        for name, value in list(self.__dict__.items()):
            if isinstance(type(self).__dict__.get(name), env_knob):
                del self.__dict__[name]
        _changed()
        return self

    @property
    def knob_descriptors(self):
        """{name: env_knob} of this group's settings, as Triton's knobs list
        them (test fixtures reset each one's environment variable)."""
        return {name: knob for klass in reversed(type(self).__mro__)
                for name, knob in vars(klass).items() if isinstance(knob, env_knob)}

    def copy(self):
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        return other


class RuntimeKnobs(_Group):
    debug = env_knob("TILE_DEBUG", False, _parse_bool)
    interpret = env_knob("TILE_INTERPRET", False, _parse_bool)
    # The architecture launches compile for when they name none (Triton's
    # spelling, "sm80", or tile's, "sm_80"); unset: sm_90a.
    override_arch = env_knob("TILE_OVERRIDE_ARCH", None)

    def __init__(self):
        self.launch_enter_hook = HookChain()
        self.launch_exit_hook = HookChain()
        self.kernel_load_start_hook = HookChain()
        self.kernel_load_end_hook = HookChain()
        self.jit_cache_hook = None
        self.jit_post_compile_hook = None

    @contextlib.contextmanager
    def scope(self):
        # Hook chains are mutated in place (add/remove): save their lists.
        chains = {name: list(value.calls) for name, value in self.__dict__.items()
                  if isinstance(value, HookChain)}
        with super().scope():
            try:
                yield self
            finally:
                for name, calls in chains.items():
                    self.__dict__[name].calls[:] = calls


class CacheKnobs(_Group):
    dir = env_knob("TILE_CACHE_DIR", None)
    enabled = env_knob("TILE_CACHE", True, _parse_bool)
    # A RemoteCacheBackend subclass, or "module:Class" naming one.
    remote_backend = env_knob("TILE_REMOTE_CACHE_BACKEND", None)
    # Where tile.runtime.cache.RedisRemoteCacheBackend finds its server,
    # and how it names an entry's files there.
    redis_host = env_knob("TILE_REDIS_HOST", "localhost")
    redis_port = env_knob("TILE_REDIS_PORT", 6379, int)
    redis_key_format = env_knob("TILE_REDIS_KEY_FORMAT",
                                "tile:{key}:{filename}")

    @property
    def resolved_dir(self):
        return self.dir or os.path.join(os.path.expanduser("~"), ".cache",
                                        "tile")


class AutotuningKnobs(_Group):
    # tile prints its progress on stderr unless this is off.
    print = env_knob("TILE_PRINT_AUTOTUNING", True, _parse_bool)
    cache = env_knob("TILE_CACHE_AUTOTUNING", True, _parse_bool)


class CompilationKnobs(_Group):
    dump_ir = env_knob("TILE_DUMP_IR", None)
    always_compile = env_knob("TILE_ALWAYS_COMPILE", False, _parse_bool)


class LanguageKnobs(_Group):
    # The default of the enable_fp_fusion launch option (a launch, warmup,
    # Config or tile.compile that names it wins).
    default_fp_fusion = env_knob("TILE_DEFAULT_FP_FUSION", True, _parse_bool)


class PtxasKnob:
    """The ptxas tile assembles with, as libtile finds it (TILE_PTXAS, the
    CUDA toolkit, PATH, then `pip install tile[ptxas]`'s); None if none.
    `version` is "major.minor"."""

    def __init__(self):
        self._version = None

    @property
    def path(self):
        return _C.ptxas_path() or None

    @property
    def version(self):
        if self._version is None:
            path = self.path
            if path is None:
                return None
            text = subprocess.run([path, "--version"], capture_output=True,
                                  text=True).stdout
            found = re.search(r"release (\d+)\.(\d+)", text)
            self._version = "%s.%s" % found.groups() if found else None
        return self._version


class NvidiaKnobs(_Group):
    def __init__(self):
        self.ptxas = PtxasKnob()


# Triton's names for the group base class, and for whether assignments are
# also written to the environment (tile's never are).
base_knobs = _Group
propagate_env = False

runtime = RuntimeKnobs()
cache = CacheKnobs()
autotuning = AutotuningKnobs()
compilation = CompilationKnobs()
language = LanguageKnobs()
nvidia = NvidiaKnobs()

__all__ = ["runtime", "cache", "autotuning", "compilation", "language", "nvidia",
           "HookChain",
           "env_knob"]
