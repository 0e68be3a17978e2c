"""What a @jit function's compiled code depends on besides its arguments:
the sources of the @jit and constexpr functions it calls (the cache key)
and the global values it reads (checked at every launch)."""

import ast
import hashlib

from tile.language import core as tl
from tile.language import dtypes as d


def _is_jit(value):
    return getattr(value, "tile_jit_function", False)


MISSING = object()


def snapshot(value):
    """What a global's value is compared by: a constexpr by what it holds
    (a copy, so that changing the constexpr in place is seen)."""
    return ("constexpr", value.value) if isinstance(value, tl.constexpr) \
        else value


def describe(snap):
    if isinstance(snap, tuple) and len(snap) == 2 and snap[0] == "constexpr":
        return "constexpr[%r]" % (snap[1],)
    return repr(snap)


def current(scope, name):
    """The value of `name` now: in a module's globals or a closure cell."""
    if isinstance(scope, dict):
        return scope.get(name, MISSING)
    try:
        return scope.cell_contents
    except ValueError:
        return MISSING


def _read_before_written(fn):
    """The names `fn`'s body reads before any assignment to them: those
    are not its locals at that point."""
    stores = {}
    for node in ast.walk(fn.def_node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores.setdefault(node.id, []).append((node.lineno,
                                                   node.col_offset))
    for statement in fn.def_node.body:
        for node in ast.walk(statement):
            if not (isinstance(node, ast.Name) and
                    isinstance(node.ctx, ast.Load)):
                continue
            at = (node.lineno, node.col_offset)
            if node.id in fn.arg_names or any(
                    where < at for where in stores.get(node.id, ())):
                continue
            yield node.id


def used_globals(fn, seen, found):
    """[(function, scope, name, snapshot)] of the compile-time values `fn`
    and the @jit functions it calls read from their modules' globals or
    their closures (scope: the globals dict or the closure cell)."""
    seen.add(id(fn))
    for name in _read_before_written(fn):
        if name in fn.closure_names:
            scope = fn.fn.__closure__[fn.closure_names.index(name)]
        elif name in fn.globals:
            scope = fn.globals
        else:
            continue
        value = current(scope, name)
        if _is_jit(value):
            if id(value) not in seen:
                used_globals(value, seen, found)
        elif isinstance(value, (tl.constexpr, bool, int, float, str, d.dtype)):
            if not any(r[0] is fn and r[2] == name for r in found):
                found.append((fn, scope, name, snapshot(value)))
    return found


def dependencies_key(fn, seen):
    seen.add(id(fn))
    # `noinline` decides whether the function is a device function of its
    # callers' compiled code.
    parts = [fn.src_key, "noinline=%r" % bool(getattr(fn, "noinline", False))]
    for node in ast.walk(fn.def_node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found, value = fn.lookup(node.id)
        elif (isinstance(node, ast.Attribute) and
              isinstance(node.value, ast.Name)):
            found, base = fn.lookup(node.value.id)
            value = getattr(base, node.attr, None) if found else None
            found = found and value is not None
        else:
            continue
        if not found:
            continue
        if _is_jit(value):
            if id(value) not in seen:
                parts.append(dependencies_key(value, seen))
        elif getattr(value, "tile_constexpr_function", False):
            parts.append(value.cache_key)
        elif isinstance(value, tl.constexpr) and _is_jit(value.value):
            if id(value.value) not in seen:
                parts.append(dependencies_key(value.value, seen))
        elif isinstance(value, tl.constexpr):
            parts.append("%s=%r" % (getattr(node, "id", None) or node.attr,
                                     value.value))
        elif isinstance(value, (bool, int, float, str)):
            parts.append("%s=%r" % (getattr(node, "id", None) or node.attr,
                                     value))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()
