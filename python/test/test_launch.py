"""The JIT launch path, up to the launcher: binding, specialization keys,
the cache, grids and argument errors. A stub launcher records launches."""

import time

import pytest

import tile
import tile.language as tl
from tile import _C
from tile.runtime import launcher
from tile.runtime.launcher import use_launcher
from tile.tools import tensor_descriptor as descriptor_module
from kernels import classic as k
from launch_helpers import FakeTensor, Recorder


@pytest.fixture
def recorder():
    with use_launcher(Recorder()) as r:
        yield r


def fresh(fn):
    fn.cache.clear()
    return fn


def test_launch_compiles_once_per_specialization(recorder):
    add = fresh(k.add_kernel)
    x, y, out = FakeTensor(4096), FakeTensor(8192), FakeTensor(12288)
    add[(4,)](x, y, out, 1000, BLOCK_SIZE=256)
    add[(4,)](x, y, out, 1000, BLOCK_SIZE=256)
    assert len(add.cache) == 1
    kernel, grid, args = recorder.launches[0]
    assert grid == (4, 1, 1)
    assert args == [x, y, out, 1000]
    # 16-byte aligned pointers (and integers divisible by 16) become
    # divisibility facts; 1000 is not a multiple of 16.
    assert kernel.asm["tile"].count("tile.divisibility = 16") == 3
    # An unaligned pointer, another n, another dtype, another constexpr:
    add[(4,)](FakeTensor(4100), y, out, 1000, BLOCK_SIZE=256)
    add[(4,)](x, y, out, 1024, BLOCK_SIZE=256)
    assert recorder.launches[-1][0].asm["tile"].count("tile.divisibility = 16") == 4
    add[(4,)](FakeTensor(4096, "torch.float16"), y, out, 1000, BLOCK_SIZE=256)
    add[(4,)](x, y, out, 1000, BLOCK_SIZE=512)
    assert len(add.cache) == 5
    add[(4,)](x, y, out, 1016, BLOCK_SIZE=256)  # same key as 1000
    assert len(add.cache) == 5


def test_integer_one_is_specialised(recorder):
    add = fresh(k.add_kernel)
    x = FakeTensor(4096)
    add[(1,)](x, x, x, 1, BLOCK_SIZE=128)
    kernel, _, args = recorder.launches[0]
    assert args == [x, x, x]   # n_elements = 1 is compiled in
    assert "arith.constant 1 : i32" in kernel.asm["tile"]


def test_grid_callable_gets_the_meta_parameters(recorder):
    add = fresh(k.add_kernel)
    x = FakeTensor(4096)
    add[lambda meta: (tile.cdiv(1000, meta["BLOCK_SIZE"]),)](x, x, x, 1000,
                                                             BLOCK_SIZE=128)
    assert recorder.launches[0][1] == (8, 1, 1)


@pytest.mark.parametrize("call,error,message", [
    (lambda f, x: f[(1,)](x, x, x, BLOCK_SIZE=8), TypeError,
     "missing the argument 'n_elements'"),
    (lambda f, x: f[(1,)](x, x, x, 10, 11, BLOCK_SIZE=8), TypeError,
     "got two values for argument 'BLOCK_SIZE'"),
    (lambda f, x: f[(1,)](x, x, x, 10, BLOCK_SIZE=8, bogus=1), TypeError,
     "unexpected argument 'bogus'"),
    (lambda f, x: f[(1,)](x, "x", x, 10, BLOCK_SIZE=8), TypeError,
     "argument 'y_ptr' has unsupported type str"),
    # None is a constexpr None (as in Triton): storing through it is a
    # compile error at the kernel's line.
    (lambda f, x: f[(1,)](x, x, None, 10, BLOCK_SIZE=8), tile.CompilationError,
     r"classic.py:\d+:\d+: error: cannot use a NoneType as a tensor"),
    (lambda f, x: f[(1,)](x, FakeTensor(0, is_cuda=False), x, 10, BLOCK_SIZE=8),
     ValueError, "argument 'y_ptr' is a tensor on cpu"),
    (lambda f, x: f[(1,)](x, FakeTensor(0, "torch.complex64"), x, 10, BLOCK_SIZE=8),
     TypeError, "argument 'y_ptr' has unsupported dtype torch.complex64"),
    (lambda f, x: f[(1,)](x, x, x, 2**70, BLOCK_SIZE=8), ValueError,
     "argument 'n_elements' = 1180591620717411303424 does not fit in 64 bits"),
    # Also an OverflowError, as Triton raises (test_value_specialization_overflow).
    (lambda f, x: f[(1,)](x, x, x, 2**64, BLOCK_SIZE=8), OverflowError,
     "argument 'n_elements' = 18446744073709551616 does not fit in 64 bits"),
    (lambda f, x: f[(1,)](x, x, x, -2**63 - 1, BLOCK_SIZE=8), OverflowError,
     "argument 'n_elements' = -9223372036854775809 does not fit in 64 bits"),
])
def test_bad_launch_arguments_name_the_argument(recorder, call, error, message):
    with pytest.raises(error, match=message):
        call(fresh(k.add_kernel), FakeTensor(4096))
    assert not recorder.launches


