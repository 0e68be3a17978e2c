"""Descriptor stores and reductions inside loops, on the GPU. There the
block's shared buffer lives across the iterations and the TMA unit's read of
it is waited for only before the next iteration refills it: each test makes
the refill come soon after the copy (little work between) and checks every
block exactly, so a copy that read a refilled buffer would show. In a
warp-specialised loop the writes go to the producer's second warp (the
writer) through two buffers whose phases wrap. Fresh random data each test;
outputs poisoned first."""

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


@tile.jit
def split_k_partials(a_desc, b_desc, c_desc, p_desc, K, M_PAD: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Each K block's product is reduced into C and stored as its own block
    # of P, two TMA writes an iteration of a warp-specialised loop.
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([r, k * BK])
        b = b_desc.load([k * BK, c])
        part = tl.dot(a, b)
        c_desc.atomic_add([r, c], part)
        p_desc.store([k * M_PAD + r, c], part.to(p_desc.dtype))


@pytest.mark.parametrize("num_warps, p_dtype", [(4, torch.float32),
                                                (8, torch.float32),
                                                (4, torch.float16)])
def test_writer_warp_in_a_specialised_loop(num_warps, p_dtype):
    BM, BN, BK = 64, 64, 32
    M, N, K = 2 * BM, 3 * BN - 8, 7 * BK - 16
    blocks = tile.cdiv(K, BK)
    a = torch.randn(M, K, device="cuda").half()
    b = torch.randn(K, N, device="cuda").half()
    c = torch.randn(M, N, device="cuda")
    p = torch.full((blocks * M, N), float("nan"), device="cuda",
                   dtype=p_dtype)
    want_c = c.double() + a.double() @ b.double()
    split_k_partials[(M // BM, tile.cdiv(N, BN))](
        TensorDescriptor.from_tensor(a, [BM, BK]),
        TensorDescriptor.from_tensor(b, [BK, BN]),
        TensorDescriptor.from_tensor(c, [BM, BN]),
        TensorDescriptor.from_tensor(p, [BM, BN]), K, M_PAD=M, BM=BM, BN=BN,
        BK=BK, num_warps=num_warps, num_stages=2)
    torch.cuda.synchronize()
    for k in range(blocks):
        part = (a[:, k * BK:(k + 1) * BK].double()
                @ b[k * BK:(k + 1) * BK].double())
        # fp16 P is the product rounded once.
        tolerance = 1e-4 if p_dtype == torch.float32 else 2e-3
        torch.testing.assert_close(p[k * M:(k + 1) * M].double(), part,
                                   rtol=tolerance, atol=tolerance)
    torch.testing.assert_close(c.double(), want_c, rtol=1e-4, atol=1e-4)
    compiled = list(split_k_partials.cache.values())
    assert compiled and all("} writer {" in k.asm["tilegpu"]
                            for k in compiled)


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
