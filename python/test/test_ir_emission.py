"""The front end writes Tile IR as text; every operand kind must be spelled
so that MLIR parses it (issue 27 item 6: a constexpr bool became
`arith.constant true : i1`, which MLIR rejects, reported at a line of the
generated IR instead of the kernel's).

Two checks: constants of every dtype at its edge values, and random kernels
mixing every kind of operand (constexpr bools, ints and floats, runtime
scalars of each signature type, tensors of each dtype, Python literals)
through arithmetic, comparisons, logic, shifts, `where`, casts and
min/max. Each kernel must lower to verified Tile IR, or fail with a
CompilationError located at a line of its own source: never at a line of
the generated IR, never with another exception."""

import importlib.util
import random

import pytest

import tile
from tile.compiler import compiler
from tile.language import dtypes as d
import tile.language as tl

# (tl name, signature) of every scalar type a kernel can hold.
INTS = [("int8", "i8"), ("int16", "i16"), ("int32", "i32"), ("int64", "i64"),
        ("uint8", "u8"), ("uint16", "u16"), ("uint32", "u32"),
        ("uint64", "u64")]
FLOATS = [("float16", "fp16"), ("bfloat16", "bf16"), ("float32", "fp32"),
          ("float64", "fp64")]
EDGE_INTS = [0, 1, -1, 127, -128, 255, 2**15, 2**31 - 1, -2**31, 2**31,
             2**32 - 1, 2**63 - 1, -2**63, 2**64 - 1]
EDGE_FLOATS = ["0.0", "-0.0", "1.5", "-2.5e-8", "65504.0", "3.4e38", "1e300",
               "float('inf')", "float('-inf')", "float('nan')"]


def load_kernels(tmp_path, source, name="generated"):
    """Imports `source` as a module file (tile.jit needs the source)."""
    path = tmp_path / (name + ".py")
    path.write_text("import tile\nimport tile.language as tl\n\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


def lower(fn, signature, constexprs=None):
    params = {}
    for name in fn.arg_names:
        if constexprs and name in constexprs:
            params[name] = tl.constexpr(constexprs[name])
        else:
            params[name] = d.parse_signature_type(signature[name])
    return compiler.lower_to_tile_ir(fn, params)


def lowers_or_fails_at_its_line(fn, path, signature, constexprs=None):
    """True if it lowered, False if it was refused at a line of `path`."""
    try:
        lower(fn, signature, constexprs)
        return True
    except tile.CompilationError as error:
        assert error.filename == path and error.lineno, (
            "error not located in the kernel: %s" % error)
        return False


@pytest.mark.parametrize("dtype,sig", [("int1", "i1")] + INTS + FLOATS)
def test_constants_of_every_dtype(tmp_path, dtype, sig):
    values = (["True", "False", "0", "1"] if dtype == "int1" else
              [str(v) for v in EDGE_INTS] if dtype in dict(INTS) else
              EDGE_FLOATS + ["0", "-1", str(2**40)])
    source = ""
    for i, value in enumerate(values):
        source += ("@tile.jit\ndef k%d(out_ptr, s):\n"
                   "    x = tl.full((16,), %s, tl.%s)\n"
                   "    y = x + s * %s\n"
                   "    tl.store(out_ptr + tl.arange(0, 16), tl.where(y == %s, x, y))\n\n"
                   % (i, value, dtype, value, value))
    module, path = load_kernels(tmp_path, source)
    lowered = 0
    for i in range(len(values)):
        lowered += lowers_or_fails_at_its_line(
            getattr(module, "k%d" % i), path, {"out_ptr": "*" + sig, "s": sig})
    assert lowered >= 3  # 0, 1 and -1 (True/False) fit every type


@pytest.mark.parametrize("dtype,value", [
    (t, v) for t in ("float16", "bfloat16", "float32", "float64", "float8e5")
    for v in ("float('inf')", "-float('inf')", "float('nan')")] + [
    ("float8e4nv", "float('nan')")])
def test_non_finite_constants_lower(tmp_path, dtype, value):
    """inf and nan of every float type that has them are spelled as bit
    patterns MLIR parses (a bf16 load with other=-inf is common)."""
    source = ("@tile.jit\ndef k(out_ptr):\n"
              "    offs = tl.arange(0, 16)\n"
              "    x = tl.load(out_ptr + offs, mask=offs < 8, other=%s)\n"
              "    tl.store(out_ptr + offs, x)\n" % value)
    module, _ = load_kernels(tmp_path, source)
    ir = lower(module.k, {"out_ptr": "*" + d.dtype(dtype).short_name})
    assert "arith.constant 0x" in ir


def test_infinity_refused_where_the_format_has_none(tmp_path):
    source = ("@tile.jit\ndef k(out_ptr):\n"
              "    x = tl.full((16,), float('inf'), tl.float8e4nv)\n"
              "    tl.store(out_ptr + tl.arange(0, 16), x)\n")
    module, path = load_kernels(tmp_path, source)
    with pytest.raises(tile.CompilationError) as info:
        lower(module.k, {"out_ptr": "*fp8e4nv"})
    assert info.value.filename == path and info.value.lineno == 6
    assert "has no inf" in info.value.message


class KernelGenerator:
    """Random kernels over every operand kind. Leaves are the kernel's
    parameters (constexpr and runtime scalars, tensors loaded through
    pointers of each dtype) and Python literals; inner nodes are operators
    and tl functions. Many combinations are invalid (float shifts, say):
    those must be refused at their line."""

    TENSOR_TYPES = [("int1", "i1"), ("int8", "i8"), ("int32", "i32"),
                    ("int64", "i64"), ("uint32", "u32"), ("float16", "fp16"),
                    ("bfloat16", "bf16"), ("float32", "fp32")]
    SCALAR_TYPES = ["i1", "i32", "i64", "u32", "u64", "fp16", "fp32", "fp64"]
    LITERALS = ["True", "False", "0", "1", "-1", "3", "2**31", "2**32 - 1",
                "2**63", "2.5", "-0.0", "1e30", "float('inf')"]
    CONSTEXPRS = [True, False, 0, 1, -7, 2**31 - 1, 2**40, 0.5]
    BINARY = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "==",
              "!=", "<", "<=", ">", ">="]

    def __init__(self, rng):
        self.rng = rng

    def expression(self, leaves, depth):
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            return rng.choice(leaves + self.LITERALS)
        kind = rng.randrange(7)
        a = self.expression(leaves, depth - 1)
        b = self.expression(leaves, depth - 1)
        if kind <= 2:
            return "(%s %s %s)" % (a, rng.choice(self.BINARY), b)
        if kind == 3:
            return "tl.where(%s, %s, %s)" % (
                self.expression(leaves, depth - 1), a, b)
        if kind == 4:
            dtype = rng.choice(self.TENSOR_TYPES)[0]
            return "tl.broadcast_to(%s, (32,)).to(tl.%s)" % (a, dtype)
        if kind == 5:
            return "tl.%s(%s, %s)" % (rng.choice(["minimum", "maximum"]), a, b)
        return "(%s%s)" % (rng.choice(["-", "~", "not "]), a)

    def kernel(self, name):
        """(source, signature, constexprs) of one kernel."""
        rng = self.rng
        signature, constexprs, leaves, params, body = {}, {}, [], [], []
        for i in range(rng.randint(1, 3)):
            dtype, sig = rng.choice(self.TENSOR_TYPES)
            params.append("p%d" % i)
            signature["p%d" % i] = "*" + sig
            body.append("    t%d = tl.load(p%d + offs)" % (i, i))
            leaves.append("t%d" % i)
        for i in range(rng.randint(0, 2)):
            params.append("s%d" % i)
            signature["s%d" % i] = rng.choice(self.SCALAR_TYPES)
            leaves.append("s%d" % i)
        for i in range(rng.randint(0, 2)):
            params.append("C%d: tl.constexpr" % i)
            constexprs["C%d" % i] = rng.choice(self.CONSTEXPRS)
            leaves.append("C%d" % i)
        params.append("out")
        out_dtype, out_sig = rng.choice(self.TENSOR_TYPES)
        signature["out"] = "*" + out_sig
        result = self.expression(leaves, rng.randint(1, 4))
        source = ("@tile.jit\ndef %s(%s):\n    offs = tl.arange(0, 32)\n%s\n"
                  "    r = %s\n"
                  "    tl.store(out + offs, tl.broadcast_to(r, (32,)).to(tl.%s))\n\n"
                  % (name, ", ".join(params), "\n".join(body), result,
                     out_dtype))
        return source, signature, constexprs