def test_failed_compile_leaves_the_cache_unharmed(recorder):
    @tile.jit
    def sometimes_bad(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

    x = FakeTensor(4096)
    with pytest.raises(tile.CompilationError):
        sometimes_bad[(1,)](x, BLOCK=100)
    assert sometimes_bad.cache == {}
    sometimes_bad[(1,)](x, BLOCK=128)
    assert len(sometimes_bad.cache) == 1


def test_no_driver_is_one_clear_error():
    """Without a CUDA driver a kernel still compiles; the launch names the
    missing driver and why it would not load."""
    x = FakeTensor(4096)
    with use_launcher(launcher.NoGPULauncher("cannot load it")):
        with pytest.raises(RuntimeError, match=r"CUDA driver \(libcuda.so.1\) "
                           r"is not available on this machine \(cannot load it\)"):
            fresh(k.add_kernel)[(1,)](x, x, x, 10, BLOCK_SIZE=16)


@pytest.mark.skipif(_C.driver_available()[0], reason="a CUDA driver loads here")
def test_no_driver_on_this_machine():
    """The launcher a driverless machine gets by itself."""
    x = FakeTensor(4096)
    saved = launcher._active
    launcher._active = None
    try:
        with pytest.raises(RuntimeError, match="libcuda.so.1"):
            fresh(k.add_kernel)[(1,)](x, x, x, 10, BLOCK_SIZE=16)
    finally:
        launcher._active = saved


def test_warm_path_overhead(recorder, capsys):
    """Front-end cost of a warm launch (stub launcher): reported, and bounded
    loosely so that a regression to compiling on every call fails."""
    add = fresh(k.add_kernel)
    x, y, out = FakeTensor(4096), FakeTensor(8192), FakeTensor(12288)
    add[(4,)](x, y, out, 1000, BLOCK_SIZE=256)
    n = 20000
    launch = add[(4,)]
    start = time.perf_counter()
    for _ in range(n):
        launch(x, y, out, 1000, BLOCK_SIZE=256)
    per_call = (time.perf_counter() - start) / n * 1e6
    with capsys.disabled():
        print("\nwarm launch path (stub launcher): %.2f us/call" % per_call)
    assert len(add.cache) == 1
    assert per_call < 200


def test_do_not_specialize(recorder):
    @tile.jit(do_not_specialize=["n"])
    def scaled(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * n)

    x = FakeTensor(4096)
    scaled[(1,)](x, 1, BLOCK=16)
    scaled[(1,)](x, 32, BLOCK=16)
    scaled[(1,)](x, 7, BLOCK=16)
    # One specialization: 1 is not compiled in, 32 gets no divisibility.
    assert len(scaled.cache) == 1
    assert [args[1] for _, _, args in recorder.launches] == [1, 32, 7]


def test_keyword_arguments_in_any_order_and_defaults(recorder):
    @tile.jit
    def with_default(x_ptr, n, scale=2.0, BLOCK: tl.constexpr = 16):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale,
                 mask=offs < n)

    x = FakeTensor(4096)
    with_default[(1,)](x, 5)
    with_default[(1,)](n=5, x_ptr=x)
    with_default[(1,)](x, 5, 3.0, BLOCK=32)
    assert len(with_default.cache) == 2
    assert [args for _, _, args in recorder.launches] == [
        [x, 5, 2.0], [x, 5, 2.0], [x, 5, 3.0]]


@tile.jit
def descriptor_scale_kernel(in_desc, out_desc, BM: tl.constexpr):
    pid = tl.program_id(0)
    out_desc.store([pid * BM, 0], in_desc.load([pid * BM, 0]) * 2)


