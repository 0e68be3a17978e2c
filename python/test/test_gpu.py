"""Kernels run on the GPU against float64 torch references. Outputs are
poisoned with NaN before each launch and sizes are not multiples of the block."""


import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile
import tile.language as tl
from kernels import bench_kernels
from kernels import classic as k
from kernels import early_returns

from gpu_checks import rel_err

pytestmark = pytest.mark.gpu


def test_vector_add():
    n = 98_431
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    k.add_kernel[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    assert rel_err(out, x.double() + y.double()) < 1e-6


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_softmax():
    rows, cols = 777, 1000
    x = torch.randn(rows, cols, device="cuda")
    out = torch.full_like(x, float("nan"))
    k.softmax_kernel[(132,)](out, x, x.stride(0), out.stride(0), rows, cols,
                             BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    assert rel_err(out, torch.softmax(x.double(), dim=1)) < 1e-5


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
@pytest.mark.parametrize("block_m,num_warps", [(64, 4), (32, 4), (128, 8)])
def test_matmul(activation, block_m, num_warps):
    # 64 and 128 rows run on wgmma; 32 rows on mma.sync.
    M, N, K = 200, 136, 100
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = (triton_cdiv(M, block_m) * triton_cdiv(N, 64),)
    k.matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                          b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                          BLOCK_M=block_m, BLOCK_N=64, BLOCK_K=32, GROUP_M=8,
                          ACTIVATION=activation, num_warps=num_warps)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    if activation:
        ref = torch.where(ref >= 0, ref, 0.01 * ref)
    assert rel_err(c, ref) < 2e-3


@tile.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
               stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
               INT_ACC: tl.constexpr, PRECISION: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    if INT_ACC:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _operand(dtype, rows, cols, transposed):
    shape = (cols, rows) if transposed else (rows, cols)
    if dtype == torch.int8:
        t = torch.randint(-8, 8, shape, device="cuda", dtype=torch.int8)
    else:
        t = torch.randn(shape, device="cuda").to(dtype)
    return t.t() if transposed else t


DOT_CASES = {
    # name: (dtype, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, warps, tolerance)
    "fp16-128x128x64-w8": (torch.float16, 300, 260, 200, 128, 128, 64, 8, 1e-3),
    "fp16-64x256x32-w4": (torch.float16, 100, 300, 72, 64, 256, 32, 4, 1e-3),
    "fp16-128x64x16-w4": (torch.float16, 129, 65, 47, 128, 64, 16, 4, 1e-3),
    "bf16-128x128x64-w8": (torch.bfloat16, 300, 260, 200, 128, 128, 64, 8, 8e-3),
    "bf16-64x64x128-w4": (torch.bfloat16, 70, 90, 300, 64, 64, 128, 4, 8e-3),
    "fp8e4m3-128x128x64-w8": (torch.float8_e4m3fn, 200, 150, 160, 128, 128, 64, 8, 1e-3),
    "fp8e5m2-64x128x128-w4": (torch.float8_e5m2, 100, 150, 300, 64, 128, 128, 4, 1e-3),
    "tf32-64x64x32-w4": (torch.float32, 100, 90, 70, 64, 64, 32, 4, 2e-3),
    "int8-128x64x64-w8": (torch.int8, 150, 100, 130, 128, 64, 64, 8, 0),
}


@pytest.mark.parametrize("transposed", ["", "a", "b", "ab"])
@pytest.mark.parametrize("case", list(DOT_CASES))
def test_tensor_core_dot(case, transposed):
    dtype, M, N, K, bm, bn, bk, warps, tol = DOT_CASES[case]
    a = _operand(dtype, M, K, "a" in transposed)
    b = _operand(dtype, K, N, "b" in transposed)
    is_int = dtype == torch.int8
    c = (torch.full((M, N), -12345, device="cuda", dtype=torch.int32) if is_int
         else torch.full((M, N), float("nan"), device="cuda"))
    grid = (triton_cdiv(M, bm), triton_cdiv(N, bn))
    kernel = dot_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1),
                              b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                              BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, INT_ACC=is_int,
                              PRECISION="tf32" if dtype == torch.float32 else "ieee",
                              num_warps=warps)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    if is_int:
        assert torch.equal(c.double(), ref)
    else:
        assert rel_err(c, ref) < tol


