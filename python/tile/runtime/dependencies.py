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
    """What a global's value is compared by: a constexpr by what it holds."""
    return ("constexpr", value.value) if isinstance(value, tl.constexpr) \
        else value


def used_globals(fn, seen, found):
    """[(globals dict, name, value)] of the compile-time values `fn` and the
    @jit functions it calls read from their modules' globals."""
    seen.add(id(fn))
    for node in ast.walk(fn.def_node):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        if node.id in fn.closure_names or node.id not in fn.globals:
            continue
        value = fn.globals[node.id]
        if _is_jit(value):
            if id(value) not in seen:
                used_globals(value, seen, found)
        elif isinstance(value, (tl.constexpr, bool, int, float, str, d.dtype)):
            found.append((fn.globals, node.id, value))
    return found


def dependencies_key(fn, seen):
    seen.add(id(fn))
    parts = [fn.src_key]
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
