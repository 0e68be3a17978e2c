"""Layer norm, forward and backward, as a torch.autograd.Function.

What it teaches:
- a forward kernel that saves what the backward needs (mean, 1/std);
- a backward kernel for the input gradient, with the weight and bias
  gradients reduced in two stages: each program adds its rows' partial
  sums into one of GROUP slots (a spin lock per slot serialises the
  adds: `tl.atomic_cas` / `tl.atomic_xchg`), then a second kernel sums the
  slots column by column;
- wrapping kernels in `torch.autograd.Function`, checked against torch's
  autograd in float64.

Run: python examples/04_layer_norm_autograd.py
"""

import common

import numpy as np

import tile
import tile.language as tl


@tile.jit
def layer_norm_forward(X, Y, W, B, Mean, Rstd, stride, N, eps,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    centred = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(centred * centred, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    tl.store(Y + row * stride + cols, centred * rstd * w + b, mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@tile.jit
def layer_norm_backward_dx(DX, DY, PartialDW, PartialDB, Locks, X, W, Mean,
                           Rstd, stride, N, GROUP: tl.constexpr,
                           BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0)
    w = tl.load(W + cols, mask=mask, other=0.0)
    xhat = tl.where(mask, (x - tl.load(Mean + row)) * tl.load(Rstd + row), 0.0)
    wdy = w * dy
    # d/dx of (x - mean) * rstd, applied to w * dy.
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * tl.load(Rstd + row)
    tl.store(DX + row * stride + cols, dx, mask=mask)
    # This row's share of dW and dB goes into slot row % GROUP.
    slot = row % GROUP
    lock = Locks + slot
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    partial_dw = PartialDW + slot * N + cols
    partial_db = PartialDB + slot * N + cols
    tl.store(partial_dw, tl.load(partial_dw, mask=mask) + dy * xhat, mask=mask)
    tl.store(partial_db, tl.load(partial_db, mask=mask) + dy, mask=mask)
    tl.atomic_xchg(lock, 0)


@tile.jit
def sum_slots(Partial, Total, GROUP, N, BLOCK_G: tl.constexpr,
              BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_G, BLOCK_N), dtype=tl.float32)
    for first in range(0, GROUP, BLOCK_G):
        slots = first + tl.arange(0, BLOCK_G)
        mask = (slots[:, None] < GROUP) & (cols[None, :] < N)
        acc += tl.load(Partial + slots[:, None] * N + cols[None, :], mask=mask,
                       other=0.0)
    tl.store(Total + cols, tl.sum(acc, axis=0), mask=cols < N)


def forward(x, w, b, eps):
    rows, n = x.shape
    y = common.empty_like(x)
    mean, rstd = common.empty(rows), common.empty(rows)
    block = tile.next_power_of_2(n)
    layer_norm_forward[(rows,)](x, y, w, b, mean, rstd, common.stride(x, 0), n,
                                eps, BLOCK=block, num_warps=min(16, max(1, block // 256)))
    return y, mean, rstd


def backward(dy, x, w, mean, rstd):
    rows, n = x.shape
    group = 64 if n <= 8192 else 32
    dx = common.empty_like(x)
    partial_dw, partial_db = common.zeros(group, n), common.zeros(group, n)
    locks = common.zeros(group, dtype="int32")
    block = tile.next_power_of_2(n)
    layer_norm_backward_dx[(rows,)](dx, dy, partial_dw, partial_db, locks, x,
                                    w, mean, rstd, common.stride(x, 0), n,
                                    GROUP=group, BLOCK=block,
                                    num_warps=min(16, max(1, block // 256)))
    dw, db = common.empty(n), common.empty(n)
    for partial, total in ((partial_dw, dw), (partial_db, db)):
        sum_slots[(tile.cdiv(n, 128),)](partial, total, group, n, BLOCK_G=32,
                                        BLOCK_N=128)
    return dx, dw, db


def reference(x, w, b, eps, dy):
    """Forward and backward of layer norm in float64 numpy."""
    x, w, b, dy = (common.float64(t) for t in (x, w, b, dy))
    mean = x.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    xhat = (x - mean) * rstd
    wdy = w * dy
    dx = rstd * (wdy - xhat * (xhat * wdy).mean(axis=1, keepdims=True)
                 - wdy.mean(axis=1, keepdims=True))
    return xhat * w + b, dx, (dy * xhat).sum(axis=0), dy.sum(axis=0)


if common.GPU:
    torch = common.torch

    class LayerNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b, eps):
            y, mean, rstd = forward(x, w, b, eps)
            ctx.save_for_backward(x, w, mean, rstd)
            return y

        @staticmethod
        def backward(ctx, dy):
            x, w, mean, rstd = ctx.saved_tensors
            dx, dw, db = backward(dy.contiguous(), x, w, mean, rstd)
            return dx, dw, db, None


def main():
    print("layer norm forward + backward, %s" % common.where())
    (rows, n), eps = (29, 300) if common.SMALL else (4096, 4096), 1e-5
    x = common.randn(rows, n, scale=2.0)
    w, b, dy = common.randn(n), common.randn(n), common.randn(rows, n)
    y_ref, dx_ref, dw_ref, db_ref = reference(x, w, b, eps, dy)
    if common.GPU:
        # Through autograd, against torch's own layer norm in float64.
        leaves = [t.clone().requires_grad_() for t in (x, w, b)]
        y = LayerNorm.apply(*leaves, eps)
        y.backward(dy)
        exact = [t.double().detach().requires_grad_() for t in (x, w, b)]
        y64 = torch.nn.functional.layer_norm(exact[0], (n,), exact[1],
                                             exact[2], eps)
        y64.backward(dy.double())
        got = [y] + [t.grad for t in leaves]
        expected = [y64] + [t.grad for t in exact]
    else:
        y, mean, rstd = forward(x, w, b, eps)
        got = [y, *backward(dy, x, w, mean, rstd)]
        expected = [y_ref, dx_ref, dw_ref, db_ref]
    for name, g, e in zip(("y", "dx", "dw", "db"), got, expected):
        common.check("layer norm " + name, g, e, 1e-4, 1e-4)

    def run():
        y, mean, rstd = forward(x[:29, :300].contiguous(), w[:300], b[:300], eps)
        return [y, *backward(dy[:29, :300].contiguous(), x[:29, :300].contiguous(),
                             w[:300], mean, rstd)]
    common.compare_with_interpreter(
        "layer norm", run, [layer_norm_forward, layer_norm_backward_dx,
                            sum_slots], 1e-5, 1e-5)
    if common.BENCH:
        moved = 5 * x.numel() * x.element_size()  # forward + backward traffic
        leaves = [t.clone().requires_grad_() for t in (x, w, b)]

        def tile_step():
            LayerNorm.apply(*leaves, eps).backward(dy)

        def torch_step():
            torch.nn.functional.layer_norm(leaves[0], (n,), leaves[1],
                                           leaves[2], eps).backward(dy)
        common.report("tile fwd+bwd", common.bench_ms(tile_step), moved, "GB/s")
        common.report("torch fwd+bwd", common.bench_ms(torch_step), moved,
                      "GB/s")


if __name__ == "__main__":
    main()
