#!/usr/bin/env python3
"""Fuzzes tile's front end and back end with random Python kernels.

Valid kernels (nested control flow, early returns, loops, @jit helpers that
return early, mixed dtypes, masks, reductions, `where`, broadcasting, casts
and integer atomics) are compiled by tile and run in the interpreter; with
--device they also run on the GPU, and the GPU's outputs must equal the
interpreter's: bit for bit for integers and for floats computed without
rounding-sensitive steps, within a tolerance for the rest.

Invalid kernels are valid ones with one bad statement put in; each must be
refused with a tile.CompilationError located at that statement's line.

The generator keeps every integer result independent of float rounding
(floats reach integers and comparisons only from "exact" expressions:
loads, selects, min/max, abs, scaling by powers of two, casts), so a
mismatch is a real difference in semantics, not a last-bit effect.

  utils/fuzz_kernels.py --valid 200 --invalid 100 --seed 1
  utils/fuzz_kernels.py --valid 2000 --invalid 0 --device   # on a GPU host
"""

import argparse
import re
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import traceback

import numpy as np

SIGNATURE = {"X": "*fp32", "Y": "*fp32", "I": "*i32", "OUT": "*fp32",
             "OUTI": "*i32", "n": "i32", "s": "i32"}
# OUTI has ATOMIC_SLOTS extra integers after the per-element results, the
# targets of the kernels' atomics: one region of 8 per kind of atomic.
# Different kinds on one slot would not commute (add then or differs from
# or then add), and the order in which programs and warps reach a slot is
# not defined, so only atomics of one kind may share a slot.
ATOMIC_KINDS = ["add", "max", "min", "xor", "or"]
ATOMIC_SLOTS = 8 * len(ATOMIC_KINDS)


