"""Triton's runtime API on the CPU (recording launcher, no GPU): warmup and
compiled-kernel metadata, launch options and their errors, None arguments,
knobs hooks, the autotuner's hook order, restore/reset, pruning and
heuristics stacking, and the driver object without a driver."""

import pytest

import tile
import tile.language as tl
from tile.runtime.launcher import use_launcher
from launch_helpers import FakeTensor, Recorder


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    # Autotuning choices persist on disk: each test starts with none.
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def recorder():
    with use_launcher(Recorder()) as r:
        yield r


@tile.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2,
             mask=offs < n)


@tile.jit
def optional_bias(x_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if b_ptr is not None:
        x += tl.load(b_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x, mask=offs < n)


def block_of(kernel):
    return int(kernel.asm["tile"].split("end = ")[1].split(" ")[0])


# -- warmup and compiled kernels ----------------------------------------------

def test_warmup_compiles_without_launching(recorder):
    scale.cache.clear()
    compiled = scale.warmup(FakeTensor(4096), 100, BLOCK=64, grid=(1,))
    assert not recorder.launches
    assert isinstance(compiled, tile.compiler.compiler.CompiledKernel)
    # Triton's metadata reads as attributes and as a dict; asm has every stage.
    assert compiled.metadata.shared == compiled.metadata["shared"]
    assert compiled.metadata.num_warps == 4 and compiled.metadata.num_ctas == 1
    assert compiled.metadata.name == compiled.name
    assert {"tile", "tilegpu", "llir", "ptx", "cubin"} <= set(compiled.asm)
    assert compiled.asm["ttir"] == compiled.asm["tile"]
    # A dtype stands for a tensor of that dtype; it is the same specialization.
    assert len(scale.device_caches[0][0]) == 1
    scale[(1,)](FakeTensor(4096), 100, BLOCK=64)
    assert len(scale.cache) == 1 and len(recorder.launches) == 1
    # compiled[grid](*args) launches with every argument, constexprs too.
    compiled[(3,)](FakeTensor(8192), 100, 64)
    assert recorder.launches[-1][1] == (3, 1, 1)
    assert recorder.launches[-1][0] is compiled
    # Triton < 3.3's form (FlagGems picks it by version): no constexprs.
    compiled[(2,)](FakeTensor(8192), 100)
    assert recorder.launches[-1][1] == (2, 1, 1)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        compiled[(2,)](FakeTensor(8192))
    # The function's inspect.Signature, as Triton keeps it.
    assert list(scale.signature.parameters) == scale.arg_names


def test_none_argument_is_a_constexpr_none(recorder):
    optional_bias.cache.clear()
    x = FakeTensor(4096)
    optional_bias[(1,)](x, None, 10, BLOCK=16)
    optional_bias[(1,)](x, FakeTensor(8192), 10, BLOCK=16)
    without, with_bias = [k for k, _, _ in recorder.launches]
    assert without.signature == "pi" and with_bias.signature == "ppi"
    assert without.asm["tile"].count("tile.load") == 1
    assert with_bias.asm["tile"].count("tile.load") == 2
    # The C++ dispatcher keys None itself: a second call compiles nothing.
    optional_bias[(1,)](x, None, 10, BLOCK=16)
    assert len(optional_bias.cache) == 2
    assert recorder.launches[-1][2] == [x, 10]


def test_do_not_specialize_on_alignment(recorder):
    @tile.jit(do_not_specialize_on_alignment=["n"])
    def k(x_ptr, n, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), n)

    for n in (1, 2, 16, 32):
        k[(1,)](FakeTensor(4096), n, BLOCK=16)
    # 1 is still a constant; alignment (16, 32) no longer splits the rest.
    assert len(k.cache) == 2


# -- launch options ----------------------------------------------------------

