"""The AST visitor: a @jit function's Python AST to Tile IR.

Python values that are known at compile time (constexprs, literals, dtypes,
tuples of them) are computed in Python; everything else is a `tl.tensor`
whose operators emit IR. Control flow on runtime values becomes `scf.if`,
`scf.for` and `scf.while`, with the variables a construct assigns carried
through it.
"""

import ast
import builtins

from tile.compiler.errors import CompilationError
from tile.language import core as tl
from tile.language import dtypes as d
from tile.language import semantic as sem

_UNSUPPORTED = {
    ast.Lambda: "lambda", ast.Try: "try", ast.With: "with", ast.Break: "break",
    ast.Continue: "continue", ast.Raise: "raise", ast.ClassDef: "class",
    ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Delete: "del",
    ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Await: "await",
    ast.ListComp: "list comprehensions", ast.DictComp: "dict comprehensions",
    ast.SetComp: "set comprehensions", ast.GeneratorExp: "generator expressions",
    ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.AsyncFunctionDef: "async def", ast.FunctionDef: "nested def",
    ast.Import: "import", ast.ImportFrom: "import", ast.Starred: "star-unpacking",
    ast.JoinedStr: "f-strings", ast.Dict: "dicts", ast.Set: "sets",
    ast.NamedExpr: ":=",
}

# Python builtins a kernel may call on compile-time values.
_PY_BUILTINS = {"min": builtins.min, "max": builtins.max, "int": int,
                "float": float, "bool": bool, "len": len, "abs": builtins.abs,
                "isinstance": isinstance, "print": print, "tuple": tuple,
                "getattr": getattr, "hasattr": hasattr}

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
           ast.FloorDiv: "//", ast.Mod: "%", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>", ast.Pow: "**"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
           ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
           ast.NotIn: "not in"}


def is_jit_function(value):
    """Whether `value` is a @tile.jit function: its class says so (as
    builtins are recognised by what they are), so the compiler needs no
    import of the runtime that defines it."""
    return getattr(type(value), "tile_jit_function", False) is True


def _is_runtime(x):
    return isinstance(x, tl.tensor)


def _py(x):
    return x.value if isinstance(x, tl.constexpr) else x


def _c_div(a, b):
    q = builtins.abs(a) // builtins.abs(b)
    return q if (a < 0) == (b < 0) else -q


def _python_binop(op, a, b):
    if op == "//" and isinstance(a, int) and isinstance(b, int):
        return _c_div(a, b)  # C semantics, as at run time
    if op == "%" and isinstance(a, int) and isinstance(b, int):
        return a - _c_div(a, b) * b
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: a / b, "//": lambda: a // b, "%": lambda: a % b,
            "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
            "<<": lambda: a << b, ">>": lambda: a >> b,
            "**": lambda: a ** b}[op]()


def assigned_names(stmts):
    """Names stored to anywhere in `stmts` (in source order, no repeats)."""
    names = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                if node.id not in names:
                    names.append(node.id)
    return names


