"""bench/attention_backward_variants.py's fused five-dot backward: every
variant compiles for sm_90a, and in the interpreter (descriptors over numpy
arrays) its dQ, dK and dV match float64 at a length that is not a multiple
of the blocks, full and causal."""

import importlib.util
import math
import pathlib

import numpy as np
import pytest

import tile
from example_modules import attention_example
from tile.runtime import jit

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "attention_backward_variants",
    ROOT / "bench" / "attention_backward_variants.py")
variants = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(variants)


@pytest.fixture
def example():
    return attention_example()


@pytest.mark.parametrize("variant", sorted(variants.VARIANTS))
def test_compiles_for_sm90(example, variant):
    d = "tensordesc<fp16[%d,128]>"
    signature = {"q_desc": d % 64, "k_desc": d % 128, "v_desc": d % 128,
                 "do_desc": d % 64, "dq_desc": "tensordesc<fp32[64,128]>",
                 "DQ": "*fp32", "Lse": "*fp32", "Delta": "*fp32",
                 "dK": "*fp16", "dV": "*fp16", "scale": "fp32",
                 "seq_len": "i32"}
    options = variants.VARIANTS[variant]
    qk = variant.startswith("qk_")
    if qk:
        del signature["DQ"]
    compiled = tile.compile(
        variants.kernel_of(example, variant), signature,
        dict(CAUSAL=True, HEAD_DIM=128, BLOCK_M=64, BLOCK_N=128, **options),
        num_warps=8, num_stages=2,
        divisibility=[p for p, t in signature.items() if t.startswith("*")])
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
    assert 0 < compiled.metadata["num_regs"] <= 255
    # The queries-as-rows form keeps every value in registers: its wgmma
    # descriptors are made where each product issues (116 bytes spilled
    # when the loop held every K step's descriptor).
    if qk:
        assert compiled.metadata["spill_store_bytes"] == 0
    # In the warp-specialised loops dP's product is issued with S's
    # (DotIssueOrder.cpp), before the wait for S, the softmax and dV's
    # product.
    if qk or options["WS"]:
        lines = compiled.asm["tilegpu"].splitlines()
        issued = [i for i, line in enumerate(lines)
                  if "tilegpu.warpgroup_dot %" in line and " async " in line]
        waits = [i for i, line in enumerate(lines)
                 if "tilegpu.warpgroup_dot_wait" in line and i > issued[0]]
        assert issued[1] < waits[0]
    # The warp-specialised TMA forms hand dQ's reduction to the writer warp.
    writer = "} writer {" in compiled.asm["tilegpu"]
    assert writer == (qk or (options["WS"] and options["DQ_TMA"]))


@pytest.fixture
def interpreted(monkeypatch, example):
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    return example


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("variant", ["red", "tma", "qk_ws_tma"])
def test_gradients_in_the_interpreter(interpreted, variant, causal):
    example = interpreted
    heads, seq_len, d, block_m, block_n = 2, 100, 64, 32, 64
    rng = np.random.default_rng(33)
    q, k, v, dout = (rng.standard_normal((heads, seq_len, d))
                     .astype(np.float16) for _ in range(4))
    out, lse = example.attention(q, k, v, causal, with_lse=True, tma=False)
    delta = np.full((heads, seq_len), np.nan, np.float32)
    example.attention_backward_delta[(tile.cdiv(seq_len, block_m), heads)](
        out, dout, delta, seq_len, seq_len * d, d, HEAD_DIM=d,
        BLOCK_M=block_m)
    dq_sum = np.zeros((heads * seq_len, d), np.float32)
    dk, dv = (np.full((heads, seq_len, d), np.nan, np.float16)
              for _ in range(2))
    descs = [tile.TensorDescriptor.from_tensor(t.reshape(-1, d), [rows, d])
             for t, rows in ((q, block_m), (k, block_n), (v, block_n),
                             (dout, block_m))]
    scale = 1 / math.sqrt(d)
    dq_desc = tile.TensorDescriptor.from_tensor(dq_sum, [block_m, d])
    # The example's kernel has no pointer to the dQ sums beside the
    # descriptor.
    pointer = [] if variant.startswith("qk_") else [dq_sum]
    variants.kernel_of(example, variant)[(tile.cdiv(seq_len, block_n),
                                          heads)](
        *descs, dq_desc, *pointer, lse, delta, dk, dv, scale, seq_len,
        CAUSAL=causal, HEAD_DIM=d, BLOCK_M=block_m, BLOCK_N=block_n,
        **variants.VARIANTS[variant])
    want = example.reference(q, k, v, causal, dout)
    got = (dq_sum.reshape(heads, seq_len, d) * scale, dk, dv)
    for name, g, w in zip(("dQ", "dK", "dV"), got, want):
        g = g.astype(np.float64)
        assert not np.isnan(g).any(), name
        error = np.linalg.norm(g - w) / np.linalg.norm(w)
        assert error < 4e-3, (name, error)
