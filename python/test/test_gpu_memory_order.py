"""A thread's loads see its own earlier stores: loads are not hoisted out of
loops that store to the same address, nor reused past such a store."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402


@tile.jit
def nested_increments(data, count_ptr, ROUNDS: tl.constexpr):
    for _ in range(ROUNDS):
        count = tl.load(count_ptr)
        while count > 0:
            tl.store(data, tl.load(data) + 1.0)
            count = count - 2


@tile.jit
def store_then_reload(x, out, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    first = tl.load(x + i)
    tl.store(x + i, first * 2.0)
    tl.store(out + i, tl.load(x + i) + first)


@pytest.mark.parametrize("count, rounds", [(8, 10), (7, 3), (0, 5)])
def test_read_modify_write_loop(count, rounds):
    data = torch.full((1,), 0.5, device="cuda")
    counter = torch.tensor([count], dtype=torch.int32, device="cuda")
    nested_increments[(1,)](data, counter, ROUNDS=rounds)
    assert data.item() == 0.5 + rounds * ((count + 1) // 2)


def test_reload_after_store_sees_it():
    x = torch.randn(256, device="cuda")
    want = x * 3.0
    out = torch.full((256,), float("nan"), device="cuda")
    store_then_reload[(1,)](x, out, BLOCK=256)
    assert torch.equal(out, want)