@tile.jit
def dot_computed_a_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          BF16: tl.constexpr):
    # A is computed in registers (scaled fp32, rounded to 16 bits), so the
    # wgmma takes it from registers rather than shared memory.
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        x = tl.load(a_ptr + rm[:, None] * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * N + rn[None, :],
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        if BF16:
            a = (x * 0.5).to(tl.bfloat16)
        else:
            a = (x * 0.5).to(tl.float16)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("dtype,M,N,K,bm,bn,bk,warps", [
    (torch.float16, 300, 260, 200, 128, 128, 64, 8),
    (torch.bfloat16, 100, 300, 72, 64, 256, 32, 4),
    (torch.float16, 70, 200, 90, 64, 128, 32, 8),  # two warpgroups along N
    (torch.float16, 129, 65, 47, 128, 64, 16, 4),
])
def test_tensor_core_dot_register_a(dtype, M, N, K, bm, bn, bk, warps):
    a = torch.randn(M, K, device="cuda")
    b = torch.randn(K, N, device="cuda").to(dtype)
    c = torch.full((M, N), float("nan"), device="cuda")
    grid = (triton_cdiv(M, bm), triton_cdiv(N, bn))
    dot_computed_a_kernel[grid](a, b, c, M, N, K, BLOCK_M=bm, BLOCK_N=bn,
                                BLOCK_K=bk, BF16=dtype == torch.bfloat16,
                                num_warps=warps)
    torch.cuda.synchronize()
    ref = (a * 0.5).to(dtype).double() @ b.double()
    assert rel_err(c, ref) < 1e-3


def test_layer_norm_forward():
    rows, cols = 300, 777
    x = torch.randn(rows, cols, device="cuda")
    w = torch.randn(cols, device="cuda")
    b = torch.randn(cols, device="cuda")
    y = torch.full_like(x, float("nan"))
    mean = torch.full((rows,), float("nan"), device="cuda")
    rstd = torch.full((rows,), float("nan"), device="cuda")
    k.layer_norm_fwd[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5,
                              BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(),
                                         b.double(), 1e-5)
    assert rel_err(y, ref) < 1e-5
    assert rel_err(mean, x.double().mean(1)) < 1e-5


def test_layer_norm_backward_with_lock():
    rows, cols, groups = 301, 777, 8
    x = torch.randn(rows, cols, device="cuda")
    w = torch.randn(cols, device="cuda")
    dy = torch.randn(rows, cols, device="cuda")
    mean = x.mean(1)
    rstd = 1 / torch.sqrt(x.var(1, unbiased=False) + 1e-5)
    dx = torch.full_like(x, float("nan"))
    # Partial sums: the first program of each group writes without reading.
    dw = torch.full((groups, cols), float("nan"), device="cuda")
    db = torch.full((groups, cols), float("nan"), device="cuda")
    lock = torch.zeros(2 * groups, dtype=torch.int32, device="cuda")
    k.layer_norm_bwd_dx[(rows,)](dx, dy, dw, db, x, w, mean, rstd, lock,
                                 x.stride(0), cols, GROUP_SIZE_M=groups,
                                 BLOCK_SIZE_N=1024)
    torch.cuda.synchronize()
    xd, wd, dyd = x.double().requires_grad_(), w.double().requires_grad_(), dy.double()
    bd = torch.zeros(cols, dtype=torch.float64, device="cuda", requires_grad=True)
    torch.nn.functional.layer_norm(xd, (cols,), wd, bd, 1e-5).backward(dyd)
    assert rel_err(dx, xd.grad) < 1e-4
    assert rel_err(dw.sum(0), wd.grad) < 1e-4
    assert rel_err(db.sum(0), bd.grad) < 1e-4
    assert torch.all(lock[:groups] == 0)


def test_cumsum_argmax():
    rows, cols = 37, 1000
    x = torch.randn(rows, cols, device="cuda")
    cum = torch.full_like(x, float("nan"))
    arg = torch.full((rows,), -7, dtype=torch.int32, device="cuda")
    k.cumsum_argmax_kernel[(rows,)](x, cum, arg, cols, BLOCK=1024)
    torch.cuda.synchronize()
    assert rel_err(cum, x.double().cumsum(1)) < 1e-5
    assert torch.equal(arg.long(), x.argmax(1))


def test_histogram_atomics():
    n, bins = 100_003, 64
    # Values outside [0, bins) must be ignored.
    x = torch.randint(-5, bins + 5, (n,), dtype=torch.int32, device="cuda")
    hist = torch.zeros(bins, dtype=torch.int32, device="cuda")
    k.histogram_kernel[(triton_cdiv(n, 1024),)](x, hist, n, BLOCK=1024, BINS=bins)
    torch.cuda.synchronize()
    inside = x[(x >= 0) & (x < bins)].long()
    assert torch.equal(hist.long(), torch.bincount(inside, minlength=bins))


def test_masked_histogram():
    n = 300
    x = torch.randint(0, 256, (512,), dtype=torch.uint8, device="cuda")
    hist = torch.zeros(256, dtype=torch.int32, device="cuda")
    k.masked_histogram_kernel[(1,)](x, hist, n, BLOCK=512, BINS=256)
    torch.cuda.synchronize()
    assert torch.equal(hist.long(), torch.bincount(x[:n].long(), minlength=256))


def test_transpose():
    M, N = 301, 179
    x = torch.randn(M, N, device="cuda")
    out = torch.full((N, M), float("nan"), device="cuda")
    k.transpose_kernel[(triton_cdiv(M, 32), triton_cdiv(N, 32))](x, out, M, N,
                                                                 BLOCK_M=32, BLOCK_N=32)
    torch.cuda.synchronize()
    assert torch.equal(out, x.t())


def test_scalar_while_if():
    def reference(n, limit):
        i = total = 0
        while i < n:
            if i % 3 == 0:
                total += i
            elif i > limit:
                total -= 1
            else:
                total = total * 2
            i += 1
        return total

    for n, limit in [(0, 5), (7, 2), (25, 20), (31, 30)]:
        out = torch.full((1,), -12345, dtype=torch.int32, device="cuda")
        k.scalar_loop_kernel[(1,)](out, n, limit)
        torch.cuda.synchronize()
        ref = (reference(n, limit) + 2**31) % 2**32 - 2**31
        assert out.item() == ref, (n, limit)


def test_casts_and_math():
    n = 5_003
    x16 = (torch.randn(n, device="cuda") * 2).half()
    out = torch.full((n, 8), float("nan"), device="cuda")
    ints = torch.full((n, 2), -99, dtype=torch.int32, device="cuda")
    k.casts_math_kernel[(triton_cdiv(n, 512),)](x16, out, ints, n, BLOCK=512)
    torch.cuda.synchronize()
    x = x16.double()
    ax = x.abs()
    ref = torch.stack([
        x.exp() + (ax + 1).log(),
        ax.sqrt() * x.sin() - x.cos(),
        (ax + 1).rsqrt() + x.sigmoid(),
        torch.erf(x) + torch.exp2(x) - torch.log2(ax + 2),
        (x * 4).floor() + (x * 3).ceil(),
        x.float().bfloat16().double(),
        x * 3,
        (x * x + 0.5) / (ax + 1)], dim=1)
    for col in range(8):
        assert rel_err(out[:, col], ref[:, col]) < 1e-5, col
    i = (x16.float() * 100).int()
    assert torch.equal(ints[:, 0], i)
    assert torch.equal(ints[:, 1], (i & 0xFF) + (i >> 3))


def test_dropout_deterministic_with_keep_rate():
    n, p = 1_000_003, 0.3
    x = torch.randn(n, device="cuda")
    outs = []
    for seed in (123, 123, 321):
        out = torch.full_like(x, float("nan"))
        k.dropout_kernel[(triton_cdiv(n, 1024),)](x, out, n, p, seed, BLOCK_SIZE=1024)
        outs.append(out)
    torch.cuda.synchronize()
    assert torch.equal(outs[0], outs[1]), "same seed, different mask"
    assert not torch.equal(outs[0], outs[2]), "different seeds, same mask"
    kept = outs[0] != 0
    # 1e6 Bernoulli(0.7) draws: the rate is within 0.7 +- 0.003 (6 sigma).
    assert abs(kept.float().mean().item() - (1 - p)) < 0.003
    assert rel_err(outs[0][kept], x[kept].double() / (1 - p)) < 1e-6


@pytest.mark.parametrize("causal", [False, True])
def test_attention_forward(causal):
    batch_heads, seq, d = 3, 300, 64
    q, kk, v = (torch.randn(batch_heads * seq, d, device="cuda").half() for _ in range(3))
    out = torch.full_like(q, float("nan"))
    scale = d ** -0.5
    grid = (triton_cdiv(seq, 64), batch_heads)
    k.attention_fwd_kernel[grid](q, kk, v, out, scale, q.stride(0), kk.stride(0),
                                 v.stride(0), out.stride(0), seq, BLOCK_M=64,
                                 BLOCK_N=64, HEAD_DIM=d, CAUSAL=causal)
    torch.cuda.synchronize()
    qd, kd, vd = (t.double().view(batch_heads, seq, d) for t in (q, kk, v))
    s = qd @ kd.transpose(1, 2) * scale
    if causal:
        s = s.masked_fill(torch.ones(seq, seq, device="cuda").tril() == 0, float("-inf"))
    ref = (s.softmax(-1) @ vd).view(batch_heads * seq, d)
    assert rel_err(out, ref) < 2e-3


def test_join_split_cat_histogram():
    block = 128
    x = torch.randint(-1000, 1000, (block,), dtype=torch.int32, device="cuda")
    out = torch.full_like(x, -1)
    k.misc_ops_kernel[(1,)](x, out, BLOCK=block)
    torch.cuda.synchronize()
    xl = x.long()
    lo, hi = xl, xl + 1
    u = ((xl & 0xFFFFFFFF) * 7) >> 32
    # x % 16 keeps the sign of x (as in C): negative remainders fall outside
    # the bins and are not counted.
    hist_total = (torch.fmod(xl, 16) >= 0).sum()
    ref = lo + hi + u + (lo.sum() + hi.sum()) + hist_total
    assert torch.equal(out.long(), (ref + 2**31) % 2**32 - 2**31)


def test_device_print(capfd):
    x = torch.arange(4, dtype=torch.int32, device="cuda") * 10 + 3
    k.print_kernel[(2,)](x, BLOCK=4)
    torch.cuda.synchronize()
    lines = capfd.readouterr().out.splitlines()
    for pid in (0, 1):
        for i in range(4):
            assert f"pid ({pid}, 0, 0) idx ({i}) x={10 * i + 3}" in lines
        assert f"pid ({pid}, 0, 0) pid-only" in lines


def test_device_assert_traps():
    # A failed assert poisons the CUDA context, so it runs in a child process.
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import sys, torch
        sys.path.insert(0, %r)
        from kernels import classic as k
        x = torch.tensor([1, 2, -3, 4], dtype=torch.int32, device="cuda")
        k.assert_kernel[(1,)](x, BLOCK=4, debug=True)
        try:
            torch.cuda.synchronize()
        except RuntimeError as e:
            print("CAUGHT", e)
    """ % __import__("os").path.dirname(__file__))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True, timeout=120)
    output = result.stdout + result.stderr
    assert "x must be non-negative" in output
    assert "CAUGHT" in output and "assert" in output.lower()


class ArrayInterfaceOnly:
    """A device buffer known only through __cuda_array_interface__."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__


def test_cuda_array_interface_arguments_and_side_stream():
    n = 5_000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        k.add_kernel[(triton_cdiv(n, 1024),)](ArrayInterfaceOnly(x), y, out, n,
                                              BLOCK_SIZE=1024)
    side.synchronize()
    assert rel_err(out, x.double() + y.double()) < 1e-6


def test_user_combiners_reduce_tuple_and_reverse_scan():
    block = 256
    x = torch.randn(block, device="cuda")
    x[17] = x.max() + 1.0           # a unique maximum
    out = torch.full_like(x, float("nan"))
    idx = torch.full((1,), -1, dtype=torch.int32, device="cuda")
    k.user_combiner_kernel[(1,)](x, out, idx, BLOCK=block)
    torch.cuda.synchronize()
    assert idx.item() == 17
    # The reverse inclusive scan overwrote out[0..]: out[i] = sum(x[i:]).
    ref = x.double().flip(0).cumsum(0).flip(0)
    assert rel_err(out, ref) < 1e-5


@pytest.mark.parametrize("cols", [1000, 37, 4096 + 5])
def test_cumsum_sizes(cols):
    # Blocks smaller than, equal to and larger than the CTA wrap the axis
    # differently (registers, lanes, warps, wrapped registers).
    block = 1 << (cols - 1).bit_length()
    rows = 5
    x = torch.randn(rows, cols, device="cuda")
    cum = torch.full_like(x, float("nan"))
    arg = torch.full((rows,), -7, dtype=torch.int32, device="cuda")
    k.cumsum_argmax_kernel[(rows,)](x, cum, arg, cols, BLOCK=block)
    torch.cuda.synchronize()
    assert rel_err(cum, x.double().cumsum(1)) < 1e-5
    assert torch.equal(arg.long(), x.argmax(1))


def test_sm90_matmul_sass_has_hgmma(tmp_path):
    import shutil
    import subprocess
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    kernel = tile.compile(k.matmul_kernel, signature=dict(
        a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
        stride_am="i32", stride_ak="i32", stride_bk="i32", stride_bn="i32",
        stride_cm="i32", stride_cn="i32"),
        constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8,
                        ACTIVATION=""), num_warps=8)
    cubin = tmp_path / "matmul.cubin"
    cubin.write_bytes(kernel.asm["cubin"])
    sass = subprocess.run([cuobjdump, "--dump-sass", str(cubin)], check=True,
                          capture_output=True, text=True).stdout
    assert "HGMMA.64x128x16.F32" in sass


