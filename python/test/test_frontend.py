"""The front end: classic kernels through tile.compile to verified Tile IR."""

import numpy as np
import pytest

import tile
import tile.language as tl
from tile.compiler.compiler import lower_to_tile_ir
from filecheck import filecheck
from kernels import classic as k


def compile_ir(fn, signature, constexprs=None, **kw):
    return tile.compile(fn, signature=signature, constexprs=constexprs or {},
                        **kw).asm["tile"]


def test_vector_add():
    ir = compile_ir(k.add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                   "out_ptr": "*fp32", "n_elements": "i32"},
                    {"BLOCK_SIZE": 1024}, divisibility=["x_ptr"])
    filecheck(ir, r"""
CHECK: func.func @add_kernel(%{{.*}}: !tile.ptr<f32> {tile.divisibility = 16 : i32}
CHECK-SAME: attributes {tile.kernel}
CHECK: tile.get_program_id x
CHECK: arith.muli {{.*}} : i32
CHECK: tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
CHECK: arith.cmpi slt, {{.*}} : tensor<1024xi32>
CHECK: tile.addptr {{.*}} : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>>
CHECK: tile.load
CHECK: arith.addf {{.*}} : tensor<1024xf32>
CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>>
""")


def test_every_op_has_the_python_location():
    ir = compile_ir(k.add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                   "out_ptr": "*fp32", "n_elements": "i32"},
                    {"BLOCK_SIZE": 128})
    assert "classic.py" in ir
    for line in ir.splitlines():
        if "= tile." in line or "tile.store" in line:
            assert "loc(" in line


def test_softmax():
    ir = compile_ir(k.softmax_kernel, {"out_ptr": "*fp32", "in_ptr": "*fp32",
                                       "in_row_stride": "i32", "out_row_stride": "i32",
                                       "n_rows": "i32", "n_cols": "i32"},
                    {"BLOCK_SIZE": 1024})
    filecheck(ir, r"""
CHECK: tile.get_num_programs x
CHECK: scf.for %[[IV:.*]] = {{.*}} : i32 {
CHECK: arith.constant 0xFF800000 : f32
CHECK: tile.load {{.*}}, {{.*}}, {{.*}} : tensor<1024x!tile.ptr<f32>>
CHECK: tile.reduce {{.*}} axis = 0 : (tensor<1024xf32>) -> f32
CHECK: arith.maxnumf {{.*}} : f32
CHECK: tile.reduce.return
CHECK: math.exp {{.*}} : tensor<1024xf32>
CHECK: tile.reduce {{.*}} axis = 0 : (tensor<1024xf32>) -> f32
CHECK: arith.addf {{.*}} : f32
CHECK: arith.divf {{.*}} : tensor<1024xf32>
CHECK: tile.store
CHECK: } {tile.num_stages = 2 : i32}
""")


def test_matmul_with_nested_activation():
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
           "K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32",
           "stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32"}
    consts = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8,
              "ACTIVATION": "leaky_relu"}
    ir = compile_ir(k.matmul_kernel, sig, consts)
    filecheck(ir, r"""
CHECK-DAG: func.func private @leaky_relu_0(%{{.*}}: tensor<64x64xf32> {{.*}}) -> tensor<64x64xf32>
CHECK: func.func @matmul_kernel
CHECK: arith.divsi
CHECK: arith.minsi
CHECK: arith.remsi
CHECK: tile.expand_dims {{.*}} {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) : i32 {
CHECK: tile.dot {{.*}} : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
CHECK: scf.yield
CHECK: call @leaky_relu_0({{.*}}) : (tensor<64x64xf32>) -> tensor<64x64xf32>
CHECK: arith.truncf {{.*}} : tensor<64x64xf32> to tensor<64x64xf16>
CHECK: tile.store
""")
    # Without the activation, no call and no helper function.
    consts["ACTIVATION"] = ""
    plain = compile_ir(k.matmul_kernel, sig, consts)
    assert "leaky_relu" not in plain


