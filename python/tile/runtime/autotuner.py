"""tile.Config, tile.autotune and tile.heuristics, with Triton's signatures,
hooks and call order.

One difference from Triton, in what it costs and not in what it computes:
the candidates are compiled in parallel (libtile compiles without the GIL)
before any is timed. Each config's `pre_hook` runs before that config is
specialised, so a hook that edits an argument (a descriptor's block shape,
a value) is seen by its compile, as it is in Triton.
"""

import builtins
import concurrent.futures
import hashlib
import json
import os
import sys
import tempfile
import time

from tile import _C, knobs
from tile.runtime import benchmarking, cache
from tile.runtime.errors import AutotunerError, OutOfResources, PTXASError
from tile.runtime.jit import JITFunction, KernelInterface
from tile.compiler.errors import CompilationError


class Config:
    """One candidate: constexpr values (`kwargs`) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1,
                 maxnreg=None, pre_hook=None, ir_override=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def __setstate__(self, state):
        self.__init__(state.get("kwargs", {}), state.get("num_warps", 4),
                      state.get("num_stages", 3), state.get("num_ctas", 1),
                      state.get("maxnreg"), state.get("pre_hook"),
                      state.get("ir_override"))

    def all_kwargs(self):
        options = (("num_warps", self.num_warps), ("num_ctas", self.num_ctas),
                   ("num_stages", self.num_stages), ("maxnreg", self.maxnreg),
                   ("ir_override", self.ir_override))
        return dict(self.kwargs, **{k: v for k, v in options if v is not None})

    def __str__(self):
        parts = ["%s: %s" % kv for kv in self.kwargs.items()]
        parts += ["num_warps: %s" % self.num_warps,
                  "num_ctas: %s" % self.num_ctas,
                  "num_stages: %s" % self.num_stages,
                  "maxnreg: %s" % self.maxnreg]
        return ", ".join(parts)

    def __repr__(self):
        return "Config(%s)" % self

    def _identity(self):
        return (*self.all_kwargs().items(), self.pre_hook)

    def __hash__(self):
        return hash(self._identity())

    def __eq__(self, other):
        return isinstance(other, Config) and self._identity() == other._identity()


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn, self.arg_names, self.values = fn, arg_names, values
        self._stack = None

    def run(self, *args, **kwargs):
        # Libraries stack one @heuristics per flag (mamba-ssm: five on one
        # kernel); the stack's rules run in one pass over one argument
        # dict, outermost first as nesting would, and the function under
        # the stack is launched once.
        if self._stack is None:
            rules, fn = [], self
            while isinstance(fn, Heuristics):
                rules.extend(fn.values.items())
                fn = fn.fn
            self._stack = (rules, fn)
        rules, fn = self._stack
        return _launch(fn, args, self._apply(rules, args, kwargs))

    def _apply(self, rules, args, kwargs):
        kwargs = dict(kwargs)
        named = dict(zip(self.arg_names, args))
        named.update(kwargs)
        for name, rule in rules:
            kwargs[name] = named[name] = rule(named)
        return kwargs

    def with_values(self, args, kwargs):
        """`kwargs` plus the value of each rule, in order (a rule sees the
        ones before it)."""
        return self._apply(self.values.items(), args, kwargs)

    def __getattr__(self, name):
        # src, cache_key, ... of the function underneath.
        return getattr(self.fn, name)


def heuristics(values):
    """`@tile.heuristics({'BLOCK': lambda args: ...})`: constexprs computed
    from the other arguments at each launch."""
    def decorator(fn):
        return Heuristics(fn, fn.arg_names, values)
    return decorator


def _launch(fn, args, kwargs):
    """`fn.run(*args, **kwargs)`, where a launch (a grid, not a warmup)
    goes through `fn[grid]`: a @jit function's C++ dispatcher costs a few
    microseconds per launch where its Python path (binding, specialising)
    costs ~50."""
    if kwargs.get("warmup") or kwargs.get("grid") is None:
        return fn.run(*args, **kwargs)
    kwargs = dict(kwargs)
    grid = kwargs.pop("grid")
    kwargs.pop("warmup", None)
    return fn[grid](*args, **kwargs)


def _base_jit(fn):
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    return fn


def _specialise(fn, args, kwargs):
    """(JITFunction, args, kwargs) that `fn.run(*args, **kwargs)` would
    compile, with the heuristics above it applied."""
    while isinstance(fn, Heuristics):
        kwargs = fn.with_values(args, kwargs)
        fn = fn.fn
    if isinstance(fn, Autotuner):
        return None
    return fn, args, kwargs


# What a config that cannot run is skipped for (Triton: OutOfResources,
# CompileTimeAssertionFailure, PTXASError); tile's compile errors too.
_SKIPPED = (OutOfResources, PTXASError, CompilationError)


class Autotuner(KernelInterface):
    """Picks the fastest config the first time each key is seen and
    remembers it in `cache` (and on disk, with `cache_results`)."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None,
                 restore_value=None, pre_hook=None, post_hook=None,
                 prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=False):
        self.configs = configs or [Config({}, num_warps=4, num_stages=3,
                                          num_ctas=1)]
        self.keys = list(key)
        self.arg_names = arg_names
        self.fn = fn
        self.base_fn = _base_jit(fn)
        # Warm launches of tuned keys in C++ (TunedChoices), where the
        # kernel underneath is a @jit function and every key is one of
        # its parameters.
        self._choices = None
        if (len(self.configs) > 1 and isinstance(fn, JITFunction) and
                all(name in arg_names for name in self.keys)):
            self._choices = _C.TunedChoices(
                tuple(arg_names.index(name) for name in self.keys),
                len(arg_names))
        self.cache = {}
        self.cache_results = cache_results or knobs.autotuning.cache
        self.reset_to_zero = list(reset_to_zero or ())
        self.restore_value = list(restore_value or ())
        self.restore_copies = {}
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.pre_hook = pre_hook or self._default_pre_hook
        self.post_hook = post_hook or self._default_post_hook
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.num_warmups, self.num_reps = warmup, rep
        self.use_cuda_graph = use_cuda_graph
        self._do_bench = do_bench
        self.nargs = None
        self.best_config = None
        self.bench_time = 0.0
        self.configs_timings = {}
        # The launch's fast path: where each key argument sits, and each
        # config's keyword arguments, made once.
        self._key_positions = [arg_names.index(name) for name in self.keys
                               if name in arg_names]
        self._config_kwargs = {}

    @property
    def cache(self):
        """Tuning key -> chosen Config. Any change to it (or a new dict in
        its place) also drops the choices the C++ launch path holds."""
        return self._cache

    @cache.setter
    def cache(self, value):
        self._cache = _ChoiceCache(value, self._choices)
        if self._choices is not None:
            self._choices.clear()

    def __getitem__(self, grid):
        if self._choices is None:
            return super().__getitem__(grid)
        return self._choices.bind(self, grid, self.fn[grid])

    def _default_pre_hook(self, kwargs, reset_only=False):
        for name in self.reset_to_zero:
            kwargs[name].zero_()
        if not reset_only:
            self.restore_copies = {name: kwargs[name].clone()
                                   for name in self.restore_value}

    def _default_post_hook(self, kwargs, exception):
        for name in self.restore_value:
            kwargs[name].copy_(self.restore_copies[name])
        self.restore_copies = {}

    @property
    def do_bench(self):
        if self._do_bench is not None:
            return self._do_bench
        if self.use_cuda_graph:
            return lambda call, quantiles: benchmarking.do_bench_cudagraph(
                call, rep=self.num_reps or 100, quantiles=quantiles)
        return lambda call, quantiles: benchmarking.do_bench(
            call, warmup=self.num_warmups or 25, rep=self.num_reps or 100,
            quantiles=quantiles)

    def _say(self, text):
        if knobs.autotuning.print:
            sys.stderr.write("tile.autotune %s: %s\n" % (
                self.base_fn.__name__, text))
            sys.stderr.flush()

    # -- pruning -------------------------------------------------------------

    def prune_configs(self, kwargs):
        configs = self.configs
        if self.early_config_prune:
            configs = self.early_config_prune(self.configs, self.nargs,
                                              **kwargs)
            if not configs:
                raise AutotunerError(
                    "No valid autotuner configs after pruning. "
                    "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(self.configs) * top_k)
            elif not isinstance(top_k, int):
                raise TypeError("Error while pruning configs, top_k must be "
                                "either 1) a float <= 1.0 or 2) an int")
            if len(configs) > top_k:
                estimates = {c: self.perf_model(**self.nargs, **kwargs,
                                                **c.all_kwargs())
                             for c in configs}
                configs = sorted(estimates, key=estimates.get)[:top_k]
        return configs

    # -- compiling the candidates ahead of timing -----------------------------

    def _precompile(self, args, kwargs, configs):
        """Compiles every candidate in parallel. Each config's pre_hook
        runs just before that config is specialised; failures are left for
        the timed run to meet (and report to post_hook)."""
        jobs = []
        for config in configs:
            current = dict(kwargs, **config.all_kwargs())
            if config.pre_hook:
                config.pre_hook({**self.nargs, **current})
            target = _specialise(self.fn, args, _meta(current))
            if target is None:
                return
            fn, f_args, f_kwargs = target
            try:
                jobs.append(fn._specialization(f_args, f_kwargs))
            except Exception:
                continue   # the timed run raises it again, with the hooks
        workers = builtins.max(1, builtins.min(len(jobs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for future in [pool.submit(fn._compile_specialization, *job)
                           for job in jobs]:
                future.exception()

    # -- timing ---------------------------------------------------------------

    def _bench(self, *args, config, **meta):
        conflicts = meta.keys() & config.kwargs.keys()
        if conflicts:
            raise ValueError("Conflicting meta-parameters: %s. Make sure that "
                             "you don't re-define auto-tuned symbols."
                             % ", ".join(sorted(conflicts)))
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as e:
                try:
                    self.post_hook(full_nargs, exception=e)
                finally:
                    raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except _SKIPPED as e:
            self._say("skipping %s: %s" % (config, str(e).splitlines()[0]))
            return [float("inf")] * 3

    # -- the disk record ------------------------------------------------------

    def _disk_path(self, key, configs):
        if (not self.cache_results or not cache.enabled() or
                any(c.pre_hook for c in configs)):
            return None
        text = "\n".join([cache.compiler_fingerprint(), self.base_fn.deps_key,
                          repr(key)] + [str(c) for c in configs])
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
        return config if str(config) == record.get("config") else None

    def _store(self, path, configs, best):
        if path is None:
            return
        record = {"index": configs.index(best), "config": str(best),
                  "timings_ms": {str(c): t for c, t in
                                 self.configs_timings.items()}}
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump(record, f, indent=1)
            os.replace(tmp, path)
        except OSError:
            pass   # a read-only cache only costs the next process a re-tune

    # -- the launch -------------------------------------------------------------

    def _tuning_key(self, args, meta):
        """The key a choice is kept under: the key arguments' values and
        the dtypes of the tensors among all arguments (`args` positional,
        `meta` by keyword)."""
        if not meta and all(i < len(args) for i in self._key_positions) \
                and len(self._key_positions) == len(self.keys):
            # Every key argument positional: no binding to build.
            values = [args[i] for i in self._key_positions]
            named = args[:len(self.arg_names)]
        else:
            all_args = {**dict(zip(self.arg_names, args)), **meta}
            bound = {k: v for k, v in all_args.items()
                     if k in self.arg_names}
            for name in self.keys:
                if name not in bound:
                    raise TypeError("autotune key '%s' is not an argument of "
                                    "%s" % (name, self.base_fn.__name__))
            values = [bound[name] for name in self.keys]
            named = bound.values()
        return tuple(values + [str(v.dtype) for v in named
                               if hasattr(v, "dtype")])

    def _config_kwargs_of(self, config):
        """(config, its keyword arguments), made once per config."""
        # Keyed by the config object: hashing a Config builds its identity.
        made = self._config_kwargs.get(id(config))
        if made is None or made[0] is not config:
            made = self._config_kwargs[id(config)] = (config,
                                                      config.all_kwargs())
        return made

    def _remember(self, args, kwargs, config):
        """Tells the C++ launch path the config of a launch it can key:
        positional arguments only, a launch (not a warmup)."""
        if (self._choices is None or len(kwargs) != 2 or
                kwargs.get("warmup", True)):
            return
        made = self._config_kwargs_of(config)[1]
        self._choices.remember(args, config, tuple(made), tuple(made.values()))

    def _chosen(self, args, kwargs):
        """(config, its keyword arguments) for a launch whose key was tuned
        before and that leaves the full path nothing to do: no keyword
        arguments but the grid, no pre_hook; None otherwise."""
        if len(kwargs) != 2 or kwargs.get("warmup", True):
            return None
        try:
            config = self.cache.get(self._tuning_key(args, {}))
        except TypeError:   # unhashable or missing: the full path says so
            return None
        if config is None or config.pre_hook is not None:
            return None
        return self._config_kwargs_of(config)

    def run(self, *args, **kwargs):
        if len(self.configs) > 1 and not self.base_fn.interpreted:
            chosen = self._chosen(args, kwargs)
            if chosen is not None:
                self.best_config = chosen[0]
                self._remember(args, kwargs, chosen[0])
                return self.fn[kwargs["grid"]](*args, **chosen[1])
        self.nargs = dict(zip(self.arg_names, args))
        try:
            if self.base_fn.interpreted and len(self.configs) > 1:
                # Timings in the interpreter say nothing about the GPU: run
                # the first candidate, and keep no choice.
                config = self.prune_configs(_meta(kwargs))[0]
            elif len(self.configs) > 1:
                key = self._tuning_key(args, _meta(kwargs))
                if key not in self.cache:
                    self._tune(key, args, kwargs)
                config = self.cache[key]
            else:
                config = self.configs[0]
            self.best_config = config
            if config.pre_hook is not None:
                config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
            elif len(self.configs) > 1 and not self.base_fn.interpreted:
                self._remember(args, kwargs, config)
            return _launch(self.fn, args, {**kwargs, **config.all_kwargs()})
        finally:
            self.nargs = None

    def _tune(self, key, args, kwargs):
        meta = _meta(kwargs)
        configs = self.prune_configs(meta)
        path = self._disk_path(key, configs)
        best = self._load(path, configs)
        if best is not None:
            self.cache[key] = best
            return
        start = time.time()
        if not kwargs.get("warmup"):
            bench_kwargs = dict(kwargs, warmup=False)
        else:
            bench_kwargs = kwargs
        self._precompile(args, bench_kwargs, configs)
        timings = {c: self._bench(*args, config=c, **bench_kwargs)
                   for c in configs}
        self.bench_time = time.time() - start
        best = builtins.min(timings, key=lambda c: _first(timings[c]))
        self.cache[key] = best
        self.configs_timings = timings
        self.pre_hook({**self.nargs, **kwargs, **best.all_kwargs()},
                      reset_only=True)
        runnable = sum(1 for t in timings.values() if _first(t) != float("inf"))
        self._say("best of %d configs after %.2fs: %s" % (
            runnable, self.bench_time, best))
        self._store(path, configs, best)

    def warmup(self, *args, grid=None, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        try:
            return [self.fn.warmup(*args, grid=grid, **kwargs,
                                   **config.all_kwargs())
                    for config in self.prune_configs(kwargs)]
        finally:
            self.nargs = None

    def __getattr__(self, name):
        return getattr(self.fn, name)


class _ChoiceCache(dict):
    """Autotuner.cache: a dict whose every change also clears the C++
    launch path's choices (which Autotuner.run fills again)."""

    def __init__(self, items, choices):
        super().__init__(items)
        self._choices = choices

    def _changed(self):
        if self._choices is not None:
            self._choices.clear()

    def __setitem__(self, key, config):
        # A new key changes no choice the C++ path holds.
        if key in self:
            self._changed()
        dict.__setitem__(self, key, config)


def _clearing(name):
    method = getattr(dict, name)

    def changed(self, *args, **kwargs):
        self._changed()
        return method(self, *args, **kwargs)
    changed.__name__ = name
    return changed


for _name in ("__delitem__", "clear", "pop", "popitem", "update",
              "__ior__"):
    setattr(_ChoiceCache, _name, _clearing(_name))


def _meta(kwargs):
    """The launch's keyword arguments without the grid and warmup flag."""
    return {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}


def _first(timing):
    return timing[0] if isinstance(timing, (list, tuple)) else timing


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None,
             restore_value=None, pre_hook=None, post_hook=None, warmup=None,
             rep=None, use_cuda_graph=False, do_bench=None,
             cache_results=False):
    """`@tile.autotune(configs=[tile.Config(...)], key=['n'])`, with
    triton.autotune's arguments and semantics. The choice is also kept on
    disk when `cache_results` (or knobs.autotuning.cache, on unless
    TILE_CACHE_AUTOTUNING=0) and no config has a pre_hook."""
    def decorator(fn):
        if not isinstance(fn, (JITFunction, KernelInterface)):
            raise TypeError("tile.autotune decorates a @tile.jit function")
        return Autotuner(fn, fn.arg_names, configs, key, reset_to_zero,
                         restore_value, pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup,
                         rep=rep, use_cuda_graph=use_cuda_graph,
                         do_bench=do_bench, cache_results=cache_results)
    return decorator