@tile.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


@pytest.mark.parametrize("fusion", [True, False])
def test_enable_fp_fusion_launch_option(fusion):
    # The option travels through the launch path into its own compilation.
    n = 5000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    axpy_kernel[(triton_cdiv(n, 1024),)](x, y, out, 1.5, n, BLOCK=1024,
                                         enable_fp_fusion=fusion)
    torch.cuda.synchronize()
    ref = 1.5 * x.double() + y.double()
    assert rel_err(out, ref) < 1e-6
    ptx = [k.asm["ptx"] for k in axpy_kernel.cache.values()
           if k.metadata.get("enable_fp_fusion") == fusion]
    assert ptx and (("fma.rn.f32" in ptx[0]) == fusion)


_TUNED_MATMUL_CONFIGS = [
    tile.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8},
                num_warps=8, num_stages=3),
    tile.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8},
                num_warps=4, num_stages=4),
    # A and B tiles of 128 KB each: more shared memory than a block may
    # have even unpipelined, so it fails to compile and the tuner skips it.
    tile.Config({"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 256, "GROUP_M": 8},
                num_warps=8, num_stages=1),
]


def test_autotuned_matmul(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    tuned = tile.autotune(configs=_TUNED_MATMUL_CONFIGS, key=["M", "N", "K"],
                          warmup=2, rep=10)(k.matmul_kernel)
    M, N, K = 1000, 1500, 700
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = lambda meta: (triton_cdiv(M, meta["BLOCK_M"]) *
                         triton_cdiv(N, meta["BLOCK_N"]),)
    tuned[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                b.stride(1), c.stride(0), c.stride(1), ACTIVATION="")
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 2e-3
    err = capsys.readouterr().err
    assert "skipping BLOCK_M: 256" in err
    assert "shared memory" in err
    assert "best of 2" in err
    assert tuned.best_config in _TUNED_MATMUL_CONFIGS[:2]
    assert list((tmp_path / "autotune").glob("*.json"))


@pytest.mark.parametrize("transposed", ["", "ab"])
@pytest.mark.parametrize("dtype,M,N,K,bm,bn,bk,warps", [
    (torch.float16, 300, 260, 200, 128, 128, 32, 8),
    (torch.bfloat16, 100, 90, 72, 64, 64, 32, 4),
    (torch.float16, 70, 130, 50, 32, 64, 16, 4),
])
def test_mma_sync_dot(dtype, M, N, K, bm, bn, bk, warps, transposed):
    # target="sm_90" (no "a"): no wgmma, so the dot runs on mma.sync
    # m16n8k16, the path sm_80 GPUs take; the H100 executes it too.
    a = _operand(dtype, M, K, "a" in transposed)
    b = _operand(dtype, K, N, "b" in transposed)
    c = torch.full((M, N), float("nan"), device="cuda")
    grid = (triton_cdiv(M, bm), triton_cdiv(N, bn))
    dot_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                     b.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm,
                     BLOCK_N=bn, BLOCK_K=bk, INT_ACC=False, PRECISION="ieee",
                     num_warps=warps, target="sm_90")
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < (8e-3 if dtype == torch.bfloat16 else 1e-3)
    ptx = [kk.asm["ptx"] for kk in dot_kernel.cache.values()
           if kk.metadata["target"] == "sm_90"]
    assert ptx and all("mma.sync.aligned.m16n8k16" in p for p in ptx)