def test_layer_norm_forward_and_backward():
    ir = compile_ir(k.layer_norm_fwd, {"X": "*fp16", "Y": "*fp16", "W": "*fp16",
                                       "B": "*fp16", "Mean": "*fp32", "Rstd": "*fp32",
                                       "stride": "i32", "N": "i32", "eps": "fp32"},
                    {"BLOCK_SIZE": 512})
    filecheck(ir, r"""
CHECK: scf.for
CHECK: arith.extf {{.*}} : tensor<512xf16> to tensor<512xf32>
CHECK: math.sqrt {{.*}} : f32
CHECK: tile.store {{.*}} : !tile.ptr<f32>
""")
    ir = compile_ir(k.layer_norm_bwd_dx,
                    {"DX": "*fp16", "DY": "*fp16", "DW": "*fp16", "DB": "*fp16",
                     "X": "*fp16", "W": "*fp16", "Mean": "*fp32", "Rstd": "*fp32",
                     "Lock": "*i32", "stride": "i32", "N": "i32"},
                    {"GROUP_SIZE_M": 64, "BLOCK_SIZE_N": 1024})
    filecheck(ir, r"""
CHECK: scf.while
CHECK: tile.atomic_cas acq_rel, gpu, {{.*}} : !tile.ptr<i32>
CHECK: scf.condition
CHECK: } do {
CHECK: scf.if
CHECK: tile.atomic_rmw xchg, acq_rel, gpu
CHECK: } else {
CHECK: scf.yield
CHECK: tile.atomic_rmw xchg
""")


def test_cumsum_and_argmax():
    ir = compile_ir(k.cumsum_argmax_kernel, {"x_ptr": "*fp32", "cum_ptr": "*fp32",
                                             "arg_ptr": "*i32", "n_cols": "i32"},
                    {"BLOCK": 256})
    filecheck(ir, r"""
CHECK: tile.scan {{.*}} axis = 0 : (tensor<256xf32>) -> tensor<256xf32>
CHECK: tile.scan.return
CHECK: tile.reduce {{.*}}, {{.*}} axis = 0 : (tensor<256xf32>, tensor<256xi32>) -> (f32, i32)
CHECK: tile.reduce.return {{.*}} : f32, i32
""")


def test_transpose():
    ir = compile_ir(k.transpose_kernel, {"in_ptr": "*fp16", "out_ptr": "*fp16",
                                         "M": "i32", "N": "i32"},
                    {"BLOCK_M": 32, "BLOCK_N": 64})
    filecheck(ir, r"""
CHECK: tile.get_program_id y
CHECK: tile.broadcast {{.*}} : tensor<32x1xi32> -> tensor<32x64xi32>
CHECK: tile.trans {{.*}} {order = array<i32: 1, 0>} : tensor<32x64xf16> -> tensor<64x32xf16>
CHECK: tile.trans {{.*}} : tensor<32x64xi1> -> tensor<64x32xi1>
""")


def test_scalar_while_if():
    ir = compile_ir(k.scalar_loop_kernel, {"out_ptr": "*i32", "n": "i32", "limit": "i32"})
    filecheck(ir, r"""
CHECK: scf.while ({{.*}}) : (i32, i32) -> (i32, i32) {
CHECK: arith.cmpi slt
CHECK: scf.condition
CHECK: arith.remsi
CHECK: scf.if {{.*}} -> (i32) {
CHECK: } else {
CHECK: scf.if {{.*}} -> (i32) {
CHECK: tile.store {{.*}} : !tile.ptr<i32>
""")


def test_histogram_atomics():
    ir = compile_ir(k.histogram_kernel, {"x_ptr": "*i32", "hist_ptr": "*i32", "n": "i32"},
                    {"BLOCK": 1024, "BINS": 64})
    filecheck(ir, r"""
CHECK: tile.atomic_rmw add, acq_rel, gpu, {{.*}} : tensor<1024x!tile.ptr<i32>>
""")


def test_masked_histogram_skips_the_masked_elements():
    ir = compile_ir(k.masked_histogram_kernel, {"x_ptr": "*u8", "hist_ptr": "*i32",
                                                "n": "i32"}, {"BLOCK": 512, "BINS": 256})
    # Widened to 32 bits, masked-off elements become -1 (outside every bin).
    filecheck(ir, r"""
CHECK: arith.extui {{.*}} : tensor<512xi8> to tensor<512xi32>
CHECK: arith.select {{.*}} : tensor<512xi1>, tensor<512xi32>
CHECK: tile.histogram {{.*}} : tensor<512xi32> -> tensor<256xi32>
""")


