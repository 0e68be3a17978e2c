"""bench/training_src.py's training kernels on the GPU (issue 18), through
their torch.autograd.Functions, against float64 torch autograd: layer norm
(dW/dB accumulated under spin locks), softmax and the streaming
cross-entropy, in fp16 and bf16, at widths that are not a multiple of any
block. Inputs are fresh random data; outputs start as NaN."""

import importlib.util
import pathlib

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from gpu_checks import rel_err

pytestmark = pytest.mark.gpu

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "training_src", ROOT / "bench" / "training_src.py")
src = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(src)

DTYPES = [torch.float16, torch.bfloat16]


def floor(dtype):
    """The error floor of the input type: bf16 keeps 8 bits, fp16 11."""
    return 2e-2 if dtype == torch.bfloat16 else 4e-3


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols", [(77, 1000), (300, 4096), (1031, 8192),
                                       (5, 12000)])
def test_layer_norm_gradients(rows, cols, dtype):
    # 1031 rows share 96 partial rows: up to 11 programs per lock.
    x = (torch.randn(rows, cols, device="cuda") * 2 + 0.3).to(dtype)
    w = (torch.rand(cols, device="cuda") + 0.5).to(dtype)
    b = torch.randn(cols, device="cuda").to(dtype)
    dy = torch.randn(rows, cols, device="cuda").to(dtype)
    leaves = [t.clone().requires_grad_() for t in (x, w, b)]
    y = src.LayerNorm.apply(*leaves, 1e-5)
    y.backward(dy)
    exact = [t.double().requires_grad_() for t in (x, w, b)]
    y64 = torch.nn.functional.layer_norm(exact[0], (cols,), exact[1],
                                         exact[2], 1e-5)
    y64.backward(dy.double())
    # dW and dB sum over rows in fp16/bf16 partial rows: one rounding per
    # add, so their floor is a few times the element's.
    for name, got, want, tol in [
            ("y", y, y64, floor(dtype)),
            ("dx", leaves[0].grad, exact[0].grad, floor(dtype)),
            ("dw", leaves[1].grad, exact[1].grad, 4 * floor(dtype)),
            ("db", leaves[2].grad, exact[2].grad, 4 * floor(dtype))]:
        assert rel_err(got, want.detach()) < tol, name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols", [(33, 1000), (64, 8192), (3, 30000)])
def test_softmax_gradient(rows, cols, dtype):
    x = (torch.randn(rows, cols, device="cuda") * 3).to(dtype)
    dy = torch.randn(rows, cols, device="cuda").to(dtype)
    leaf = x.clone().requires_grad_()
    y = src.Softmax.apply(leaf)
    y.backward(dy)
    x64 = x.double().requires_grad_()
    y64 = torch.softmax(x64, dim=1)
    y64.backward(dy.double())
    assert rel_err(y, y64.detach()) < floor(dtype)
    assert rel_err(leaf.grad, x64.grad) < floor(dtype)


@pytest.mark.parametrize("dtype", DTYPES + [torch.float32])
@pytest.mark.parametrize("rows,vocab", [(17, 5000), (64, 32000),
                                        (8, 128256)])
def test_cross_entropy_gradient(rows, vocab, dtype):
    logits = (torch.randn(rows, vocab, device="cuda") * 4).to(dtype)
    # Both ends of the vocabulary, and the last masked block.
    targets = torch.randint(0, vocab, (rows,), device="cuda")
    targets[0], targets[1] = 0, vocab - 1
    leaf = logits.clone().requires_grad_()
    loss = src.CrossEntropy.apply(leaf, targets)
    loss.mean().backward()
    exact = logits.double().requires_grad_()
    loss64 = torch.nn.functional.cross_entropy(exact, targets,
                                               reduction="none")
    loss64.mean().backward()
    # The loss is computed in fp32 from the stored logits: exact to fp32.
    assert rel_err(loss, loss64.detach()) < 1e-5
    assert rel_err(leaf.grad, exact.grad) < floor(dtype)


def test_cross_entropy_keeps_no_probabilities():
    # What the forward saves for the backward: the logits and one float
    # per row; torch keeps the full log-probabilities.
    rows, vocab = 64, 128256
    logits = torch.randn(rows, vocab, device="cuda",
                         dtype=torch.bfloat16).requires_grad_()
    targets = torch.randint(0, vocab, (rows,), device="cuda")
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    loss = src.CrossEntropy.apply(logits, targets)
    saved = torch.cuda.memory_allocated() - before
    assert saved < 64 * rows, saved
    del loss
