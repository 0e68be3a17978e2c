"""The attention example's backward (examples/05_attention.py: the fused
kernel, or dK/dV over query blocks and dQ over key blocks, from the
forward's log-sum-exp) through its torch.autograd.Function, against float64
torch autograd: fp16 and bf16, head dims 64 and 128, causal or not,
sequence lengths that are not a multiple of any block. Inputs fresh each test. The autograd path takes
uninitialised buffers, as torch's kernels do; the kernels called directly
start from NaN-filled ones, so a row a kernel skips fails."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from test_gpu_transposed_operands import example_attention

pytestmark = pytest.mark.gpu


def reference(q, k, v, causal):
    s = q @ k.transpose(1, 2) * q.shape[-1] ** -0.5
    if causal:
        n = q.shape[1]
        s = s.masked_fill(torch.ones(n, n, dtype=torch.bool,
                                     device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ v


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("heads,seq_len,head_dim", [
    (3, 1000, 64), (2, 777, 128), (1, 2048, 128)])
def test_attention_gradients_match_float64_autograd(heads, seq_len, head_dim,
                                                    dtype, causal):
    ex = example_attention()
    inputs = [torch.randn(heads, seq_len, head_dim, device="cuda").to(dtype)
              .requires_grad_() for _ in range(3)]
    dout = torch.randn(heads, seq_len, head_dim, device="cuda").to(dtype)
    out = ex.Attention.apply(*inputs, causal)
    out.backward(dout)
    exact = [t.detach().double().requires_grad_() for t in inputs]
    want = reference(*exact, causal)
    want.backward(dout.double())
    # The error floor of the input type: bf16 keeps 8 bits, fp16 11.
    floor = 2e-2 if dtype == torch.bfloat16 else 4e-3
    for name, got, ref in [("out", out, want)] + [
            (n, t.grad, e.grad) for n, t, e in zip("qkv", inputs, exact)]:
        got, ref = got.double(), ref.detach()
        assert not torch.isnan(got).any(), name
        error = ((got - ref).norm() / ref.norm()).item()
        assert error < floor, (name, error)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tma,fused", [(True, True), (True, False),
                                       (False, False)])
@pytest.mark.parametrize("heads,seq_len,head_dim", [(3, 1000, 64),
                                                    (2, 777, 128)])
def test_every_output_element_is_written(heads, seq_len, head_dim, tma,
                                         fused, causal):
    # The descriptor kernels read past a head's last row (the next head's
    # rows) and must still write each row of this head's output and
    # log-sum-exp exactly once; the pointer forward masks its loads. The
    # fused backward adds every key block's dQ share into one buffer.
    ex = example_attention()
    q, k, v, dout = (torch.randn(heads, seq_len, head_dim, device="cuda")
                     .half() for _ in range(4))
    out, lse = ex.attention(q, k, v, causal, with_lse=True, tma=tma)
    grads = ex.attention_backward(q, k, v, out, lse, dout, causal, tma=tma,
                                  fused=fused)
    exact = [t.double().requires_grad_() for t in (q, k, v)]
    want = reference(*exact, causal)
    want.backward(dout.double())
    assert not torch.isnan(lse).any()
    for name, got, ref in [("out", out, want)] + [
            (n, g, e.grad) for n, g, e in zip("qkv", grads, exact)]:
        got, ref = got.double(), ref.detach()
        assert not torch.isnan(got).any(), name
        error = ((got - ref).norm() / ref.norm()).item()
        assert error < 4e-3, (name, error)