def test_tensor_descriptor_arguments(recorder, monkeypatch):
    # A host descriptor specialises on its dtype and block shape (not its
    # address or extent) and travels as a 128-byte parameter ('d').
    # (No driver here to encode maps: a stand-in encoder.)
    monkeypatch.setattr(tile._C, "encode_tensor_map", lambda *a: b"m" * 128)
    kernel = fresh(descriptor_scale_kernel)
    x, y = FakeTensor(4096, "torch.float16"), FakeTensor(8192, "torch.float16")
    a = tile.TensorDescriptor(x, [256, 64], [64, 1], [64, 64])
    b = tile.TensorDescriptor(y, [300, 64], [64, 1], [64, 64])
    kernel[(4,)](a, b, BM=64)
    kernel[(5,)](b, a, BM=64)
    assert len(kernel.cache) == 1
    compiled, grid, args = recorder.launches[-1]
    assert compiled.signature == "dd" and args == [b, a]
    assert "!tile.tensordesc<tensor<64x64xf16>>" in compiled.asm["tile"]
    kernel[(4,)](tile.TensorDescriptor(x, [256, 32], [64, 1], [64, 32]),
                 tile.TensorDescriptor(y, [256, 32], [64, 1], [64, 32]), BM=64)
    assert len(kernel.cache) == 2
    # The C++ dispatcher keys descriptors itself (no Python on warm launches).
    assert kernel._dispatcher.size() == 2


def test_descriptor_launch_form_follows_changes(monkeypatch):
    monkeypatch.setattr(descriptor_module, "_LAUNCH_FORMS", {})
    x = FakeTensor(4096, "torch.float16")
    desc = tile.TensorDescriptor(x, [256, 64], [64, 1], [64, 64])
    calls = []
    desc.encode = lambda: calls.append(1) or b"m" * 128
    first = desc._launch_form("d")
    assert desc._launch_form("d") is first and len(calls) == 1
    desc.block_shape = [64, 32]   # a changed field is encoded again
    assert desc._launch_form("d")[0] == "tensordesc<fp16[64,32]>"
    assert len(calls) == 2


def test_descriptors_of_the_same_fields_share_one_encoding(monkeypatch):
    # A descriptor made afresh for each call (as attention makes its Q, K
    # and V) is encoded once; any field that differs is encoded anew.
    monkeypatch.setattr(descriptor_module, "_LAUNCH_FORMS", {})
    calls = []
    monkeypatch.setattr(descriptor_module.TensorDescriptor, "encode",
                        lambda self: calls.append(1) or bytes(128))
    x, y = FakeTensor(4096, "torch.float16"), FakeTensor(8192, "torch.float16")

    def form(tensor, shape=(256, 64), block=(64, 64), dtype=None):
        if dtype:   # the same address seen as another element type
            tensor = FakeTensor(tensor.data_ptr(), dtype)
        return tile.TensorDescriptor(tensor, shape, [shape[1], 1],
                                     block)._launch_form("d")
    first = form(x)
    assert form(x) is first and len(calls) == 1
    form(y)
    form(x, shape=(128, 128))
    form(x, block=(32, 64))
    form(x, dtype="torch.bfloat16")
    assert len(calls) == 5
    assert form(x, dtype="torch.bfloat16")[0] == "tensordesc<bf16[64,64]>"
    assert len(calls) == 5
    with pytest.raises(ValueError, match="argument 'd': a descriptor's base"):
        form(FakeTensor(4100, "torch.float16"))
    assert len(descriptor_module._LAUNCH_FORMS) == 5


@pytest.mark.parametrize("make, error, message", [
    (lambda x: tile.TensorDescriptor(x, [64, 60], [60, 1], [64, 64]),
     ValueError, "argument 'in_desc': descriptor strides must be multiples of 16 bytes"),
    (lambda x: tile.TensorDescriptor(FakeTensor(4100, "torch.float16"), [64, 64],
                                     [64, 1], [64, 64]),
     ValueError, "argument 'in_desc': a descriptor's base address must be 16-byte aligned"),
    (lambda x: tile.TensorDescriptor(FakeTensor(4096, "torch.complex64"), [64, 64],
                                     [64, 1], [64, 64]),
     TypeError, "argument 'in_desc': TMA cannot copy torch.complex64 elements"),
])
def test_bad_descriptor_arguments_name_the_argument(recorder, make, error, message):
    kernel = fresh(descriptor_scale_kernel)
    x = FakeTensor(4096, "torch.float16")
    good = tile.TensorDescriptor(x, [64, 64], [64, 1], [64, 64])
    with pytest.raises(error, match=message):
        kernel[(1,)](make(x), good, BM=64)


@pytest.mark.parametrize("args, message", [
    (([64, 64], [1, 64], [64, 64]), "last dimension must be contiguous"),
    (([64, 64], [64, 1], [64, 48]), "block dimensions must be powers of two"),
    (([64, 64], [64, 1], [64]), "must have the same length"),
])
def test_tensor_descriptor_checks_its_shape(args, message):
    with pytest.raises(ValueError, match=message):
        tile.TensorDescriptor(FakeTensor(4096, "torch.float16"), *args)