@pytest.mark.parametrize("e5m2", [False, True])
def test_fp8_conversions_match_torch(e5m2):
    fp8 = torch.float8_e5m2 if e5m2 else torch.float8_e4m3fn
    n = 10000
    x = torch.randn(n, device="cuda") * (100.0 if e5m2 else 8.0)
    x[:4] = torch.tensor([1e6, -1e6, 0.0, -0.0])   # saturate, signed zeros
    y = torch.empty(n, device="cuda", dtype=fp8)
    y.view(torch.uint8).fill_(0x7f)
    z = torch.full((n,), float("nan"), device="cuda")
    t = torch.full((n,), float("nan"), device="cuda", dtype=torch.bfloat16)
    k.fp8_roundtrip_kernel[(triton_cdiv(n, 1024),)](x, y, z, t, n, BLOCK=1024,
                                                 E5M2=e5m2)
    torch.cuda.synchronize()
    # In range: round-to-nearest-even, bit for bit as torch; out of range:
    # the largest finite value (torch gives NaN or inf there).
    ref = x[4:].to(fp8)
    assert torch.equal(y[4:].view(torch.uint8), ref.view(torch.uint8))
    top = torch.finfo(fp8).max
    assert y[0].float().item() == top and y[1].float().item() == -top
    assert torch.equal(y[2:4].view(torch.uint8).cpu(),
                       torch.tensor([0x00, 0x80], dtype=torch.uint8))
    assert torch.equal(z, y.float())
    truncated = (x.view(torch.int32) & -65536).view(torch.float32)
    assert torch.equal(t, truncated.to(torch.bfloat16))


def _bench_kernels():
    return bench_kernels()


@pytest.mark.parametrize("programs", [1, 5])
def test_persistent_matmul(programs):
    # Each program walks several output tiles; the pipelined K loop (its
    # buffers, prologue and final waits) runs once per tile.
    m = _bench_kernels()
    M, N, K = 500, 700, 300
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    m.matmul_persistent_kernel[(programs,)](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.stride(0), c.stride(1), NUM_SMS=programs, BLOCK_M=128, BLOCK_N=128,
        BLOCK_K=64, GROUP_M=4, num_warps=8, num_stages=3)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 2e-3


@pytest.mark.parametrize("seq_len", [300, 512])
@pytest.mark.parametrize("config", [(128, 64, 8), (64, 64, 4), (128, 128, 8)])
@pytest.mark.parametrize("kernel", ["attention_fwd_kernel",
                                    "attention_fwd_overlap_kernel"])