class CodeGenerator(ast.NodeVisitor):
    def __init__(self, fn, builder, scope, module):
        self.fn = fn                # the JITFunction being compiled
        self.builder = builder
        self.scope = dict(scope)    # local names
        self.module = module        # the Specializer shared by nested calls
        self.returns = None         # values of a `return` in a nested function

    # ---------------------------------------------------------------- errors
    def error(self, node, message):
        line = node.lineno + self.fn.line_offset
        source = self.fn.source_lines[node.lineno - 1] if \
            0 < node.lineno <= len(self.fn.source_lines) else None
        return CompilationError(message, self.fn.filename, line,
                                node.col_offset, source)

    def visit(self, node):
        if type(node) in _UNSUPPORTED:
            raise self.error(node, "%s is not supported in tile kernels" %
                             _UNSUPPORTED[type(node)])
        # Ops emitted for this node carry its location; the location of the
        # parent comes back once the node is done.
        saved = self.builder.location
        if hasattr(node, "lineno"):
            self.builder.set_location(node.lineno + self.fn.line_offset,
                                      node.col_offset)
        try:
            return super().visit(node)
        except CompilationError:
            raise
        except sem.SemanticError as e:
            raise self.error(node, str(e)) from None
        except (TypeError, ValueError, AttributeError, IndexError, KeyError,
                ZeroDivisionError, NameError) as e:
            raise self.error(node, "%s: %s" % (type(e).__name__, e)) from None
        finally:
            self.builder.location = saved

    def generic_visit(self, node):
        raise self.error(node, "%s is not supported in tile kernels" %
                         type(node).__name__)

    # ------------------------------------------------------------ statements
    def visit_block(self, stmts):
        for i, stmt in enumerate(stmts):
            # `if cond: return` at function level: the rest of the body is the
            # else branch, which turns an early return into structured flow.
            if (isinstance(stmt, ast.If) and stmt.body and
                    isinstance(stmt.body[-1], ast.Return) and
                    stmt.body[-1].value is None and i + 1 < len(stmts)):
                rewritten = ast.If(test=stmt.test, body=stmt.body[:-1] or [ast.Pass()],
                                   orelse=stmt.orelse + stmts[i + 1:])
                ast.copy_location(rewritten, stmt)
                ast.fix_missing_locations(rewritten)
                self.visit(rewritten)
                return
            self.visit(stmt)
            if isinstance(stmt, ast.Return):
                return

    def visit_Module(self, node):
        self.visit_block(node.body)

    def visit_Pass(self, node):
        pass

    def visit_Expr(self, node):
        self.visit(node.value)

    def visit_Return(self, node):
        if node.value is None:
            self.returns = []
            return
        value = self.visit(node.value)
        values = list(value) if isinstance(value, tuple) else [value]
        self.returns = values

    def _assign(self, target, value):
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            value = _py(value)
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error(target, "cannot unpack %r into %d names" %
                                 (value, len(target.elts)))
            for t, v in zip(target.elts, value):
                self._assign(t, v)
        else:
            raise self.error(target, "only names and tuples of names can be "
                             "assigned to")

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self._assign(target, value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            value = self.visit(node.value)
            annotation = self.visit(node.annotation)
            if annotation is tl.constexpr and not isinstance(value, tl.constexpr):
                value = tl.constexpr(value)
            self._assign(node.target, value)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "only names can be assigned to")
        lhs = self.visit(ast.copy_location(ast.Name(node.target.id, ast.Load()), node))
        rhs = self.visit(node.value)
        self.scope[node.target.id] = self.binop(node, type(node.op), lhs, rhs)

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        msg = _py(self.visit(node.msg)) if node.msg is not None else ""
        if not _is_runtime(cond):
            if not _py(cond):
                raise self.error(node, "assertion failed at compile time: %s" % msg)
            return
        tl.device_assert(cond, str(msg))

    # ----------------------------------------------------------------- if
    def _lift_for_merge(self, a, b_):
        """Two versions of a variable from two branches, as Values of one type."""
        b = self.builder
        av, bv = _py(a), _py(b_)
        if _is_runtime(av) and not _is_runtime(bv):
            bv = tl.tensor(sem.cast(b, sem.lift(b, bv, av.dtype), av.dtype))
        elif _is_runtime(bv) and not _is_runtime(av):
            av = tl.tensor(sem.cast(b, sem.lift(b, av, bv.dtype), bv.dtype))
        elif not _is_runtime(av):
            av = tl.tensor(sem.lift(b, av))
            bv = tl.tensor(sem.cast(b, sem.lift(b, bv, av.dtype), av.dtype))
        return av, bv

    def visit_If(self, node):
        cond = self.visit(node.test)
        if not _is_runtime(cond):
            self.visit_block(node.body if _py(cond) else node.orelse)
            return
        if cond.type.is_block():
            raise self.error(node.test, "an `if` condition must be a scalar, got a "
                             "%s tensor; use tl.where for blocks" %
                             list(cond.type.shape))
        b = self.builder
        c = sem.cast(b, cond.handle, d.int1)
        before = dict(self.scope)
        branches = []
        for body in (node.body, node.orelse):
            self.scope = dict(before)
            lines = []
            with b.capture(lines):
                self.visit_block(body)
            branches.append((lines, self.scope))
        self.scope = before
        (then_lines, then_scope), (else_lines, else_scope) = branches
        names = [n for n in assigned_names(node.body + node.orelse)
                 if n in then_scope and n in else_scope and
                 (then_scope[n] is not before.get(n) or
                  else_scope[n] is not before.get(n))]
        # Names of compile-time values identical in both branches need no
        # yield; everything else is merged into results.
        merged = []
        for n in names:
            tv, ev = then_scope[n], else_scope[n]
            if not _is_runtime(_py(tv)) and not _is_runtime(_py(ev)) and _py(tv) == _py(ev):
                self.scope[n] = tv
                continue
            merged.append(n)
        then_vals, else_vals = [], []
        for n in merged:
            tv, ev = then_scope[n], else_scope[n]
            if not isinstance(_py(tv), (tl.tensor, int, float, bool)) or \
                    not isinstance(_py(ev), (tl.tensor, int, float, bool)):
                raise self.error(node, "variable '%s' must hold a value in both "
                                 "branches of this `if`" % n)
            with b.capture(then_lines):
                tv2, _ = self._lift_for_merge(tv, ev)
            with b.capture(else_lines):
                _, ev2 = self._lift_for_merge(tv, ev)
            if tv2.type != ev2.type:
                raise self.error(node, "variable '%s' has type %r in one branch and "
                                 "%r in the other" % (n, tv2.type, ev2.type))
            then_vals.append(tv2)
            else_vals.append(ev2)
        decl, results = b.results([v.type for v in then_vals])
        types = ", ".join(v.type.to_ir() for v in then_vals)
        if merged:
            header = "%s = scf.if %s -> (%s) {" % (decl, c.name, types)
        else:
            header = "scf.if %s {" % c.name
        b.emit(header, with_loc=False)
        b.emit_lines(then_lines)
        if merged:
            b.emit("  scf.yield %s : %s" % (", ".join(v.handle.name for v in then_vals),
                                          types))
        if merged or else_lines:
            b.emit("} else {", with_loc=False)
            b.emit_lines(else_lines)
            if merged:
                b.emit("  scf.yield %s : %s" % (", ".join(v.handle.name for v in else_vals),
                                              types))
        b.emit("}")
        self._rebind(merged, results)

    def visit_IfExp(self, node):
        cond = self.visit(node.test)
        if not _is_runtime(cond):
            return self.visit(node.body if _py(cond) else node.orelse)
        return tl.where(cond, self.visit(node.body), self.visit(node.orelse))

    # ---------------------------------------------------------------- loops
    def _carried(self, body):
        """Variables a loop body assigns that exist before the loop, lifted to
        runtime values (a Python int counter becomes an i32)."""
        carried = []
        for n in assigned_names(body):
            if n not in self.scope:
                continue
            v = _py(self.scope[n])
            if isinstance(v, tl.tensor):
                carried.append((n, v))
            elif isinstance(v, (bool, int, float)):
                carried.append((n, tl.tensor(sem.lift(self.builder, v))))
        return carried

    def _loop_yields(self, node, carried):
        """The values a loop body ends with for its carried variables, which
        must keep the type they entered with."""
        b = self.builder
        yields = []
        for n, init in carried:
            v = _py(self.scope[n])
            if not isinstance(v, tl.tensor):
                v = tl.tensor(sem.cast(b, sem.lift(b, v, init.dtype), init.dtype))
            if v.type != init.type:
                raise self.error(node, "loop-carried variable '%s' changes type "
                                 "from %r to %r in the loop body" %
                                 (n, init.type, v.type))
            yields.append(v.handle)
        return yields

    def visit_For(self, node):
        it = self.visit(node.iter)
        if node.orelse:
            raise self.error(node, "for/else is not supported in tile kernels")
        if isinstance(it, tl.static_range):
            for i in it.range:
                self._assign(node.target, tl.constexpr(i))
                self.visit_block(node.body)
            return
        if isinstance(it, builtins.range):
            it = tl.range(it.start, it.stop, it.step)
        if not isinstance(it, tl.range):
            raise self.error(node.iter, "tile kernels can only loop over range(), "
                             "tl.range() and tl.static_range()")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a name")
        b = self.builder
        bounds = [_py(x) for x in (it.start, it.end, it.step)]
        if isinstance(bounds[2], int) and bounds[2] == 0:
            raise self.error(node.iter, "the step of a range must not be zero")
        if isinstance(bounds[2], int) and bounds[2] < 0:
            raise self.error(node.iter, "ranges with a negative step are not "
                             "supported yet")
        ty = d.int32
        for x in bounds:
            if isinstance(x, tl.tensor):
                if x.type.is_block() or not x.dtype.is_int():
                    raise self.error(node.iter, "range bounds must be integer "
                                     "scalars, got %r" % (x.type,))
                ty = sem.integer_promote(ty, x.dtype)
            elif not isinstance(x, int):
                raise self.error(node.iter, "range bounds must be integers")
        lb, ub, step = (sem.cast(b, sem.lift(b, x, ty), ty) if not isinstance(x, tl.tensor)
                        else sem.cast(b, x.handle, ty) for x in bounds)
        carried = self._carried(node.body)
        iv = b.fresh(ty)
        args = [b.fresh(v.type) for _, v in carried]
        before = dict(self.scope)
        self.scope[node.target.id] = tl.tensor(iv)
        for (n, _), a in zip(carried, args):
            self.scope[n] = tl.tensor(a)
        lines = []
        with b.capture(lines):
            self.visit_block(node.body)
            yields = self._loop_yields(node, carried)
            if yields:
                b.emit("scf.yield %s : %s" % (", ".join(y.name for y in yields),
                                              ", ".join(y.type.to_ir() for y in yields)))
        self.scope = before
        decl, results = b.results([v.type for _, v in carried])
        head = "scf.for %s = %s to %s step %s" % (iv.name, lb.name, ub.name, step.name)
        if carried:
            head = "%s = %s iter_args(%s) -> (%s)" % (
                decl, head, ", ".join("%s = %s" % (a.name, v.handle.name)
                                for a, (_, v) in zip(args, carried)),
                ", ".join(a.type.to_ir() for a in args))
        b.emit("%s : %s {" % (head, ty.to_ir()), with_loc=False)
        b.emit_lines(lines)
        attrs = []
        stages = _py(it.num_stages)
        if stages is not None:
            if not isinstance(stages, int) or stages < 1:
                raise self.error(node.iter, "num_stages must be a positive "
                                 "constexpr integer, got %r" % (stages,))
            attrs.append("tile.num_stages = %d : i32" % stages)
        specialize = _py(getattr(it, "warp_specialize", False))
        if not isinstance(specialize, bool):
            raise self.error(node.iter, "warp_specialize must be a constexpr "
                             "bool, got %r" % (specialize,))
        if specialize:
            attrs.append("tile.warp_specialize")
        b.emit("} {%s}" % ", ".join(attrs) if attrs else "}")
        self._rebind([n for n, _ in carried], results)

    def visit_While(self, node):
        if node.orelse:
            raise self.error(node, "while/else is not supported in tile kernels")
        b = self.builder
        carried = self._carried(node.body)
        before = dict(self.scope)
        types = ", ".join(v.type.to_ir() for _, v in carried)
        cond_args = [b.fresh(v.type) for _, v in carried]
        for (n, _), a in zip(carried, cond_args):
            self.scope[n] = tl.tensor(a)
        cond_lines = []
        with b.capture(cond_lines):
            cond = self.visit(node.test)
            if not _is_runtime(cond):
                cond = tl.tensor(sem.lift(b, bool(_py(cond))))
            if cond.type.is_block():
                raise self.error(node.test, "a `while` condition must be a scalar")
            c = sem.cast(b, cond.handle, d.int1)
            b.emit("scf.condition(%s)%s" % (c.name, (" %s : %s" % (
                ", ".join(a.name for a in cond_args), types)) if carried else ""))
        body_args = [b.fresh(v.type) for _, v in carried]
        self.scope = dict(before)
        for (n, _), a in zip(carried, body_args):
            self.scope[n] = tl.tensor(a)
        body_lines = []
        with b.capture(body_lines):
            self.visit_block(node.body)
            yields = self._loop_yields(node, carried)
            b.emit("scf.yield%s" % ((" %s : %s" % (", ".join(y.name for y in yields),
                                                   types)) if yields else ""))
        self.scope = before
        decl, results = b.results([v.type for _, v in carried])
        inits = ", ".join("%s = %s" % (a.name, v.handle.name)
                          for a, (_, v) in zip(cond_args, carried))
        prefix = "%s = " % decl if carried else ""
        b.emit("%sscf.while (%s) : (%s) -> (%s) {" % (prefix, inits, types, types),
               with_loc=False)
        # The before region's block arguments are named by the init list; the
        # after region needs an explicit block header.
        b.emit_lines(cond_lines)
        b.emit("} do {", with_loc=False)
        b.emit("^bb0(%s):" % ", ".join("%s: %s" % (a.name, a.type.to_ir())
                                       for a in body_args), with_loc=False)
        b.emit_lines(body_lines)
        b.emit("}")
        self._rebind([n for n, _ in carried], results)

    def _rebind(self, names, results):
        """After a construct, its variables name the construct's results."""
        for n, value in zip(names, results):
            self.scope[n] = tl.tensor(value)

    # ----------------------------------------------------------- expressions
    def visit_Constant(self, node):
        return tl.constexpr(node.value)

    def visit_Name(self, node):
        if node.id in self.scope:
            return self.scope[node.id]
        found, value = self.fn.lookup(node.id)
        if found:
            return value
        if node.id in _PY_BUILTINS:
            return _PY_BUILTINS[node.id]
        if node.id == "range":
            return builtins.range
        if node.id in ("None", "True", "False"):
            return tl.constexpr({"None": None, "True": True, "False": False}[node.id])
        raise self.error(node, "name '%s' is not defined" % node.id)

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    visit_List = visit_Tuple

    def visit_Attribute(self, node):
        value = _py(self.visit(node.value))
        attr = getattr(value, node.attr)
        if isinstance(value, tl.tensor) and isinstance(attr, (int, float)):
            return tl.constexpr(attr)
        return attr

    def visit_Subscript(self, node):
        value = _py(self.visit(node.value))
        index = self.visit(node.slice)
        if isinstance(value, tl.tensor):
            return value[index]
        return value[_py(index)]

    def visit_Slice(self, node):
        parts = [_py(self.visit(x)) if x is not None else None
                 for x in (node.lower, node.upper, node.step)]
        return slice(*parts)

    def binop(self, node, op_type, lhs, rhs):
        op = _BINOPS.get(op_type)
        if op is None:
            raise self.error(node, "operator %s is not supported" % op_type.__name__)
        lv, rv = _py(lhs), _py(rhs)
        if not _is_runtime(lv) and not _is_runtime(rv):
            return tl.constexpr(_python_binop(op, lv, rv))
        if op == "**":
            raise self.error(node, "** is only supported on compile-time values")
        method = {"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__",
                  "//": "__floordiv__", "%": "__mod__", "&": "__and__", "|": "__or__",
                  "^": "__xor__", "<<": "__lshift__", ">>": "__rshift__"}[op]
        if _is_runtime(lv):
            return getattr(lv, method)(rv)
        return getattr(rv, "__r" + method[2:])(lv)

    def visit_BinOp(self, node):
        return self.binop(node, type(node.op), self.visit(node.left),
                          self.visit(node.right))

    def visit_UnaryOp(self, node):
        v = _py(self.visit(node.operand))
        if not _is_runtime(v):
            return tl.constexpr({ast.USub: lambda: -v, ast.UAdd: lambda: +v,
                                 ast.Not: lambda: not v, ast.Invert: lambda: ~v}
                                [type(node.op)]())
        if isinstance(node.op, ast.Not):
            return v.logical_not()
        return {ast.USub: v.__neg__, ast.UAdd: v.__pos__,
                ast.Invert: v.__invert__}[type(node.op)]()

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            raise self.error(node, "chained comparisons are not supported; "
                             "combine two comparisons with `and`")
        op = _CMPOPS[type(node.ops[0])]
        lhs, rhs = _py(self.visit(node.left)), _py(self.visit(node.comparators[0]))
        if not _is_runtime(lhs) and not _is_runtime(rhs):
            return tl.constexpr({"<": lambda: lhs < rhs, "<=": lambda: lhs <= rhs,
                                 ">": lambda: lhs > rhs, ">=": lambda: lhs >= rhs,
                                 "==": lambda: lhs == rhs, "!=": lambda: lhs != rhs,
                                 "is": lambda: lhs is rhs,
                                 "is not": lambda: lhs is not rhs,
                                 "in": lambda: lhs in rhs,
                                 "not in": lambda: lhs not in rhs}[op]())
        if op in ("is", "is not", "in", "not in"):
            raise self.error(node, "`%s` needs compile-time operands" % op)
        if _is_runtime(lhs):
            return {"<": lhs.__lt__, "<=": lhs.__le__, ">": lhs.__gt__,
                    ">=": lhs.__ge__, "==": lhs.__eq__, "!=": lhs.__ne__}[op](rhs)
        swapped = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
        return {"<": rhs.__lt__, "<=": rhs.__le__, ">": rhs.__gt__,
                ">=": rhs.__ge__, "==": rhs.__eq__, "!=": rhs.__ne__}[swapped[op]](lhs)

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        result = _py(self.visit(node.values[0]))
        for value_node in node.values[1:]:
            if not _is_runtime(result):
                # Python short-circuit on compile-time values.
                if bool(result) != is_and:
                    return tl.constexpr(result)
                result = _py(self.visit(value_node))
                continue
            other = _py(self.visit(value_node))
            result = result.logical_and(other) if is_and else result.logical_or(other)
        return result if _is_runtime(result) else tl.constexpr(result)

    def _bind_combiner(self, node, args, kwargs):
        """tl.reduce / tl.associative_scan take a @jit combiner; it becomes a
        callable that emits a call to the combiner's specialization inside the
        region."""
        args = list(args)
        if len(args) >= 3:
            fn, where = _py(args[2]), ("args", 2)
        elif "combine_fn" in kwargs:
            fn, where = _py(kwargs["combine_fn"]), ("kwargs", "combine_fn")
        else:
            raise self.error(node, "missing the combine_fn argument")
        if not is_jit_function(fn):
            raise self.error(node, "combine_fn must be a @tile.jit function")

        def combine(b, lhs, rhs):
            result = self.module.call(self, node, fn,
                                      [tl.tensor(v) for v in lhs + rhs], {})
            results = result if isinstance(result, tuple) else (result,)
            if len(results) != len(lhs):
                raise sem.SemanticError("combine_fn must return %d values, got %d"
                                        % (len(lhs), len(results)))
            return [r.handle for r in results]

        if where[0] == "args":
            args[2] = combine
        else:
            kwargs = dict(kwargs, combine_fn=combine)
        return args, kwargs

    def visit_Call(self, node):
        fn = _py(self.visit(node.func))
        args = [self.visit(a) for a in node.args]
        kwargs = {k.arg: self.visit(k.value) for k in node.keywords}
        if is_jit_function(fn):
            return self.module.call(self, node, fn, args, kwargs)
        if fn in (tl.reduce, tl.associative_scan):
            args, kwargs = self._bind_combiner(node, args, kwargs)
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, d.dtype):
            return tl.constexpr(fn(*[_py(a) for a in args]))
        if getattr(fn, "__tile_builtin__", False) or isinstance(owner, tl.tensor) \
                or fn in (tl.static_range, tl.range):
            result = fn(*args, **kwargs)
            return tl.constexpr(result) if isinstance(result, (int, float, bool)) else result
        if fn is builtins.range:
            return builtins.range(*[_py(a) for a in args]) if all(
                not _is_runtime(_py(a)) for a in args) else tl.range(*args)
        if fn in (builtins.min, builtins.max) and not kwargs and len(args) >= 2 and \
                any(_is_runtime(_py(a)) for a in args):
            # As in Triton: min/max of runtime values fold tl.minimum/maximum.
            pick = tl.minimum if fn is builtins.min else tl.maximum
            result = args[0]
            for other in args[1:]:
                result = pick(result, other)
            return result
        if fn in _PY_BUILTINS.values() or isinstance(fn, type) and issubclass(fn, d.dtype):
            plain = [_py(a) for a in args]
            if any(_is_runtime(a) for a in plain):
                raise self.error(node, "%s() needs compile-time arguments" %
                                 getattr(fn, "__name__", fn))
            return tl.constexpr(fn(*plain, **{k: _py(v) for k, v in kwargs.items()}))
        name = getattr(fn, "__name__", type(fn).__name__)
        raise self.error(node, "cannot call '%s' from a kernel: it is not a "
                         "@tile.jit function or a tile.language builtin" % name)
