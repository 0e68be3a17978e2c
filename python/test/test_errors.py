"""Every class of compile error is a tile.CompilationError that names the
kernel's file and line and shows the source line with a caret."""

import re

import pytest

import tile
import tile.language as tl


def check_error(fn, signature, constexprs, message, caret_under):
    """Compiles, expects a CompilationError, and checks the message, the line
    number and that the caret sits under `caret_under` in the shown line."""
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(fn, signature=signature, constexprs=constexprs)
    err = info.value
    text = str(err)
    assert message in text, text
    assert err.filename == __file__
    source = open(__file__).read().splitlines()[err.lineno - 1]
    assert caret_under in source, (source, text)
    header, shown, caret = text.splitlines()[:3]
    assert re.match(r".*test_errors\.py:%d:%d: error: " % (err.lineno, err.col + 1), header)
    assert shown.strip() == source.strip()
    # The caret is under the start of `caret_under` in the displayed line.
    assert caret.index("^") == shown.index(caret_under), text
    assert "Traceback" not in text
    # Triton's attribute: the message without its location.
    assert err.error_message == err.message and message in err.error_message


@tile.jit
def uses_lambda(x_ptr):
    f = lambda v: v + 1  # noqa: E731
    tl.store(x_ptr, f(1))


@tile.jit
def uses_break(x_ptr, n):
    for i in range(n):
        break


@tile.jit
def uses_try(x_ptr):
    try:
        tl.store(x_ptr, 1.0)
    except Exception:
        pass


def test_unsupported_syntax():
    check_error(uses_lambda, {"x_ptr": "*fp32"}, {}, "lambda is not supported",
                "lambda v")
    check_error(uses_break, {"x_ptr": "*fp32", "n": "i32"}, {}, "break is not supported",
                "break")
    check_error(uses_try, {"x_ptr": "*fp32"}, {}, "try is not supported", "try:")


@tile.jit
def type_mismatch(x_ptr):
    x = tl.load(x_ptr)
    y = x & 1.5
    tl.store(x_ptr, y)


def test_type_mismatch():
    check_error(type_mismatch, {"x_ptr": "*fp32"}, {},
                "for operator &: it needs integer operands", "x & 1.5")


@tile.jit
def shape_mismatch(x_ptr):
    a = tl.arange(0, 64)
    b = tl.arange(0, 128)
    tl.store(x_ptr + a, a + b)


def test_shape_mismatch():
    check_error(shape_mismatch, {"x_ptr": "*i32"}, {},
                "incompatible shapes for broadcasting: [64] and [128]", "a + b")


@tile.jit
def bad_arange(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs)


def test_non_power_of_two_arange():
    check_error(bad_arange, {"x_ptr": "*i32"}, {"BLOCK": 100},
                "arange's size must be a power of two, got 100", "tl.arange(0, BLOCK)")


@tile.jit
def runtime_arange(x_ptr, n):
    offs = tl.arange(0, n)
    tl.store(x_ptr + offs, offs)


def test_non_constexpr_where_constexpr_required():
    check_error(runtime_arange, {"x_ptr": "*i32", "n": "i32"}, {},
                "arange's bounds must be constexpr integers", "tl.arange(0, n)")


def plain_python_helper(x):
    return x + 1


@tile.jit
def calls_plain_python(x_ptr):
    v = tl.load(x_ptr)
    tl.store(x_ptr, plain_python_helper(v))


def test_call_to_non_jit_function():
    check_error(calls_plain_python, {"x_ptr": "*fp32"}, {},
                "cannot call 'plain_python_helper' from a kernel",
                "plain_python_helper(v)")


@tile.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, not_defined_anywhere)  # noqa: F821


def test_undefined_name():
    check_error(undefined_name, {"x_ptr": "*fp32"}, {},
                "name 'not_defined_anywhere' is not defined", "not_defined_anywhere")


@tile.jit
def changes_loop_type(x_ptr, n):
    acc = 0
    for i in range(n):
        acc = acc + tl.arange(0, 16)
    tl.store(x_ptr, acc)


def test_loop_carried_type_change():
    check_error(changes_loop_type, {"x_ptr": "*i32", "n": "i32"}, {},
                "loop-carried variable 'acc' changes type", "for i in range(n)")


@tile.jit
def bad_dot(a_ptr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs[:, None] * 16 + offs[None, :])
    b = tl.load(a_ptr + offs)
    tl.store(a_ptr, tl.sum(tl.dot(a, b)))


def test_dot_rank_error():
    check_error(bad_dot, {"a_ptr": "*fp16"}, {},
                "dot needs 2-D (or batched) operands of equal rank", "tl.dot(a, b)")


@tile.jit
def bad_cache_modifier(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr, cache_modifier=".l2"))