def test_attention_d128(seq_len, config, kernel):
    # The benchmark's attention kernels (d=128, both dots on wgmma, P from
    # registers, the P*V dot async; the overlap kernel with Q*K^T one block
    # ahead of P*V, both in flight under the softmax) against float64, with
    # a sequence length that leaves partial key and query blocks. 64x64
    # blocks on 4 warps get 3 buffers (two CTAs per SM) instead of 4.
    block_m, block_n, warps = config
    m = _bench_kernels()
    q, k, v, out, scale = _attention_inputs(heads=3, seq_len=seq_len, dim=128)
    dim = q.shape[-1]
    getattr(m, kernel)[(triton_cdiv(seq_len, block_m), 3)](
        q, k, v, out, scale, dim, dim, dim, dim, seq_len, BLOCK_M=block_m,
        BLOCK_N=block_n, HEAD_DIM=dim, num_warps=warps, num_stages=3)
    torch.cuda.synchronize()
    assert rel_err(out, _attention_reference(q, k, v, scale)) < 5e-3


def _attention_inputs(heads, seq_len, dim):
    """Random fp16 q, k, v of (heads, S, D), a NaN-poisoned output, the
    softmax scale."""
    q, k, v = (torch.randn(heads, seq_len, dim, device="cuda", dtype=torch.float16)
               for _ in range(3))
    return q, k, v, torch.full_like(q, float("nan")), dim ** -0.5


def _attention_descriptors(q, k, v, out, block_m, block_n):
    """Host descriptors over (heads * S, D): query and output blocks of
    block_m rows, key and value blocks of block_n."""
    rows = (block_m, block_n, block_n, block_m)
    return [tile.TensorDescriptor.from_tensor(t.reshape(-1, t.shape[-1]),
                                              [r, t.shape[-1]])
            for t, r in zip((q, k, v, out), rows)]


def _attention_reference(q, k, v, scale):
    scores = (q.double() @ k.double().transpose(1, 2)) * scale
    return torch.softmax(scores, dim=-1) @ v.double()


@pytest.mark.parametrize("seq_len, config", [
    (512, (128, 64, 8, 3, False)), (320, (64, 128, 4, 3, False)),
    (384, (128, 128, 8, 3, False)), (640, (128, 128, 8, 2, True)),
    (384, (128, 64, 8, 3, True)), (320, (64, 128, 4, 2, True))])
