"""Training kernels as users write them in Triton's style, benchmarked by
bench/training.py under tile and, with the imports changed, under Triton.

- layer norm forward and backward: the backward adds each program's dW/dB
  rows into one of GROUP_M partial rows under a spin lock (`atomic_cas` to
  take it, `atomic_xchg` to free it, a `debug_barrier` so every thread's
  stores land before the release), and a second kernel sums the partials;
- softmax forward and backward, one row per program;
- cross-entropy over a large vocabulary: the forward streams each row in
  blocks keeping a running maximum and sum (an online log-sum-exp), so the
  probabilities are never stored; the backward recomputes them block by
  block from the saved log-sum-exp and writes the logits' gradient.
"""

import tile as jit_module
import tile.language as tl


@jit_module.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps,
                   BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@jit_module.jit
def layer_norm_bwd_dx(DX, DY, PartialDW, PartialDB, X, W, Mean, Rstd, Lock,
                      stride, N, GROUP_M: tl.constexpr,
                      BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)
    # This row's dW and dB go to partial row `row % GROUP_M`; the first
    # program there writes it, later ones add to it.
    slot = row % GROUP_M
    lock = Lock + slot
    count = Lock + GROUP_M + slot
    dw_ptrs = PartialDW + slot * N + cols
    db_ptrs = PartialDB + slot * N + cols
    dw = (dy * xhat).to(W.dtype.element_ty)
    db = dy.to(W.dtype.element_ty)
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(count) == 0:
        tl.atomic_xchg(count, 1)
    else:
        dw += tl.load(dw_ptrs, mask=mask)
        db += tl.load(db_ptrs, mask=mask)
    tl.store(dw_ptrs, dw, mask=mask)
    tl.store(db_ptrs, db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@jit_module.jit
def layer_norm_bwd_dwdb(PartialDW, PartialDB, DW, DB, M, N,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for first in range(0, M, BLOCK_M):
        rows = first + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offsets = rows[:, None] * N + cols[None, :]
        dw += tl.load(PartialDW + offsets, mask=mask, other=0.0).to(tl.float32)
        db += tl.load(PartialDB + offsets, mask=mask, other=0.0).to(tl.float32)
    tl.store(DW + cols, tl.sum(dw, axis=0).to(DW.dtype.element_ty),
             mask=cols < N)
    tl.store(DB + cols, tl.sum(db, axis=0).to(DB.dtype.element_ty),
             mask=cols < N)


@jit_module.jit
def softmax_fwd(Y, X, stride, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask,
                other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    y = e / tl.sum(e, axis=0)
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)


@jit_module.jit
def softmax_bwd(DX, DY, Y, stride, N, BLOCK_N: tl.constexpr):
    # dx = y * (dy - sum(y * dy)): the Jacobian of softmax applied to dy.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    y = tl.load(Y + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dx = y * (dy - tl.sum(y * dy, axis=0))
    tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)


@jit_module.jit
def cross_entropy_fwd(Logits, Targets, Loss, Lse, stride, V,
                      BLOCK_V: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = Logits + row * stride
    running_max = -float("inf")
    running_sum = 0.0
    for start in range(0, V, BLOCK_V):
        cols = start + tl.arange(0, BLOCK_V)
        x = tl.load(base + cols, mask=cols < V,
                    other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(running_max, tl.max(x, axis=0))
        running_sum = running_sum * tl.exp(running_max - new_max) + \
            tl.sum(tl.exp(x - new_max), axis=0)
        running_max = new_max
    lse = running_max + tl.log(running_sum)
    target = tl.load(Targets + row)
    picked = tl.load(base + target).to(tl.float32)
    tl.store(Loss + row, lse - picked)
    tl.store(Lse + row, lse)


@jit_module.jit
def cross_entropy_bwd(DLogits, Logits, Targets, Lse, DLoss, stride, V,
                      BLOCK_V: tl.constexpr):
    # d loss / d logit = softmax(logits) - onehot(target), times the
    # upstream gradient of this row's loss.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_V + tl.arange(0, BLOCK_V)
    mask = cols < V
    x = tl.load(Logits + row * stride + cols, mask=mask,
                other=0.0).to(tl.float32)
    p = tl.exp(x - tl.load(Lse + row))
    p = tl.where(cols == tl.load(Targets + row), p - 1.0, p)
    grad = p * tl.load(DLoss + row)
    tl.store(DLogits + row * stride + cols,
             grad.to(DLogits.dtype.element_ty), mask=mask)


# ------------------------------------------------------------------ host
# Launches as the tutorials make them, and torch.autograd.Functions over
# them (on a torch host; the kernels alone run anywhere tile does).

try:
    import torch
except ImportError:
    torch = None


def _poisoned(*shape, like, dtype=None):
    """Outputs start as NaN: an element a kernel forgets fails the checks."""
    return torch.full(shape, float("nan"), device=like.device,
                      dtype=dtype or like.dtype)


def _warps(block, most):
    return min(max(block // 256, 1), most)


def layer_norm_forward(x, w, b, eps):
    M, N = x.shape
    block = jit_module.next_power_of_2(N)
    y = _poisoned(M, N, like=x)
    mean = _poisoned(M, like=x, dtype=torch.float32)
    rstd = _poisoned(M, like=x, dtype=torch.float32)
    layer_norm_fwd[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, eps,
                         BLOCK_N=block, num_warps=_warps(block, 8))
    return y, mean, rstd


def layer_norm_backward(dy, x, w, mean, rstd):
    M, N = x.shape
    block = jit_module.next_power_of_2(N)
    # Fewer partial rows for wider rows, as the tutorial chooses them.
    group = 256 if N <= 1024 else 128 if N <= 4096 else 96 if N <= 8192 else 64
    # Lock words, then count words, all zero; the partial rows need not be
    # (the first program to take a slot writes it).
    locks = torch.zeros(2 * group, device=x.device, dtype=torch.int32)
    partial_dw = torch.empty(group, N, device=x.device, dtype=w.dtype)
    partial_db = torch.empty(group, N, device=x.device, dtype=w.dtype)
    dx = _poisoned(M, N, like=x)
    dw, db = _poisoned(N, like=w), _poisoned(N, like=w)
    layer_norm_bwd_dx[(M,)](dx, dy, partial_dw, partial_db, x, w, mean, rstd,
                            locks, x.stride(0), N, GROUP_M=group,
                            BLOCK_N=block, num_warps=_warps(block, 8))
    layer_norm_bwd_dwdb[(jit_module.cdiv(N, 128),)](
        partial_dw, partial_db, dw, db, min(group, M), N, BLOCK_M=32,
        BLOCK_N=128)
    return dx, dw, db


def softmax_forward(x):
    M, N = x.shape
    block = jit_module.next_power_of_2(N)
    y = _poisoned(M, N, like=x)
    softmax_fwd[(M,)](y, x, x.stride(0), N, BLOCK_N=block,
                      num_warps=_warps(block, 16))
    return y


def softmax_backward(dy, y):
    M, N = y.shape
    block = jit_module.next_power_of_2(N)
    dx = _poisoned(M, N, like=y)
    softmax_bwd[(M,)](dx, dy, y, y.stride(0), N, BLOCK_N=block,
                      num_warps=_warps(block, 16))
    return dx


CROSS_ENTROPY_BLOCK = 4096


def cross_entropy_forward(logits, targets):
    rows, vocab = logits.shape
    loss = _poisoned(rows, like=logits, dtype=torch.float32)
    lse = _poisoned(rows, like=logits, dtype=torch.float32)
    cross_entropy_fwd[(rows,)](logits, targets, loss, lse, logits.stride(0),
                               vocab, BLOCK_V=CROSS_ENTROPY_BLOCK, num_warps=8)
    return loss, lse


def cross_entropy_backward(dloss, logits, targets, lse):
    rows, vocab = logits.shape
    dlogits = _poisoned(rows, vocab, like=logits)
    cross_entropy_bwd[(rows, jit_module.cdiv(vocab, CROSS_ENTROPY_BLOCK))](
        dlogits, logits, targets, lse, dloss, logits.stride(0), vocab,
        BLOCK_V=CROSS_ENTROPY_BLOCK, num_warps=8)
    return dlogits


if torch is not None:
    class LayerNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b, eps):
            y, mean, rstd = layer_norm_forward(x, w, b, eps)
            ctx.save_for_backward(x, w, mean, rstd)
            return y

        @staticmethod
        def backward(ctx, dy):
            x, w, mean, rstd = ctx.saved_tensors
            dx, dw, db = layer_norm_backward(dy.contiguous(), x, w, mean, rstd)
            return dx, dw, db, None

    class Softmax(torch.autograd.Function):
        """Softmax over the last dimension of a 2-D tensor."""

        @staticmethod
        def forward(ctx, x):
            y = softmax_forward(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            (y,) = ctx.saved_tensors
            return softmax_backward(dy.contiguous(), y)

    class CrossEntropy(torch.autograd.Function):
        """Per-row losses (reduction="none"); saves the logits and one
        float per row, never the probabilities."""

        @staticmethod
        def forward(ctx, logits, targets):
            loss, lse = cross_entropy_forward(logits, targets)
            ctx.save_for_backward(logits, targets, lse)
            return loss

        @staticmethod
        def backward(ctx, dloss):
            logits, targets, lse = ctx.saved_tensors
            return cross_entropy_backward(dloss.contiguous(), logits, targets,
                                          lse), None
