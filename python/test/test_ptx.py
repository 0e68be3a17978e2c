"""Without a GPU: the PTX of the classic kernels, checked with FileCheck, and
accepted by ptxas -arch=sm_90a (the cubin is produced by ptxas)."""

import re

import pytest

import tile
import tile.language as tl
from filecheck import filecheck
from kernels import bench_kernels
from kernels import classic as k
from kernels import quantized as q


def test_vector_add_ptx_is_vectorised():
    kernel = tile.compile(k.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                   "out_ptr": "*fp32", "n_elements": "i32"},
                          constexprs={"BLOCK_SIZE": 1024},
                          divisibility=["x_ptr", "y_ptr", "out_ptr", "n_elements"])
    filecheck(kernel.asm["ptx"], r"""
CHECK: .entry add_kernel
CHECK: ld.global.v4.b32
CHECK: ld.global.v4.b32
CHECK: st.global.v4.b32
""")
    assert len(kernel.asm["cubin"]) > 0


def test_softmax_ptx_reduces_with_shuffles():
    kernel = tile.compile(k.softmax_kernel, signature={
        "out_ptr": "*fp32", "in_ptr": "*fp32", "in_row_stride": "i32",
        "out_row_stride": "i32", "n_rows": "i32", "n_cols": "i32"},
        constexprs={"BLOCK_SIZE": 1024})
    filecheck(kernel.asm["ptx"], r"""
CHECK: .entry softmax_kernel
CHECK: shfl.sync.bfly.b32
CHECK: bar.sync
""")
    assert len(kernel.asm["cubin"]) > 0
    assert kernel.metadata["shared"] > 0


_MATMUL_SIGNATURE = dict(
    a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
    stride_am="i32", stride_ak="i32", stride_bk="i32", stride_bn="i32",
    stride_cm="i32", stride_cn="i32")


def test_matmul_uses_wgmma_on_sm90a():
    kernel = tile.compile(k.matmul_kernel, signature=_MATMUL_SIGNATURE,
                          constexprs=dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
                                          GROUP_M=8, ACTIVATION="leaky_relu"))
    # Operands stored to swizzled shared memory and fenced for the async
    # proxy, then two k16 steps of one m64n64 warpgroup MMA, committed and
    # waited for.
    filecheck(kernel.asm["ptx"], r"""
CHECK: .entry matmul_kernel
CHECK: st.shared
CHECK: fence.proxy.async.shared::cta
CHECK: bar.sync
CHECK: wgmma.fence.sync.aligned
CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
CHECK-NOT: wgmma.mma_async
CHECK: wgmma.commit_group.sync.aligned
CHECK: wgmma.wait_group.sync.aligned 0
""")
    assert "fma.rn.f32" not in kernel.asm["ptx"]
    assert len(kernel.asm["cubin"]) > 0