def test_attention_tma(seq_len, config):
    # The benchmark's attention on host descriptors: Q, K, V by TMA, K^T
    # read transposed from the K tile in shared memory (memdesc_trans), both
    # loads pipelined. 320 with 128-key blocks leaves a partial key block
    # (the next head's rows, or TMA's zeros for the last head, masked).
    block_m, block_n, warps, stages, ws = config
    m = _bench_kernels()
    q, k, v, out, scale = _attention_inputs(heads=3, seq_len=seq_len, dim=128)
    dim = q.shape[-1]
    descs = _attention_descriptors(q, k, v, out, block_m, block_n)
    m.attention_fwd_tma_kernel[(seq_len // block_m, 3)](
        *descs, scale, seq_len, BLOCK_M=block_m, BLOCK_N=block_n,
        HEAD_DIM=dim, WARP_SPECIALIZE=ws, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    err = rel_err(out, _attention_reference(q, k, v, scale))
    assert err < 5e-3, err
    # No trip of K through registers: both dots read TMA-written buffers.
    specialized = 0
    for compiled in m.attention_fwd_tma_kernel.cache.values():
        assert "ld.shared" not in compiled.asm["ptx"]
        if "tilegpu.warp_specialize" in compiled.asm["tilegpu"]:
            specialized += 1
            # 4 producer warps more; the consumers meet the producer at one
            # CTA barrier only (after the mbarriers' initialisation).
            assert compiled.metadata["num_warps"] % 4 == 0
            assert compiled.asm["ptx"].count("bar.sync \t0;") == 1
    assert specialized > 0 or not ws


@pytest.mark.parametrize("ws,stages,seq_len", [
    (False, 2, 384), (True, 2, 384), (True, 3, 128), (True, 3, 384),
    (True, 3, 1152), (True, 2, 1152)])
def test_attention_tma_overlap(ws, stages, seq_len):
    # The overlap schedule on descriptors: the last iteration's K block lies
    # past the head (the next head's rows, TMA's zeros for the last head),
    # fully masked. With `ws`, both dots are one turn of the ping-pong, and
    # the producer copies the K block loaded before the loop into the
    # pipeline's first buffer (the loop's iteration -1): that is what lets
    # three 128x128 stages fit. One iteration (128), fewer iterations than
    # buffers, and several rounds of every buffer (1152: 9 iterations).
    m = _bench_kernels()
    block_m, block_n = 128, 128
    q, k, v, out, scale = _attention_inputs(heads=3, seq_len=seq_len, dim=128)
    dim = q.shape[-1]
    descs = _attention_descriptors(q, k, v, out, block_m, block_n)
    m.attention_fwd_tma_overlap_kernel[(seq_len // block_m, 3)](
        *descs, scale, seq_len, BLOCK_M=block_m, BLOCK_N=block_n,
        HEAD_DIM=dim, WARP_SPECIALIZE=ws, num_warps=8, num_stages=stages)
    torch.cuda.synchronize()
    err = rel_err(out, _attention_reference(q, k, v, scale))
    assert err < 5e-3, err
    if ws:
        assert any("tilegpu.turn_wait" in c.asm["tilegpu"]
                   for c in m.attention_fwd_tma_overlap_kernel.cache.values())


@pytest.mark.parametrize("seq_len,heads,programs,stages", [
    (128, 3, 2, 3), (384, 3, 4, 3), (384, 5, 64, 2), (1152, 2, 3, 3),
    (640, 3, 7, 2)])
def test_attention_tma_persistent_ws(seq_len, heads, programs, stages):
    # A persistent kernel whose tile loop is marked warp_specialize: the
    # producer runs the same tile loop around its copies, and stage and
    # phase go on from tile to tile in both roles. One key block per tile
    # (128: every tile's only buffer is released after its loop), fewer
    # programs than tiles (several tiles each, buffers wrapping across
    # tiles), more programs than tiles (idle ones), 9 key blocks a tile.
    m = _bench_kernels()
    block = 128
    q, k, v, out, scale = _attention_inputs(heads=heads, seq_len=seq_len,
                                            dim=128)
    descs = _attention_descriptors(q, k, v, out, block, block)
    kernel = m.attention_fwd_tma_persistent_kernel
    kernel[(programs,)](*descs, scale, seq_len, heads, NUM_SMS=programs,
                        BLOCK_M=block, BLOCK_N=block, HEAD_DIM=128,
                        WARP_SPECIALIZE=True, num_warps=8, num_stages=stages)
    torch.cuda.synchronize()
    err = rel_err(out, _attention_reference(q, k, v, scale))
    assert err < 5e-3, err
    assert all("tilegpu.warp_specialize" in c.asm["tilegpu"]
               for c in kernel.cache.values())


_ATTENTION_DTYPES = {"bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn,
                     "e5m2": torch.float8_e5m2}


def _attention_dtype_inputs(dtype, heads, seq_len, dim=128):
    """q, k, v in `dtype` (fp8 rounded from normal fp32 draws), an fp16
    (bf16 for bf16 inputs) NaN-poisoned output, the scale and the error
    floor: how far the same attention lies from float64 when only P is
    rounded to `dtype` before P.V, as the kernel must do it."""
    q, k, v = (torch.randn(heads, seq_len, dim, device="cuda").to(dtype)
               for _ in range(3))
    out_dtype = torch.bfloat16 if dtype == torch.bfloat16 else torch.float16
    out = torch.full((heads, seq_len, dim), float("nan"), device="cuda",
                     dtype=out_dtype)
    scale = dim ** -0.5
    ref = _attention_reference(q, k, v, scale)
    scores = (q.double() @ k.double().transpose(1, 2)) * scale
    p = torch.exp(scores - scores.amax(-1, keepdim=True))
    rounded = (p.to(dtype).double() @ v.double()) / p.sum(-1, keepdim=True)
    floor = ((rounded - ref).norm() / ref.norm()).item()
    return q, k, v, out, scale, ref, floor


def _check_attention_dtype(dtype, heads, seq_len, launch):
    """Runs `launch(q, k, v, out, scale)` on fresh inputs of `dtype`; the
    result must land within 1.5x of the P-rounding floor of float64."""
    q, k, v, out, scale, ref, floor = _attention_dtype_inputs(
        _ATTENTION_DTYPES[dtype], heads=heads, seq_len=seq_len)
    launch(q, k, v, out, scale)
    torch.cuda.synchronize()
    err = rel_err(out, ref)
    assert err < 1.5 * floor + 2e-3, (err, floor)


@pytest.mark.parametrize("dtype", list(_ATTENTION_DTYPES))
@pytest.mark.parametrize("kernel", ["attention_fwd_kernel",
                                    "attention_fwd_overlap_kernel"])
def test_attention_dtypes(dtype, kernel):
    # The benchmark's attention sources are dtype-generic (P is cast to V's
    # element type, the output to Out's): bf16 and both fp8 formats (fp8
    # wgmma needs K-major operands: V is transposed on its way to shared
    # memory) with partial key and query blocks, against float64. P's
    # rounding to the input type bounds the accuracy.
    fn = getattr(_bench_kernels(), kernel)
    seq_len, dim = 300, 128

    def launch(q, k, v, out, scale):
        fn[(triton_cdiv(seq_len, 128), 3)](
            q, k, v, out, scale, dim, dim, dim, dim, seq_len, BLOCK_M=128,
            BLOCK_N=64, HEAD_DIM=dim, num_warps=8, num_stages=3)
    _check_attention_dtype(dtype, 3, seq_len, launch)


@pytest.mark.parametrize("dtype", list(_ATTENTION_DTYPES))
@pytest.mark.parametrize("ws", [False, True])
def test_attention_tma_dtypes(dtype, ws):
    # The same on descriptors, 128x128 blocks (fp8: one 128-byte swizzled
    # row per key), with and without warp specialisation; 640 keys = five
    # blocks, so the stage ring wraps.
    m = _bench_kernels()
    seq_len, dim = 640, 128

    def launch(q, k, v, out, scale):
        descs = _attention_descriptors(q, k, v, out, 128, 128)
        m.attention_fwd_tma_kernel[(seq_len // 128, 2)](
            *descs, scale, seq_len, BLOCK_M=128, BLOCK_N=128, HEAD_DIM=dim,
            WARP_SPECIALIZE=ws, num_warps=8, num_stages=2)
    _check_attention_dtype(dtype, 2, seq_len, launch)


@tile.jit
def descriptor_copy_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = in_desc.load([pid_m * BM, pid_n * BN])
    out_desc.store([pid_m * BM, pid_n * BN], x * 2 + 1)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.bfloat16])
@pytest.mark.parametrize("block", [(64, 64), (32, 128), (128, 16)])
def test_descriptor_load_store_edges(dtype, block):
    # Blocks straddling the tensor's edge: loads read zeros past it, stores
    # drop what falls outside. The output keeps its poison outside the
    # strided view it describes.
    BM, BN = block
    if BN * torch.finfo(dtype).bits // 8 % 32:
        pytest.skip("rows under 32 bytes are not copied by TMA")
    M, N = 200, 328
    x = torch.randn(M, N, device="cuda", dtype=dtype)
    big = torch.full((M, N + 24), float("nan"), device="cuda", dtype=dtype)
    out = big[:, :N]
    in_desc = tile.TensorDescriptor.from_tensor(x, [BM, BN])
    out_desc = tile.TensorDescriptor(out, out.shape, out.stride(), [BM, BN])
    descriptor_copy_kernel[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
        in_desc, out_desc, BM=BM, BN=BN)
    torch.cuda.synchronize()
    assert torch.equal(out, (x.double() * 2 + 1).to(dtype))
    assert torch.isnan(big[:, N:]).all()


def test_descriptor_argument_errors():
    x = torch.randn(64, 64, device="cuda", dtype=torch.float16)
    desc = tile.TensorDescriptor.from_tensor(x, [64, 64])
    odd = tile.TensorDescriptor(x, [64, 60], [60, 1], [64, 64])
    with pytest.raises(ValueError, match="argument 'in_desc'.*16 bytes"):
        descriptor_copy_kernel[(1, 1)](odd, desc, BM=64, BN=64)
    with pytest.raises(ValueError, match="last dimension must be contiguous"):
        tile.TensorDescriptor(x, [64, 64], [1, 64], [64, 64])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("stages", [1, 3, 4])
def test_descriptor_matmul(dtype, stages):
    # The benchmark's TMA matmul: descriptor loads pipelined with mbarriers
    # (stages > 1) or copied in place, masked edges from zero fill, the
    # result stored through a descriptor.
    m = _bench_kernels()
    M, N, K = 700, 600, 1000
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    BM, BN, BK = 128, 128, 64
    descs = (tile.TensorDescriptor.from_tensor(a, [BM, BK]),
             tile.TensorDescriptor.from_tensor(b, [BK, BN]),
             tile.TensorDescriptor.from_tensor(c, [BM, BN]))
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
    m.matmul_tma_kernel[grid](*descs, M, N, K, BLOCK_M=BM, BLOCK_N=BN,
                              BLOCK_K=BK, GROUP_M=4, num_warps=8,
                              num_stages=stages)
    torch.cuda.synchronize()
    assert rel_err(c, a.double() @ b.double()) < 5e-3


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("stages", [1, 4])
def test_make_tensor_descriptor_matmul(dtype, stages):
    # The TMA matmul with its descriptors made in the kernel from pointers
    # and sizes (encoded at launch); masked edges come from zero fill.
    m = _bench_kernels()
    M, N, K = 700, 600, 1000
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    b = torch.randn(K, N, device="cuda", dtype=dtype)
    BM, BN, BK = 128, 128, 64
    grid = (triton_cdiv(M, BM) * triton_cdiv(N, BN),)
    # The second pair reuses the specialization with new encodings.
    for a, b in ((a, b), (torch.randn_like(a), torch.randn_like(b))):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
        m.matmul_make_desc_kernel[grid](a, b, c, M, N, K, BLOCK_M=BM,
                                        BLOCK_N=BN, BLOCK_K=BK, GROUP_M=4,
                                        num_warps=8, num_stages=stages)
        torch.cuda.synchronize()
        assert rel_err(c, a.double() @ b.double()) < 5e-3


@tile.jit
def descriptor_window_kernel(x_ptr, y_ptr, M, N, ld, row0, col0,
                             BM: tl.constexpr, BN: tl.constexpr):
    # A window of a padded matrix: the base, extent and row stride are
    # arithmetic on the parameters, recomputed by the launcher.
    src = tl.make_tensor_descriptor(x_ptr + row0 * ld + col0,
                                    [M - row0, N - col0], [ld, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(y_ptr, [M - row0, N - col0],
                                    [N - col0, 1], [BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    dst.store([pm * BM, pn * BN], src.load([pm * BM, pn * BN]) * 3)


def test_make_tensor_descriptor_window():
    M, N, ld, row0, col0 = 300, 200, 264, 7, 40
    big = torch.randn(M, ld, device="cuda", dtype=torch.float16)
    y = torch.full((M - row0, N - col0), float("nan"), device="cuda",
                   dtype=torch.float16)
    grid = (triton_cdiv(M - row0, 64), triton_cdiv(N - col0, 64))
    descriptor_window_kernel[grid](big, y, M, N, ld, row0, col0, BM=64, BN=64)
    torch.cuda.synchronize()
    assert torch.equal(y, (big[row0:M, col0:N].double() * 3).half())
    # An unaligned window is an error naming the base's parameter.
    with pytest.raises(ValueError, match="argument 'x_ptr'.*16-byte aligned"):
        descriptor_window_kernel[grid](big, y, M, N, ld, row0, 41, BM=64, BN=64)


@tile.jit
def dual_gemm_kernel(a_ptr, b1_ptr, b2_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                     BN: tl.constexpr, BK: tl.constexpr):
    # Two accumulations in one K loop (a gated MLP's A B1 and A B2): both
    # dots async, each waited one group behind just before it accumulates
    # again, the copies late (three buffers keep two CTAs per SM).
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc1 = tl.zeros([BM, BN], dtype=tl.float32)
    acc2 = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b_offs = ks[:, None] * N + rn[None, :]
        b_mask = (ks[:, None] < K) & (rn[None, :] < N)
        acc1 = tl.dot(a, tl.load(b1_ptr + b_offs, mask=b_mask, other=0.0), acc1)
        acc2 = tl.dot(a, tl.load(b2_ptr + b_offs, mask=b_mask, other=0.0), acc2)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc1 * tl.sigmoid(acc2),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def test_dual_gemm():
    # N and K multiples of 16 (16-byte aligned rows, as the cp.async
    # pipeline needs), none of the three a multiple of its block.
    M, N, K = 300, 208, 560
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b1, b2 = (torch.randn(K, N, device="cuda", dtype=torch.float16) / 8
              for _ in range(2))
    c = torch.full((M, N), float("nan"), device="cuda")
    dual_gemm_kernel[(triton_cdiv(M, 128), triton_cdiv(N, 64))](
        a, b1, b2, c, M, N, K, BM=128, BN=64, BK=64, num_warps=4,
        num_stages=3)
    torch.cuda.synchronize()
    ref = (a.double() @ b1.double()) * torch.sigmoid(a.double() @ b2.double())
    assert rel_err(c, ref) < 1e-3
    ptx = [compiled.asm["ptx"] for compiled in dual_gemm_kernel.cache.values()]
    assert ptx and all(p.count("wgmma.wait_group.sync.aligned 1") == 2
                       for p in ptx)


@tile.jit
def nt_matmul_kernel(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr,
                     BN: tl.constexpr, BK: tl.constexpr,
                     WS: tl.constexpr = False):
    # C = A B^T with B stored NxK (a "NT" GEMM, the layout of attention's
    # K): the B tile is read through a transposed view of its TMA buffer.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc,
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16,
                                   torch.float8_e4m3fn])
@pytest.mark.parametrize("stages, ws", [(1, False), (3, False), (2, True),
                                        (4, True)])
def test_descriptor_nt_matmul(dtype, stages, ws):
    # Masked edges in M, N and K come from TMA's zero fill; fp8 needs both
    # operands K-major, which the transposed view of B is. With `ws` a
    # producer warpgroup issues the copies (5 K blocks over 2 or 4 buffers:
    # the empty barriers' phases wrap).
    M, N, K = 300, 200, 272
    a = torch.randn(M, K, device="cuda").to(dtype)
    b = torch.randn(N, K, device="cuda").to(dtype)
    c = torch.full((M, N), float("nan"), device="cuda")
    BM, BN, BK = 128, 64, 64
    nt_matmul_kernel[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
        tile.TensorDescriptor.from_tensor(a, [BM, BK]),
        tile.TensorDescriptor.from_tensor(b, [BN, BK]), c, M, N, K, BM=BM,
        BN=BN, BK=BK, WS=ws, num_warps=4, num_stages=stages)
    torch.cuda.synchronize()
    # fp8 wgmma accumulates with fewer bits than fp32 (as in DOT_CASES).
    tolerance = 1e-3 if dtype == torch.float8_e4m3fn else 1e-4
    err = rel_err(c, a.double() @ b.double().T)
    assert err < tolerance, "%s stages=%d ws=%s: rel err %.3e" % (
        dtype, stages, ws, err)
    for compiled in nt_matmul_kernel.cache.values():
        assert "tilegpu.memdesc_trans" in compiled.asm["tilegpu"]
        assert "tile.trans" not in compiled.asm["tilegpu"]
        specialized = "tilegpu.warp_specialize" in compiled.asm["tilegpu"]
        assert specialized == (compiled.metadata["num_warps"] == 8)
        if specialized:
            assert "setmaxnreg.dec.sync.aligned.u32 24" in compiled.asm["ptx"]


def test_descriptor_matmul_ptx_has_bulk_tensor_copies():
    m = _bench_kernels()
    sig = {"a_desc": "tensordesc<fp16[128,64]>", "b_desc": "tensordesc<fp16[64,256]>",
           "c_desc": "tensordesc<fp16[128,256]>", "M": "i32", "N": "i32", "K": "i32"}
    kernel = tile.compile(m.matmul_tma_kernel, sig,
                          {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8},
                          num_warps=8, num_stages=4)
    ptx = kernel.asm["ptx"]
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in ptx
    assert "mbarrier.try_wait.parity" in ptx


@tile.jit
def scale_by_sign(a, n):
    # Early returns in a called function, nested, with values.
    if n > 0:
        if n > 100:
            return a * 3.0
        return a * 2.0
    if n == 0:
        return a
    return -a


@tile.jit
def early_returns_kernel(x_ptr, out_ptr, n_ptr, count, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= count:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < count
    n = tl.load(n_ptr + pid)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, scale_by_sign(x, n), mask=mask)


def test_early_returns_follow_python():
    block, programs = 128, 9
    count = block * (programs - 1) - 37   # the last program has no work
    x = torch.randn(count, device="cuda")
    n = torch.tensor([-5, 0, 1, 100, 101, 7, -1, 0, 500], device="cuda",
                     dtype=torch.int32)
    out = torch.full_like(x, float("nan"))
    early_returns_kernel[(programs,)](x, out, n, count, BLOCK=block)
    torch.cuda.synchronize()
    factor = torch.tensor([-1.0, 1.0, 2.0, 2.0, 3.0, 2.0, -1.0, 1.0, 3.0])
    # One correctly rounded fp32 multiply per element, on either device.
    ref = x.cpu() * factor.repeat_interleave(block)[:count]
    assert torch.equal(out.cpu(), ref)


@tile.jit
def ternary_store(flags, a_ptr, b_ptr):
    pid = tl.program_id(0)
    f = tl.load(flags + pid)
    tl.store(a_ptr + pid, f * 2.0) if f > 0 else tl.store(b_ptr + pid, f - 1.0)


def test_a_dynamic_ternary_stores_on_one_side_only():
    n = 257
    flags = torch.randint(-3, 4, (n,), device="cuda").float()
    a = torch.full((n,), float("nan"), device="cuda")
    b = torch.full((n,), float("nan"), device="cuda")
    ternary_store[(n,)](flags, a, b)
    torch.cuda.synchronize()
    pos = flags > 0
    assert torch.equal(a[pos], flags[pos] * 2) and torch.isnan(a[~pos]).all()
    assert torch.equal(b[~pos], flags[~pos] - 1) and torch.isnan(b[pos]).all()


@tile.jit
def argmax_rows(x_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(out_ptr + row, tl.argmax(x, axis=0, tie_break_left=True))


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.float16,
                                   torch.int64])
@pytest.mark.parametrize("n", [64, 1024])
def test_argmax_of_narrow_types(dtype, n):
    # Values and int32 indices cross warps through shared memory; the
    # indices' slots once started at byte 2 after int8 values (a
    # misaligned-address trap).
    rows = 37
    x = (torch.randn(rows, n, device="cuda") * 40).to(dtype)
    out = torch.full((rows,), -1, dtype=torch.int32, device="cuda")
    argmax_rows[(rows,)](x, out, N=n)
    torch.cuda.synchronize()
    # torch.argmax returns the first maximum, as tie_break_left does.
    assert torch.equal(out.long(), x.float().argmax(1))


def test_pointers_retyped_after_an_early_return():
    block, n = 64, 64 * 5 - 9
    x = torch.randn(block * 8, device="cuda")
    out = torch.full_like(x, float("nan"))
    early_returns.advance_after_return[(8,)](x, out, n, BLOCK=block)
    torch.cuda.synchronize()
    assert torch.equal(out[:n].cpu(), x[:n].cpu() * 2)
    assert torch.isnan(out[n:]).all()