def test_launch_options_reach_the_compile(recorder):
    scale.cache.clear()
    scale[(1,)](FakeTensor(4096), 100, BLOCK=64, num_ctas=2, maxnreg=64)
    compiled = recorder.launches[-1][0]
    assert compiled.metadata.num_ctas == 2 and compiled.metadata.maxnreg == 64
    assert ".reqnctapercluster 2, 1, 1" in compiled.asm["ptx"]
    assert ".maxnreg 64" in compiled.asm["ptx"]
    scale[(1,)](FakeTensor(4096), 100, BLOCK=64, launch_pdl=True,
                launch_cooperative_grid=True)
    compiled = recorder.launches[-1][0]
    assert compiled.metadata.launch_pdl and compiled.metadata.launch_cooperative_grid
    assert len(scale.cache) == 2


@pytest.mark.parametrize("options,error,message", [
    ({"num_ctas": 3}, ValueError, r"num_ctas must be 1, 2, 4 or 8 .*got 3"),
    ({"maxnreg": 7}, ValueError, r"maxnreg must be None or an integer in \[16, 255\].*got 7"),
    ({"num_warps": 3}, ValueError, "num_warps must be a power of 2"),
    ({"launch_pdl": 1}, TypeError, "launch_pdl must be True or False"),
    ({"extern_libs": {"libdevice": "x.bc"}}, ValueError,
     "the launch option extern_libs is not supported: tile links CUDA's libdevice"),
    ({"bogus": 1}, TypeError,
     r"unexpected argument 'bogus'.*launch options num_warps, num_stages, num_ctas, maxnreg"),
])
def test_bad_launch_options_name_the_option(recorder, options, error, message):
    with pytest.raises(error, match=message):
        scale[(1,)](FakeTensor(4096), 100, BLOCK=64, **options)
    with pytest.raises(error, match=message):
        scale.warmup(FakeTensor(4096), 100, BLOCK=64, grid=(1,), **options)
    assert not recorder.launches


# -- knobs ---------------------------------------------------------------------

def test_compile_hooks_and_launch_hooks(recorder):
    @tile.jit(launch_metadata=lambda grid, kernel, args: {"n": args["n"]})
    def k(x_ptr, n, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), n)

    compiles, posts, launches = [], [], []
    with tile.knobs.runtime.scope():
        tile.knobs.runtime.jit_cache_hook = lambda **kw: compiles.append(kw)
        tile.knobs.runtime.jit_post_compile_hook = lambda **kw: posts.append(kw)
        tile.knobs.runtime.launch_enter_hook.add(
            lambda metadata: launches.append(metadata.get()))
        for n in (5, 6):
            k[(2, 3)](FakeTensor(4096), n, BLOCK=16, num_warps=2)
        k.warmup(FakeTensor(4096), 5, BLOCK=32, grid=(1,))
    assert len(compiles) == 2 and len(posts) == 2
    assert compiles[0]["compile"]["num_warps"] == 2
    assert compiles[0]["is_manual_warmup"] is False
    assert compiles[1]["compile"]["is_warmup"] is True
    assert compiles[0]["key"] in k.device_caches[0][0]
    assert [m["n"] for m in launches] == [5, 6]
    assert launches[0]["grid"] == (2, 3, 1)
    # The scope restored the hooks.
    assert not tile.knobs.runtime.launch_enter_hook
    assert tile.knobs.runtime.jit_cache_hook is None


def test_a_declining_cache_hook_skips_the_compile(recorder):
    scale.cache.clear()
    with tile.knobs.runtime.scope():
        tile.knobs.runtime.jit_cache_hook = lambda **kw: True
        assert scale.warmup(FakeTensor(4096), 3, BLOCK=128, grid=(1,)) is None
    assert not scale.cache


def test_knobs_mirror_the_environment(monkeypatch):
    monkeypatch.setenv("TILE_DEBUG", "1")
    assert tile.knobs.runtime.debug is True
    with tile.knobs.runtime.scope():
        tile.knobs.runtime.debug = False
        assert tile.knobs.runtime.debug is False
    assert tile.knobs.runtime.debug is True
    monkeypatch.setenv("TILE_CACHE_DIR", "/some/where")
    assert tile.knobs.cache.dir == "/some/where"