@pytest.mark.parametrize("stages", [3, 4])
def test_matmul_pipelines_operand_loads(stages):
    # Unit-stride K (A) and N (B) with 16-byte aligned bases: the operand
    # tiles move by 16-byte cp.async, num_stages - 1 groups ahead, and the
    # wgmma runs async with one group in flight (so one extra buffer, with
    # the copies at the top of the loop). With 3 stages the extra 32 KiB
    # buffer would leave one CTA per SM where 3 buffers leave two, so it is
    # dropped: the copies then start after the wait that retires the
    # previous iteration's wgmma, and a barrier. The epilogue moves the
    # accumulator to the store layout through a buffer laid out for the
    # store: 16-byte shared reads.
    buffers, late = {3: (3, True), 4: (5, False)}[stages]
    ahead = stages - 1
    signature = {name: ty for name, ty in _MATMUL_SIGNATURE.items()
                 if name not in ("stride_ak", "stride_bn")}
    kernel = tile.compile(
        k.matmul_kernel, signature=signature,
        constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8,
                        ACTIVATION="", stride_ak=1, stride_bn=1),
        num_warps=4, num_stages=stages,
        divisibility=["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am",
                      "stride_bk", "stride_cm", "stride_cn"])
    prologue = "CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};\n"
    prologue += "CHECK: cp.async.commit_group;\n" * ahead
    copies = r"""
CHECK: cp.async.cg.shared.global
CHECK: cp.async.commit_group;"""
    mma = r"""
CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
CHECK: wgmma.commit_group.sync.aligned
CHECK: wgmma.wait_group.sync.aligned 1;"""
    body = mma + "\nCHECK: bar.sync" + copies if late else copies + mma
    filecheck(kernel.asm["ptx"], prologue + r"""
CHECK-NOT: wgmma.mma_async
CHECK: cp.async.wait_group %d;
CHECK: bar.sync""" % (ahead - 1) + body + r"""
CHECK: wgmma.wait_group.sync.aligned 0;
CHECK: cp.async.wait_group 0;
CHECK: st.shared
CHECK: bar.sync
CHECK: ld.shared.v4.b32
""")
    assert kernel.metadata["shared"] >= buffers * (128 * 64 + 64 * 128) * 2
    if stages == 3:
        assert kernel.metadata["shared"] < 4 * (128 * 64 + 64 * 128) * 2


def test_matmul_uses_mma_sync_on_sm80():
    # sm_80: mma.sync m16n8k16 on register fragments (64x64 over 4 warps:
    # 8 column blocks, 2 K steps per warp), fp32 accumulate; ptxas for
    # sm_80 accepts it.
    kernel = tile.compile(k.matmul_kernel, signature=_MATMUL_SIGNATURE,
                          constexprs=dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
                                          GROUP_M=8, ACTIVATION=""),
                          target="sm_80")
    filecheck(kernel.asm["ptx"], r"""
CHECK: .target sm_80
CHECK-COUNT-16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
CHECK-NOT: mma.sync
""")
    assert "wgmma" not in kernel.asm["ptx"]
    assert len(kernel.asm["cubin"]) > 0


def test_small_matmul_uses_mma_sync():
    # 32 x 32 cannot feed a 64-row warpgroup MMA either way round; on
    # sm_90a the dot then runs on mma.sync rather than the CUDA cores.
    kernel = tile.compile(k.matmul_kernel, signature=_MATMUL_SIGNATURE,
                          constexprs=dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32,
                                          GROUP_M=8, ACTIVATION=""))
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in kernel.asm["ptx"]
    assert "wgmma" not in kernel.asm["ptx"]
    assert len(kernel.asm["cubin"]) > 0