def test_bad_cache_modifier():
    check_error(bad_cache_modifier, {"x_ptr": "*fp32"}, {},
                "unknown cache modifier '.l2'", "tl.load(x_ptr")


def test_launch_argument_errors():
    @tile.jit
    def k(x_ptr, n, BLOCK: tl.constexpr):
        pass

    with pytest.raises(TypeError, match="parameter 'n' is missing"):
        tile.compile(k, signature={"x_ptr": "*fp32"}, constexprs={"BLOCK": 4})
    with pytest.raises(TypeError, match="constexpr parameter 'BLOCK' needs a value"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32"})
    with pytest.raises(ValueError, match="parameter 'n' has an unknown signature type 'int'"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "int"}, constexprs={"BLOCK": 4})
    with pytest.raises(TypeError, match="has no parameter"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32", "m": "i32"},
                     constexprs={"BLOCK": 4})
    with pytest.raises(ValueError, match="num_warps must be a power of 2"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32"},
                     constexprs={"BLOCK": 4}, num_warps=3)
    # One limit for Python and the compiler (tile/Support/Limits.h): 64
    # warps is refused at the call, not in a pass at <tile-ir:k>:1:1, as
    # Triton's OutOfResources naming the threads.
    assert tile._C.MAX_NUM_WARPS == 32
    with pytest.raises(tile.OutOfResources, match=r"out of resource: threads, Required: 2048, Hardware limit: 1024"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32"},
                     constexprs={"BLOCK": 4}, num_warps=64)
    tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32"},
                 constexprs={"BLOCK": 4}, num_warps=32)
    with pytest.raises(ValueError, match=r"num_stages must be an integer in \[1, 1024\], got 0"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32"},
                     constexprs={"BLOCK": 4}, num_stages=0)
    with pytest.raises(ValueError, match=r"num_stages must be an integer in \[1, 1024\], got 1073741824"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32"},
                     constexprs={"BLOCK": 4}, num_stages=2**30)
    with pytest.raises(TypeError, match="enable_fp_fusion must be True or False"):
        tile.compile(k, signature={"x_ptr": "*fp32", "n": "i32"},
                     constexprs={"BLOCK": 4}, enable_fp_fusion="yes")


def test_bad_launch_option_names_it():
    from tile.runtime.launcher import use_launcher
    from launch_helpers import FakeTensor, Recorder

    @tile.jit
    def k(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    with use_launcher(Recorder()):
        with pytest.raises(TypeError, match="enable_fp_fusion must be True or False"):
            k[(1,)](FakeTensor(64), 10, BLOCK=64, enable_fp_fusion=1)


def test_calling_a_kernel_directly_is_an_error():
    @tile.jit
    def k(x_ptr):
        pass

    with pytest.raises(RuntimeError, match=r"launch it with k\[grid\]"):
        k(None)


@tile.jit
def fp8_atomic(p_ptr):
    tl.atomic_add(p_ptr, 1.0)


def test_verifier_errors_map_to_the_python_line():
    # The front end lets this through; the Tile verifier rejects it, and the
    # diagnostic comes back on the kernel's line with a caret.
    check_error(fp8_atomic, {"p_ptr": "*fp8e5"}, {},
                "fadd supports f16, bf16, f32 and f64", "tl.atomic_add")


@tile.jit
def returns_a_dtype(x):
    return tl.float32


@tile.jit
def calls_returns_a_dtype(x_ptr):
    tl.store(x_ptr, returns_a_dtype(1.0))


def test_returning_a_non_value_is_a_compilation_error():
    with pytest.raises(tile.CompilationError, match="returns_a_dtype cannot return it"):
        tile.compile(calls_returns_a_dtype, signature={"x_ptr": "*fp32"})


@tile.jit
def descriptor_offsets_kernel(desc):
    x = desc.load([0])
    desc.store([0, 0], x)


def test_descriptor_offset_count_is_a_compilation_error():
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(descriptor_offsets_kernel, {"desc": "tensordesc<fp16[64,64]>"})
    text = str(info.value)
    assert "needs 2 offsets, got 1" in text
    assert "x = desc.load([0])" in text and "^" in text


@tile.jit
def narrow_descriptor_kernel(desc):
    desc.store([0, 0], desc.load([0, 0]))


def test_descriptor_rows_too_narrow_for_tma():
    with pytest.raises(tile.CompilationError, match="rows of a multiple of 32 bytes"):
        tile.compile(narrow_descriptor_kernel, {"desc": "tensordesc<fp16[64,8]>"})


@tile.jit
def descriptor_shape_kernel(desc, out):
    tl.store(out, desc.shape[0])


@tile.jit
def made_descriptor_shape_kernel(x_ptr, out, M, N):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [64, 64])
    tl.store(out, desc.shape[0] * 1000 + desc.shape[1])