def test_debug_option_compiles_asserts():
    @tile.jit
    def k(x_ptr):
        tl.device_assert(tl.load(x_ptr) == 1, "x == 1")

    quiet = k.warmup(FakeTensor(4096), grid=(1,))
    loud = k.warmup(FakeTensor(4096), grid=(1,), debug=True)
    assert "tile.assert" not in quiet.asm["ttir"]
    assert "tile.assert" in loud.asm["ttir"]


# -- autotuner -----------------------------------------------------------------

class ValueTensor(FakeTensor):
    """A FakeTensor holding one number, with the methods restore and reset
    use."""

    def __init__(self, ptr, value=0):
        super().__init__(ptr)
        self.value = value

    def zero_(self):
        self.value = 0

    def clone(self):
        return ValueTensor(self._ptr, self.value)

    def copy_(self, other):
        self.value = other.value


class Incrementer(Recorder):
    """A launcher whose 'kernel' adds 1 to its first argument."""

    def launch(self, kernel, grid, args):
        super().launch(kernel, grid, args)
        args[0].value += 1


def bench_once(fn, quantiles):
    fn()
    return [1.0, 1.0, 1.0]


def test_restore_value_and_reset_to_zero():
    configs = [tile.Config({"BLOCK": b}) for b in (32, 64, 128)]
    with use_launcher(Incrementer()):
        restored = tile.autotune(configs, key=["n"], restore_value=["x_ptr"],
                                 do_bench=bench_once)(scale)
        x = ValueTensor(4096, value=10)
        restored[(1,)](x, 100)
        # Each timed run was undone: only the real launch counts.
        assert x.value == 11
        reset = tile.autotune(configs, key=["n"], reset_to_zero=["x_ptr"],
                              do_bench=bench_once)(scale)
        y = ValueTensor(8192, value=10)
        reset[(1,)](y, 101)
        # Zeroed before each timed run and once more before the launch.
        assert y.value == 1


