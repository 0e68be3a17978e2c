"""Config, heuristics and autotune over the JIT launch path (stub launcher,
injected timings: no GPU needed)."""

import pytest

import tile
import tile.language as tl
from tile.runtime.launcher import use_launcher
from launch_helpers import FakeTensor, Recorder


@tile.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * 2, mask=offs < n)


@tile.jit
def scale_kernel_unused(x_ptr, n, BLOCK: tl.constexpr, UNUSED: tl.constexpr):
    tl.static_assert(UNUSED == BLOCK)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def block_of(kernel):
    return int(kernel.asm["tile"].split("end = ")[1].split(" ")[0])


def test_autotune_picks_the_fastest_and_caches_per_key():
    timings = {64: 3.0, 128: 1.0, 256: 2.0}
    seen = []

    def fake_bench(fn, quantiles):
        before = len(recorder.launches)
        fn()
        block = block_of(recorder.launches[before][0])
        seen.append(block)
        return timings[block]

    tuned = tile.autotune(configs=[tile.Config({"BLOCK": b}, num_warps=4)
                                   for b in (64, 128, 256)],
                          key=["n"], do_bench=fake_bench)(scale_kernel)
    with use_launcher(Recorder()) as recorder:
        x = FakeTensor(4096)
        tuned[lambda m: (tile.cdiv(m["n"], m["BLOCK"]),)](x, 1000)
        assert sorted(seen) == [64, 128, 256]
        assert tuned.best_config.kwargs == {"BLOCK": 128}
        assert block_of(recorder.launches[-1][0]) == 128
        tuned[(1,)](x, 1000)                      # same key: no re-tuning
        assert len(seen) == 3
        tuned[(1,)](x, 2048)                      # new key: tunes again
        assert len(seen) == 6


def test_prune_configs():
    def fake_bench(fn, quantiles):
        fn()
        return 1.0

    configs = [tile.Config({"BLOCK": b}) for b in (32, 64, 128, 256)]
    tuned = tile.autotune(configs=configs, key=["n"], do_bench=fake_bench,
                          prune_configs_by={"early_config_prune":
                                            lambda cs, args, **kw: [
                                                c for c in cs
                                                if c.kwargs["BLOCK"] >= 128]})(
        scale_kernel)
    with use_launcher(Recorder()) as recorder:
        tuned[(1,)](FakeTensor(4096), 100)
    assert {block_of(k) for k, _, _ in recorder.launches} == {128, 256}


def test_autotuned_argument_passed_explicitly_is_an_error():
    tuned = tile.autotune(configs=[tile.Config({"BLOCK": b}) for b in (64, 128)],
                          key=["n"],
                          do_bench=lambda fn, quantiles: 1.0)(scale_kernel)
    with use_launcher(Recorder()):
        with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
            tuned[(1,)](FakeTensor(4096), 100, BLOCK=32)


def test_heuristics_compute_constexprs():
    kernel = tile.heuristics({"BLOCK": lambda args: tile.next_power_of_2(args["n"])})(
        scale_kernel)
    with use_launcher(Recorder()) as recorder:
        kernel[(1,)](FakeTensor(4096), 100)
    assert block_of(recorder.launches[0][0]) == 128