@tile.jit
def made_descriptor_kernel(x_ptr, y_ptr, M, N, row0, BM: tl.constexpr,
                           BN: tl.constexpr):
    # Descriptors made in the kernel from parameters and constants: the
    # launcher encodes them (the second one reads rows from `row0` on, so
    # its base and extent are arithmetic on the parameters).
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1],
                                    block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(y_ptr + row0 * N, [M - row0, N], [N, 1],
                                    [BM, BN])
    again = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    pid = tl.program_id(0)
    dst.store([pid * BM, 0], src.load([pid * BM, 0]) + again.load([0, 0]))


def test_descriptors_made_in_the_kernel_are_trailing_parameters(recorder):
    from tile.runtime.host_values import KernelDescriptor
    kernel = fresh(made_descriptor_kernel)
    x, y = FakeTensor(4096, "torch.float16"), FakeTensor(1 << 20, "torch.float16")
    kernel[(4,)](x, y, 300, 64, 10, BM=64, BN=64)
    compiled, _, args = recorder.launches[-1]
    # The same recipe twice is one parameter.
    assert compiled.signature == "ppiiidd"
    assert len(compiled.metadata["host_descriptors"]) == 2
    assert compiled.asm["tile"].count("!tile.tensordesc<tensor<64x64xf16>> loc") == 2
    assert args[:5] == [x, y, 300, 64, 10]
    src, dst = args[5:]
    assert isinstance(src, KernelDescriptor) and isinstance(dst, KernelDescriptor)
    assert (src.address, src.shape, src.strides, src.block_shape, src.dtype) == (
        x.data_ptr(), [300, 64], [64, 1], [64, 64], "fp16")
    # y_ptr + row0 * N in fp16 elements: 10 rows of 64 halves further.
    assert (dst.address, dst.shape) == (y.data_ptr() + 10 * 64 * 2, [290, 64])
    # New values of the same specialization are recomputed per launch.
    kernel[(4,)](x, y, 500, 64, 20, BM=64, BN=64)
    _, _, args = recorder.launches[-1]
    assert len(kernel.cache) == 1
    assert args[6].shape == [480, 64] and args[6].address == y.data_ptr() + 20 * 128


def test_host_recipes_follow_kernel_integer_semantics():
    from tile.runtime.host_values import evaluate
    args = {"a": -7, "b": 2, "big": 2**31 - 1}
    div = ["int", "//", 32, True, ["arg", "a"], ["arg", "b"]]
    rem = ["int", "%", 32, True, ["arg", "a"], ["arg", "b"]]
    assert evaluate(div, args) == -3 and evaluate(rem, args) == -1  # C, not Python
    wrap = ["int", "+", 32, True, ["arg", "big"], ["const", 1]]
    assert evaluate(wrap, args) == -2**31
    widen = ["int", "+", 64, True, ["cast", 64, True, ["arg", "big"]], ["const", 1]]
    assert evaluate(widen, args) == 2**31


@pytest.mark.parametrize("args, message", [
    ((FakeTensor(4104, "torch.float16"), 64, 64), "argument 'x_ptr': the descriptor "
     "made at .*test_launch.py:[0-9]+ needs a 16-byte aligned base"),
    ((FakeTensor(4096, "torch.float16"), 64, 60), "argument 'x_ptr': .* strides "
     r"\[60, 1\]; they must be positive multiples of 16 bytes"),
    ((FakeTensor(4096, "torch.float16"), 0, 64), r"has shape \[0, 64\]"),
])
def test_bad_values_for_a_kernel_descriptor_name_the_argument(recorder, args,
                                                             message):
    kernel = fresh(made_descriptor_kernel)
    x, n, stride = args
    with pytest.raises(ValueError, match=message):
        kernel[(1,)](x, FakeTensor(1 << 20, "torch.float16"), n, stride, 0,
                     BM=64, BN=64)


def _recipe(base, shape, strides, dtype="fp16"):
    return {"base": base, "shape": shape, "strides": strides,
            "block_shape": [64] * len(shape), "dtype": dtype}