def test_config_pre_hook_runs_before_specialisation(recorder, monkeypatch):
    # The common pattern: a descriptor built with a placeholder block shape,
    # which each config's hook sets. Each config compiles with its own.
    @tile.jit
    def copy(in_desc, out_desc, BM: tl.constexpr):
        pid = tl.program_id(0)
        out_desc.store([pid * BM, 0], in_desc.load([pid * BM, 0]))

    monkeypatch.setattr(tile._C, "encode_tensor_map", lambda *a: b"m" * 128)
    x, y = FakeTensor(4096, "torch.float16"), FakeTensor(8192, "torch.float16")
    a = tile.TensorDescriptor(x, [256, 64], [64, 1], [1, 1])
    b = tile.TensorDescriptor(y, [256, 64], [64, 1], [1, 1])
    order = []

    def set_blocks(nargs):
        order.append(("hook", nargs["BM"]))
        nargs["in_desc"].block_shape = [nargs["BM"], 64]
        nargs["out_desc"].block_shape = [nargs["BM"], 64]

    tuned = tile.autotune([tile.Config({"BM": bm}, pre_hook=set_blocks)
                           for bm in (64, 128)], key=[],
                          do_bench=bench_once)(copy)
    tuned[lambda m: (256 // m["BM"],)](a, b)
    blocks = {k.asm["tile"].count("tensor<%dx64xf16>" % bm) > 0 and bm
              for k, _, _ in recorder.launches for bm in (64, 128)} - {False}
    assert blocks == {64, 128}
    assert len(copy.cache) == 2
    # The winner's hook ran again before the real launch.
    assert order[-1][0] == "hook"


def test_autotune_hooks_see_failures():
    events = []
    configs = [tile.Config({"BLOCK": 48}), tile.Config({"BLOCK": 64})]

    def post(nargs, exception):
        events.append(type(exception).__name__ if exception else None)

    with use_launcher(Recorder()):
        tuned = tile.autotune(configs, key=["n"], do_bench=bench_once,
                              pre_hook=lambda nargs, reset_only=False: None,
                              post_hook=post)(scale)
        tuned[(1,)](FakeTensor(4096), 17)
    # BLOCK=48 cannot compile (arange needs a power of two): post_hook saw it,
    # the config was skipped, and the other won.
    assert events == ["CompilationError", None]
    assert tuned.best_config.kwargs == {"BLOCK": 64}


def test_prune_configs_by():
    seen = {}

    def early(configs, named_args, **kwargs):
        seen["named"], seen["kwargs"] = sorted(named_args), kwargs
        return configs[1:]

    def model(**kwargs):
        seen.setdefault("model", []).append(kwargs["BLOCK"])
        return -kwargs["BLOCK"]

    configs = [tile.Config({"BLOCK": b}) for b in (16, 32, 64, 128)]
    with use_launcher(Recorder()) as recorder:
        tuned = tile.autotune(configs, key=["n"], do_bench=bench_once,
                              prune_configs_by={"early_config_prune": early,
                                                "perf_model": model,
                                                "top_k": 2})(scale)
        tuned[(1,)](FakeTensor(4096), n=1000)
    assert seen["named"] == ["x_ptr"] and seen["kwargs"]["n"] == 1000
    assert sorted(seen["model"]) == [32, 64, 128]
    assert {block_of(k) for k, _, _ in recorder.launches} == {64, 128}
    with pytest.raises(tile.TritonError, match="No valid autotuner configs"):
        tile.autotune(configs, key=["n"], do_bench=bench_once,
                      prune_configs_by={"early_config_prune":
                                        lambda c, a, **k: []})(scale)[(1,)](
            FakeTensor(4096), 10)


@pytest.mark.parametrize("heuristics_above", [False, True])
def test_heuristics_stack_above_or_below_autotune(recorder, heuristics_above):
    configs = [tile.Config({"BLOCK": b}) for b in (32, 64)]
    rule = tile.heuristics({"N_STAGES": lambda args: args["n"] // 100})

    @tile.jit
    def k(x_ptr, n, N_STAGES: tl.constexpr, BLOCK: tl.constexpr):
        tl.static_assert(N_STAGES == 3)
        tl.store(x_ptr + tl.arange(0, BLOCK), n)

    tune = tile.autotune(configs, key=["n"], do_bench=bench_once)
    fn = rule(tune(k)) if heuristics_above else tune(rule(k))
    fn[(1,)](FakeTensor(4096), 300)
    assert {block_of(c) for c, _, _ in recorder.launches} == {32, 64}


# -- the driver ------------------------------------------------------------------

def test_driver_is_lazy_and_says_when_there_is_no_gpu():
    from tile.runtime.driver import DriverConfig
    from tile.backends.driver import DriverBase
    config = DriverConfig()
    assert config._active is None
    assert isinstance(config.active, DriverBase)
    if tile._C.driver_available()[0]:
        pytest.skip("a CUDA driver is present")
    with pytest.raises(RuntimeError, match="no CUDA driver"):
        config.active.get_current_target()
    with pytest.raises(RuntimeError, match="no CUDA driver"):
        config.active.utils.get_device_properties(0)


# -- globals and constexpr functions ----------------------------------------------

SCALE = tl.constexpr(3)


@tile.constexpr_function
def doubled(x):
    return 2 * x


def test_changed_global_is_an_error_not_a_stale_kernel(recorder):
    global SCALE

    @tile.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), SCALE * doubled(BLOCK))

    k[(1,)](FakeTensor(4096), BLOCK=16)
    assert "9.600000e+01" in recorder.launches[0][0].asm["tile"]
    assert [name for name, _ in k.used_global_vals] == ["SCALE"]
    SCALE = tl.constexpr(4)
    try:
        # Both paths (the C++ dispatcher's and Python's) check.
        with pytest.raises(RuntimeError, match="Global variable SCALE has "
                           "changed since we compiled this kernel"):
            k[(1,)](FakeTensor(4096), BLOCK=16)
        with pytest.raises(RuntimeError, match="Global variable SCALE"):
            k.run(FakeTensor(4096), BLOCK=16, grid=(1,), warmup=False)
    finally:
        SCALE = tl.constexpr(3)
    k[(1,)](FakeTensor(4096), BLOCK=16)


def test_constexpr_function_source_is_in_the_key():
    @tile.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), doubled(BLOCK))

    before = k.cache_key
    original = doubled.src
    doubled._unsafe_update_src(original.replace("2 * x", "3 * x"))
    try:
        k.hash = None   # as in Triton: the memoised key is dropped by hand
        assert k.cache_key != before
        assert doubled(tl.constexpr(5)) == 15
    finally:
        doubled._unsafe_update_src(original)
    k.hash = None
    assert k.cache_key == before

    @tile.constexpr_function
    def reads_the_device():
        return tile.runtime.driver.active.get_current_target()

    with pytest.raises(RuntimeError, match="not a constexpr function"):
        reads_the_device.cache_key