FUZZ_SEED = 20261125
FUZZ_KERNELS = 400


def test_random_kernels_over_every_operand_kind(tmp_path):
    generator = KernelGenerator(random.Random(FUZZ_SEED))
    cases = [generator.kernel("k%d" % i) for i in range(FUZZ_KERNELS)]
    module, path = load_kernels(tmp_path, "".join(c[0] for c in cases))
    lowered = 0
    for i, (_, signature, constexprs) in enumerate(cases):
        fn = getattr(module, "k%d" % i)
        try:
            lowered += lowers_or_fails_at_its_line(fn, path, signature,
                                                   constexprs)
        except AssertionError as failure:
            raise AssertionError("kernel k%d (seed %d):\n%s\n%s" % (
                i, FUZZ_SEED, cases[i][0], failure)) from None
    # Most kernels are valid; a generator that only made invalid ones
    # would test nothing but error paths.
    assert lowered >= FUZZ_KERNELS // 3, lowered


@tile.jit
def atomic_add_bool(x_ptr):
    tl.atomic_add(x_ptr, True)


@tile.jit
def rope_row_select(x_ptr, y_ptr, stride, sl, C: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    row = tl.arange(0, 16)
    p = x_ptr + tl.where(C == 1, row * stride,
                         (pid // sl) * (sl * stride) + row * stride)
    tl.store(y_ptr + row, tl.load(p))


@tile.jit
def full_out_of_range(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.full((16,), 2**70, tl.int32))


def test_constexpr_bool_operands_lower():
    # A rope kernel's row select: a constexpr comparison as `where`'s
    # condition (was: "expected operation name in quotes" in <tile-ir:...>).
    for c in (1, 2):
        lower(rope_row_select, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                "stride": "i32", "sl": "i32"}, {"C": c})


def test_bool_operand_errors_name_the_kernel_line():
    with pytest.raises(tile.CompilationError) as info:
        lower(atomic_add_bool, {"x_ptr": "*i1"})
    assert info.value.filename == __file__
    assert "needs an integer pointee" in info.value.message


def test_integer_too_wide_for_its_type_is_located():
    with pytest.raises(tile.CompilationError) as info:
        lower(full_out_of_range, {"x_ptr": "*i32"})
    assert info.value.filename == __file__
    assert "does not fit in" in info.value.message