def test_made_descriptor_shape_is_the_sizes_it_was_given():
    ir = tile.compile(made_descriptor_shape_kernel,
                      {"x_ptr": "*fp16", "out": "*i32", "M": "i32",
                       "N": "i32"}, divisibility=["x_ptr", "N"]).asm["tile"]
    assert "arith.muli %arg2" in ir and "tile.store" in ir, ir


def test_host_descriptor_shape_is_refused_at_the_line():
    # Its sizes are not in the kernel: refused rather than an empty shape.
    with pytest.raises(tile.CompilationError) as info:
        tile.compile(descriptor_shape_kernel,
                     {"desc": "tensordesc<fp16[64,64]>", "out": "*i32"})
    text = str(info.value)
    assert "shape of a host tensor descriptor is not available" in text
    assert "tl.store(out, desc.shape[0])" in text and "^" in text


@tile.jit
def per_program_descriptor_kernel(x_ptr, M, N, KIND: tl.constexpr):
    pid = tl.program_id(0)
    if KIND == 0:
        desc = tl.make_tensor_descriptor(x_ptr + pid * N, [M, N], [N, 1], [64, 64])
    elif KIND == 1:
        desc = tl.make_tensor_descriptor(x_ptr, [M, tl.load(x_ptr).to(tl.int32)],
                                         [N, 1], [64, 64])
    elif KIND == 2:
        desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 2], [64, 64])
    elif KIND == 3:
        desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [64, 48])
    else:
        desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [64])
    desc.store([0, 0], desc.load([0, 0]))


@pytest.mark.parametrize("kind, message", [
    (0, "make_tensor_descriptor: base is computed in the kernel; tile encodes"),
    (1, r"make_tensor_descriptor: shape\[1\] is computed in the kernel"),
    (2, r"the last dimension must be contiguous \(stride 1\), got 2"),
    (3, r"block dimensions must be powers of two, got \[64, 48\]"),
    (4, "need the same rank"),
])
def test_descriptors_made_in_the_kernel_need_host_values(kind, message):
    with pytest.raises(tile.CompilationError, match=message) as info:
        tile.compile(per_program_descriptor_kernel, {"x_ptr": "*fp16", "M": "i32",
                                                     "N": "i32"},
                     constexprs={"KIND": kind})
    text = str(info.value)
    assert "desc = tl.make_tensor_descriptor(" in text and "^" in text


@tile.jit
def specialize_with_runtime_flag(x_ptr, n, flag):
    for i in tl.range(0, n, warp_specialize=flag):
        tl.store(x_ptr + i, i)


def test_warp_specialize_must_be_constexpr_bool():
    check_error(specialize_with_runtime_flag,
                {"x_ptr": "*i32", "n": "i32", "flag": "i32"}, {},
                "warp_specialize must be a constexpr bool",
                "tl.range(0, n, warp_specialize=flag)")


@tile.jit
def returns_in_for(x_ptr, n):
    for i in range(n):
        if i == 3:
            return
        tl.store(x_ptr + i, 1.0)


@tile.jit
def returns_in_while(x_ptr, n):
    i = 0
    while i < n:
        return
        i += 1


@tile.jit
def returns_in_static_range(x_ptr):
    for i in tl.static_range(4):
        return


@tile.jit
def half_returns(a, n):
    if n > 0:
        return a * 2.0


@tile.jit
def calls_half_returns(x_ptr, n):
    tl.store(x_ptr, half_returns(tl.load(x_ptr), n))


def test_return_in_a_loop_is_refused_at_its_line():
    # Silently acting as `continue` was a miscompile; Triton refuses it too.
    check_error(returns_in_for, {"x_ptr": "*fp32", "n": "i32"}, {},
                "`return` inside a loop is not supported", "return")
    check_error(returns_in_while, {"x_ptr": "*fp32", "n": "i32"}, {},
                "`return` inside a loop is not supported", "return")
    check_error(returns_in_static_range, {"x_ptr": "*fp32"}, {},
                "`return` inside a loop is not supported", "return")


def test_a_path_without_a_value_is_refused():
    check_error(calls_half_returns, {"x_ptr": "*fp32", "n": "i32"}, {},
                "every path through this `if` must return", "if n > 0:")


@tile.jit
def countdown(x, N: tl.constexpr):
    return countdown(x + 1.0, N - 1)


@tile.jit
def calls_countdown(x_ptr):
    tl.store(x_ptr, countdown(tl.load(x_ptr), 5000))


@tile.jit
def huge_block(x_ptr):
    tl.store(x_ptr + tl.arange(0, 4096)[:, None] * 4096 + tl.arange(0, 4096)[None, :], 1.0)