def test_async_compile_mode(recorder):
    import concurrent.futures

    @tile.jit
    def k(x_ptr, a: tl.constexpr):
        tl.store(x_ptr, a)

    class Queue(concurrent.futures.Executor):
        """Runs nothing until told to."""

        def __init__(self):
            self.jobs = []

        def submit(self, fn):
            future = concurrent.futures.Future()
            self.jobs.append((future, fn))
            return future

        def run_one(self):
            future, fn = self.jobs.pop(0)
            future.set_result(fn())

    queue = Queue()
    x = FakeTensor(4096)
    with tile.AsyncCompileMode(queue):
        for a in (0, 1, 0, 1):
            k.warmup(x, a, grid=(1,))
        assert len(queue.jobs) == 2 and not k.cache   # submitted once each
        queue.run_one()
        k[(1,)](x, 0)                                 # collects its compile
        assert len(k.cache) == 1 and len(recorder.launches) == 1
        queue.run_one()
    assert len(k.cache) == 2                           # collected on exit


def test_preload_recompiles_the_same_specialization(recorder):
    @tile.jit
    def k(x_ptr, n, BLOCK: tl.constexpr, KIND: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), n)

    data = []
    with tile.knobs.runtime.scope():
        tile.knobs.runtime.jit_cache_hook = \
            lambda **kw: data.append(kw["compile"]["specialization_data"])
        first = k.warmup(FakeTensor(4096), 17, BLOCK=32, KIND=tl.float16,
                         grid=(1,))
    k.cache.clear()
    again = k.preload(data[0])
    assert again.hash == first.hash and len(k.cache) == 1
    with pytest.raises(RuntimeError, match="Specialization data is for"):
        scale.preload(data[0])


def test_debug_knob_reaches_warm_launches(recorder):
    @tile.jit
    def k(x_ptr):
        tl.device_assert(tl.load(x_ptr) == 1, "x == 1")

    x = FakeTensor(4096)
    k[(1,)](x)
    k[(1,)](x)    # warm: the C++ table has it
    with tile.knobs.runtime.scope():
        tile.knobs.runtime.debug = True
        k[(1,)](x)
    k[(1,)](x)
    asserts = ["tile.assert" in kernel.asm["tile"]
               for kernel, _, _ in recorder.launches]
    assert asserts == [False, False, True, False]


@tile.jit
def mul_add(x_ptr):
    offs = tl.arange(0, 128)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 1.5 + 1.0)