class Generator:
    """One random kernel module's source."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.helpers = []
        self.fvars = [("f0", True), ("f1", True)]   # (name, exact)
        self.ivars = ["i0", "offs"]
        self.loopvars = []   # counters: read in loop bodies, never assigned
        self.counter = 1  # f0, f1, i0 are the loads
        self.depth = 0

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    # ----------------------------------------------------- expressions
    def fexpr(self, exact=False, depth=0):
        """(text, exact) of a float32 block expression."""
        r = self.rng
        if depth > 2 or r.random() < 0.25:
            pool = [v for v in self.fvars if v[1] or not exact]
            name, ex = r.choice(pool)
            return name, ex
        choices = ["where", "max", "abs", "neg", "scale", "cast_int", "round16",
                   "floor"]
        if not exact:
            choices += ["add", "sub", "mul", "div", "exp", "sqrt", "sigmoid",
                        "sum", "outer", "helper", "fma"]
        kind = r.choice(choices)
        if kind == "where":
            a, ea = self.fexpr(exact, depth + 1)
            b, eb = self.fexpr(exact, depth + 1)
            return "tl.where(%s, %s, %s)" % (self.bexpr(depth + 1), a, b), ea and eb
        if kind == "max":
            a, ea = self.fexpr(exact, depth + 1)
            b, eb = self.fexpr(exact, depth + 1)
            return "tl.%s(%s, %s)" % (r.choice(["maximum", "minimum"]), a, b), ea and eb
        if kind in ("abs", "neg", "floor"):
            # floor jumps: its operand must round the same everywhere.
            a, ea = self.fexpr(exact or kind == "floor", depth + 1)
            text = {"abs": "tl.abs(%s)", "neg": "(-%s)", "floor": "tl.floor(%s)"}[kind]
            return text % a, ea
        if kind == "scale":
            a, ea = self.fexpr(exact, depth + 1)
            return "(%s * %s)" % (a, r.choice(["2.0", "0.5", "0.25", "4.0"])), ea
        if kind == "cast_int":
            return "(%s + offs * 0).to(tl.float32)" % self.iexpr(depth + 1), True
        if kind == "round16":
            a, ea = self.fexpr(True, depth + 1)
            return "%s.to(tl.%s).to(tl.float32)" % (
                a, r.choice(["float16", "bfloat16"])), ea
        a, _ = self.fexpr(False, depth + 1)
        b, _ = self.fexpr(False, depth + 1)
        if kind in ("add", "sub", "mul"):
            return "(%s %s %s)" % (a, {"add": "+", "sub": "-", "mul": "*"}[kind], b), False
        if kind == "div":
            return "(%s / (tl.abs(%s) + 1.0))" % (a, b), False
        if kind == "exp":
            return "tl.exp(tl.minimum(%s, 8.0))" % a, False
        if kind == "sqrt":
            return "tl.sqrt(tl.abs(%s))" % a, False
        if kind == "sigmoid":
            return "tl.sigmoid(%s)" % a, False
        if kind == "fma":
            return "tl.fma(%s, %s, 0.5)" % (a, b), False
        if kind == "sum":
            return "(%s + tl.sum(%s + tl.zeros_like(f0), axis=0) * 0.01)" % (a, b), False
        if kind == "outer":
            return ("(tl.sum((%s + tl.zeros_like(f0))[:, None] * (%s + tl.zeros_like(f0))"
                    "[None, :], axis=1) * 0.01)" % (a, b)), False
        # helper
        return self.helper_call("f", depth), False

    def iexpr(self, depth=0):
        """An int32 block (or scalar) expression."""
        r = self.rng
        if depth > 2 or r.random() < 0.25:
            return r.choice(self.ivars + self.loopvars +
                            ["pid", "n", "s", str(r.randint(-9, 9))])
        kind = r.choice(["arith", "arith", "bit", "div", "shift", "where", "minmax",
                         "narrow", "from_float", "reduce", "cumsum", "divvar",
                         "abs", "umulhi", "helper", "argmax"])
        a = self.iexpr(depth + 1)
        if kind in ("div", "divvar", "shift"):
            # A Python int the compiler carries through a loop is an int32
            # there (C division, clamped shifts) but stays a Python int in
            # the interpreter: make it a tensor first, as kernels should.
            a = "(%s + offs * 0)" % a
        if kind == "arith":
            return "(%s %s %s)" % (a, r.choice("+-*"), self.iexpr(depth + 1))
        if kind == "bit":
            return "(%s %s %s)" % (a, r.choice("&|^"), self.iexpr(depth + 1))
        if kind == "div":
            return "(%s %s %d)" % (a, r.choice(["//", "%"]),
                                   r.choice([-7, -3, -2, 2, 3, 5, 16]))
        if kind == "divvar":
            return "(%s %s ((%s & 7) + 1))" % (a, r.choice(["//", "%"]),
                                             self.iexpr(depth + 1))
        if kind == "shift":
            if r.random() < 0.5:
                return "(%s %s %d)" % (a, r.choice(["<<", ">>"]), r.randint(0, 31))
            return "(%s >> (%s & 31))" % (a, self.iexpr(depth + 1))
        if kind == "where":
            return "tl.where(%s, %s, %s)" % (self.bexpr(depth + 1), a,
                                            self.iexpr(depth + 1))
        if kind == "minmax":
            return "tl.%s(%s, %s)" % (r.choice(["maximum", "minimum"]), a,
                                     self.iexpr(depth + 1))
        if kind == "narrow":
            return "(%s + offs * 0).to(tl.%s).to(tl.int32)" % (
                a, r.choice(["int8", "uint8", "int16", "uint16"]))
        if kind == "from_float":
            f, _ = self.fexpr(True, depth + 1)
            return "(%s * 8.0 + tl.zeros_like(f0)).to(tl.int32)" % f
        if kind == "reduce":
            return "(%s + tl.%s(%s + offs * 0, axis=0))" % (
                a, r.choice(["sum", "max", "min", "xor_sum"]), self.iexpr(depth + 1))
        if kind == "cumsum":
            return "tl.cumsum(%s + offs * 0, axis=0)" % a
        if kind == "abs":
            return "tl.abs(%s)" % a
        if kind == "umulhi":
            return "tl.umulhi(%s + offs * 0, %s)" % (a, self.iexpr(depth + 1))
        if kind == "argmax":
            f, _ = self.fexpr(True, depth + 1)
            return "(%s + tl.%s(%s + tl.zeros_like(f0), axis=0))" % (
                a, r.choice(["argmax", "argmin"]), f)
        return self.helper_call("i", depth)

    def bexpr(self, depth=0):
        r = self.rng
        kind = r.choice(["icmp", "icmp", "fcmp", "mask", "and", "parity"])
        if kind == "icmp" or depth > 2:
            return "(%s %s %s)" % (self.iexpr(depth + 1), r.choice(["<", "<=", "==", "!=", ">"]),
                                   self.iexpr(depth + 1))
        if kind == "fcmp":
            a, _ = self.fexpr(True, depth + 1)
            b, _ = self.fexpr(True, depth + 1)
            return "(%s %s %s)" % (a, r.choice(["<", ">=", "=="]), b)
        if kind == "mask":
            return "m"
        if kind == "parity":
            return "((%s & 1) == 0)" % self.iexpr(depth + 1)
        return "(%s %s %s)" % (self.bexpr(depth + 1), r.choice("&|"), self.bexpr(depth + 1))

    def scalar(self):
        """An int32 scalar: the condition material of `if` and loop bounds."""
        kind = self.rng.choice(["pid", "n", "s", "sum", "max", "(s % 5)", "(pid * 3 - 2)"])
        if kind in ("sum", "max"):
            return "tl.%s(%s + offs * 0, axis=0)" % (kind, self.iexpr(3))
        return kind

    # --------------------------------------------------------- helpers
    def helper_call(self, kind, depth):
        """A call of a @jit helper that returns early (one of two kinds:
        float or int, both branches of each return the same type)."""
        if len(self.helpers) < 3 and (not self.helpers or self.rng.random() < 0.5):
            self.make_helper(kind)
        same = [h for h in self.helpers if h[1] == kind]
        if not same:
            self.make_helper(kind)
            same = [h for h in self.helpers if h[1] == kind]
        name, _ = self.rng.choice(same)
        if kind == "f":
            a, _ = self.fexpr(False, depth + 1)
            return "%s(%s, %s)" % (name, a, self.scalar())
        return "%s(%s, %s)" % (name, self.iexpr(depth + 1), self.scalar())

    def make_helper(self, kind):
        name = "h%d_%s" % (len(self.helpers), kind)
        r = self.rng
        c1, c2 = r.randint(-5, 5), r.randint(-5, 5)
        if kind == "f":
            body = ["    if c > %d:" % c1,
                    "        return a * 2.0",
                    "    elif c < %d:" % c2,
                    "        if c % 2 == 0:",
                    "            return a - 1.0",
                    "        return tl.abs(a)",
                    "    return a + 0.5"]
        else:
            body = ["    if c > %d:" % c1,
                    "        return a * 3",
                    "    for k in range(3):",
                    "        a = a + k",
                    "    if c < %d:" % c2,
                    "        return a ^ 5",
                    "    return a - c"]
        self.helpers.append((name, kind))
        self.helper_src = getattr(self, "helper_src", []) + \
            ["@tile.jit", "def %s(a, c):" % name] + body + ["", ""]

    # ------------------------------------------------------ statements
    def statement(self, indent):
        kind = self.rng.choice(["fassign", "fassign", "iassign", "iassign", "if", "for",
                                "while", "atomic", "return"] if indent < 3 else
                               ["fassign", "iassign", "atomic"])
        self.statement_of(indent, kind)

    def statement_of(self, indent, kind):
        r = self.rng
        pad = "    " * indent
        if kind == "fassign":
            text, exact = self.fexpr()
            name = self.fresh("f")
            self.lines.append("%s%s = %s + tl.zeros_like(f0)" % (pad, name, text))
            if indent == 1:
                self.fvars.append((name, exact))
            return
        if kind == "iassign":
            name = self.fresh("i")
            self.lines.append("%s%s = (%s + offs * 0).to(tl.int32)" % (pad, name, self.iexpr()))
            if indent == 1:
                self.ivars.append(name)
            return
        if kind == "atomic":
            op = r.choice(["add", "add", "max", "min", "xor", "or"])
            self.lines.append("%stl.atomic_%s(OUTI + n_out + %d + (%s & 7), %s, mask=%s)" % (
                pad, op, 8 * ATOMIC_KINDS.index(op), self.iexpr(), self.iexpr(),
                self.bexpr()))
            return
        if kind == "return":
            if indent != 1:
                return
            self.lines.append("%sif %s %s %d:" % (pad, self.scalar(), r.choice(["==", "<", ">"]),
                                                 r.randint(-3, 3)))
            self.lines.append("%s    return" % pad)
            return
        # Compound statements update variables of the kernel's own (never
        # the loaded f0, f1, i0), keeping their types.
        if len(self.fvars) < 3 or len(self.ivars) < 3:
            self.statement_of(indent, "fassign" if len(self.fvars) < 3 else "iassign")
            return
        fname, _ = r.choice(self.fvars[2:])
        iname = r.choice(self.ivars[2:])
        inner = "    " * (indent + 1)
        if kind == "if":
            self.lines.append("%sif %s %s %d:" % (pad, self.scalar(), r.choice(["<", ">", "=="]),
                                                 r.randint(-10, 10)))
            self.update(inner, fname, iname, indent + 1)
            if r.random() < 0.6:
                self.lines.append("%selse:" % pad)
                self.update(inner, fname, iname, indent + 1)
            self.mark_inexact(fname)
            return
        if kind == "for":
            bound = r.choice(["3", "(s & 3)", "(n % 4)", "(pid + 2)"])
            var = self.fresh("j")
            self.lines.append("%sfor %s in range(%s):" % (pad, var, bound))
            self.loopvars.append(var)
            self.update(inner, fname, iname, indent + 1)
            self.loopvars.remove(var)
            self.mark_inexact(fname)
            return
        var = self.fresh("w")
        self.lines.append("%s%s = 0" % (pad, var))
        self.lines.append("%swhile %s < %s:" % (pad, var, r.choice(["2", "(s & 3)", "(pid + 1)"])))
        self.loopvars.append(var)
        self.update(inner, fname, iname, indent + 1)
        self.lines.append("%s%s += 1" % (inner, var))
        self.loopvars.remove(var)
        self.mark_inexact(fname)

    def update(self, pad, fname, iname, indent):
        self.lines.append("%s%s = %s + tl.zeros_like(f0)" % (pad, fname, self.fexpr()[0]))
        self.lines.append("%s%s = (%s + offs * 0).to(tl.int32)" % (pad, iname, self.iexpr()))
        if self.rng.random() < 0.4:
            self.statement(indent)

    def mark_inexact(self, fname):
        self.fvars = [(n, e and n != fname) for n, e in self.fvars]

    def kernel(self, statements):
        self.lines = [
            "@tile.jit",
            "def kernel(X, Y, I, OUT, OUTI, n, s, BLOCK: tl.constexpr):",
            "    pid = tl.program_id(0)",
            "    offs = pid * BLOCK + tl.arange(0, BLOCK)",
            "    m = offs < n",
            "    n_out = tl.num_programs(0) * BLOCK",
            "    f0 = tl.load(X + offs, mask=m, other=0.5)",
            "    f1 = tl.load(Y + offs, mask=m, other=-1.0)",
            "    i0 = tl.load(I + offs, mask=m, other=3)",
        ]
        for _ in range(statements):
            self.statement(1)
        fout, _ = self.rng.choice(self.fvars[2:] or self.fvars)
        iout = self.rng.choice(self.ivars[2:] or self.ivars)
        self.lines.append("    tl.store(OUT + offs, %s + tl.zeros_like(f0), mask=m)" % fout)
        self.lines.append("    tl.store(OUTI + offs, %s + offs * 0, mask=m)" % iout)
        header = ["import tile", "import tile.language as tl", "", ""]
        return "\n".join(header + getattr(self, "helper_src", []) + self.lines) + "\n"


# Bad statements, put in a valid kernel: each must be refused at its line.
INVALID = [
    "bad = tl.arange(0, 3)",
    "bad = f0 + tl.zeros((2 * BLOCK,), tl.float32)",
    "bad = tl.load(X + offs, mask=f0)",
    "bad = undefined_name + 1",
    "bad = tl.load(f0)",
    "bad = tl.dot(f0, f0)",
    "bad = f0 & 1",
    "bad = tl.full(16, 0, tl.float32)",
    "bad = [v for v in range(n)]",
    "bad = tl.load(X + offs, boundary_check=(0,))",
    "bad = lambda: 1",
    "tl.static_assert(BLOCK < 0, 'too big')",
    "bad = tl.exp(i0)",
    "bad = f0[0]",
    "bad = tl.max(f0, axis=0, return_indices='yes')",
    "bad = tl.arange(0, 2**40)",
    "bad = tl.reshape(f0, (3, 5))",
    "bad = tl.sum(f0, axis=3)",
    "bad = f0.to(tl.float32, fp_downcast_rounding='rtz')",
    "bad = tl.multiple_of(n, n)",
    "bad = tl.full((BLOCK,), 2**40, tl.int32)",
    "bad = i0.to('int32')",
    "bad = tl.program_id(3)",
    "tl.store(OUT + offs, f0, mask=m, cache_modifier='.zz')",
    "bad = tl.cat(f0, i0)",
    "bad = f0 @ f1",
    "bad = tl.arange(0, BLOCK)[None, 1:]",
    "bad = tl.full((BLOCK,), 1, tl.float32, 3)",
    "bad = tl.atomic_add(OUTI, 1.5, sem='weird')",
    "bad = tl.dot(tl.zeros((16, 16), tl.int8), tl.zeros((16, 16), tl.int8), out_dtype=tl.float16)",
    "bad = tl.where(m, X, f0)",
    "bad = tl.load(X + f0)",
    "bad = X * 2",
    "for q in range(3):\n        return",
    "while pid < 3:\n        return",
    "bad = print(f0, file=3) + tl.exp(1)",
    "bad = tl.zeros((BLOCK, BLOCK, BLOCK, BLOCK, 2), tl.float32)",
    "bad = tl.static_range(100000)",
    "bad = f0.to(tl.float8e4nv, fp_downcast_rounding='rtz')",
    "bad = tl.split(f0)",
    "bad = tl.join(f0, i0)",
    "bad = tl.histogram(f0, 16)",
    "bad = tl.umulhi(f0, f0)",
    "bad = 1 if f0 else 2",
    "bad = tl.trans(f0, 1, 0)",
    "bad = tl.expand_dims(f0, 5)",
    "bad = tl.broadcast_to(f0, (3,))",
]


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_inputs(rng, grid, block):
    n = grid * block - rng.randint(0, block - 1)
    data = np.random.default_rng(rng.randint(0, 2**31))
    x = (data.standard_normal(grid * block) * 4).astype(np.float32)
    y = (data.standard_normal(grid * block) * 4).astype(np.float32)
    i = data.integers(-50, 50, grid * block).astype(np.int32)
    return {"X": x, "Y": y, "I": i, "n": n, "s": rng.randint(-6, 6)}


def run(kernel, inputs, grid, block, tensor, interpret):
    """OUT and OUTI after one launch, from poisoned buffers."""
    out = np.full(grid * block, np.nan, np.float32)
    outi = np.full(grid * block + ATOMIC_SLOTS, -777, np.int32)
    outi[grid * block:] = 0
    args = [tensor(inputs["X"]), tensor(inputs["Y"]), tensor(inputs["I"]),
            tensor(out), tensor(outi), inputs["n"], inputs["s"]]
    kernel.interpret = interpret
    kernel[(grid,)](*args, BLOCK=block)
    return [np.asarray(a.cpu() if hasattr(a, "cpu") else a) for a in args[3:5]]


def compare(got, want, rtol=2e-3, atol=2e-3):
    """The first mismatch between GPU and interpreter outputs, or None."""
    (gf, gi), (wf, wi) = got, want
    if not np.array_equal(gi, wi):
        k = int(np.nonzero(gi != wi)[0][0])
        return "OUTI[%d]: GPU %d, interpreter %d" % (k, gi[k], wi[k])
    both_nan = np.isnan(gf) & np.isnan(wf)
    close = np.isclose(gf, wf, rtol=rtol, atol=atol) | both_nan | (gf == wf)
    if not close.all():
        k = int(np.nonzero(~close)[0][0])
        return "OUT[%d]: GPU %r, interpreter %r" % (k, float(gf[k]), float(wf[k]))
    return None


def fuzz_valid(args, workdir, tile):
    rng = random.Random(args.seed)
    counts = {"kernels": 0, "compiled": 0, "interpreted": 0, "gpu_equal": 0}
    failures = []
    torch = None
    if args.device:
        import torch
    for case in range(args.valid):
        gen = Generator(random.Random(rng.randint(0, 2**62)))
        statements, block, grid = rng.randint(3, 9), rng.choice([16, 32, 64]), rng.randint(1, 3)
        inputs_seed = rng.randint(0, 2**31)
        if case % args.shards != args.shard or (args.cases and case not in args.cases):
            continue
        source = gen.kernel(statements)
        path = os.path.join(workdir, "valid_%d.py" % case)
        with open(path, "w") as f:
            f.write(source)
        counts["kernels"] += 1
        try:
            module = load_module(path, "fuzz_valid_%d" % case)
            tile.compile(module.kernel, SIGNATURE, {"BLOCK": block})
            counts["compiled"] += 1
            inputs = make_inputs(random.Random(inputs_seed), grid, block)
            want = run(module.kernel, inputs, grid, block, lambda a: a.copy(), True)
            counts["interpreted"] += 1
            if torch is not None:
                got = run(module.kernel, inputs, grid, block,
                          lambda a: torch.from_numpy(a.copy()).cuda(), False)
                problem = compare(got, want)
                if problem:
                    if args.minimize:
                        def check(text, where):
                            return mismatch(text, where, inputs, grid, block, tile, torch)
                        out, smallest = minimize(source, path, check)
                        problem += "\nminimized (n=%d, s=%d, grid=%d, BLOCK=%d) to %s: %s\n%s" % (
                            inputs["n"], inputs["s"], grid, block, out,
                            check(smallest, out), smallest)
                    failures.append((path, "mismatch: " + problem))
                    # Reported at once too: a run cut short keeps it.
                    print("FAIL %s: mismatch: %s" % (path, problem), file=sys.stderr,
                          flush=True)
                    continue
                counts["gpu_equal"] += 1
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failures.append((path, "%s: %s" % (type(e).__name__, e)))
            if args.verbose:
                traceback.print_exc()
    return counts, failures


def mismatch(source, path, inputs, grid, block, tile, torch):
    """The GPU/interpreter difference of `source`, or None when it has none
    or does not compile."""
    with open(path, "w") as f:
        f.write(source)
    try:
        module = load_module(path, "fuzz_min_%d" % abs(hash(source)))
        tile.compile(module.kernel, SIGNATURE, {"BLOCK": block})
        want = run(module.kernel, inputs, grid, block, lambda a: a.copy(), True)
        got = run(module.kernel, inputs, grid, block,
                  lambda a: torch.from_numpy(a.copy()).cuda(), False)
    except Exception:  # noqa: BLE001 - a variant that breaks is not a reproducer
        return None
    return compare(got, want)


def block_end(lines, i):
    """One past the last line of the statement starting at line i (with its
    indented body when it opens one)."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    if lines[i].rstrip().endswith(":"):
        while j < len(lines) and (not lines[j].strip() or
                                  len(lines[j]) - len(lines[j].lstrip()) > indent):
            j += 1
    return j


