"""When a loop's staged buffers do not fit in shared memory with the tiles
it uses in registers copied ahead too, the compiler stages only the dots'
operands (as Triton's pipeliner does) instead of failing: a kernel that
fits is never changed."""

import pytest

import tile
import tile.language as tl

@tile.jit
def scaled_products(a_ptr, b_ptr, s_ptr, c_ptr, K, BM: tl.constexpr,
                    BN: tl.constexpr, BK: tl.constexpr):
    # A scale tile read in registers each step, as big as the product: with
    # it copied ahead like the operands, 4 stages need 384 KiB.
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        s = tl.load(s_ptr + (k // BK) * BM * BN + rm[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b) * s
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_register_loads_stay_loads_when_their_buffers_do_not_fit():
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "s_ptr": "*fp32",
                 "c_ptr": "*fp32", "K": "i32"}
    sizes = {"BM": 128, "BN": 128, "BK": 64}
    aligned = ["a_ptr", "b_ptr", "s_ptr", "c_ptr", "K"]
    roomy = tile.compile(scaled_products, signature, sizes, num_stages=2,
                         divisibility=aligned)
    assert roomy.metadata["register_loads_staged"]
    tight = tile.compile(scaled_products, signature, sizes, num_stages=4,
                         divisibility=aligned)
    # Only the dots' operands are copied ahead; the scale is loaded in place.
    assert not tight.metadata["register_loads_staged"]
    assert tight.metadata["shared"] <= tile._C.MAX_SHARED_BYTES
    assert "cp.async" in tight.asm["ptx"]


def test_no_retry_when_nothing_would_change(monkeypatch):
    # A loop that stages no register loads next to dot operands is over
    # the limit either way: it is compiled once and refused.
    from kernels import dotless_pipeline as dotless
    calls = []
    real = tile._C.compile_kernel
    monkeypatch.setattr(tile._C, "compile_kernel",
                        lambda *a: calls.append(a) or real(*a))
    signature = {"src_ptr": "*fp32", "dst_ptr": "*fp32", "n": "i32"}
    with pytest.raises(tile.OutOfResources, match="shared memory"):
        tile.compile(dotless.scale_rows_kernel, signature,
                     {"STAGES": 100, "BLOCK": 4096},
                     divisibility=list(signature))
    assert len(calls) == 1
