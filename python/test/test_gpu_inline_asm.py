"""tl.inline_asm_elementwise on the GPU against torch: one element per
instance, four bytes packed into one register, two results of two types,
and a scalar. Random data, outputs poisoned first, sizes that end in a
partial block."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
from kernels import inline_asm as ia  # noqa: E402

N = 5003


def grid(block):
    return (tile.cdiv(N, block),)


def test_byte_swap():
    x = torch.randint(-2**31, 2**31 - 1, (N,), dtype=torch.int32, device="cuda")
    out = torch.full_like(x, 0x5A5A5A5A)
    ia.byte_swap[grid(256)](x, out, N, BLOCK=256)
    want = x.view(torch.uint8).view(N, 4).flip(1).contiguous().view(torch.int32).view(N)
    assert torch.equal(out, want)


@pytest.mark.parametrize("block", [1024, 64])
def test_bytes_four_to_a_register(block):
    x = torch.randint(0, 256, (N,), dtype=torch.uint8, device="cuda")
    y = torch.randint(0, 256, (N,), dtype=torch.uint8, device="cuda")
    out = torch.full_like(x, 0xA5)
    ia.byte_add_packed[grid(block)](x, y, out, N, BLOCK=block)
    want = ((x.to(torch.int32) + y.to(torch.int32)) % 256).to(torch.uint8)
    assert torch.equal(out, want)


def test_two_results_of_two_types():
    x = torch.randn(N, device="cuda") * 1000
    s = torch.full_like(x, float("nan"))
    h = torch.full((N,), float("nan"), dtype=torch.float16, device="cuda")
    ia.halves_and_sum[grid(256)](x, s, h, N, BLOCK=256)
    assert torch.equal(s, x + 1)
    assert torch.equal(h, x.to(torch.float16))


def test_scalar():
    out = torch.full((1,), -1, dtype=torch.int32, device="cuda")
    ia.scalar_asm[(1,)](out, 1000)
    assert out.item() == 1041


@pytest.mark.parametrize("block", [256, 1024])
def test_pointer_operands(block):
    x = torch.randint(0, 256, (N,), dtype=torch.uint8, device="cuda")
    y = torch.full_like(x, 0xA5)
    ia.shift_through_pointers[grid(block)](x, y, N, BLOCK=block)
    assert torch.equal(y, ((x.to(torch.int32) << 3) % 256).to(torch.uint8))
