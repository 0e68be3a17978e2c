"""The AST visitor: a @jit function's Python AST to Tile IR.

Python values that are known at compile time (constexprs, literals, dtypes,
tuples of them) are computed in Python; everything else is a `tl.tensor`
whose operators emit IR. Control flow on runtime values becomes `scf.if`,
`scf.for` and `scf.while`, with the variables a construct assigns carried
through it.
"""

import ast
import builtins

from tile.compiler.control_flow import ControlFlow
from tile.compiler.errors import CompilationError
from tile.compiler.values import is_runtime as _is_runtime
from tile.compiler.values import python_value as _py
from tile.compiler.values import Unavailable
from tile.language import core as tl
from tile.language.compile_time import slice as tl_slice
from tile.language import dtypes as d
from tile.language import members
from tile.language import semantic as sem

_UNSUPPORTED = {
    ast.Lambda: "lambda", ast.Try: "try", ast.With: "with", ast.Break: "break",
    ast.Continue: "continue", ast.Raise: "raise", ast.ClassDef: "class",
    ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Delete: "del",
    ast.Yield: "yield", ast.YieldFrom: "yield from", ast.Await: "await",
    ast.DictComp: "dict comprehensions",
    ast.SetComp: "set comprehensions", ast.GeneratorExp: "generator expressions",
    ast.AsyncFor: "async for", ast.AsyncWith: "async with",
    ast.AsyncFunctionDef: "async def", ast.FunctionDef: "nested def",
    ast.Import: "import", ast.ImportFrom: "import",
    ast.Starred: "star-unpacking outside a call's arguments",
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


def _contains_return(node):
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _ends_in_return(stmts):
    """Whether every path through `stmts` ends in a return."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return (isinstance(last, ast.If) and _ends_in_return(last.body) and
            _ends_in_return(last.orelse))


def _python_binop(op, a, b):
    """An operator on compile-time values, with Python's semantics (as
    Triton folds constexprs, and as the interpreter runs them): `-7 // 2`
    is -4 here, while on runtime integers it truncates to -3 as on the GPU."""
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: a / b, "//": lambda: a // b, "%": lambda: a % b,
            "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
            "<<": lambda: a << b, ">>": lambda: a >> b,
            "**": lambda: a ** b}[op]()


def _lift_assigned(value):
    """Triton's assignment rule: a number (or a constexpr holding one)
    assigned to a name without a `tl.constexpr` annotation becomes a
    runtime scalar (int32, int64 or uint64 by value; float32; int1), so
    that `a = -7; a // 2` truncates and `a = 2; x_i8 * a` is int32, as in
    Triton. Other values (tuples, dtypes, functions, strings, None) stay
    what they are."""
    plain = value.value if isinstance(value, tl.constexpr) else value
    if isinstance(plain, (bool, int, float)):
        return tl.to_tensor(plain)
    return value


class CodeGenerator(ControlFlow, ast.NodeVisitor):
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
            # The cause is kept, as Triton keeps it (its tests and users
            # read `error.__cause__`), without its frames inside tile.
            raise self.error(node, str(e)) from e.with_traceback(None)
        except (TypeError, ValueError, AttributeError, IndexError, KeyError,
                ZeroDivisionError, NameError) as e:
            raise self.error(node, "%s: %s" % (type(e).__name__, e)) \
                from e.with_traceback(None)
        finally:
            self.builder.location = saved

    def generic_visit(self, node):
        raise self.error(node, "%s is not supported in tile kernels" %
                         type(node).__name__)

    # ------------------------------------------------------------ statements
    def visit_block(self, stmts):
        for i, stmt in enumerate(stmts):
            # A `return` inside an `if`: the rest of the block joins every
            # branch that does not return, so that each return ends its path
            # and the `if` ends the block (returned values then merge like
            # variables, see ControlFlow.visit_If).
            if isinstance(stmt, ast.If) and i + 1 < len(stmts) and \
                    _contains_return(stmt):
                rest = stmts[i + 1:]
                rewritten = ast.If(
                    test=stmt.test,
                    body=stmt.body if _ends_in_return(stmt.body)
                    else stmt.body + rest,
                    orelse=stmt.orelse if _ends_in_return(stmt.orelse)
                    else stmt.orelse + rest)
                ast.copy_location(rewritten, stmt)
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
        if isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, (ast.Name, ast.Attribute)):
            fn = _py(self.visit(node.value.func))
            why = getattr(fn, "tile_must_use_result", None)
            if why:
                raise self.error(node, "the result of %s is not used%s" % (
                    getattr(fn, "__name__", "this call"),
                    ": " + why if isinstance(why, str) else ""))
        self.visit(node.value)

    def visit_Return(self, node):
        if node.value is None:
            self.returns = []
            return
        value = self.visit(node.value)
        # `return a, b` returns two values; a NamedTuple or tl.tuple is one.
        values = list(value) if type(value) is tuple else [value]
        self.returns = values

    def _assign(self, target, value, lift=False):
        if isinstance(target, ast.Name):
            self.scope[target.id] = _lift_assigned(value) if lift else value
        elif isinstance(target, (ast.Tuple, ast.List)):
            value = _py(value)
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error(target, "cannot unpack %r into %d names" %
                                 (value, len(target.elts)))
            for t, v in zip(target.elts, value):
                self._assign(t, v, lift)
        else:
            raise self.error(target, "only names and tuples of names can be "
                             "assigned to")

    def visit_Assign(self, node):
        value = self.visit(node.value)
        # A conditional expression's slot keeps numbers as they are, so that
        # they take the other side's type when the branches merge.
        lift = not getattr(node, "tile_keep_numbers", False)
        for target in node.targets:
            self._assign(target, value, lift=lift)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            value = self.visit(node.value)
            annotation = self.visit(node.annotation)
            constant = annotation is tl.constexpr
            if constant and not isinstance(value, tl.constexpr):
                value = tl.constexpr(value)
            self._assign(node.target, value, lift=not constant)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "only names can be assigned to")
        lhs = self.visit(ast.copy_location(ast.Name(node.target.id, ast.Load()), node))
        rhs = self.visit(node.value)
        self.scope[node.target.id] = _lift_assigned(
            self.binop(node, type(node.op), lhs, rhs))

    def visit_Assert(self, node):
        cond = self.visit(node.test)
        msg = _py(self.visit(node.msg)) if node.msg is not None else ""
        if not _is_runtime(cond):
            if not _py(cond):
                raise self.error(node, "assertion failed at compile time: %s" % msg)
            return
        tl.device_assert(cond, str(msg))

    # ----------------------------------------------------------- expressions
    def visit_Constant(self, node):
        return tl.constexpr(node.value)

    def visit_Name(self, node):
        if node.id in self.scope:
            value = self.scope[node.id]
            if isinstance(value, Unavailable):
                raise self.error(node, value.reason)
            return value
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
        raw = self.visit(node.value)
        if node.attr == "type" and isinstance(raw, tl.constexpr):
            return raw.type   # Triton's constexpr_type of the value
        value = _py(raw)
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
        if op in ("is", "is not") and (lhs is None or rhs is None):
            # A runtime value is never None: `ptr is not None` folds, which
            # is how kernels test an optional argument passed as None.
            return tl.constexpr(op == "is not")
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

    def _bind_scalar_fn(self, node, args):
        """tl.map_elementwise's @jit function becomes a callable that emits a
        call to its specialization on the region's scalars."""
        if not args:
            raise self.error(node, "map_elementwise needs a scalar function")
        fn = _py(args[0])
        if not is_jit_function(fn):
            raise self.error(node, "map_elementwise's first argument must be "
                             "a @tile.jit function")

        def scalar_fn(b, params):
            return self.module.call(self, node, fn,
                                    [tl.tensor(v) for v in params], {})

        return [scalar_fn] + list(args[1:])

    def visit_ListComp(self, node):
        """A list comprehension over compile-time sequences (tuples, ranges),
        unrolled as Triton does; its items may be runtime values."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise self.error(node, "only a comprehension with one `for` is "
                             "supported")
        gen = node.generators[0]
        iterable = _py(self.visit(gen.iter))
        if isinstance(iterable, tl.static_range):
            iterable = iterable.range
        if _is_runtime(iterable) or not isinstance(
                iterable, (tuple, list, builtins.range)):
            raise self.error(gen.iter, "a comprehension in a kernel must run "
                             "over a compile-time sequence (a tuple, range() "
                             "of constants or tl.static_range), got %r"
                             % (iterable,))
        saved = dict(self.scope)
        items = []
        try:
            for item in iterable:
                self._assign(gen.target, item if not isinstance(item, int)
                             or isinstance(item, bool) else tl.constexpr(item))
                keep = True
                for cond in gen.ifs:
                    c = _py(self.visit(cond))
                    if _is_runtime(c):
                        raise self.error(cond, "a comprehension's `if` must "
                                         "be a compile-time condition")
                    keep = keep and bool(c)
                if keep:
                    items.append(self.visit(node.elt))
        finally:
            self.scope = saved
        return items

    def _call_arguments(self, node):
        """A call's positional arguments, with `*t` of a tuple spread."""
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                spread = _py(self.visit(a.value))
                if not isinstance(spread, (tuple, list)):
                    raise self.error(a, "only a tuple can be spread into a "
                                     "call's arguments, got %r" % (spread,))
                args.extend(spread)
            else:
                args.append(self.visit(a))
        return args

    def visit_Call(self, node):
        fn = _py(self.visit(node.func))
        args = self._call_arguments(node)
        if any(k.arg is None for k in node.keywords):
            raise self.error(node, "**-unpacking is not supported in tile kernels")
        kwargs = {k.arg: self.visit(k.value) for k in node.keywords}
        if is_jit_function(fn):
            return self.module.call(self, node, fn, args, kwargs)
        if isinstance(fn, type) and issubclass(fn, tuple) and fn is not tuple:
            # tl.tuple and NamedTuple classes: their items may be values.
            return fn(*args, **kwargs)
        if getattr(fn, "tile_constexpr_function", False):
            plain = [_py(a) for a in args]
            named = {k: _py(v) for k, v in kwargs.items()}
            if any(_is_runtime(a) for a in plain + list(named.values())):
                raise self.error(node, "constexpr function %s needs compile-"
                                 "time arguments" % fn.__name__)
            return tl.constexpr(fn(*plain, **named))
        owner = getattr(fn, "__self__", None)
        member = getattr(fn, "tile_member", None)
        if member is not None and isinstance(owner, tl.tensor):
            # x.reduce(...), x.sort(...): the tl function with x first, so
            # that combiners are bound as for the function form.
            fn, args, owner = members.lookup(member), [owner] + list(args), None
        if fn in (tl.reduce, tl.associative_scan):
            args, kwargs = self._bind_combiner(node, args, kwargs)
        if fn is tl.map_elementwise:
            args = self._bind_scalar_fn(node, args)
        if fn is tl.constexpr and len(args) == 1 and not kwargs:
            value = _py(args[0])
            if _is_runtime(value):
                raise self.error(node, "tl.constexpr() needs a compile-time value")
            return tl.constexpr(value)
        if isinstance(owner, d.dtype):
            return tl.constexpr(fn(*[_py(a) for a in args]))
        if fn is tl.constexpr_type:
            return tl.constexpr_type(*[_py(a) for a in args])
        if getattr(fn, "__tile_builtin__", False) or isinstance(owner, tl.tensor) \
                or fn in (tl.static_range, tl.range, tl.condition):
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
        if fn is builtins.print and any(_is_runtime(_py(a)) for a in args):
            # As in Triton: print of runtime values is tl.device_print (the
            # first argument, a string, is its prefix).
            if not args or not isinstance(_py(args[0]), str):
                args = [""] + list(args)
            return tl.device_print(*args, **kwargs)
        if fn in (builtins.isinstance, builtins.hasattr) and not kwargs:
            # Questions about what a value is are answered at compile time,
            # runtime values included (a tl.tensor is one), as in Triton.
            return tl.constexpr(fn(*[_py(a) for a in args]))
        if fn in _PY_BUILTINS.values() or fn is tl_slice or \
                isinstance(fn, type) and issubclass(fn, d.dtype):
            plain = [_py(a) for a in args]
            if any(_is_runtime(a) for a in plain):
                raise self.error(node, "%s() needs compile-time arguments" %
                                 getattr(fn, "__name__", fn))
            return tl.constexpr(fn(*plain, **{k: _py(v) for k, v in kwargs.items()}))
        name = getattr(fn, "__name__", type(fn).__name__)
        raise self.error(node, "cannot call '%s' from a kernel: it is not a "
                         "@tile.jit function or a tile.language builtin" % name)
