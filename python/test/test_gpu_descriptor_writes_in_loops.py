"""Descriptor stores and reductions inside loops, on the GPU. There the
block's shared buffer lives across the iterations and the TMA unit's read of
it is waited for only before the next iteration refills it: each test makes
the refill come soon after the copy (little work between) and checks every
block exactly, so a copy that read a refilled buffer would show. Fresh
random data each test; outputs poisoned first."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402
from tile.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

pytestmark = pytest.mark.gpu


@tile.jit
def persistent_scale(x_desc, y_desc, tiles_n, num_tiles, PROGRAMS: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr):
    # Each program walks its tiles; every store's value differs, so a copy
    # reading the next tile's fill writes wrong numbers.
    for t in range(tl.program_id(0), num_tiles, PROGRAMS):
        r = (t // tiles_n) * BM
        c = (t % tiles_n) * BN
        y_desc.store([r, c], x_desc.load([r, c]) * 2 + t.to(tl.float32))


@tile.jit
def accumulate_rows(x_ptr, out_desc, M, N, REPEAT: tl.constexpr,
                    BM: tl.constexpr, BN: tl.constexpr):
    # REPEAT slices of x reduced into one block of out, one bulk reduction
    # an iteration, every other one in a branch.
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    rows = r + tl.arange(0, BM)
    cols = c + tl.arange(0, BN)
    for i in range(REPEAT):
        block = tl.load(x_ptr + i * M * N + rows[:, None] * N + cols[None, :])
        if i % 2 == 0:
            out_desc.atomic_add([r, c], block)
        else:
            out_desc.atomic_add([r, c], block * 3)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_persistent_stores(dtype):
    BM, BN, programs = 64, 64, 7
    M, N = 64 * 9 - 5, 64 * 6 + 8
    x = torch.randn(M, N, device="cuda").to(dtype)
    y = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    tiles_n = tile.cdiv(N, BN)
    num_tiles = tile.cdiv(M, BM) * tiles_n
    persistent_scale[(programs,)](
        TensorDescriptor.from_tensor(x, [BM, BN]),
        TensorDescriptor.from_tensor(y, [BM, BN]), tiles_n, num_tiles,
        PROGRAMS=programs, BM=BM, BN=BN, num_warps=4)
    rows = torch.arange(M, device="cuda")[:, None] // BM
    cols = torch.arange(N, device="cuda")[None, :] // BN
    want = x.double() * 2 + (rows * tiles_n + cols).double()
    assert torch.equal(y, want.to(dtype))


def test_reductions_in_a_loop():
    BM, BN, repeat = 64, 32, 6
    M, N = BM * 3, BN * 4
    x = torch.randn(repeat, M, N, device="cuda")
    out = torch.randn(M, N, device="cuda")
    weights = torch.tensor([1.0 if i % 2 == 0 else 3.0 for i in range(repeat)],
                           device="cuda", dtype=torch.float64)
    want = out.double() + (x.double() * weights[:, None, None]).sum(0)
    accumulate_rows[(M // BM, N // BN)](
        x, TensorDescriptor.from_tensor(out, [BM, BN]), M, N, REPEAT=repeat,
        BM=BM, BN=BN, num_warps=4)
    torch.testing.assert_close(out.double(), want, rtol=1e-5, atol=1e-5)
