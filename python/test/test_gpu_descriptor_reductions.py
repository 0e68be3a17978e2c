"""Descriptor reductions on the GPU against torch: every kind on each element
type the TMA unit has, host and in-kernel descriptors, blocks TMA serves
(one bulk reduction) and blocks it does not (element atomics), tensors
that are not a multiple of the block (the overhang must be dropped), and
many programs reducing into the same block (the reductions are atomic).
Fresh random data each test."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
from kernels.descriptor_reductions import reduce_blocks  # noqa: E402
from tile.tools.tensor_descriptor import TensorDescriptor  # noqa: E402

pytestmark = pytest.mark.gpu


def random(shape, dtype):
    # Small enough that three additions stay in range (the reference adds
    # in int64 / float64); unsigned values are non-negative.
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    low = 0 if dtype in (torch.uint32, torch.uint64) else -2**28
    return torch.randint(low, 2**28, shape, device="cuda",
                         dtype=torch.int64).to(dtype)


def wide(x):
    return x.to(torch.float64 if x.is_floating_point() else torch.int64)


def reference(kind, out, values):
    acc = wide(out)
    for v in wide(values):
        if kind == "add":
            acc = acc + v
        elif kind == "min":
            acc = torch.minimum(acc, v)
        elif kind == "max":
            acc = torch.maximum(acc, v)
        elif kind == "and":
            acc = acc & v
        elif kind == "or":
            acc = acc | v
        else:
            acc = acc ^ v
    return acc


CASES = [("add", torch.float32), ("add", torch.float16), ("add", torch.bfloat16),
         ("add", torch.int32), ("add", torch.uint32),
         ("min", torch.int32), ("min", torch.int64), ("min", torch.float16),
         ("max", torch.uint32), ("max", torch.int64), ("max", torch.bfloat16),
         ("and", torch.int32), ("and", torch.uint64), ("or", torch.uint64),
         ("xor", torch.int32), ("xor", torch.uint64)]


@pytest.mark.parametrize("kind,dtype", CASES)
@pytest.mark.parametrize("descriptor", ["host", "made"])
@pytest.mark.parametrize("block", [(8, 128), (64, 32), (2, 16)])
def test_reductions_match_torch(kind, dtype, descriptor, block):
    bm, bn = block
    tma_block = bm % 8 == 0 and bn * dtype.itemsize % 32 == 0
    if descriptor == "host" and not tma_block:
        pytest.skip("a host descriptor's block must be one TMA serves")
    if not tma_block and kind in ("min", "max") and dtype.is_floating_point:
        pytest.skip("element atomics have no 16-bit float min/max")
    repeat, M, N = 3, 3 * bm - 1, 2 * bn + 8
    values = random((repeat, M, N), dtype)
    out = random((M, N), dtype)
    want = reference(kind, out, values)
    desc = TensorDescriptor.from_tensor(out, [bm, bn]) if \
        descriptor == "host" else None
    grid = (tile.cdiv(M, bm), tile.cdiv(N, bn), repeat)
    reduce_blocks[grid](desc, out, values, M, N, REPEAT=repeat, BM=bm, BN=bn,
                        KIND=kind)
    if out.is_floating_point():
        # Three additions in any order, each rounded to the element type.
        tol = 3e-2 if dtype == torch.bfloat16 else 4e-3
        torch.testing.assert_close(wide(out), want, rtol=tol, atol=tol)
    else:
        assert torch.equal(wide(out), want)
