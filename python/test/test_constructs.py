"""IR golden tests (FileCheck patterns) for the language constructs the
classic kernels do not already cover."""

import pytest

import tile
import tile.language as tl
from filecheck import filecheck
from kernels import early_returns


def ir_of(fn, signature, constexprs=None):
    return tile.compile(fn, signature=signature, constexprs=constexprs or {}).asm["tile"]


@tile.jit
def early_return(x_ptr, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    tl.store(x_ptr + pid, 1.0)


def test_early_return_becomes_structured():
    filecheck(ir_of(early_return, {"x_ptr": "*fp32", "n": "i32"}), r"""
CHECK: arith.cmpi sge
CHECK: scf.if
CHECK: } else {
CHECK: tile.store
CHECK: }
CHECK: return
""")


@tile.jit
def static_loops(x_ptr, N: tl.constexpr, FLAG: tl.constexpr):
    acc = tl.zeros([16], dtype=tl.float32)
    for i in tl.static_range(N):
        acc += i
    if FLAG:
        acc = acc * 2
    else:
        acc = acc * 3
    tl.static_assert(N > 0, "N must be positive")
    tl.store(x_ptr + tl.arange(0, 16), acc)


def test_static_range_unrolls_and_constexpr_if_folds():
    ir = ir_of(static_loops, {"x_ptr": "*fp32"}, {"N": 3, "FLAG": True})
    assert "scf.for" not in ir and "scf.if" not in ir
    assert ir.count("arith.addf") == 3
    assert "2.000000e+00" in ir and "3.000000e+00" not in ir


@tile.jit
def shapes_and_creation(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    m = tl.reshape(x, (BLOCK // 4, 4))
    v = tl.view(m, (4, BLOCK // 4))
    p = tl.permute(v, (1, 0))
    e = tl.expand_dims(offs, 1)
    b = tl.broadcast_to(e, (BLOCK, 8))
    z = tl.zeros_like(x) + tl.full_like(x, 2.0)
    t = tl.full((BLOCK,), 7, tl.int16)
    s = tl.sum(p, axis=1) + tl.sum(b).to(tl.float32) + tl.sum(z)
    tl.store(y_ptr + tl.arange(0, BLOCK // 4), s + tl.sum(t.to(tl.float32)))


def test_shape_ops_and_creation():
    filecheck(ir_of(shapes_and_creation, {"x_ptr": "*fp32", "y_ptr": "*fp32"},
                    {"BLOCK": 64}), r"""
CHECK: tile.reshape {{.*}} : tensor<64xf32> -> tensor<16x4xf32>
CHECK: tile.reshape {{.*}} allow_reorder : tensor<16x4xf32> -> tensor<4x16xf32>
CHECK: tile.trans {{.*}} {order = array<i32: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
CHECK: tile.expand_dims {{.*}} {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
CHECK: tile.broadcast {{.*}} : tensor<64x1xi32> -> tensor<64x8xi32>
CHECK: arith.constant 7 : i16
CHECK: tile.reduce
""")


@tile.jit
def all_atomics(p_ptr, u_ptr, f_ptr, v):
    offs = tl.arange(0, 32)
    m = offs < 16
    tl.atomic_add(p_ptr + offs, v, mask=m, sem="relaxed", scope="cta")
    tl.atomic_max(p_ptr + offs, v)
    tl.atomic_min(p_ptr + offs, v, sem="acquire")
    tl.atomic_max(u_ptr + offs, 3)
    tl.atomic_min(u_ptr + offs, 3)
    tl.atomic_and(p_ptr + offs, v)
    tl.atomic_or(p_ptr + offs, v, sem="release", scope="sys")
    tl.atomic_xor(p_ptr + offs, v)
    tl.atomic_xchg(p_ptr + offs, v)
    tl.atomic_add(f_ptr + offs, 1.5)
    tl.atomic_cas(p_ptr, 0, v, sem="acq_rel", scope="gpu")


def test_atomics():
    filecheck(ir_of(all_atomics, {"p_ptr": "*i32", "u_ptr": "*u32", "f_ptr": "*fp32",
                                  "v": "i32"}), r"""
CHECK: tile.atomic_rmw add, relaxed, cta, {{.*}}, {{.*}}, {{.*}} : tensor<32x!tile.ptr<i32>>
CHECK: tile.atomic_rmw max, acq_rel, gpu
CHECK: tile.atomic_rmw min, acquire, gpu
CHECK: tile.atomic_rmw umax, acq_rel, gpu
CHECK: tile.atomic_rmw umin, acq_rel, gpu
CHECK: tile.atomic_rmw and
CHECK: tile.atomic_rmw or, release, sys
CHECK: tile.atomic_rmw xor
CHECK: tile.atomic_rmw xchg
CHECK: tile.atomic_rmw fadd, acq_rel, gpu, {{.*}} : tensor<32x!tile.ptr<f32>>
CHECK: tile.atomic_cas acq_rel, gpu, {{.*}} : !tile.ptr<i32>
""")


@tile.jit
def float_extremes(f_ptr, d_ptr, x, y):
    offs = tl.arange(0, 32)
    tl.atomic_max(f_ptr + offs, x, mask=offs < 20)
    tl.atomic_min(d_ptr, y, sem="relaxed")


def test_float_atomic_max_min_use_integer_atomics_on_the_bits():
    k = tile.compile(float_extremes, {"f_ptr": "*fp32", "d_ptr": "*fp64",
                                      "x": "fp32", "y": "fp64"})
    # Sign bit clear: a signed max (min); set: an unsigned min (max).
    filecheck(k.asm["tile"], r"""
CHECK: tile.bitcast {{.*}} : tensor<32x!tile.ptr<f32>> -> tensor<32x!tile.ptr<i32>>
CHECK: tile.atomic_rmw max, acq_rel, gpu, {{.*}} : tensor<32x!tile.ptr<i32>>
CHECK: tile.atomic_rmw umin, acq_rel, gpu, {{.*}} : tensor<32x!tile.ptr<i32>>
CHECK: tile.atomic_rmw min, relaxed, gpu, {{.*}} : !tile.ptr<i64>
CHECK: tile.atomic_rmw umax, relaxed, gpu, {{.*}} : !tile.ptr<i64>
""")
    filecheck(k.asm["ptx"], r"""
CHECK: atom.global.gpu.acq_rel.max.s32
CHECK: atom.global.gpu.acq_rel.min.u32
CHECK: atom.global.gpu.relaxed.min.s64
CHECK: atom.global.gpu.relaxed.max.u64
""")


@tile.jit
def half_extremes(h_ptr, x):
    tl.atomic_max(h_ptr, x)


def test_half_atomic_max_is_refused_at_its_line():
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(half_extremes, {"h_ptr": "*fp16", "x": "fp16"})
    assert "atomic_max supports float32 and float64 among the floats" in str(info.value)
    assert "tl.atomic_max(h_ptr, x)" in str(info.value)


@tile.jit
def elementwise(x_ptr, i_ptr, y_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    y = tl.clamp(x, -1.0, 1.0) + tl.sigmoid(x) + tl.fma(x, x, x) + tl.abs(x)
    y += tl.exp2(x) + tl.log2(x) + tl.rsqrt(x) + tl.sin(x) + tl.cos(x)
    y += tl.floor(x) + tl.ceil(x) + tl.erf(x) + tl.softmax(x)
    y += tl.xor_sum(i, 0).to(tl.float32) + tl.argmin(x, 0).to(tl.float32)
    y += tl.cumprod(x, 0) + tl.fdiv(x, 2.0)
    bits = x.to(tl.int32, bitcast=True)
    y += (bits >> 3).to(tl.float32) + (~i & 0xFF | i ^ 3).to(tl.float32)
    y += tl.where((x > 0) and (i < 3), 1.0, 0.0) + (-x)
    tl.store(y_ptr + offs, tl.multiple_of(y, 16))


def test_elementwise_math():
    filecheck(ir_of(elementwise, {"x_ptr": "*fp32", "i_ptr": "*i32", "y_ptr": "*fp32"}),
              r"""
CHECK: arith.maxnumf
CHECK: arith.minnumf
CHECK: math.exp
CHECK: math.fma
CHECK: math.absf
CHECK: math.exp2
CHECK: math.log2
CHECK: math.rsqrt
CHECK: math.sin
CHECK: math.cos
CHECK: math.floor
CHECK: math.ceil
CHECK: math.erf
CHECK: tile.reduce
CHECK: arith.xori
CHECK: tile.scan
CHECK: arith.mulf
CHECK: tile.bitcast {{.*}} : tensor<64xf32> -> tensor<64xi32>
CHECK: arith.shrsi
CHECK: arith.andi
CHECK: arith.ori
CHECK: arith.negf
""")


@tile.jit
def pair(a, b):
    return a + b, a * b


@tile.jit
def tuples(x_ptr):
    x = tl.load(x_ptr)
    s, p = pair(x, 2.0)
    t = (s, p)
    tl.store(x_ptr, t[0] + t[1])


def test_tuples_and_multiple_returns():
    # The literal 2.0 is compile-time in the callee (Triton's rule), so
    # pair_0 takes only x.
    filecheck(ir_of(tuples, {"x_ptr": "*fp32"}), r"""
CHECK: func.func private @pair_0({{.*}}: f32 {{.*}}) -> (f32, f32)
CHECK: func.func @tuples
CHECK: %[[R:.*]]:2 = call @pair_0
CHECK: arith.addf %[[R]]#0, %[[R]]#1
""")


@tile.jit
def builtin_min_max(x_ptr, a, b, G: tl.constexpr):
    lo = min(a - b, G)
    hi = max(a, b, 3)
    tl.store(x_ptr, lo + hi + min(G, 2))


def test_builtin_min_max_of_runtime_values():
    # Runtime operands fold to minimum/maximum (as Triton's tutorials use
    # them); all-constant calls stay Python.
    filecheck(ir_of(builtin_min_max, {"x_ptr": "*i32", "a": "i32", "b": "i32"},
                    {"G": 8}), r"""
CHECK: arith.minsi
CHECK: arith.maxsi
CHECK: arith.maxsi
CHECK-NOT: arith.minsi
CHECK: tile.store
""")


@tile.jit
def pick(a, n):
    if n > 0:
        return a * 2.0
    return a


@tile.jit
def calls_pick(x_ptr, n):
    tl.store(x_ptr, pick(tl.load(x_ptr), n))


def test_early_return_with_a_value_yields_it():
    # The product was computed and dropped, and `pick` returned `a`.
    filecheck(ir_of(calls_pick, {"x_ptr": "*fp32", "n": "i32"}), r"""
CHECK: func.func private @pick_0(%[[A:.*]]: f32
CHECK: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
CHECK: %[[P:.*]] = arith.mulf %[[A]]
CHECK: scf.yield %[[P]] : f32
CHECK: } else {
CHECK: scf.yield %[[A]] : f32
CHECK: return %[[R]] : f32
""")


# Found by utils/fuzz_kernels.py (2026-11-25).

@tile.jit
def _sub_scalar(a, c):
    if c > 2:
        return a * 3
    return a - c


@tile.jit
def helper_in_loop(out_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = offs
    for _ in range(n):
        x = _sub_scalar(x, s)   # a splat of an argument stays in the helper
    tl.store(out_ptr + offs, x)


def test_helpers_keeping_tile_ops_are_inlined():
    kernel = tile.compile(helper_in_loop, {"out_ptr": "*i32", "n": "i32", "s": "i32"},
                          {"BLOCK": 32})
    filecheck(kernel.asm["tilegpu"], r"""
CHECK-NOT: func.call
CHECK: scf.for
CHECK: scf.if
""")


@tile.jit
def atomic_scalar_pointer(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + 3, offs, mask=offs < 5)


def test_atomic_through_a_scalar_pointer_is_one_per_lane():
    filecheck(ir_of(atomic_scalar_pointer, {"out_ptr": "*i32"}, {"BLOCK": 16}), r"""
CHECK: tile.splat {{.*}} -> tensor<16x!tile.ptr<i32>>
CHECK: tile.atomic_rmw add, {{.*}} : tensor<16x!tile.ptr<i32>>
""")


@tile.jit
def block_conditional_expression(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, 1 if offs < 3 else 2)


@tile.jit
def python_division(out_ptr):
    tl.store(out_ptr, -7 // 2 + (-7 % 3) * 100)


def test_block_conditional_expression_is_refused_at_its_line():
    import pytest
    with pytest.raises(tile.CompilationError, match="scalar condition") as info:
        ir_of(block_conditional_expression, {"out_ptr": "*i32"}, {"BLOCK": 16})
    assert info.value.lineno == block_conditional_expression.fn.__code__.co_firstlineno + 3


def test_compile_time_integers_follow_python():
    # -7 // 2 == -4 and -7 % 3 == 2 in Python (C would give -3 and -1).
    filecheck(ir_of(python_division, {"out_ptr": "*i32"}), r"""
CHECK: arith.constant 196 : i32
""")


@tile.jit
def split_precision_dot(a, b, c, P: tl.constexpr):
    x = tl.load(a + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])
    y = tl.load(b + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])
    tl.store(c + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :],
             tl.dot(x, y, input_precision=P))


@pytest.mark.parametrize("precision, products, ptx", [
    ("tf32x3", 3, "m64n64k8.f32.tf32.tf32"), ("bf16x3", 3, "m64n64k16.f32.bf16.bf16"),
    ("bf16x6", 6, "m64n64k16.f32.bf16.bf16")])
def test_split_precisions_are_several_tensor_core_products(precision, products, ptx):
    k = tile.compile(split_precision_dot, {"a": "*fp32", "b": "*fp32", "c": "*fp32"},
                     {"P": precision})
    assert k.asm["tile"].count("tile.dot") == products
    assert ptx in k.asm["ptx"]


@tile.jit
def assigned_numbers(out_ptr, x_ptr, N: tl.constexpr):
    a = -7
    q = a // 2          # a runtime int32: truncates, as Triton computes it
    r = a % 2
    kept: tl.constexpr = -7
    folded = kept // 2  # a constexpr: Python's floor, folded
    two = 2
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), x * two)   # int8 * int32 -> int32
    tl.store(out_ptr + N, q + r + folded)


def test_assigned_numbers_become_runtime_scalars_as_in_triton():
    # Triton's assignment rule: `a = -7` makes an int32 scalar (so // and %
    # truncate and promotion sees int32), `a: tl.constexpr = -7` stays
    # compile-time. Before, tile kept both compile-time and computed
    # -7 // 2 = -4 and an int8 product where Triton computes -3 and int32.
    ir = ir_of(assigned_numbers, {"out_ptr": "*i32", "x_ptr": "*i8"}, {"N": 16})
    filecheck(ir, r"""
CHECK: %[[A:.*]] = arith.constant -7 : i32
CHECK: arith.divsi %[[A]]
CHECK: arith.remsi %[[A]]
CHECK: arith.constant -4 : i32
CHECK: arith.extsi %{{.*}} : tensor<16xi8> to tensor<16xi32>
CHECK: arith.muli %{{.*}} : tensor<16xi32>
""")


def test_the_interpreter_lifts_assigned_numbers_too():
    # The interpreter runs the kernel's source with the same assignment
    # rule: -7 // 2 truncates to -3, -7 % 2 is -1, and the int8 product
    # is int32; the annotated constexpr still floors (-4).
    import numpy as np
    out = np.zeros(17, np.int32)
    x = np.arange(16, dtype=np.int8) * 20          # 20 * 15 overflows int8
    tile.jit(assigned_numbers.fn, interpret=True)[(1,)](out, x, 16)
    np.testing.assert_array_equal(out[:16], x.astype(np.int32) * 2)
    assert out[16] == -3 + -1 + -4


def test_the_interpreter_keeps_closures_and_constexpr_annotations():
    import numpy as np
    scale = 3       # a closure variable of the kernel

    @tile.jit(interpret=True)
    def k(out_ptr, N: tl.constexpr):
        block: tl.constexpr = N          # stays compile-time: arange takes it
        offs = tl.arange(0, block)
        total = 0
        for i in range(2):
            total += i                   # a runtime counter, lifted
        tl.store(out_ptr + offs, offs * scale + total)

    out = np.zeros(8, np.int32)
    k[(1,)](out, 8)
    np.testing.assert_array_equal(out, np.arange(8) * 3 + 1)


def test_a_rank_4_dot_folds_its_batch_dimensions():
    # Triton's test_dot_multidim: batch dimensions beyond one fold into one
    # (a reshape), the batched dot runs, the result unfolds.
    import numpy as np
    from kernels.multidim_dot import dot4
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "out_ptr": "*fp32"}
    dims = {"B1": 2, "B2": 4, "M": 16, "N": 32, "K": 16}
    ir = tile.compile(dot4, sig, dims).asm["tile"]
    filecheck(ir, r"""
CHECK: tile.reshape {{.*}} : tensor<2x4x16x16xf16> -> tensor<8x16x16xf16>
CHECK: tile.dot {{.*}} : tensor<8x16x16xf16> * tensor<8x16x32xf16> -> tensor<8x16x32xf32>
CHECK: tile.reshape {{.*}} : tensor<8x16x32xf32> -> tensor<2x4x16x32xf32>
""")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 4, 16, 16)).astype(np.float16)
    b = rng.standard_normal((2, 4, 16, 32)).astype(np.float16)
    c = rng.standard_normal((2, 4, 16, 32)).astype(np.float32)
    out = np.full((2, 4, 16, 32), np.nan, np.float32)
    tile.jit(dot4.fn, interpret=True)[(1,)](a, b, c, out, **dims)
    want = a.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)


@tile.jit
def ternary_side_effects(cond_ptr, a_ptr, b_ptr, out_ptr):
    c = tl.load(cond_ptr)
    # Only the chosen side runs: one store, and one load.
    tl.store(a_ptr, 1.0) if c > 0 else tl.store(b_ptr, 2.0)
    v = tl.load(a_ptr) if c > 0 else 3
    tl.store(out_ptr, v)


def test_a_dynamic_ternary_runs_only_its_chosen_side():
    # As in Python and Triton: an scf.if, not both sides and a select (a
    # store on the other side would have happened too). A number on one
    # side takes the other side's type.
    filecheck(ir_of(ternary_side_effects, {"cond_ptr": "*i32", "a_ptr": "*fp32",
                                           "b_ptr": "*fp32", "out_ptr": "*fp32"}), r"""
CHECK: scf.if
CHECK-NEXT: arith.constant 1.0
CHECK-NEXT: tile.store
CHECK-NEXT: } else {
CHECK-NEXT: arith.constant 2.0
CHECK-NEXT: tile.store
CHECK: %[[V:.*]] = scf.if {{.*}} -> (f32)
CHECK: tile.load
CHECK: } else {
CHECK-NOT: tile.load
CHECK: arith.constant 3.0
CHECK-NOT: arith.select
CHECK: tile.store {{.*}}, %[[V]]
""")


@tile.jit
def pick_by_ternaries(x, c):
    if c > 0:
        return x * 2.0 if c > 1 else x
    return x + 1.0 if c < -1 else x - 1.0


@tile.jit
def ternaries_in_returns(x_ptr, c):
    tl.store(x_ptr, pick_by_ternaries(tl.load(x_ptr), c))


def test_ternaries_inside_returning_branches():
    # A conditional expression inside a `return` builds its own scf.if and
    # leaves the function's return bookkeeping alone: the two returns merge
    # into one result.
    filecheck(ir_of(ternaries_in_returns, {"x_ptr": "*fp32", "c": "i32"}), r"""
CHECK: func.func private @pick_by_ternaries_0
CHECK: %[[R:.*]] = scf.if {{.*}} -> (f32)
CHECK: scf.if {{.*}} -> (f32)
CHECK: arith.mulf
CHECK: scf.if {{.*}} -> (f32)
CHECK: arith.addf
CHECK: arith.subf
CHECK: return %[[R]] : f32
""")


@tile.jit
def cdiv_of_constants(x_ptr, M, BLOCK: tl.constexpr):
    tl.store(x_ptr, tl.cdiv(M, BLOCK))
    tl.store(x_ptr + 1, tl.cdiv(BLOCK, 3) * 10 - (BLOCK >> 2))


def test_builtins_on_two_constexprs_stay_constant():
    # An integer argument equal to 1 is specialised as a constexpr, as in
    # Triton, so tl.cdiv(M, BLOCK) gets two constexprs (the skinny M=1
    # matmul): their arithmetic folds at compile time.
    ir = ir_of(cdiv_of_constants, {"x_ptr": "*i32"}, {"M": 1, "BLOCK": 16})
    filecheck(ir, r"""
CHECK-DAG: arith.constant 1 : i32
CHECK-DAG: arith.constant 56 : i32
CHECK-NOT: arith.divsi
""")
    assert tl.constexpr(7) // 2 == 3 and -tl.constexpr(3) == -3
    assert (2 + tl.constexpr(5)).value == 7 and tl.constexpr(5) > 4


def test_a_variable_retyped_after_an_early_return():
    filecheck(ir_of(early_returns.advance_after_return, {"x_ptr": "*fp32", "out_ptr": "*fp32",
                                           "n": "i32"}, {"BLOCK": 64}), r"""
CHECK: scf.if
CHECK-NOT: scf.yield
CHECK: } else {
CHECK: tile.load
CHECK: tile.store
CHECK: }
""")


@tile.jit
def retyped_then_merged(x_ptr, flag):
    # Without a return the two types still clash, at the `if`.
    if flag > 0:
        x_ptr = x_ptr + tl.arange(0, 16)
    tl.store(x_ptr, 1.0)


def test_a_variable_retyped_in_one_branch_is_still_an_error():
    with pytest.raises(tile.CompilationError, match="Mismatched type for x_ptr"):
        ir_of(retyped_then_merged, {"x_ptr": "*fp32", "flag": "i32"})


@tile.jit
def rounded_block(x_ptr, D: tl.constexpr):
    # triton.next_power_of_2 / triton.cdiv on constexprs inside a kernel.
    BLOCK: tl.constexpr = tile.next_power_of_2(D)
    CHUNKS: tl.constexpr = tile.cdiv(D, 16)
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.full([BLOCK], CHUNKS, tl.int32), mask=offs < D)


def test_next_power_of_2_and_cdiv_are_compile_time_functions():
    assert tile.next_power_of_2(100) == 128 and tile.cdiv(100, 16) == 7
    filecheck(ir_of(rounded_block, {"x_ptr": "*i32"}, {"D": 100}), r"""
CHECK: tile.make_range {end = 128 : i32, start = 0 : i32}
CHECK: arith.constant 7 : i32
""")