def test_print_of_runtime_values_is_device_print():
    # Triton maps the builtin print to device_print; tl.range's None options
    # leave no attribute behind (test_core's test_tl_range_option_none).
    ir = compile_ir(k.print_in_loop, {"n": "i32"}, {})
    filecheck(ir, r"""
CHECK: scf.for
CHECK: tile.print "i" {{.*}} : i32
""")
    assert "num_stages" not in ir and "loop_unroll_factor" not in ir


def test_join_split_cat_histogram_debug():
    from tile.language import dtypes as d
    ir = lower_to_tile_ir(k.misc_ops_kernel, {"x_ptr": d.parse_signature_type("*i32"),
                                              "out_ptr": d.parse_signature_type("*i32"),
                                              "BLOCK": tl.constexpr(64)},
                          debug=True)
    filecheck(ir, r"""
CHECK: tile.join {{.*}} : tensor<64xi32> -> tensor<64x2xi32>
CHECK: tile.split {{.*}} : tensor<64x2xi32> -> tensor<64xi32>
CHECK: tile.cat {{.*}} : tensor<64xi32> -> tensor<128xi32>
CHECK: tile.histogram {{.*}} : tensor<64xi32> -> tensor<16xi32>
CHECK: tile.mulhiui {{.*}} : tensor<64xi32>
CHECK: tile.print "h" {hex = false, isSigned = array<i32: 1>} {{.*}} : tensor<16xi32>
CHECK: tile.assert {{.*}}, "split order" : tensor<64xi1>
""")
    masked = lower_to_tile_ir(masked_assert, {
        "x_ptr": d.parse_signature_type("*i32"), "n": d.parse_signature_type("i32")},
        debug=True)
    filecheck(masked, r"""
CHECK: %[[IN:.*]] = arith.cmpi slt
CHECK: %[[OUT:.*]] = arith.xori %[[IN]]
CHECK: %[[OK:.*]] = arith.ori %{{.*}}, %[[OUT]]
CHECK: tile.assert %[[OK]], "positive" : tensor<4xi1>
""")
    # Without debug (Triton's default) device_assert compiles to nothing.
    quiet = lower_to_tile_ir(k.misc_ops_kernel, {
        "x_ptr": d.parse_signature_type("*i32"),
        "out_ptr": d.parse_signature_type("*i32"), "BLOCK": tl.constexpr(64)})
    assert "tile.assert" not in quiet and "tile.histogram" in quiet


@tile.jit
def masked_assert(x_ptr, n):
    offs = tl.arange(0, 4)
    tl.device_assert(tl.load(x_ptr + offs) > 0, "positive", mask=offs < n)


def test_dump_ir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_DUMP_IR", str(tmp_path))
    compile_ir(k.add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                              "n_elements": "i32"}, {"BLOCK_SIZE": 256})
    dumps = sorted(p.name for p in tmp_path.iterdir())
    assert [name.split(".")[2] for name in dumps] == ["llir", "ptx", "tile", "tilegpu"]
    assert all(name.startswith("add_kernel.") for name in dumps)
    (dumped,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tile.mlir")]
    # The dump replays through libtile (and so through tile-opt).
    assert "tile.load" in tile.verify_ir(dumped.read_text())


def test_dropout_with_philox():
    ir = compile_ir(k.dropout_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                       "n_elements": "i32", "p": "fp32", "seed": "i32"},
                    {"BLOCK_SIZE": 1024})
    # Ten Philox rounds, two high multiplications each.
    assert ir.count("tile.mulhiui") == 20
    filecheck(ir, r"""
CHECK: arith.extsi {{.*}} : i32 to i64
CHECK: tile.mulhiui {{.*}} : tensor<1024xi32>
CHECK: arith.xori
CHECK: arith.sitofp {{.*}} : tensor<1024xi32> to tensor<1024xf32>
CHECK: arith.cmpf ogt
CHECK: arith.select
CHECK: tile.store
""")
    ir = compile_ir(k.randn_kernel, {"out_ptr": "*fp32", "seed": "i64"}, {"BLOCK": 256})
    filecheck(ir, r"""
CHECK: math.log {{.*}} : tensor<256xf32>
CHECK: math.sqrt
CHECK: math.cos
""")