@tile.jit
def _block_dot(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr,
               K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    y = tl.load(y_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(z_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :],
             tl.dot(x, y))


@pytest.mark.parametrize("dtype", ["fp8e5", "fp8e4nv"])
@pytest.mark.parametrize("m, n", [(1, 2), (2, 4)])
def test_fp8_dot_too_small_for_mma_runs_on_fma(dtype, m, n):
    # Too small for an m16n8 block: the CUDA cores take it, each fp8 byte
    # widened exactly by cvt (the FMA path crashed the compiler on fp8).
    kernel = tile.compile(_block_dot, signature={"x_ptr": "*" + dtype,
                                                 "y_ptr": "*" + dtype,
                                                 "z_ptr": "*fp32"},
                          constexprs=dict(M=m, N=n, K=32), num_warps=1)
    ptx = kernel.asm["ptx"]
    assert "mma" not in ptx
    assert "cvt.rn.f16x2.%sx2" % ("e5m2" if dtype == "fp8e5" else "e4m3") in ptx
    assert len(kernel.asm["cubin"]) > 0


def test_skinny_matmul_is_transposed_onto_wgmma():
    # 32 rows but 64 columns: the transposed product (64 x 32) has a
    # warpgroup tiling, so tilegpu-swap-dot-operands computes it, and both
    # operands are copied ahead by cp.async (unit strides, aligned rows).
    signature = {name: kind for name, kind in _MATMUL_SIGNATURE.items()
                 if name not in ("stride_ak", "stride_bn", "stride_cn")}
    kernel = tile.compile(k.matmul_kernel, signature=signature,
                          constexprs=dict(BLOCK_M=32, BLOCK_N=64, BLOCK_K=32,
                                          GROUP_M=8, ACTIVATION="",
                                          stride_ak=1, stride_bn=1,
                                          stride_cn=1),
                          divisibility=list(signature))
    ptx = kernel.asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16" in ptx
    assert "mma.sync" not in ptx and "cp.async" in ptx
    assert len(kernel.asm["cubin"]) > 0


# Every classic kernel, with the signature it runs with on the GPU: ptxas
# (-arch=sm_90a) must accept its PTX.
_F32, _I32, _F16 = "*fp32", "*i32", "*fp16"
CLASSIC = {
    "layer_norm_fwd": (k.layer_norm_fwd, dict(
        X=_F32, Y=_F32, W=_F32, B=_F32, Mean=_F32, Rstd=_F32, stride="i32",
        N="i32", eps="fp32"), dict(BLOCK_SIZE=1024)),
    "layer_norm_bwd_dx": (k.layer_norm_bwd_dx, dict(
        DX=_F32, DY=_F32, DW=_F32, DB=_F32, X=_F32, W=_F32, Mean=_F32,
        Rstd=_F32, Lock=_I32, stride="i32", N="i32"),
        dict(GROUP_SIZE_M=8, BLOCK_SIZE_N=1024)),
    "cumsum_argmax": (k.cumsum_argmax_kernel, dict(
        x_ptr=_F32, cum_ptr=_F32, arg_ptr=_I32, n_cols="i32"), dict(BLOCK=1024)),
    "transpose": (k.transpose_kernel, dict(in_ptr=_F32, out_ptr=_F32, M="i32",
                                           N="i32"), dict(BLOCK_M=32, BLOCK_N=32)),
    "scalar_loop": (k.scalar_loop_kernel, dict(out_ptr=_I32, n="i32",
                                               limit="i32"), {}),
    "histogram": (k.histogram_kernel, dict(x_ptr=_I32, hist_ptr=_I32, n="i32"),
                  dict(BLOCK=1024, BINS=64)),
    "misc_ops": (k.misc_ops_kernel, dict(x_ptr=_I32, out_ptr=_I32), dict(BLOCK=128)),
    "dropout": (k.dropout_kernel, dict(x_ptr=_F32, out_ptr=_F32, n_elements="i32",
                                       p="fp32", seed="i32"), dict(BLOCK_SIZE=1024)),
    "randn": (k.randn_kernel, dict(out_ptr=_F32, seed="i32"), dict(BLOCK=1024)),
    "attention": (k.attention_fwd_kernel, dict(
        Q=_F16, K=_F16, V=_F16, Out=_F16, sm_scale="fp32", stride_qm="i32",
        stride_kn="i32", stride_vn="i32", stride_om="i32", seq_len="i32"),
        dict(BLOCK_M=64, BLOCK_N=64, HEAD_DIM=64, CAUSAL=True)),
    "casts_math": (k.casts_math_kernel, dict(x_ptr=_F16, out_ptr=_F32, ints_ptr=_I32,
                                             n="i32"), dict(BLOCK=512)),
    "print": (k.print_kernel, dict(x_ptr=_I32), dict(BLOCK=4)),
    "assert": (k.assert_kernel, dict(x_ptr=_I32), dict(BLOCK=4)),
    "user_combiner": (k.user_combiner_kernel, dict(x_ptr=_F32, out_ptr=_F32,
                                                   idx_ptr=_I32), dict(BLOCK=256)),
}


@pytest.mark.parametrize("name", sorted(CLASSIC))
def test_classic_kernel_assembles(name):
    fn, signature, constexprs = CLASSIC[name]
    kernel = tile.compile(fn, signature=signature, constexprs=constexprs)
    assert f".entry {fn.__name__}" in kernel.asm["ptx"]
    # ptxas wrote an ELF cubin.
    assert kernel.asm["cubin"][:4] == b"\x7fELF"


def test_debug_and_combine_ops_ptx():
    fn, signature, constexprs = CLASSIC["misc_ops"]
    kernel = tile.compile(fn, signature=signature, constexprs=constexprs,
                          debug=True)
    filecheck(kernel.asm["ptx"], r"""
CHECK: .extern .func __assertfail
CHECK: .extern .func {{.*}} vprintf
CHECK: .entry misc_ops_kernel
CHECK: atom.shared.add.u32
CHECK: call.uni {{.*}}vprintf
CHECK: call.uni {{.*}}__assertfail
""")


@tile.jit
def _axpy_kernel(x_ptr, y_ptr, out_ptr, a, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs) + tl.load(y_ptr + offs))


