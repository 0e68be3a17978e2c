"""tile.Config, tile.autotune and tile.heuristics, with Triton's signatures."""

import builtins
import sys

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


class Autotuner(_Launchable):
    def __init__(self, fn, configs, key, prune_configs_by=None, warmup=25,
                 rep=100, reset_to_zero=None, restore_value=None,
                 do_bench=None, verbose=True):
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
        self.verbose = verbose
        self._do_bench = do_bench

    def _bench(self, fn):
        if self._do_bench is not None:
            return self._do_bench(fn)
        from tile.testing import do_bench
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

    def run(self, grid, args, kwargs):
        bound = dict(zip(self.arg_names, args), **kwargs)
        key = self._key(bound)
        best = self.cache.get(key)
        if best is None:
            configs = self._candidates(bound)
            timings = {}
            for i, config in enumerate(configs):
                conflict = set(config.kwargs) & set(kwargs)
                if conflict:
                    raise ValueError("%s: autotuned arguments %s were also passed "
                                     "explicitly" % (self.fn.__name__,
                                                     ", ".join(sorted(conflict))))
                def launch(config=config):
                    for name in self.reset_to_zero:
                        bound[name].zero_()
                    if config.pre_hook:
                        config.pre_hook(bound)
                    self.fn.run(grid, args, dict(kwargs, **config.all_kwargs()))
                timings[i] = self._bench(launch)
                if self.verbose:
                    sys.stderr.write("\rtile.autotune %s: %d/%d configs" % (
                        self.fn.__name__, i + 1, len(configs)))
            if self.verbose:
                sys.stderr.write("\n")
            best = configs[builtins.min(timings, key=timings.get)]
            self.cache[key] = best
        self.best_config = best
        # The tuned launch takes the kernel's own (C++) launch path.
        return self.fn[grid](*args, **dict(kwargs, **best.all_kwargs()))


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None,
             restore_value=None, warmup=25, rep=100, do_bench=None):
    """`@tile.autotune(configs=[tile.Config(...)], key=['n'])`: benchmarks
    each config the first time a key is seen and launches the fastest."""
    def decorator(fn):
        if not isinstance(fn, (JITFunction, Heuristics)):
            raise TypeError("tile.autotune decorates a @tile.jit function")
        return Autotuner(fn, configs, key, prune_configs_by, warmup, rep,
                         reset_to_zero, restore_value, do_bench)
    return decorator