@pytest.mark.parametrize("causal", [False, True])
def test_fused_attention_forward(causal):
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": "fp32",
           "stride_qm": "i32", "stride_kn": "i32", "stride_vn": "i32", "stride_om": "i32",
           "seq_len": "i32"}
    ir = compile_ir(k.attention_fwd_kernel, sig, {"BLOCK_M": 128, "BLOCK_N": 64,
                                                  "HEAD_DIM": 64, "CAUSAL": causal})
    filecheck(ir, r"""
CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<128xf32>, tensor<128x64xf32>, tensor<128xf32>) {{ *}}: i32 {
CHECK: tile.dot {{.*}} : tensor<128x64xf16> * tensor<64x64xf16> -> tensor<128x64xf32>
CHECK: tile.reduce {{.*}} axis = 1 : (tensor<128x64xf32>) -> tensor<128xf32>
CHECK: math.exp2 {{.*}} : tensor<128x64xf32>
CHECK: arith.truncf {{.*}} : tensor<128x64xf32> to tensor<128x64xf16>
CHECK: tile.dot
CHECK: scf.yield
CHECK: arith.divf {{.*}} : tensor<128x64xf32>
CHECK: tile.store {{.*}} : tensor<128x64x!tile.ptr<f16>>
""")
    # Only the causal variant compares query and key positions.
    assert ("arith.cmpi sge" in ir) == causal
    assert ("arith.minsi" in ir) == causal


def test_reduce_and_scan_with_user_combiner():
    ir = compile_ir(k.user_combiner_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                             "idx_ptr": "*i32"}, {"BLOCK": 128})
    filecheck(ir, r"""
CHECK-DAG: func.func private @max_with_index_0(%{{.*}}: f32 {{.*}}, %{{.*}}: i32 {{.*}}, %{{.*}}: f32 {{.*}}, %{{.*}}: i32 {{.*}}) -> (f32, i32)
CHECK-DAG: func.func private @add_combine_1(%{{.*}}: f32 {{.*}}, %{{.*}}: f32 {{.*}}) -> f32
CHECK: tile.reduce {{.*}} axis = 0 : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
CHECK: call @max_with_index_0
CHECK: tile.reduce.return {{.*}} : f32, i32
CHECK: tile.scan {{.*}} axis = 0 reverse : (tensor<128xf32>) -> tensor<128xf32>
CHECK: call @add_combine_1
CHECK: tile.scan.return
""")


def test_precise_math():
    import tile.language as tl

    @tile.jit
    def precise(x_ptr, y_ptr):
        x = tl.load(x_ptr)
        tl.store(y_ptr, tl.div_rn(x, 3.0) + tl.math.sqrt_rn(x))

    ir = compile_ir(precise, {"x_ptr": "*fp32", "y_ptr": "*fp32"})
    filecheck(ir, r"""
CHECK: tile.precise_divf {{.*}} : f32
CHECK: tile.precise_sqrt {{.*}} : f32
""")


@tile.jit
def specialized_loop(x_ptr, n, WS: tl.constexpr):
    for i in tl.range(0, n, num_stages=3, warp_specialize=WS):
        tl.store(x_ptr + i, i)


def test_warp_specialize_marks_the_loop():
    sig = {"x_ptr": "*i32", "n": "i32"}
    filecheck(compile_ir(specialized_loop, sig, {"WS": True}), r"""
CHECK: scf.for
CHECK: } {tile.num_stages = 3 : i32, tile.warp_specialize}
""")
    assert "tile.warp_specialize" not in compile_ir(specialized_loop, sig,
                                                    {"WS": False})


def test_compile_takes_constexpr_defaults():
    # tile.compile fills a constexpr the caller leaves out from its default,
    # as a launch does.
    ir = compile_ir(specialized_loop_default, {"x_ptr": "*i32", "n": "i32"})
    assert "tile.warp_specialize" in ir


@tile.jit
def specialized_loop_default(x_ptr, n, WS: tl.constexpr = True):
    for i in tl.range(0, n, warp_specialize=WS):
        tl.store(x_ptr + i, i)


