"""tile.Config, tile.autotune and tile.heuristics, with Triton's signatures."""

import builtins
import concurrent.futures
import hashlib
import json
import os
import sys
import tempfile

from tile.runtime import cache
from tile.runtime.benchmarking import do_bench
from tile.runtime.jit import JITFunction


class Config:
    """One candidate: constexpr values (`kwargs`) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, pre_hook=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.pre_hook = pre_hook

    def all_kwargs(self):
        return dict(self.kwargs, num_warps=self.num_warps,
                    num_stages=self.num_stages)

    def __repr__(self):
        items = ", ".join("%s: %r" % kv for kv in self.kwargs.items())
        return "Config(%s, num_warps=%d, num_stages=%d)" % (
            items, self.num_warps, self.num_stages)


class _Launchable:
    """Something that can be launched like a JITFunction: `f[grid](...)`."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(grid, args, kwargs)


class Heuristics(_Launchable):
    def __init__(self, fn, values):
        self.fn, self.values = fn, values
        self.arg_names = fn.arg_names

    def run(self, grid, args, kwargs):
        bound = dict(zip(self.arg_names, args), **kwargs)
        for name, rule in self.values.items():
            kwargs[name] = rule(bound)
            bound[name] = kwargs[name]
        return self.fn[grid](*args, **kwargs)


def heuristics(values):
    """`@tile.heuristics({'BLOCK': lambda args: ...})`: constexprs computed
    from the other arguments at each launch."""
    def decorator(fn):
        return Heuristics(fn, values)
    return decorator


def _jit_function(fn):
    while isinstance(fn, Heuristics):
        fn = fn.fn
    return fn


def _precompile(fn, args, kwargs):
    """Compiles (or finds in the caches) what `fn[grid](*args, **kwargs)`
    would launch, without launching it."""
    if isinstance(fn, Heuristics):
        kwargs = dict(kwargs)
        bound = dict(zip(fn.arg_names, args), **kwargs)
        for name, rule in fn.values.items():
            kwargs[name] = bound[name] = rule(bound)
        return _precompile(fn.fn, args, kwargs)
    return fn._prepare(args, kwargs)