@pytest.mark.parametrize("fusion", [False, True])
def test_language_knob_sets_the_fp_fusion_default(recorder, fusion):
    # knobs.language.default_fp_fusion is enable_fp_fusion's default (as in
    # Triton); an option named at the launch wins.
    with tile.knobs.language.scope():
        tile.knobs.language.default_fp_fusion = fusion
        warm = mul_add.warmup(FakeTensor(4096), grid=(1,))
        named = mul_add.warmup(FakeTensor(4096), grid=(1,),
                               enable_fp_fusion=not fusion)
        compiled = tile.compile(mul_add, signature={"x_ptr": "*fp32"})
    assert ("fma.rn.f32" in warm.asm["ptx"]) == fusion
    assert warm.metadata.enable_fp_fusion == fusion
    assert ("fma.rn.f32" in named.asm["ptx"]) == (not fusion)
    assert ("fma.rn.f32" in compiled.asm["ptx"]) == fusion
    assert tile.knobs.language.default_fp_fusion is True


def test_num_warps_not_a_power_of_two_is_a_value_and_assertion_error(recorder):
    # ValueError names the option; Triton asserts, and code written for it
    # catches AssertionError: the error is both.
    for error in (ValueError, AssertionError):
        with pytest.raises(error, match="num_warps must be a power of 2"):
            scale.warmup(FakeTensor(4096), 100, BLOCK=64, grid=(1,), num_warps=3)


@pytest.mark.parametrize("arch, target", [("sm80", "sm_80"), ("sm90", "sm_90a"),
                                          (80, "sm_80"), ("sm_86", "sm_86")])
def test_arch_option_and_override_arch_knob(recorder, arch, target):
    # Triton's arch= option and knobs.runtime.override_arch pick the target.
    compiled = scale.warmup(FakeTensor(4096), 100, BLOCK=64, grid=(1,), arch=arch)
    assert compiled.metadata.target == target
    assert ".target %s" % target in compiled.asm["ptx"]
    with tile.knobs.runtime.scope():
        tile.knobs.runtime.override_arch = str(arch)
        assert scale.warmup(FakeTensor(4096), 100, BLOCK=64,
                            grid=(1,)).metadata.target == target
        if target != "sm_90a":
            with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+"):
                scale.warmup(FakeTensor(4096), 100, BLOCK=64, grid=(1,), num_ctas=2)


def test_bad_arch_names_the_option(recorder):
    with pytest.raises(ValueError, match="arch='gfx942': tile compiles for NVIDIA"):
        scale.warmup(FakeTensor(4096), 100, BLOCK=64, grid=(1,), arch="gfx942")
    with pytest.raises(ValueError, match="name the architecture once"):
        scale.warmup(FakeTensor(4096), 100, BLOCK=64, grid=(1,), arch="sm80",
                     target="sm_80")


# -- jit(repr=...) names the compiled kernel ---------------------------------

def _named(specialization):
    ty = specialization.signature["value"]
    ones = "_".join(k for k, v in specialization.constants.items() if v == 1)
    return "kernel_%s_%s" % (ty, ones)


@tile.jit(repr=_named)
def named_kernel(value, is_one, x_ptr):
    tl.store(x_ptr, value + is_one)


@pytest.mark.parametrize("value,ty", [(-1, "i32"), (2**31, "i64"),
                                      (2**63, "u64")])
def test_repr_names_the_kernel(recorder, value, ty):
    compiled = named_kernel.warmup(value, 1, FakeTensor(4), grid=(1,))
    assert compiled.name == "kernel_%s_is_one" % ty
    assert ".entry kernel_%s_is_one(" % ty in compiled.asm["ptx"]
    # A launch finds the kernel under that name.
    named_kernel[(1,)](value, 1, FakeTensor(4))
    assert recorder.launches


def test_repr_text_becomes_a_valid_symbol(recorder):
    @tile.jit(repr=lambda s: "3 odd:name")
    def k(x_ptr):
        tl.store(x_ptr, 1.0)

    assert k.warmup(FakeTensor(4), grid=(1,)).name == "_3_odd_name"