def test_dispatcher_evaluates_recipes_like_python():
    # The warm launch path evaluates descriptor recipes in C++: the same
    # values as tile.runtime.host_values, or None where it defers to Python
    # (which then computes the value or raises the error).
    from tile import _C
    from tile.runtime.host_values import KernelDescriptor
    names = ("p", "a", "b", "big")
    arg = lambda n: ["arg", n]
    i32 = lambda op, x, y: ["int", op, 32, True, x, y]
    cases = [
        _recipe(arg("p"), [arg("a"), arg("b")], [arg("b"), ["const", 1]]),
        # x_ptr + row0 * ld in 2-byte elements; extents after the offset.
        _recipe(["addptr", 2, arg("p"), i32("*", arg("a"), arg("b"))],
                [i32("-", arg("big"), arg("a")), i32("//", arg("b"), ["const", 2])],
                [arg("b"), ["const", 1]]),
        # i32 wrap-around, then widened; C division and remainder.
        _recipe(arg("p"), [["int", "+", 64, True, ["cast", 64, True, i32(
            "+", arg("big"), ["const", 1])], ["const", 2**32]],
            i32("-", ["const", 0], i32("//", ["const", -7], ["const", 2])),
            i32("-", ["const", 0], i32("%", ["const", -7], ["const", 2]))],
            [i32("<<", arg("a"), ["const", 4]), i32("*", arg("a"), ["const", 8]),
             ["const", 1]]),
        # Unsigned shift of a negative i32 pattern.
        _recipe(arg("p"), [["int", ">>", 32, False, ["const", -64], ["const", 26]]],
                [["const", 1]]),
        # Division by zero, an unaligned base: left to Python.
        _recipe(arg("p"), [i32("//", arg("a"), ["const", 0])], [["const", 1]]),
        _recipe(["addptr", 2, arg("p"), ["const", 1]], [arg("a")], [["const", 1]]),
    ]
    values = [1 << 20, 3, 64, 2**31 - 1]
    bound = dict(zip(names, values))
    for recipe in cases:
        got = _C.evaluate_host_recipe(recipe, names, values,
                                      [True, False, False, False])
        try:
            want = KernelDescriptor(recipe, bound)
        except (ValueError, ZeroDivisionError):
            want = None
        if want is None:
            assert got is None, recipe
        else:
            assert got == (want.address, want.shape, want.strides), recipe
    # C division and remainder, i32 wrap-around before the widening.
    assert _C.evaluate_host_recipe(cases[2], names, values, [True, False, False,
                                                             False])[1] == [2**31, 3, 1]


class Numpyish:
    """An integer type with __index__ (numpy's int64, say)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


@pytest.mark.parametrize("grid, error, message", [
    ((1.5,), TypeError, "grid dimension 0 must be an int, got 1.5"),
    ((2, "3"), TypeError, "grid dimension 1 must be an int, got '3'"),
    ("abc", TypeError, "the grid must be a tuple of ints or a callable returning one, got 'abc'"),
    (None, TypeError, "the grid must be a tuple of ints or a callable returning one, got None"),
    ((), ValueError, "the grid needs 1 to 3 dimensions"),
    ((1, 1, 1, 1), ValueError, "the grid needs 1 to 3 dimensions"),
    ((-1,), ValueError, "grid dimension 0 is -1; it must be in [0, 2^31 - 1]"),
    ((2**31,), ValueError, "grid dimension 0 is 2147483648"),
    ((2**70,), ValueError, "grid dimension 0 is 1180591620717411303424"),
])
@pytest.mark.parametrize("path", ["dispatcher", "python"])
def test_bad_grids_say_grid(recorder, grid, error, message, path):
    add = fresh(k.add_kernel)
    x = FakeTensor(4096)
    with pytest.raises(error) as info:
        if path == "dispatcher":
            add[grid](x, x, x, 100, BLOCK_SIZE=128)
        else:
            add.run(x, x, x, 100, grid=grid, warmup=False, BLOCK_SIZE=128)
    assert message in str(info.value)


def test_index_types_are_grid_dimensions(recorder):
    add = fresh(k.add_kernel)
    x = FakeTensor(4096)
    add[(Numpyish(3), 2)](x, x, x, 100, BLOCK_SIZE=128)
    add.run(x, x, x, 100, grid=(Numpyish(3), 2), warmup=False, BLOCK_SIZE=128)
    assert [grid for _, grid, _ in recorder.launches] == [(3, 2, 1), (3, 2, 1)]


def test_a_kernel_takes_more_than_64_parameters(tmp_path):
    from kernels import many_params
    kernel = many_params.kernel(str(tmp_path))
    assert len(kernel.arg_names) == many_params.COUNT + 2
    signature = {"out_ptr": "*fp32"}
    signature.update({"s%d" % i: "fp32" for i in range(many_params.COUNT)})
    compiled = tile.compile(kernel, signature, {"BLOCK": 32})
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
    # The C++ dispatcher takes it (it refused kernels over 64 parameters
    # when it was built).
    assert callable(kernel[(1,)])
