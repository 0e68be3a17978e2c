"""`enable_reflect_ftz` (Triton's launch and compile option, on by default):
whether libdevice's functions flush denormals. Off, __nv_sqrtf keeps them
(sqrt.approx.f32 instead of sqrt.approx.ftz.f32); it is part of the
specialization, and a non-bool value is a TypeError naming it."""

import pytest

import tile
import tile.language as tl
from tile.language.extra.cuda import libdevice
from launch_helpers import FakeTensor, Recorder
from tile.runtime.launcher import use_launcher


@tile.jit
def root(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, libdevice.sqrt(tl.load(x_ptr + offs)))


SIG = {"x_ptr": "*fp32", "out_ptr": "*fp32"}


@pytest.mark.parametrize("ftz,instruction", [(True, "sqrt.approx.ftz.f32"),
                                             (False, "sqrt.approx.f32")])
def test_compile_option_reaches_libdevice(ftz, instruction):
    compiled = tile.compile(root, SIG, {"BLOCK": 128}, enable_reflect_ftz=ftz)
    ptx = compiled.asm["ptx"]
    assert instruction in ptx
    assert compiled.metadata["enable_reflect_ftz"] is ftz


def test_default_flushes_as_triton_does():
    assert "sqrt.approx.ftz.f32" in tile.compile(root, SIG, {"BLOCK": 128}).asm["ptx"]


def test_launch_option_specialises():
    x, out = FakeTensor(1 << 20), FakeTensor(1 << 21)
    with use_launcher(Recorder()) as recorder:
        root[(1,)](x, out, BLOCK=128)
        root[(1,)](x, out, BLOCK=128, enable_reflect_ftz=False)
        root[(1,)](x, out, BLOCK=128, enable_reflect_ftz=False)
    kernels = [k for k, _, _ in recorder.launches]
    assert kernels[0] is not kernels[1] and kernels[1] is kernels[2]
    assert ".ftz" in kernels[0].asm["ptx"] and ".ftz" not in kernels[1].asm["ptx"]


def test_a_non_bool_value_names_the_option():
    with use_launcher(Recorder()):
        with pytest.raises(TypeError, match="enable_reflect_ftz must be True or False"):
            root[(1,)](FakeTensor(1 << 20), FakeTensor(1 << 21), BLOCK=128,
                       enable_reflect_ftz="no")
