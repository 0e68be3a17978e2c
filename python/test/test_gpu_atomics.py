"""Atomics on the GPU: float max/min (integer atomics on the bits) against
torch's max/min over the same lanes, signed zeros included; unmasked
tensor atomics with several elements a thread."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402


@tile.jit
def _atomic_extremes(x, out_max, out_min, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < N)
    old_max = tl.atomic_max(out_max + offs % 7, v, mask=offs < N)
    old_min = tl.atomic_min(out_min + offs % 7, v, mask=offs < N)
    tl.static_assert(old_max.dtype == v.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_float_atomic_max_min(dtype):
    n = 5000
    x = torch.randn(n, device="cuda", dtype=dtype) * 100
    x[::13] = -0.0
    x[::17] = 0.0
    out_max = torch.full((7,), -float("inf"), device="cuda", dtype=dtype)
    out_min = torch.full((7,), float("inf"), device="cuda", dtype=dtype)
    _atomic_extremes[(tile.cdiv(n, 256),)](x, out_max, out_min, n, BLOCK=256)
    groups = [x[torch.arange(n, device="cuda") % 7 == g] for g in range(7)]
    assert torch.equal(out_max, torch.stack([g.max() for g in groups]))
    assert torch.equal(out_min, torch.stack([g.min() for g in groups]))


@tile.jit
def _atomic_negative_zero(inp, out_max, out_min):
    x = tl.load(inp)
    tl.atomic_max(out_max, x)
    tl.atomic_min(out_min, x)


def test_float_atomic_max_min_of_negative_zero():
    inp = torch.full((1,), -0.0, device="cuda")
    out_max = torch.full((1,), torch.finfo(torch.float32).min, device="cuda")
    out_min = torch.full((1,), torch.finfo(torch.float32).max, device="cuda")
    _atomic_negative_zero[(1,)](inp, out_max, out_min)
    assert torch.signbit(out_max).item() and out_max.item() == 0
    assert torch.signbit(out_min).item() and out_min.item() == 0


@tile.jit
def _cas_blocks(x, BLOCK: tl.constexpr, DTYPE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_cas(x + offs, tl.full((BLOCK,), 0, DTYPE), tl.full((BLOCK,), 2, DTYPE))


@tile.jit
def _add_blocks(x, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(x + offs, tl.full((BLOCK,), 3, tl.int32))


@pytest.mark.parametrize("block", [256, 512, 1024])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
def test_unmasked_tensor_atomics_with_several_elements_a_thread(block, dtype):
    # These compiled to a crash (no guard for the atoms) before.
    n = 2 * block
    x = torch.zeros(n, device="cuda", dtype=dtype)
    x[1::2] = 1
    _cas_blocks[(2,)](x, BLOCK=block, DTYPE=getattr(tl, str(dtype).split(".")[1]))
    want = torch.ones(n, device="cuda", dtype=dtype)
    want[0::2] = 2
    assert torch.equal(x, want)
    y = torch.arange(n, device="cuda", dtype=torch.int32)
    _add_blocks[(2,)](y, BLOCK=block)
    assert torch.equal(y, torch.arange(n, device="cuda", dtype=torch.int32) + 3)