class Autotuner(_Launchable):
    """Picks the fastest config the first time each key is seen: compiles
    the candidates in parallel (libtile compiles without the GIL), skips
    those that fail to compile (too much shared memory, ...), times the
    rest with CUDA events, and remembers the winner in memory and, with
    `cache_results`, on disk under a hash of the compiler, the kernel's
    source and dependencies, the key and the candidate list."""

    def __init__(self, fn, configs, key, prune_configs_by=None, warmup=25,
                 rep=100, reset_to_zero=None, restore_value=None,
                 do_bench=None, verbose=None, cache_results=True):
        if not configs:
            raise ValueError("tile.autotune needs at least one Config")
        self.fn = fn
        self.configs = configs
        self.key = list(key)
        self.prune = prune_configs_by or {}
        self.warmup, self.rep = warmup, rep
        self.reset_to_zero = list(reset_to_zero or ())
        self.cache = {}
        self.arg_names = fn.arg_names
        if verbose is None:
            verbose = os.environ.get("TILE_PRINT_AUTOTUNING", "1") != "0"
        self.verbose = verbose
        self.cache_results = cache_results
        self._do_bench = do_bench
        self.best_config = None

    def _bench(self, fn):
        if self._do_bench is not None:
            return self._do_bench(fn)
        return do_bench(fn, warmup=self.warmup, rep=self.rep)

    def _key(self, bound):
        parts = []
        for name in self.key:
            if name not in bound:
                raise TypeError("autotune key '%s' is not an argument of %s" %
                                (name, self.fn.__name__))
            value = bound[name]
            parts.append(str(value.dtype) if hasattr(value, "dtype") and
                         hasattr(value, "data_ptr") else value)
        return tuple(parts)

    def _candidates(self, bound):
        configs = self.configs
        early = self.prune.get("early_config_prune")
        if early is not None:
            configs = early(configs, bound) or configs
        model = self.prune.get("perf_model")
        top_k = self.prune.get("top_k")
        if model is not None and top_k is not None:
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = builtins.max(1, int(len(configs) * top_k))
            configs = sorted(configs, key=lambda c: model(**dict(
                bound, **c.all_kwargs())))[:top_k]
        return configs

    def _say(self, text, end="\n"):
        if self.verbose:
            sys.stderr.write("\rtile.autotune %s: %s%s" % (
                self.fn.__name__, text, end))
            sys.stderr.flush()

    # -- disk ---------------------------------------------------------------

    def _disk_path(self, key, configs):
        if not (self.cache_results and cache.enabled()):
            return None
        text = "\n".join([cache.compiler_fingerprint(),
                          _jit_function(self.fn).deps_key, repr(key),
                          repr(configs)])
        digest = hashlib.sha256(text.encode()).hexdigest()
        return os.path.join(cache.cache_dir(), "autotune", digest + ".json")

    def _load(self, path, configs):
        if path is None:
            return None
        try:
            with open(path) as f:
                record = json.load(f)
            config = configs[record["index"]]
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            return None
        # The candidate list is part of the hash; the check guards against
        # a hand-edited or truncated file.
        return config if repr(config) == record.get("config") else None

    def _store(self, path, configs, best, timings):
        if path is None:
            return
        record = {"index": configs.index(best), "config": repr(best),
                  "timings_ms": {repr(c): t for c, t in timings.items()}}
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump(record, f, indent=1)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache only costs the next process a re-tune

    # -- tuning -------------------------------------------------------------

    def _compile_all(self, args, kwargs, configs):
        """{config: None or the exception compiling it raised}."""
        workers = builtins.max(1, builtins.min(len(configs),
                                               os.cpu_count() or 1))
        self._say("compiling %d configs on %d threads" % (len(configs),
                                                          workers), end="")
        results = {}
        done = 0
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            futures = {pool.submit(_precompile, self.fn, args,
                                   dict(kwargs, **c.all_kwargs())): c
                       for c in configs}
            for future in concurrent.futures.as_completed(futures):
                error = future.exception()
                results[futures[future]] = error
                done += 1
                self._say("compiled %d/%d configs" % (done, len(configs)),
                          end="")
        self._say("compiled %d/%d configs" % (done, len(configs)))
        return results

    def _tune(self, grid, args, kwargs, bound, configs):
        errors = self._compile_all(args, kwargs, configs)
        runnable = [c for c in configs if errors[c] is None]
        for config in configs:
            if errors[config] is not None:
                self._say("skipping %r: %s" % (
                    config, str(errors[config]).splitlines()[0]))
        if not runnable:
            raise errors[configs[0]]
        timings = {}
        for i, config in enumerate(runnable):
            def launch(config=config):
                for name in self.reset_to_zero:
                    bound[name].zero_()
                if config.pre_hook:
                    config.pre_hook(bound)
                self.fn.run(grid, args, dict(kwargs, **config.all_kwargs()))
            timings[config] = self._bench(launch)
            self._say("benchmarked %d/%d configs" % (i + 1, len(runnable)),
                      end="")
        best = builtins.min(runnable, key=timings.get)
        self._say("best of %d: %r, %.4f ms" % (len(runnable), best,
                                               timings[best]))
        return best, timings

    def run(self, grid, args, kwargs):
        bound = dict(zip(self.arg_names, args), **kwargs)
        if _jit_function(self.fn).interpreted:
            # Timings in the interpreter say nothing about the GPU: run the
            # first candidate, and keep no choice.
            self.best_config = self._candidates(bound)[0]
            return self.fn[grid](*args, **dict(
                kwargs, **self.best_config.all_kwargs()))
        key = self._key(bound)
        best = self.cache.get(key)
        if best is None:
            configs = self._candidates(bound)
            for config in configs:
                conflict = set(config.kwargs) & set(kwargs)
                if conflict:
                    raise ValueError("%s: autotuned arguments %s were also "
                                     "passed explicitly" % (
                                         self.fn.__name__,
                                         ", ".join(sorted(conflict))))
            path = self._disk_path(key, configs)
            best = self._load(path, configs)
            if best is None:
                best, timings = self._tune(grid, args, kwargs, bound, configs)
                self._store(path, configs, best, timings)
            self.cache[key] = best
        self.best_config = best
        # The tuned launch takes the kernel's own (C++) launch path.
        return self.fn[grid](*args, **dict(kwargs, **best.all_kwargs()))


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None,
             restore_value=None, warmup=25, rep=100, do_bench=None,
             cache_results=True):
    """`@tile.autotune(configs=[tile.Config(...)], key=['n'])`: the first
    time a key is seen, compiles every config in parallel, benchmarks them
    and launches the fastest; the choice is kept on disk (unless
    `cache_results=False` or TILE_CACHE=0). TILE_PRINT_AUTOTUNING=0
    silences the progress lines on stderr."""
    def decorator(fn):
        if not isinstance(fn, (JITFunction, Heuristics)):
            raise TypeError("tile.autotune decorates a @tile.jit function")
        return Autotuner(fn, configs, key, prune_configs_by, warmup, rep,
                         reset_to_zero, restore_value, do_bench,
                         cache_results=cache_results)
    return decorator
