"""`ir_override` on the GPU: a kernel launched from PTX given in place of
its own computes what that PTX says, through the C++ dispatcher and the
Python launch path; a PTX written for Triton's ABI declares a scratch
pointer after the kernel's arguments, which tile passes as null (zeros).
Outputs are poisoned (NaN) before each launch."""

import re

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402

SIG = dict(dst="*fp32", src="*fp32", n="i32")


@tile.jit
def scale_by_two(dst, src, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n)
    tl.store(dst + offs, x * 2.0, mask=offs < n)


@tile.jit
def scale_by_ten(dst, src, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n)
    tl.store(dst + offs, x * 10.0, mask=offs < n)


def ten_ptx(tmp_path, scratch_params):
    """scale_by_ten's PTX, with `scratch_params` extra trailing .u64
    parameters (Triton's global and profile scratch pointers)."""
    ptx = tile.compile(scale_by_ten, signature=SIG,
                       constexprs=dict(BLOCK=128)).asm["ptx"]
    extra = "".join(",\n\t.param .u64 .ptr .global .align 1 scratch_%d" % i
                    for i in range(scratch_params))
    # The entry's parameter list ends at its first ")".
    ptx = re.sub(r"(\.entry\s+\w+\([^)]*)\)", lambda m: m.group(1) + extra
                 + "\n)", ptx, count=1)
    path = tmp_path / ("ten_%d.ptx" % scratch_params)
    path.write_text(ptx)
    return str(path)


@pytest.mark.parametrize("scratch_params", [0, 1, 2])
@pytest.mark.parametrize("n", [1000, 4096])
def test_launch_runs_the_overriding_ptx(tmp_path, scratch_params, n):
    src = torch.randn(n, device="cuda")
    dst = torch.full_like(src, float("nan"))
    path = ten_ptx(tmp_path, scratch_params)
    scale_by_two[(triton_cdiv(n, 128),)](dst, src, n, BLOCK=128,
                                         ir_override=path)
    torch.cuda.synchronize()
    torch.testing.assert_close(dst, src * 10.0, rtol=0, atol=0)
    kernel = scale_by_two.warmup(dst, src, n, BLOCK=128, ir_override=path,
                                 grid=(1,))
    assert kernel.name == "scale_by_ten"
    # The same compiled kernel through the Python launch path.
    dst.fill_(float("nan"))
    kernel[(triton_cdiv(n, 128), 1, 1)](dst, src, n, 128)
    torch.cuda.synchronize()
    torch.testing.assert_close(dst, src * 10.0, rtol=0, atol=0)


def test_autotune_config_overrides_one_config(tmp_path):
    path = ten_ptx(tmp_path, 1)
    tuned = tile.autotune(
        configs=[tile.Config({"BLOCK": 128}, ir_override=path)],
        key=["n"])(scale_by_two)
    n = 3000
    src = torch.randn(n, device="cuda")
    dst = torch.full_like(src, float("nan"))
    tuned[lambda m: (triton_cdiv(n, m["BLOCK"]),)](dst, src, n)
    torch.cuda.synchronize()
    torch.testing.assert_close(dst, src * 10.0, rtol=0, atol=0)


def triton_cdiv(a, b):
    return (a + b - 1) // b
