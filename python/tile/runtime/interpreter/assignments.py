"""Triton's assignment rule in the interpreter.

Compiled, `a = -7` makes `a` a runtime int32 (a number assigned to a name
without a `tl.constexpr` annotation becomes a scalar, as in Triton), so
`a // 2` truncates to -3 and `x_int8 * a` is int32. Run as plain Python,
`a` would stay a Python int (-4, int8). So the interpreter runs the kernel
from its source with every such assignment wrapped in `_assigned`, which
lifts numbers as `tl.to_tensor` does; annotated constexprs, tuples,
dtypes, functions and strings pass through.
"""

import ast
import copy

from tile.language import core

_LIFT = "__tile_assigned__"
_LIFT_EACH = "__tile_assigned_each__"


def _assigned(value):
    plain = value.value if isinstance(value, core.constexpr) else value
    if isinstance(plain, (bool, int, float)):
        return core.to_tensor(plain)
    return value


def _assigned_each(values):
    if type(values) in (tuple, list):
        return type(values)(_assigned(v) for v in values)
    return values


HELPERS = {_LIFT: _assigned, _LIFT_EACH: _assigned_each}


def _is_constexpr(annotation):
    """`tl.constexpr`, `constexpr`, `triton.language.constexpr`, ... as
    written in the source."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.split(".")[-1] == "constexpr"
    return (isinstance(annotation, ast.Name) and annotation.id == "constexpr") or \
        (isinstance(annotation, ast.Attribute) and annotation.attr == "constexpr")


def _call(helper, value):
    return ast.copy_location(
        ast.Call(ast.Name(helper, ast.Load()), [value], []), value)


class _LiftAssignments(ast.NodeTransformer):
    def visit_Assign(self, node):
        self.generic_visit(node)
        unpacked = any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)
        node.value = _call(_LIFT_EACH if unpacked else _LIFT, node.value)
        return node

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if node.value is not None and not _is_constexpr(node.annotation):
            node.value = _call(_LIFT, node.value)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        name = node.target.id
        combined = ast.copy_location(
            ast.BinOp(ast.Name(name, ast.Load()), node.op, node.value), node)
        return ast.copy_location(
            ast.Assign([ast.Name(name, ast.Store())], _call(_LIFT, combined)), node)


def build(fn, raw, scope):
    """`fn`'s function (a JITFunction over the Python function `raw`) compiled
    from its source with assignments lifted, in `scope` (its globals), its
    closure's current values bound; None where that cannot be done (a
    closure cell not yet filled), and the caller runs `raw` itself."""
    free = raw.__code__.co_freevars
    try:
        cells = [cell.cell_contents for cell in raw.__closure__ or ()]
    except ValueError:
        return None
    kernel = _LiftAssignments().visit(copy.deepcopy(fn.def_node))
    # The closure's names become the parameters of a function that returns
    # the kernel, so that the kernel still reads them as free variables.
    outer = ast.FunctionDef(
        name="__tile_closure__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in free],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[kernel, ast.Return(ast.Name(kernel.name, ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, fn.line_offset)
    scope.update(HELPERS)
    exec(compile(module, fn.filename, "exec"), scope)
    made = scope.pop("__tile_closure__")(*cells)
    made.__defaults__ = raw.__defaults__
    made.__kwdefaults__ = raw.__kwdefaults__
    return made
