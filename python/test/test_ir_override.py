"""`ir_override`: a launch, a Config or tile.compile may replace the Tile
IR or the PTX of a kernel with a file's text (Triton's option, for tile's
stages). Compiled without a GPU; the GPU side (a PTX with a trailing
scratch pointer, padded with zeros) is test_gpu_ir_override.py."""

import pytest

import tile
import tile.language as tl
from tile.runtime.errors import PTXASError
from tile.runtime.launcher import use_launcher
from launch_helpers import FakeTensor, Recorder

SIG = dict(dst="*fp32", src="*fp32", n="i32")


@tile.jit
def scale_kernel(dst, src, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n)
    tl.store(dst + offs, x * 3.0, mask=offs < n)


def compile_scale(**options):
    return tile.compile(scale_kernel, signature=SIG,
                        constexprs=dict(BLOCK=64), **options)


def test_tile_ir_override_is_compiled_from_there_on(tmp_path):
    plain = compile_scale()
    assert "0f40400000" in plain.asm["ptx"]  # 3.0
    text = str(plain.asm["tile"]).replace("3.000000e+00", "1.000000e+01")
    assert text != str(plain.asm["tile"])
    path = tmp_path / "scale.tile"
    path.write_text(text)
    kernel = compile_scale(ir_override=str(path))
    assert kernel.asm["tile"] == text
    assert "0f41200000" in kernel.asm["ptx"]  # 10.0
    assert "0f40400000" not in kernel.asm["ptx"]


def test_ptx_override_is_assembled_as_given(tmp_path):
    other = tile.compile(scale_kernel, signature=SIG,
                         constexprs=dict(BLOCK=128))
    path = tmp_path / "other.ptx"
    path.write_text(other.asm["ptx"])
    kernel = compile_scale(ir_override=path)  # a PathLike works too
    assert kernel.asm["ptx"] == other.asm["ptx"]
    assert kernel.name == "scale_kernel"
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    assert kernel.metadata["num_regs"] > 0
    # Only such a kernel has its parameters probed when it loads (the
    # probe's last call is an API error compute-sanitizer reports).
    assert kernel.metadata["ptx_override"] and not other.metadata["ptx_override"]


def test_ptx_override_names_the_kernel_by_its_entry(tmp_path):
    plain = compile_scale()
    renamed = plain.asm["ptx"].replace("scale_kernel", "renamed_entry")
    path = tmp_path / "renamed.ptx"
    path.write_text(renamed)
    kernel = compile_scale(ir_override=str(path))
    assert kernel.name == kernel.metadata["name"] == "renamed_entry"


def test_ptx_that_ptxas_refuses_names_the_file(tmp_path):
    path = tmp_path / "broken.ptx"
    path.write_text(compile_scale().asm["ptx"].replace("ret;", "ret"))
    with pytest.raises(PTXASError, match="broken.ptx"):
        compile_scale(ir_override=str(path))


@pytest.mark.parametrize("bad,error,match", [
    ("scale.ttgir", ValueError, r"ir_override must name a \.ptx or \.tile"),
    ("missing.ptx", ValueError, "not a file"),
    (3, TypeError, "ir_override must be a file path"),
])
def test_bad_overrides_name_the_option(tmp_path, bad, error, match):
    if isinstance(bad, str):
        if bad.endswith(".ttgir"):
            (tmp_path / bad).write_text("")
        bad = str(tmp_path / bad)
    with pytest.raises(error, match=match):
        compile_scale(ir_override=bad)
    with use_launcher(Recorder()), pytest.raises(error, match=match):
        scale_kernel[(1,)](FakeTensor(64), FakeTensor(64), 64, BLOCK=64,
                           ir_override=bad)


def test_launch_and_config_take_the_override(tmp_path):
    plain = compile_scale()
    path = tmp_path / "scale.tile"
    path.write_text(str(plain.asm["tile"]).replace("3.000000e+00",
                                                   "5.000000e+00"))
    with use_launcher(Recorder()) as recorder:
        kernel = scale_kernel[(1,)](FakeTensor(64), FakeTensor(64), 64,
                                    BLOCK=64, ir_override=str(path))
        assert "0f40A00000" in recorder.launches[-1][0].asm["ptx"]  # 5.0
        # The launch returns what it ran, as every launch does (the
        # dispatcher hands launches with this option to Python).
        assert kernel is recorder.launches[-1][0]

        def bench(fn, quantiles):
            fn()
            return 1.0

        tuned = tile.autotune(
            configs=[tile.Config({"BLOCK": 64}, ir_override=str(path))],
            key=["n"], do_bench=bench)(scale_kernel)
        tuned[(1,)](FakeTensor(64), FakeTensor(64), 64)
        assert "0f40A00000" in recorder.launches[-1][0].asm["ptx"]


def test_changing_the_file_recompiles(tmp_path):
    plain = compile_scale()
    path = tmp_path / "scale.tile"
    with use_launcher(Recorder()) as recorder:
        for literal, bits in (("4.000000e+00", "0f40800000"),
                              ("6.000000e+00", "0f40C00000")):
            path.write_text(str(plain.asm["tile"]).replace("3.000000e+00",
                                                           literal))
            scale_kernel.cache.clear()
            scale_kernel[(1,)](FakeTensor(64), FakeTensor(64), 64, BLOCK=64,
                               ir_override=str(path))
            assert bits in recorder.launches[-1][0].asm["ptx"]


def test_ptx_without_an_entry_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "no_entry.ptx"
    path.write_text(".version 8.0\n.target sm_90a\n.address_size 64\n")
    with pytest.raises(ValueError, match="no_entry.ptx.*has no .entry"):
        compile_scale(ir_override=str(path))