def minimize(source, path, check):
    """Deletes kernel statements while `check(source, path)` still finds a
    problem; writes the smallest such kernel next to the case and returns
    its path and source."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if "i0 = tl.load(" in line) + 1
    trials = 0
    changed = True
    while changed:
        changed = False
        for i in range(len(lines) - 1, start - 1, -1):
            # A while loop without its counter's step would never end.
            if i >= len(lines) or re.match(r"\s*w\d+ \+= 1$", lines[i]):
                continue
            trial = lines[:i] + lines[block_end(lines, i):]
            trials += 1
            scratch = "%s_try%d.py" % (path[:-3], trials)
            found = check("\n".join(trial) + "\n", scratch)
            if os.path.exists(scratch):
                os.remove(scratch)
            if found:
                lines, changed = trial, True
    smallest = "\n".join(lines) + "\n"
    out = path[:-3] + "_min.py"
    with open(out, "w") as f:
        f.write(smallest)
    return out, smallest


def fuzz_invalid(args, workdir, tile):
    rng = random.Random(args.seed + 1)
    counts = {"kernels": 0, "located": 0}
    failures = []
    for case in range(args.invalid):
        gen = Generator(random.Random(rng.randint(0, 2**62)))
        statements, pick, bad = rng.random(), rng.random(), rng.choice(INVALID)
        if case % args.shards != args.shard:
            continue
        source = gen.kernel(1 + int(statements * 5)).split("\n")
        # Put the bad statement among the kernel's own top-level statements.
        start = source.index("def kernel(X, Y, I, OUT, OUTI, n, s, BLOCK: tl.constexpr):")
        body = [i for i in range(start + 2, len(source))
                if source[i].startswith("    ") and not source[i].startswith("     ")
                and not source[i].startswith(("    else", "    elif"))]
        at = body[int(pick * len(body))]
        bad_lines = ("    " + bad).split("\n")
        source[at:at] = bad_lines
        path = os.path.join(workdir, "invalid_%d.py" % case)
        with open(path, "w") as f:
            f.write("\n".join(source))
        counts["kernels"] += 1
        lines = range(at + 1, at + 1 + len(bad_lines))
        try:
            module = load_module(path, "fuzz_invalid_%d" % case)
            tile.compile(module.kernel, SIGNATURE, {"BLOCK": 32})
            failures.append((path, "accepted: %s" % bad))
        except tile.CompilationError as e:
            if e.filename == path and e.lineno in lines:
                counts["located"] += 1
            else:
                failures.append((path, "error at %s:%s, not line %d: %s" % (
                    e.filename, e.lineno, lines[0], str(e).splitlines()[0])))
        except Exception as e:  # noqa: BLE001
            failures.append((path, "%s (not a CompilationError): %s"
                             % (type(e).__name__, e)))
    return counts, failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--valid", type=int, default=100)
    parser.add_argument("--invalid", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--device", action="store_true",
                        help="also run each valid kernel on the GPU and compare")
    parser.add_argument("--keep", help="directory for the generated kernels")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--cases", type=lambda v: {int(x) for x in v.split(",")},
                        help="only these valid case numbers, e.g. 24,633")
    parser.add_argument("--minimize", action="store_true",
                        help="with --device, shrink each mismatching kernel")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes, each taking every JOBS-th kernel")
    parser.add_argument("--shard", default="0/1", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.dont_write_bytecode = True  # generated modules are rewritten in place
    args.shard, args.shards = (int(x) for x in args.shard.split("/"))
    workdir = args.keep or tempfile.mkdtemp(prefix="tile-fuzz-kernels-")
    os.makedirs(workdir, exist_ok=True)
    if args.jobs > 1:
        return run_shards(args, argv if argv is not None else sys.argv[1:], workdir)
    import tile
    valid, vfail = fuzz_valid(args, workdir, tile)
    invalid, ifail = fuzz_invalid(args, workdir, tile)
    print("RESULT " + json.dumps({"valid": valid, "invalid": invalid,
                                  "failures": vfail + ifail}))
    return report(args, valid, invalid, vfail + ifail, workdir)


def report(args, valid, invalid, failures, workdir):
    print("valid kernels (seed %d): %s" % (args.seed, valid))
    print("invalid kernels (seed %d): %s" % (args.seed + 1, invalid))
    for path, why in failures:
        print("FAIL %s: %s" % (path, why))
    print("%d failures; kernels in %s" % (len(failures), workdir))
    return 1 if failures else 0


def run_shards(args, argv, workdir):
    """Runs --jobs copies of this script on disjoint shards and sums them."""
    base = [a for a in argv if not a.startswith("--jobs")]
    if "--jobs" in argv:
        i = argv.index("--jobs")
        base = argv[:i] + argv[i + 2:]
    procs = [subprocess.Popen([sys.executable, __file__] + base +
                              ["--shard", "%d/%d" % (k, args.jobs), "--keep", workdir],
                              stdout=subprocess.PIPE, text=True)
             for k in range(args.jobs)]
    valid, invalid, failures = {}, {}, []
    for p in procs:
        out, _ = p.communicate()
        line = [x for x in out.splitlines() if x.startswith("RESULT ")]
        if not line:
            failures.append(("shard", "a shard died:\n" + out[-2000:]))
            continue
        result = json.loads(line[-1][len("RESULT "):])
        for total, part in ((valid, result["valid"]), (invalid, result["invalid"])):
            for key, value in part.items():
                total[key] = total.get(key, 0) + value
        failures += [tuple(f) for f in result["failures"]]
    return report(args, valid, invalid, failures, workdir)


if __name__ == "__main__":
    sys.exit(main())