@pytest.mark.parametrize("fusion", [True, False])
def test_enable_fp_fusion(fusion):
    # Triton's option and default: a multiply feeding an add becomes an fma
    # unless the launch says enable_fp_fusion=False.
    kernel = tile.compile(_axpy_kernel, signature=dict(
        x_ptr="*fp32", y_ptr="*fp32", out_ptr="*fp32", a="fp32"),
        constexprs=dict(BLOCK=128), enable_fp_fusion=fusion)
    ptx = kernel.asm["ptx"]
    assert ("fma.rn.f32" in ptx) == fusion
    assert ("mul.rn.f32" in ptx) == (not fusion)
    assert kernel.metadata["enable_fp_fusion"] == fusion


@pytest.mark.parametrize("e5m2", [False, True])
def test_fp8_conversions(e5m2):
    # fp8 narrows from f32 with round-to-nearest-even and saturation and
    # widens exactly through f16; the bf16 downcast asked to round toward
    # zero uses cvt.rz. ptxas accepts all of it for sm_90a.
    fmt = "e5m2" if e5m2 else "e4m3"
    kernel = tile.compile(k.fp8_roundtrip_kernel, signature=dict(
        x_ptr="*fp32", y_ptr="*fp8e5" if e5m2 else "*fp8e4nv", z_ptr="*fp32",
        t_ptr="*bf16", n="i32"), constexprs=dict(BLOCK=256, E5M2=e5m2))
    filecheck(kernel.asm["ptx"], r"""
CHECK-DAG: cvt.rn.satfinite.%sx2.f32
CHECK-DAG: cvt.rn.f16x2.%sx2
CHECK-DAG: cvt.f32.f16
CHECK-DAG: cvt.rz.bf16.f32
""" % (fmt, fmt))
    assert len(kernel.asm["cubin"]) > 0


@tile.jit
def _bad_rounding_kernel(x_ptr, WIDEN: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if WIDEN:
        y = x.to(tl.float32, fp_downcast_rounding="rtz")
    else:
        y = x.to(tl.float8e4nv, fp_downcast_rounding="rtz")
    tl.store(x_ptr + tl.arange(0, 16), y.to(tl.float16))


@pytest.mark.parametrize("widen,message", [
    (True, "fp_downcast_rounding applies only to narrowing"),
    (False, "conversions to fp8 round to nearest even only"),
])
def test_bad_rounding_is_a_compilation_error(widen, message):
    with pytest.raises(tile.CompilationError, match=message) as info:
        tile.compile(_bad_rounding_kernel, signature=dict(x_ptr="*fp16"),
                     constexprs=dict(WIDEN=widen))
    assert "^" in str(info.value)


@tile.jit
def _ieee_dot_kernel(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 64)
    k16 = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + k16[None, :])
    b = tl.load(b_ptr + k16[:, None] * 64 + r[None, :])
    tl.store(c_ptr + r[:, None] * 64 + r[None, :],
             tl.dot(a, b, input_precision="ieee"))