@tile.jit
def huge_arange(x_ptr):
    tl.store(x_ptr + tl.arange(0, 2 ** 21), 1.0)


@tile.jit
def long_unroll(x_ptr):
    acc = 0.0
    for i in tl.static_range(100000):
        acc += 1.0
    tl.store(x_ptr, acc)


def test_runaway_compiles_are_refused_at_their_line():
    # Each once ran past a minute or ended in an internal RecursionError.
    check_error(calls_countdown, {"x_ptr": "*fp32"}, {},
                "@jit calls nested more than 64 deep", "countdown(x + 1.0, N - 1)")
    check_error(huge_block, {"x_ptr": "*fp32"}, {},
                "a block of shape [4096, 4096] has 16777216 elements, more than "
                "the 1048576 (2**20) tile allows", "x_ptr + tl.arange(0, 4096)[:, None]")
    check_error(huge_arange, {"x_ptr": "*fp32"}, {},
                "has 2097152 elements", "tl.arange(0, 2 ** 21)")
    check_error(long_unroll, {"x_ptr": "*fp32"}, {},
                "static_range unrolls 100000 iterations, more than the 4096",
                "tl.static_range(100000)")
    assert tl.TILE_MAX_TENSOR_NUMEL == 2 ** 20


@tile.jit
def float_mask(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, 1.0, mask=offs.to(tl.float32))


@tile.jit
def too_many_colons(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16)[:, None, None, :], 1.0)


@tile.jit
def string_flag(x_ptr):
    tl.store(x_ptr, tl.max(tl.load(x_ptr + tl.arange(0, 16)), 0, return_indices="yes"))


@tile.jit
def runtime_hint(x_ptr, n):
    tl.store(x_ptr + tl.multiple_of(n, n), 1.0)


@tile.jit
def int8_dot_to_fp16(x_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, a, out_dtype=tl.float16)
    tl.store(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :], c.to(tl.int8))


@tile.jit
def int_shape(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.full(16, 1.0, tl.float32))


def test_a_colon_past_the_last_axis_keeps_nothing():
    # Triton's rule (its __getitem__ enumerates the index): [:, None, None, :]
    # of a 16-vector is 16x1x1, not an error.
    ir = tile.compile(too_many_colons, {"x_ptr": "*fp32"}, {}).asm["tile"]
    assert "tensor<16x1x1x!tile.ptr<f32>>" in ir


def test_what_triton_refuses_is_refused():
    check_error(float_mask, {"x_ptr": "*fp32"}, {},
                "a mask must have a boolean element type, got tl.float32", "tl.store(")
    check_error(string_flag, {"x_ptr": "*fp32"}, {},
                "return_indices must be True or False, got 'yes'", "tl.max(")
    check_error(runtime_hint, {"x_ptr": "*fp32", "n": "i32"}, {},
                "multiple_of takes positive constexpr ints", "tl.multiple_of(n, n)")
    check_error(int8_dot_to_fp16, {"x_ptr": "*i8"}, {},
                "an integer dot accumulates in int32; out_dtype=tl.float16", "tl.dot(a, a")
    check_error(int_shape, {"x_ptr": "*fp32"}, {},
                "full's shape must be a tuple or list of constexpr ints, got 16",
                "tl.full(16")


@tile.jit
def deep_pipeline(a_ptr, b_ptr, c_ptr, K, STAGES: tl.constexpr):
    offs = tl.arange(0, 64)
    a_ptrs = a_ptr + offs[:, None] * K + offs[None, :]
    b_ptrs = b_ptr + offs[:, None] * 64 + offs[None, :]
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for _ in tl.range(0, K // 64, num_stages=STAGES):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += 64
        b_ptrs += 64 * 64
    tl.store(c_ptr + offs[:, None] * 64 + offs[None, :], acc)


def test_a_pipeline_deeper_than_shared_memory_is_out_of_resources():
    # As in Triton (test_autotuner.py::test_hooks): any stage count is
    # accepted, and one whose buffers cannot fit is OutOfResources naming
    # shared memory, which an autotuner prunes; 100 stages of two 8 KiB
    # operands need 1.6 MB.
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32",
                 "K": "i32"}
    divisible = ["a_ptr", "b_ptr", "c_ptr", "K"]
    with pytest.raises(tile.OutOfResources,
                       match=r"out of resource: shared memory, Required: "
                             r"1638400, Hardware limit: 232448"):
        tile.compile(deep_pipeline, signature=signature,
                     constexprs={"STAGES": 100}, divisibility=divisible)
    kernel = tile.compile(deep_pipeline, signature=signature,
                          constexprs={"STAGES": 4}, divisibility=divisible)
    assert "cp.async" in kernel.asm["ptx"]
