"""The C++ dispatcher and the Python cache key must specialise a launch the
same way: both take their rules from libtile (_C.specialize_argument), and
this checks that over every rule's edges. A launch whose arguments the
dispatcher keys differently from Python would run a kernel compiled for
other facts (a divisibility that does not hold, an i32 that overflows)."""

import itertools

import pytest

import tile
import tile.language as tl
from tile.runtime.specialization import spec_key as _spec_key
from tile.runtime.launcher import use_launcher
from launch_helpers import FakeTensor, Recorder


@tile.jit
def store_if_positive(x_ptr, n):
    if n > 0:
        tl.store(x_ptr, 1.0)


@tile.jit(do_not_specialize=["n"])
def store_if_positive_unspecialised(x_ptr, n):
    if n > 0:
        tl.store(x_ptr, 1.0)


INTEGERS = [0, 1, -1, 2, 15, 16, -16, -8, 2**31 - 16, 2**31 - 1, 2**31,
            2**31 + 16, -2**31, -2**31 - 1, -2**31 - 16, 2**63 - 16, 2**63 - 1,
            2**63, 2**63 + 16, 2**64 - 16, 2**64 - 1]
SCALARS = INTEGERS + [True, False, 0.5, -3.0]
POINTERS = [FakeTensor(4096), FakeTensor(4104), FakeTensor(2**40 + 16),
            FakeTensor(2**40 + 1), FakeTensor(4096, "torch.float16"),
            FakeTensor(4098, "torch.float16")]


class IntLike(int):
    """An int subclass (an IntEnum, say) specialises as its value."""


@pytest.mark.parametrize("kernel, specialize", [
    (store_if_positive, True), (store_if_positive_unspecialised, False)])
def test_dispatcher_and_python_keys_agree(kernel, specialize):
    kernel.cache.clear()
    arguments = list(itertools.product(POINTERS[:2], SCALARS))
    arguments += [(p, 16) for p in POINTERS]
    arguments += [(POINTERS[0], IntLike(16)), (POINTERS[0], IntLike(1))]
    expected = {}
    with use_launcher(Recorder()) as recorder:
        for x, n in arguments:
            # Twice: the second launch takes the dispatcher's warm path.
            kernel[(1,)](x, n)
            kernel[(1,)](x, n)
            key = (_spec_key("x_ptr", x, False),
                   _spec_key("n", n, False, specialize))
            expected.setdefault(key, []).append((x, n))
    by_kernel = {id(compiled): key[0] for key, compiled in kernel.cache.items()}
    assert len(kernel.cache) == len(expected)
    # The dispatcher has one entry per distinct key: it neither merges two
    # specialisations nor splits one (FakeTensor dtypes are interned strs).
    assert kernel._dispatcher.size() == len(expected)
    launched = [by_kernel[id(compiled)] for compiled, _, _ in recorder.launches]
    for (x, n), pair in zip(arguments, zip(launched[::2], launched[1::2])):
        want = (_spec_key("x_ptr", x, False),
                _spec_key("n", n, False, specialize))
        assert pair == (want, want), (x._ptr, n)


def test_rule_edges():
    spec = tile._C.specialize_argument
    assert spec(1) == ("one", True)
    assert spec(1, False) == ("i32", False)
    assert spec(True) == ("i1", False)
    assert spec(16) == ("i32", True) and spec(-16) == ("i32", True)
    assert spec(-8) == ("i32", False)
    assert spec(2**31 - 1) == ("i32", False)
    assert spec(2**31) == ("i64", True) and spec(2**31 + 1) == ("i64", False)
    assert spec(-2**31) == ("i32", True) and spec(-2**31 - 1) == ("i64", False)
    assert spec(-2**31 - 16) == ("i64", True)
    assert spec(2**63 - 16) == ("i64", True)
    assert spec(2**63) == ("u64", True) and spec(2**63 + 1) == ("u64", False)
    assert spec(2**64 - 16) == ("u64", True)
    assert spec(2**64) is None and spec(-2**63 - 1) is None
    assert spec(0.5) == ("fp32", False)
    assert spec(FakeTensor(4096)) == ("pointer", True)
    assert spec(FakeTensor(4100)) == ("pointer", False)
    assert spec(FakeTensor(4096), False) == ("pointer", False)
    assert spec(FakeTensor(4096, is_cuda=False)) is None
    assert spec(None) is None and spec("text") is None


class StringPointer:
    dtype = "torch.float32"

    def data_ptr(self):
        return "0x1000"


class NoDtype:
    def data_ptr(self):
        return 4096


class BadInterface:
    __cuda_array_interface__ = {"data": "nowhere", "typestr": "<f4"}


class GoodInterface:
    __cuda_array_interface__ = {"data": (4096, False), "typestr": "<f4",
                                "shape": (4,), "version": 3}


@pytest.mark.parametrize("value, error, message", [
    (StringPointer(), TypeError, "argument 'x_ptr': data_ptr() must return an integer"),
    (NoDtype(), TypeError, "argument 'x_ptr' has unsupported dtype None"),
    (BadInterface(), TypeError, "argument 'x_ptr' has a malformed __cuda_array_interface__"),
    (FakeTensor(4096, is_cuda=False), ValueError, "argument 'x_ptr' is a tensor on cpu"),
])
def test_refused_pointers_name_the_argument(value, error, message):
    with use_launcher(Recorder()):
        with pytest.raises(error) as info:
            store_if_positive[(1,)](value, 3)
    assert message in str(info.value)


class PinnedHostTensor(FakeTensor):
    """A CPU tensor in page-locked memory (torch's pin_memory())."""

    def __init__(self, ptr, pinned):
        super().__init__(ptr, is_cuda=False)
        self.pinned = pinned

    def is_pinned(self):
        return self.pinned


def test_pinned_host_tensors_launch_as_triton_allows():
    # Unified addressing makes pinned host memory addressable by kernels.
    with use_launcher(Recorder()) as recorder:
        store_if_positive[(1,)](PinnedHostTensor(8192, True), 3)
        with pytest.raises(ValueError, match="is a tensor on cpu"):
            store_if_positive[(1,)](PinnedHostTensor(8192, False), 3)
    assert len(recorder.launches) == 1
    assert _spec_key("x_ptr", PinnedHostTensor(8192, True), False) == ("*fp32", True)


def test_array_interface_specialises_like_a_tensor():
    store_if_positive.cache.clear()
    with use_launcher(Recorder()) as recorder:
        store_if_positive[(1,)](GoodInterface(), 32)
    assert _spec_key("x_ptr", GoodInterface(), False) == ("*fp32", True)
    assert len(recorder.launches) == 1