@tile.jit
def bf16_scans(x_ptr, s_ptr, p_ptr, i_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    s = tl.cumsum(x, 0)
    p = tl.cumprod(x, 0)
    tl.static_assert(s.dtype == tl.float32 and p.dtype == tl.float32)
    i = tl.cumsum(x.to(tl.int8), 0, dtype=tl.int64)
    tl.static_assert(i.dtype == tl.int64)
    tl.store(s_ptr + tl.arange(0, BLOCK), s)
    tl.store(p_ptr + tl.arange(0, BLOCK), p)
    tl.store(i_ptr + tl.arange(0, BLOCK), i)


def test_scans_widen_bfloat16_as_triton_does():
    # Triton's standard library scans bfloat16 in float32 (test_scan2d
    # compares a bf16 cumsum against a float32 one); cumsum takes dtype=.
    ir = compile_ir(bf16_scans, {"x_ptr": "*bf16", "s_ptr": "*fp32",
                                 "p_ptr": "*fp32", "i_ptr": "*i64"}, {"BLOCK": 128})
    filecheck(ir, r"""
CHECK: arith.extf {{.*}} : tensor<128xbf16> to tensor<128xf32>
CHECK: tile.scan
CHECK: arith.extf {{.*}} : tensor<128xbf16> to tensor<128xf32>
CHECK: tile.scan
CHECK: arith.extsi {{.*}} : tensor<128xi8> to tensor<128xi64>
CHECK: tile.scan
""")


@tile.jit
def narrow_minmax(x_ptr, i_ptr, out_ptr, idx_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    m = tl.max(x, axis=0)
    n = x.min(axis=0)
    k = tl.max(i, axis=0)
    b = tl.max(i > 0, axis=0)
    v, j = tl.max(x, axis=0, return_indices=True)
    tl.static_assert(m.dtype == tl.float32 and n.dtype == tl.float32)
    tl.static_assert(k.dtype == tl.int32 and b.dtype == tl.int32)
    # A mask's sum (and cumulative sum) is unsigned, as Triton's int1 is.
    count = tl.sum(i > 0, axis=0)
    tl.static_assert(count.dtype == tl.uint32)
    tl.static_assert(tl.cumsum(i > 0, 0).dtype == tl.uint32)
    tl.static_assert(v.dtype == (tl.float32 if x.dtype == tl.bfloat16
                                 else x.dtype))
    # x - max(x) is float32, so the exponentials are too (Liger's softmax).
    tl.static_assert((x - m).dtype == tl.float32)
    tl.store(out_ptr + offs, tl.exp(x - m) + n + k + b + v + count)
    tl.store(idx_ptr, j)


@pytest.mark.parametrize("xtype", ["*bf16", "*fp16"])
def test_max_and_min_widen_narrow_types_as_triton_does(xtype):
    # Triton 3.6's standard library: max/min without indices reduce floats
    # narrower than 32 bits in float32 and narrow integers in int32; with
    # indices only bfloat16 widens.
    ir = compile_ir(narrow_minmax, {"x_ptr": xtype, "i_ptr": "*i8",
                                    "out_ptr": "*fp32", "idx_ptr": "*i32"},
                    {"BLOCK": 64})
    narrow = "bf16" if xtype == "*bf16" else "f16"
    filecheck(ir, r"""
CHECK: arith.extf {{.*}} : tensor<64x%s> to tensor<64xf32>
CHECK: tile.reduce {{.*}} (tensor<64xf32>) -> f32
CHECK: arith.extsi {{.*}} : tensor<64xi8> to tensor<64xi32>
CHECK: tile.reduce {{.*}} (tensor<64xi32>) -> i32
""" % narrow)


def test_max_widens_in_the_interpreter_too():
    bits = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    x = (bits * 3).astype(np.float16)
    i = np.arange(-32, 32, dtype=np.int8)
    out = np.full(64, np.nan, np.float32)
    idx = np.zeros(1, np.int32)
    tile.jit(narrow_minmax.fn, interpret=True)[(1,)](x, i, out, idx, 64)
    x32 = x.astype(np.float32)
    want = (np.exp(x32 - x32.max()) + x32.min() + 31 + 1 + x32.max() + 31)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    assert idx[0] == int(np.argmax(x32))


@tile.jit
def member_reductions(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    v, i = x.max(0, True)          # Triton's order: return_indices second
    w, j = tl.min(x, 0, return_indices=True,
                  return_indices_tie_break_left=False)
    k = x.argmax(0)
    tl.store(out_ptr, v + w + x.sum(0) + i + j + k)


def test_member_reductions_take_tritons_signatures():
    compile_ir(member_reductions, {"x_ptr": "*fp32", "out_ptr": "*fp32"},
               {"N": 16})
    x = np.array([3, -7, 9, 9, 0, 1, -7, 2, 5, 4, 4, 8, 6, -1, 2, 3],
                 np.float32)
    out = np.full(1, np.nan, np.float32)
    tile.jit(member_reductions.fn, interpret=True)[(1,)](x, out, 16)
    # Ties go to the lower index: max 9 at 2, min -7 at 1.
    assert out[0] == 9 + -7 + x.sum() + 2 + 1 + 2


@tile.jit
def positional_to(x_ptr, out_ptr, bits_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    # Triton's order: .to(dtype, fp_downcast_rounding, bitcast).
    tl.store(out_ptr + tl.arange(0, 4), x.to(tl.float16, "rtz"))
    tl.store(bits_ptr + tl.arange(0, 4), x.to(tl.int32, None, True))


def test_to_takes_rounding_then_bitcast_positionally():
    ir = compile_ir(positional_to, {"x_ptr": "*fp32", "out_ptr": "*fp16",
                                    "bits_ptr": "*i32"}, {})
    filecheck(ir, r"""
CHECK: tile.fp_to_fp {{.*}} rounding = rtz
CHECK: tile.bitcast {{.*}} : tensor<4xf32> -> tensor<4xi32>
""")
    x = np.array([1 / 3, -2.5, 65504.0, 1e-3], np.float32)
    out = np.full(4, np.nan, np.float16)
    bits = np.zeros(4, np.int32)
    tile.jit(positional_to.fn, interpret=True)[(1,)](x, out, bits)
    assert bits.tolist() == x.view(np.int32).tolist()
    # Towards zero: never above the value in magnitude.
    assert (np.abs(out.astype(np.float32)) <= np.abs(x)).all()


@tile.jit
def static_printing(x_ptr, N: tl.constexpr):
    tl.static_print("N", N, sep="=", end=";\n")
    tl.store(x_ptr + tl.arange(0, N), 0)


def test_static_print_takes_print_keywords(capsys):
    compile_ir(static_printing, {"x_ptr": "*i32"}, {"N": 8})
    assert "N=8;\n" in capsys.readouterr().out
    tile.jit(static_printing.fn, interpret=True)[(1,)](np.ones(8, np.int32), 8)
    assert "N=8;\n" in capsys.readouterr().out


@tile.jit
def softmax_rows(x_ptr, out_ptr, one_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.softmax(x, dim=1, keep_dims=True)
    tl.static_assert(y.dtype == tl.float32)
    tl.store(out_ptr + offs, y)
    one = tl.load(one_ptr + tl.arange(0, 1))
    tl.static_assert(one.item().dtype == one.dtype)
    tl.store(one_ptr, one.item() * 2)


def test_softmax_takes_dim_and_keep_dims_and_widens():
    ir = compile_ir(softmax_rows, {"x_ptr": "*fp16", "out_ptr": "*fp32",
                                   "one_ptr": "*fp16"}, {"R": 4, "C": 8})
    # item() keeps the element's type; the softmax's max widens.
    filecheck(ir, r"""
CHECK: tile.reduce {{.*}} (tensor<4x8xf32>) -> tensor<4xf32>
CHECK: tile.reduce {{.*}} (tensor<1xf16>) -> f16
""")
    x = np.random.default_rng(1).standard_normal((4, 8)).astype(np.float16)
    out = np.full((4, 8), np.nan, np.float32)
    one = np.array([1.5], np.float16)
    tile.jit(softmax_rows.fn, interpret=True)[(1,)](x, out, one, 4, 8)
    e = np.exp(x.astype(np.float64) - x.astype(np.float64).max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-5)
    assert one[0] == 3.0


@tile.jit
def batched_trans(x_ptr, out_ptr):
    r = tl.arange(0, 2 * 4 * 8)
    x = tl.load(x_ptr + r).reshape(2, 4, 8)
    tl.store(out_ptr + r, tl.trans(x).reshape(2 * 4 * 8))


@tile.jit
def trans_of_a_vector(x_ptr):
    tl.store(x_ptr + tl.arange(0, 8), tl.trans(tl.load(x_ptr + tl.arange(0, 8))))


def test_trans_without_dims_swaps_the_last_two():
    # Triton's rule: a batched 2-D transpose, not numpy's full reversal.
    ir = compile_ir(batched_trans, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {})
    filecheck(ir, r"""
CHECK: tile.trans {{.*}} {order = array<i32: 0, 2, 1>} : tensor<2x4x8xf32> -> tensor<2x8x4xf32>
""")
    with pytest.raises(tile.CompilationError, match="0- or 1-dimensional"):
        compile_ir(trans_of_a_vector, {"x_ptr": "*fp32"}, {})


def test_interpreter_trans_without_dims_swaps_the_last_two(monkeypatch):
    from tile.runtime import jit
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    batched_trans[(1,)](x, out)
    np.testing.assert_array_equal(out, x.reshape(2, 4, 8).transpose(0, 2, 1).ravel())


@tile.jit
def loop_hints(x_ptr, n):
    acc = 0.0
    for i in tl.range(0, n, loop_unroll_factor=4, disallow_acc_multi_buffer=True,
                      flatten=True):
        acc += tl.load(x_ptr + i)
    for i in tl.range(0, n, disable_licm=True):
        print("i", i)
    j = 0
    while tl.condition(j < n, disable_licm=True):
        j += 1
    tl.store(x_ptr, acc + j)


@tile.jit
def bad_unroll(n):
    for i in tl.range(0, n, loop_unroll_factor=0):
        pass


def test_loop_hints_reach_llvm_loop_metadata():
    # tl.range's loop_unroll_factor and disable_licm, and tl.condition's
    # disable_licm, become llvm.loop_annotation on the loops; LLVM reads
    # them as loop metadata (test_core's test_disable_licm reads the llir).
    kernel = tile.compile(loop_hints, {"x_ptr": "*fp32", "n": "i32"}, {})
    filecheck(kernel.asm["tile"], r"""
CHECK-DAG: #[[UNROLL:.*]] = #llvm.loop_unroll<count = 4 : i32>
CHECK-DAG: #[[LICM:.*]] = #llvm.loop_licm<disable = true>
CHECK: scf.for
CHECK: } {llvm.loop_annotation = #{{.*}}}
CHECK: scf.for
CHECK: } {llvm.loop_annotation = #{{.*}}}
CHECK: scf.while
CHECK: } attributes {llvm.loop_annotation = #{{.*}}}
""")
    assert "llvm.licm.disable" in kernel.asm["llir"]
    plain = tile.compile(k.print_in_loop, {"n": "i32"}, {})
    assert "llvm.licm.disable" not in plain.asm["llir"]
    with pytest.raises(tile.CompilationError,
                       match="loop_unroll_factor must be a positive"):
        tile.compile(bad_unroll, {"n": "i32"}, {})


def test_interpreter_runs_tl_condition_loops(monkeypatch):
    from tile.runtime import jit
    monkeypatch.setattr(jit, "INTERPRET_ALL", True)
    x = np.arange(1, 9, dtype=np.float32)
    loop_hints[(1,)](x, 8)
    assert x[0] == 36 + 8


@pytest.mark.parametrize("rank", [2, 3])
def test_reduce_all_axes_keep_dims_keeps_rank(rank):
    import numpy as np
    import tile.language as tl
    from tile.runtime import jit

    @tile.jit
    def total(x_ptr, out_ptr, RANK: tl.constexpr):
        if RANK == 2:
            i = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
            tl.store(out_ptr[None, None, :], tl.sum(tl.load(x_ptr + i),
                                                   axis=None, keep_dims=True))
        else:
            i = (tl.arange(0, 2)[:, None, None] * 32 +
                 tl.arange(0, 4)[None, :, None] * 8 + tl.arange(0, 8)[None, None, :])
            tl.store(out_ptr[None, None, None, :],
                     tl.max(tl.load(x_ptr + i), axis=None, keep_dims=True))

    # Compiled: a [1] * rank result (numpy's keepdims); it stored to a
    # [1] * rank pointer block, which a [1] result could not broadcast to.
    ir = compile_ir(total, {"x_ptr": "*fp32", "out_ptr": "*fp32"}, {"RANK": rank})
    shape = "x".join(["1"] * rank)
    filecheck(ir, "CHECK: tile.store {{.*}} : tensor<%sx!tile.ptr<f32>>\n" % shape)
    # Interpreted: the same shape and value.
    x = np.random.default_rng(rank).standard_normal(64 if rank == 3 else 32).astype(np.float32)
    out = np.full(1, np.nan, np.float32)
    jit.INTERPRET_ALL, old = True, jit.INTERPRET_ALL
    try:
        total[(1,)](x, out, RANK=rank)
    finally:
        jit.INTERPRET_ALL = old
    want = x.sum() if rank == 2 else x.max()
    assert abs(out[0] - want) < 1e-4