def test_ieee_fp32_dot_stays_on_fma():
    # IEEE fp32 products have no tensor-core instruction: fma.rn per term.
    kernel = tile.compile(_ieee_dot_kernel, signature=dict(
        a_ptr="*fp32", b_ptr="*fp32", c_ptr="*fp32"))
    ptx = kernel.asm["ptx"]
    assert "fma.rn.f32" in ptx
    assert "wgmma" not in ptx and "mma.sync" not in ptx


@tile.jit
def tma_dot_kernel(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr):
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([0, k * BK]), b_desc.load([k * BK, 0]), acc)
    c_desc.store([0, 0], acc.to(tl.float16))


@pytest.mark.parametrize("stages", [3, 4])
def test_descriptor_matmul_pipelines_tma_copies(stages):
    # One mbarrier per buffer (stages + 1: the async wgmma keeps one
    # buffer busy), stages - 1 iterations of copies in the prologue, two box
    # copies per iteration (A's 64x64 tile, B's 64x128 tile in two 64-column
    # swizzle atoms make three), the result stored by TMA. With 3 stages the
    # extra buffer would cost the second CTA per SM: 3 buffers, and the
    # copies start after the wgmma wait that retires the previous
    # iteration's (and a barrier).
    buffers, late = {3: (3, True), 4: (5, False)}[stages]
    ahead = stages - 1
    kernel = tile.compile(tma_dot_kernel, {
        "a_desc": "tensordesc<fp16[128,64]>", "b_desc": "tensordesc<fp16[64,128]>",
        "c_desc": "tensordesc<fp16[128,128]>", "K": "i32"},
        {"BM": 128, "BN": 128, "BK": 64}, num_warps=4, num_stages=stages)
    ptx = kernel.asm["ptx"]
    copy = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
    inits = "\n".join(["CHECK: mbarrier.init.shared::cta.b64"] * buffers)
    prologue = "\n".join(["CHECK: %s" % copy] * (3 * ahead))
    copies = "\n".join(["CHECK: %s" % copy] * 3)
    mma = "CHECK: wgmma.mma_async\nCHECK: wgmma.wait_group.sync.aligned 1;"
    body = mma + "\nCHECK: bar.sync\n" + copies if late else copies + "\n" + mma
    filecheck(ptx, r"""
CHECK: .entry tma_dot_kernel
CHECK-NEXT: .param .align 64 .b8 tma_dot_kernel_param_0[128]
%s
CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{.*}}], 32768;
%s
CHECK: mbarrier.try_wait.parity.shared::cta.b64
%s
CHECK: mbarrier.inval.shared::cta.b64
CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
CHECK: cp.async.bulk.commit_group
CHECK: cp.async.bulk.wait_group.read 0
""" % (inits, prologue, body))
    assert len(kernel.asm["cubin"]) > 0


@tile.jit
def made_tma_dot_kernel(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr,
                        BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [BM, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, BN], [BN, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [BM, BN], [BN, 1], [BM, BN])
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([0, k * BK]), b_desc.load([k * BK, 0]), acc)
    c_desc.store([0, 0], acc.to(tl.float16))