def test_tuned_and_heuristic_launches_take_the_dispatcher(monkeypatch):
    """Once a config is chosen, a launch of an autotuned (or heuristics)
    kernel goes through the C++ dispatcher, not JITFunction.run's Python
    binding and specialisation (~50 us a launch, which event timings of a
    short kernel include)."""
    tuned = tile.autotune(configs=[tile.Config({"BLOCK": b}) for b in (64, 128)],
                          key=["n"],
                          do_bench=lambda fn, quantiles: fn() or 1.0)(scale_kernel)
    sized = tile.heuristics({"BLOCK": lambda args: tile.next_power_of_2(
        args["n"])})(scale_kernel)
    with use_launcher(Recorder()) as recorder:
        x = FakeTensor(4096)
        tuned[(1,)](x, 100)
        sized[(1,)](x, 100)
        def python_path(*args, **kwargs):
            raise AssertionError("launched through JITFunction.run")
        monkeypatch.setattr(type(scale_kernel), "run", python_path)
        before = len(recorder.launches)
        tuned[(1,)](x, 100)
        sized[lambda meta: (meta["BLOCK"] // 64,)](x, 100)
        assert len(recorder.launches) == before + 2
        assert recorder.launches[-1][1][0] == 2    # the grid saw BLOCK=128
        monkeypatch.undo()
        assert tuned.warmup(x, 100, grid=(1,))     # a warmup still compiles


def counted_tuner():
    """scale_kernel autotuned over BLOCK 64 and 128 by key n (every config
    timed 1.0), and the list of keys it tunes, in order."""
    tuned_for = []

    def fake_bench(fn, quantiles):
        fn()
        return 1.0

    tuned = tile.autotune(configs=[tile.Config({"BLOCK": b}) for b in (64, 128)],
                          key=["n"], do_bench=fake_bench)(scale_kernel)
    real_tune = tuned._tune

    def counting_tune(key, args, kwargs):
        tuned_for.append(key)
        return real_tune(key, args, kwargs)
    tuned._tune = counting_tune
    return tuned, tuned_for


def test_tuned_launches_key_like_the_tuning():
    """The launch path that skips the Python binding finds the config by
    the same key the tuning stored it under: the key arguments and the
    tensors' dtypes. A new value or dtype tunes again; a keyword argument
    or a pre_hook takes the full path."""
    tuned, tuned_for = counted_tuner()
    with use_launcher(Recorder()):
        f32, f16 = FakeTensor(4096), FakeTensor(4096, dtype="torch.float16")
        for x, n in [(f32, 100), (f32, 100), (f16, 100), (f32, 200),
                     (f16, 100), (f32, 200)]:
            tuned[(1,)](x, n)
    assert tuned_for == [(100, "torch.float32"), (100, "torch.float16"),
                         (200, "torch.float32")]
    assert set(tuned.cache) == set(tuned_for)


def test_tuned_key_launches_without_python_frames(monkeypatch):
    """A launch of a tuned key with positional arguments is keyed and
    launched in C++ (TunedChoices): Autotuner.run is not called, the chosen
    config's values reach the kernel and best_config names it. Keyword
    arguments and new keys go to Autotuner.run."""
    timings = {64: 2.0, 128: 1.0}

    def fake_bench(fn, quantiles):
        before = len(recorder.launches)
        fn()
        return timings[block_of(recorder.launches[before][0])]

    tuned = tile.autotune(configs=[tile.Config({"BLOCK": b}, num_warps=w)
                                   for b, w in ((64, 4), (128, 8))],
                          key=["n"], do_bench=fake_bench)(scale_kernel)
    with use_launcher(Recorder()) as recorder:
        x = FakeTensor(4096)
        tuned[(1,)](x, 100)
        assert tuned._choices.size() == 1
        tuned.best_config = None
        calls = []
        real_run = tuned.run
        monkeypatch.setattr(tuned, "run", lambda *a, **k: calls.append(a) or
                            real_run(*a, **k))
        before = len(recorder.launches)
        tuned[lambda meta: (meta["BLOCK"] // 64, meta["n"])](x, 100)
        assert calls == []
        kernel, grid, _ = recorder.launches[before]
        assert block_of(kernel) == 128 and kernel.metadata["num_warps"] == 8
        assert grid[:2] == (2, 100)
        assert tuned.best_config.kwargs == {"BLOCK": 128}
        # A key argument by keyword, and a new key: the Python path.
        tuned[(1,)](x, n=100)
        tuned[(1,)](x, 300)
        assert len(calls) == 2
        assert tuned._choices.size() == 2
        tuned[(1,)](x, 300)
        assert len(calls) == 2


def test_cpp_tuned_launches_hold_no_extra_references():
    """The C++ launch path keeps one reference to each key object it was
    told of, and none per launch; clearing the tuning cache lets go of it."""
    import sys

    class Discard:
        def launch(self, kernel, grid, args):
            pass

    tuned, _ = counted_tuner()
    x = FakeTensor(4096)
    n = 10 ** 9 + 7        # not a cached small int
    before = sys.getrefcount(n)
    with use_launcher(Discard()):
        tuned[(1,)](x, n)  # tunes (Python), then remembered in C++
        held = sys.getrefcount(n)
        for _ in range(200):
            tuned[(1,)](x, n)
        assert sys.getrefcount(n) == held
        assert tuned._choices.size() == 1
        tuned.cache.clear()
        assert tuned._choices.size() == 0
    assert sys.getrefcount(n) <= before + 1   # the tuner's last nargs/key


def test_changing_the_tuning_cache_drops_the_cpp_choices():
    """Clearing, editing or replacing Autotuner.cache (as Triton users do
    to re-tune) also forgets the C++ choices: the next launch tunes again
    rather than launching the old config."""
    tuned, tuned_for = counted_tuner()
    with use_launcher(Recorder()) as recorder:
        x = FakeTensor(4096)
        tuned[(1,)](x, 100)
        tuned[(1,)](x, 100)
        assert len(tuned_for) == 1 and tuned._choices.size() == 1
        tuned.cache.clear()
        assert tuned._choices.size() == 0
        tuned[(1,)](x, 100)
        assert len(tuned_for) == 2
        # A config set by hand is launched from then on.
        key = next(iter(tuned.cache))
        tuned.cache[key] = tile.Config({"BLOCK": 64})
        tuned[(1,)](x, 100)
        assert block_of(recorder.launches[-1][0]) == 64
        tuned.cache = {}
        tuned[(1,)](x, 100)
        assert len(tuned_for) == 3


def test_config_repr_and_kwargs():
    c = tile.Config({"BLOCK": 64}, num_warps=8, num_stages=2)
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 8, "num_stages": 2,
                              "num_ctas": 1}
    assert str(c) == ("BLOCK: 64, num_warps: 8, num_ctas: 1, num_stages: 2, "
                      "maxnreg: None")
    c = tile.Config({}, num_ctas=2, maxnreg=128)
    assert c.all_kwargs() == {"num_warps": 4, "num_stages": 3, "num_ctas": 2,
                              "maxnreg": 128}
    assert c == tile.Config({}, num_ctas=2, maxnreg=128) and hash(c) == hash(
        tile.Config({}, num_ctas=2, maxnreg=128))


def test_configs_compile_in_parallel_before_benchmarking(capsys):
    # Every candidate is compiled (on a thread pool) before the first one is
    # timed, and the progress lines say so.
    compiled_at_first_bench = []

    def fake_bench(fn, quantiles):
        if not compiled_at_first_bench:
            compiled_at_first_bench.append(len(scale_kernel.cache))
        fn()
        return 1.0

    scale_kernel.cache.clear()
    configs = [tile.Config({"BLOCK": b}, num_warps=w)
               for b in (64, 128, 256) for w in (2, 4)]
    tuned = tile.autotune(configs=configs, key=["n"], do_bench=fake_bench,
                          cache_results=False)(scale_kernel)
    with use_launcher(Recorder()):
        tuned[(1,)](FakeTensor(4096), 321)
    assert compiled_at_first_bench == [6]
    assert "best of 6 configs" in capsys.readouterr().err


def test_winner_persists_on_disk(tmp_path, monkeypatch):
    # A new process (a fresh Autotuner) finds the winner on disk and times
    # nothing; another key, or another candidate list, tunes again.
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    benched = []

    def fake_bench(fn, quantiles):
        before = len(recorder.launches)
        fn()
        block = block_of(recorder.launches[before][0])
        benched.append(block)
        return {64: 2.0, 128: 3.0, 256: 1.0}[block]

    def make(blocks=(64, 128, 256)):
        t = tile.autotune(configs=[tile.Config({"BLOCK": b}) for b in blocks],
                          key=["n"], do_bench=fake_bench,
                          cache_results=True)(scale_kernel)
        return t

    with use_launcher(Recorder()) as recorder:
        make()[(1,)](FakeTensor(4096), 777)
        assert sorted(benched) == [64, 128, 256]
        second = make()
        second[(1,)](FakeTensor(4096), 777)
        assert len(benched) == 3
        assert second.best_config.kwargs == {"BLOCK": 256}
        assert block_of(recorder.launches[-1][0]) == 256
        make()[(1,)](FakeTensor(4096), 778)
        assert len(benched) == 6
        make((64, 128))[(1,)](FakeTensor(4096), 777)
        assert len(benched) == 8
    files = list((tmp_path / "autotune").glob("*.json"))
    assert len(files) == 3


def test_config_that_fails_to_compile_is_skipped(capsys):
    # BLOCK = 48 is not a power of two: tl.arange rejects it. The tuner
    # reports it and picks among the others.
    def fake_bench(fn, quantiles):
        fn()
        return 1.0

    tuned = tile.autotune(configs=[tile.Config({"BLOCK": b}) for b in (48, 64)],
                          key=["n"], do_bench=fake_bench,
                          cache_results=False)(scale_kernel)
    with use_launcher(Recorder()):
        tuned[(1,)](FakeTensor(4096), 55)
    assert tuned.best_config.kwargs == {"BLOCK": 64}
    assert "skipping BLOCK: 48" in capsys.readouterr().err


def test_all_configs_failing_raises_the_compile_error():
    tuned = tile.autotune(configs=[tile.Config({"BLOCK": b}) for b in (48, 96)],
                          key=["n"],
                          do_bench=lambda fn, quantiles: 1.0,
                          cache_results=False)(scale_kernel)
    with use_launcher(Recorder()):
        with pytest.raises(tile.CompilationError):
            tuned[(1,)](FakeTensor(4096), 56)


def test_stacked_heuristics_run_outermost_first_and_launch_once():
    # Libraries stack one @heuristics per flag; inner rules see the outer
    # ones' values, as nesting defines, and the kernel launches once.
    seen = []

    def outer(args):
        seen.append("outer")
        return tile.next_power_of_2(args["n"])

    def inner(args):
        seen.append("inner sees BLOCK=%d" % args["BLOCK"])
        return args["BLOCK"]

    kernel = tile.heuristics({"BLOCK": outer})(
        tile.heuristics({"UNUSED": inner})(scale_kernel_unused))
    with use_launcher(Recorder()) as recorder:
        kernel[(1,)](FakeTensor(4096), 100)
    assert seen == ["outer", "inner sees BLOCK=128"]
    assert len(recorder.launches) == 1
    assert block_of(recorder.launches[0][0]) == 128