def test_descriptors_made_in_the_kernel_compile_like_host_ones():
    # The pointers stay parameters (unused in the body), the three
    # descriptors follow as 128-byte grid_constant parameters, and the main
    # loop is the host-descriptor kernel's: the same pipelined TMA copies.
    made = tile.compile(made_tma_dot_kernel, {
        "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
        {"BM": 128, "BN": 128, "BK": 64}, num_warps=4, num_stages=3)
    host = tile.compile(tma_dot_kernel, {
        "a_desc": "tensordesc<fp16[128,64]>", "b_desc": "tensordesc<fp16[64,128]>",
        "c_desc": "tensordesc<fp16[128,128]>", "K": "i32"},
        {"BM": 128, "BN": 128, "BK": 64}, num_warps=4, num_stages=3)
    filecheck(made.asm["ptx"], r"""
CHECK: .entry made_tma_dot_kernel
CHECK-NEXT: .param .u64 {{.*}}made_tma_dot_kernel_param_0
CHECK-NEXT: .param .u64 {{.*}}made_tma_dot_kernel_param_1
CHECK-NEXT: .param .u64 {{.*}}made_tma_dot_kernel_param_2
CHECK-NEXT: .param .u32 made_tma_dot_kernel_param_3
CHECK-NEXT: .param .align 64 .b8 made_tma_dot_kernel_param_4[128]
CHECK-NEXT: .param .align 64 .b8 made_tma_dot_kernel_param_5[128]
CHECK-NEXT: .param .align 64 .b8 made_tma_dot_kernel_param_6[128]
""")
    for text in ("cp.async.bulk.tensor", "mbarrier.try_wait", "wgmma.mma_async"):
        assert made.asm["ptx"].count(text) == host.asm["ptx"].count(text) > 0
    assert [r["dtype"] for r in made.metadata["host_descriptors"]] == ["fp16"] * 3


_ATTENTION_SIGNATURE = dict(Q=_F16, K=_F16, V=_F16, Out=_F16, sm_scale="fp32",
                            stride_qm="i32", stride_kn="i32", stride_vn="i32",
                            stride_om="i32", seq_len="i32")


@pytest.mark.parametrize("name, block_n, two_ctas", [
    ("attention_fwd_overlap_kernel", 32, True),
    ("attention_fwd_kernel", 64, False)])
def test_register_cap_for_occupancy(name, block_n, two_ctas):
    # The benchmark's overlapped attention at 128x32 blocks on 8 warps
    # needs 80 KiB of shared memory: two CTAs fit an SM if each thread gets
    # by on 128 registers, by itself (it does since the warp index is
    # warp-uniform) or by reassembly with .maxnreg 128 (the decision is
    # unit-tested in OccupancyTest). The plain one at 128x64 needs 128 KiB,
    # which holds it to one CTA anyway: never capped.
    bench = bench_kernels()
    kernel = tile.compile(
        getattr(bench, name), signature=_ATTENTION_SIGNATURE,
        constexprs=dict(BLOCK_M=128, BLOCK_N=block_n, HEAD_DIM=128),
        num_warps=8, num_stages=3,
        divisibility=["Q", "K", "V", "Out", "stride_qm", "stride_kn",
                      "stride_vn", "stride_om", "seq_len"])
    meta = kernel.metadata
    assert kernel.asm["cubin"][:4] == b"\x7fELF"
    # The PTX shown is the one the cubin was made from.
    assert (".maxnreg 128" in kernel.asm["ptx"]) == (meta["maxnreg"] == 128)
    if two_ctas:
        assert meta["num_regs"] <= 128
        assert meta["shared"] <= 233472 // 2 - 1024
    else:
        assert meta["maxnreg"] == 0 and meta["shared"] > 233472 // 2


@tile.jit
def _nibbles_to_bf16_kernel(packed_ptr, out_ptr, BLOCK: tl.constexpr):
    # The int4 GEMMs' unpacking on its own: a signed low nibble to bf16,
    # times a bf16 scale, stored as bf16 (16-bit all the way).
    offs = tl.arange(0, BLOCK)
    packed = tl.load(packed_ptr + offs)
    low = ((packed << 4) >> 4).to(tl.bfloat16)
    high = (packed >> 4).to(tl.bfloat16)
    tl.store(out_ptr + offs, low * high)


def test_16bit_elementwise_chains_are_paired():
    # The SLP vectorizer (off in PassBuilder's defaults) pairs neighbouring
    # 16-bit lanes: one `and`/`xor` on 32 bits and one bf16x2 op for two
    # elements. Without it every element is its own chain.
    kernel = tile.compile(_nibbles_to_bf16_kernel, signature=dict(
        packed_ptr="*i8", out_ptr="*bf16"), constexprs=dict(BLOCK=1024),
        divisibility=["packed_ptr", "out_ptr"])
    ptx = kernel.asm["ptx"]
    assert re.search(r"\bmul(\.rn)?\.bf16x2\b", ptx), ptx
    assert not re.search(r"\b(mul|add)(\.rn)?\.bf16\s", ptx), ptx
    assert len(kernel.asm["cubin"]) > 0


@pytest.mark.parametrize("block_n", [64, 128])
def test_group_scales_are_copied_ahead(block_n):
    # A row of BLOCK_N bf16 scales and zero points per K step is less than
    # a word per thread at one element each (128 threads); as a word per
    # thread on fewer threads it is staged by cp.async with the weights,
    # so the K loop has no global load left to wait for.
    kernel = tile.compile(q.grouped_uint4_matmul_kernel, signature=dict(
        a_ptr="*bf16", b_ptr="*i8", scale_ptr="*bf16", zero_ptr="*bf16",
        c_ptr="*fp32", M="i32", N="i32", K="i32", stride_am="i32",
        stride_bk="i32", stride_sg="i32", stride_cm="i32"),
        constexprs=dict(GROUP=128, BLOCK_M=16, BLOCK_N=block_n, BLOCK_K=128),
        divisibility=["a_ptr", "b_ptr", "scale_ptr", "zero_ptr", "c_ptr", "N",
                      "K", "stride_am", "stride_bk", "stride_sg",
                      "stride_cm"], num_warps=4, num_stages=3)
    ptx = kernel.asm["ptx"]
    assert not re.search(r"\bld\.global", ptx), ptx
    assert re.search(r"cp\.async\.ca\.shared\.global \[%r\d+\], \[%rd\d+\], 4", ptx)
    assert len(kernel.asm["cubin"]) > 0


def compile_int4(block_m, block_n, block_k, warps=4, stages=3):
    """The quantized kernels' int4 product (fp32 out), as the int4 tests
    below compile it."""
    return tile.compile(
        q.int4_weight_matmul_kernel, signature=dict(
            a_ptr="*bf16", b_ptr="*i8", c_ptr="*fp32", M="i32", N="i32",
            K="i32", stride_am="i32", stride_bk="i32", stride_cm="i32"),
        constexprs=dict(BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k),
        divisibility=["a_ptr", "b_ptr", "c_ptr", "N", "K", "stride_am",
                      "stride_bk", "stride_cm"],
        num_warps=warps, num_stages=stages)


def test_int4_high_nibbles_shift_whole_words():
    # A decode-sized int4 product (swapped onto wgmma, the weights unpacked
    # into its register operand): each thread's byte pairs are zero-extended
    # into one register for the low nibbles, and the high nibbles come from
    # one 32-bit shift of that register (PackedByteShifts), not two 16-bit
    # shifts and another packing per pair.
    kernel = compile_int4(16, 64, 128)
    ptx = kernel.asm["ptx"]
    assert "wgmma.mma_async" in ptx
    assert re.search(r"\badd(\.rn)?\.bf16x2\b", ptx), ptx
    assert not re.search(r"\bshr\.[us]16\b", ptx), ptx
    assert re.search(r"\bshr\.u32\s+%r\d+, %r\d+, 4;", ptx), ptx
    assert len(kernel.asm["cubin"]) > 0


def test_int4_nibble_magic_is_one_lop3():
    # The unpacking masks a nibble pair and xors in a bf16 magic number:
    # two constants, which ptxas merges into one LOP3 only when they come as
    # one instruction (ThreeInputLogic). No mask of a nibble pair is left
    # on its own, and the cubin is ptxas's from those lop3s.
    kernel = compile_int4(16, 64, 128)
    ptx = kernel.asm["ptx"]
    lop3 = re.findall(r"\blop3\.b32\s+%r\d+, %r\d+, 983055, (-?\d+), (\d+);",
                      ptx)
    assert len(lop3) >= 16, ptx
    # (w & 0x000F000F) ^ magic: table 0x6A over PTX's a=F0, b=CC, c=AA.
    assert {int(table) for _, table in lop3} == {0x6A}
    assert not re.search(r"\band\.b32\s+%r\d+, %r\d+, 983055;", ptx), ptx
    assert len(kernel.asm["cubin"]) > 0


def test_serialised_wgmmas_are_lowered_again_with_fresh_operands():
    # The large int4 product carries its unpacked A words across the loop
    # (register-operand prefetch). ptxas merged their back-edge copies into
    # the ops that made them, while the previous step's wgmmas still read
    # them, and serialised every wgmma (C7513); the compile notices its
    # report and lowers again with an identity prmt per carried word (32
    # here), which it keeps because ptxas no longer serialises. The decode
    # kernel carries nothing and is compiled once, unchanged.
    large = compile_int4(128, 256, 64, warps=8)
    fresh = re.findall(r"prmt\.b32\s+%r\d+, %r\d+, 0, 0x3210;",
                       large.asm["ptx"])
    assert len(fresh) == 32, large.asm["ptx"]
    decode = compile_int4(16, 64, 128)
    assert "0x3210" not in decode.asm["ptx"]


def test_no_register_cap_that_serialises_wgmmas():
    # 66 registers hold this decode kernel (4 warps, 3 stages) to fewer
    # CTAs per SM than its shared memory allows, and a cap of 64 would fit
    # one more; but at 64 ptxas runs its wgmmas one at a time (C7512: too
    # few registers to keep them in flight), so the compile keeps the
    # uncapped cubin. (test_register_cap_for_occupancy has kernels the cap
    # still helps.)
    kernel = compile_int4(16, 64, 128)
    assert kernel.metadata["maxnreg"] == 0
    assert kernel.metadata["num_regs"] > 64
    assert ".maxnreg" not in kernel.asm["ptx"]


@tile.jit
def _dot_summed_into_global(a_ptr, b_ptr, out_ptr, n_rows,
                            BLOCK: tl.constexpr, SEM: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    tl.atomic_add(out_ptr + offs[:, None] * BLOCK + offs[None, :],
                  tl.dot(a, b), mask=offs[:, None] < n_rows, sem=SEM)


def test_dot_summed_into_global_is_vector_red():
    # A dot's accumulator added into a global sum (attention's dQ across key
    # blocks) with nobody reading the old values: relaxed `red.v2.f32` in
    # the accumulator's layout (pairs of columns a thread), no atom waiting
    # for L2's answer, and no trip through shared memory to a coalesced
    # layout first. An acq_rel sum keeps one atom per element.
    def compile_sum(sem):
        return tile.compile(
            _dot_summed_into_global,
            signature=dict(a_ptr="*fp16", b_ptr="*fp16", out_ptr="*fp32",
                           n_rows="i32"),
            constexprs=dict(BLOCK=64, SEM=sem),
            divisibility=["a_ptr", "b_ptr", "out_ptr", "n_rows"], num_warps=4)
    relaxed = compile_sum("relaxed")
    ptx = relaxed.asm["ptx"]
    reds = re.findall(r"red\.global\.gpu\.relaxed\.add\.v2\.f32", ptx)
    # 64x64 fp32 over 128 threads: 32 elements, 16 pairs a thread.
    assert len(reds) == 16, ptx
    assert "atom." not in ptx
    assert re.search(r"tile\.atomic_rmw fadd, relaxed, .* : "
                     r"tensor<64x64x!tile\.ptr<f32>, #mma\d*>",
                     relaxed.asm["tilegpu"]), relaxed.asm["tilegpu"]
    assert len(relaxed.asm["cubin"]) > 0
    ptx = compile_sum("acq_rel").asm["ptx"]
    assert len(re.findall(r"atom\.global\.gpu\.acq_rel\.add\.f32", ptx)) == 32
    assert "red.global" not in ptx
