"""What the code generator's values are: a `tl.tensor` exists at run time
(it has IR); anything else, bare or in a `tl.constexpr`, is known while
compiling and computed in Python.

Aggregates (tuples, lists, named tuples and language objects such as block
pointers, which list their parts in `tile_fields()`) may hold both. Where
IR needs plain values (loop-carried variables, `if` results, arguments and
results of @jit calls) an aggregate travels as its runtime leaves, and its
compile-time parts stay in Python: `Structure` is that split."""

from tile.language import core as tl


def is_runtime(x):
    return isinstance(x, tl.tensor)


def python_value(x):
    """The Python value of a compile-time value (unwrapping constexpr)."""
    return x.value if isinstance(x, tl.constexpr) else x


def is_aggregate(x):
    x = python_value(x)
    return isinstance(x, (tuple, list)) or hasattr(x, "tile_fields")


def _same_constant(a, b):
    a, b = python_value(a), python_value(b)
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:   # values whose == is not a truth value
        return False


class Unavailable:
    """What a name holds after a loop that changed its compile-time value:
    reading it is an error, which `reason` explains."""

    def __init__(self, reason):
        self.reason = reason


class StructureMismatch(ValueError):
    """Two values that cannot be one value of one structure."""


def _parts(raw):
    """The parts of an aggregate, or None for anything else."""
    if isinstance(raw, (tuple, list)):
        return list(raw)
    if hasattr(raw, "tile_fields"):
        return raw.tile_fields()
    return None


def _build(node, leaves):
    """A value from a skeleton node, taking its runtime leaves (tl.tensors
    or IR Values) from the iterator `leaves`. Nodes: ("leaf",),
    ("const", value), ("agg", original, children)."""
    kind = node[0]
    if kind == "leaf":
        leaf = next(leaves)
        return leaf if isinstance(leaf, tl.tensor) else tl._wrap_param(leaf)
    if kind == "const":
        return node[1]
    return _rebuild(node[1], [_build(c, leaves) for c in node[2]])


class Structure:
    """A value's runtime leaves (tl.tensors, in a fixed order) and the
    compile-time skeleton around them, which `build` refills with new
    leaves."""

    def __init__(self, value):
        self.leaves = []
        self._tree = self._walk(value)

    def _walk(self, v):
        raw = python_value(v)
        if isinstance(raw, tl.tensor):
            self.leaves.append(raw)
            return ("leaf",)
        parts = _parts(raw)
        if parts is not None:
            return ("agg", raw, [self._walk(x) for x in parts])
        return ("const", v)

    @property
    def types(self):
        return [leaf.type for leaf in self.leaves]

    def key(self):
        """A hashable description: equal keys, equal skeletons and leaf
        types (what a @jit specialization is keyed on)."""
        types = iter(self.types)

        def key(node):
            if node[0] == "leaf":
                return ("leaf", repr(next(types)))
            if node[0] == "const":
                return ("const", repr(python_value(node[1])))
            return ("agg", type(node[1]).__qualname__,
                    tuple(key(c) for c in node[2]))
        return key(self._tree)

    def build(self, leaves):
        """The skeleton with `leaves` (tl.tensors or IR Values) in place of
        this structure's leaves."""
        return _build(self._tree, iter(leaves))


def _rebuild(original, parts):
    if isinstance(original, list):
        return list(parts)
    if isinstance(original, tuple):
        if hasattr(original, "_fields"):      # a NamedTuple
            return type(original)._make(parts)
        if type(original) is tuple:
            return tuple(parts)
        return type(original)(parts)          # tl.tuple
    return original.tile_rebuild(parts)


def pair_leaves(a, b, what):
    """Two versions of one variable (an `if`'s branches, a loop's entry and
    its next iteration) as one structure: (pairs, build). Each pair holds the
    two versions of a part that is a runtime value in either (a number on
    one side is lifted by the caller); compile-time parts must agree.
    `build(values)` makes the merged value from one value per pair."""
    pairs = []
    numbers = (bool, int, float)

    def walk(x, y):
        rx, ry = python_value(x), python_value(y)
        if isinstance(rx, tl.tensor) or isinstance(ry, tl.tensor) or (
                isinstance(rx, numbers) and isinstance(ry, numbers) and
                not _same_constant(rx, ry)):
            if not isinstance(rx, (tl.tensor,) + numbers) or \
                    not isinstance(ry, (tl.tensor,) + numbers):
                raise StructureMismatch(
                    "%s is a runtime value on one path and %r on the other"
                    % (what, rx if not isinstance(rx, tl.tensor) else ry))
            pairs.append((x, y))
            return ("leaf",)
        fx = _parts(rx)
        if fx is not None:
            fy = _parts(ry) if type(rx) is type(ry) else None
            if fy is None or len(fx) != len(fy):
                raise StructureMismatch("%s is %r on one path and %r on the "
                                        "other" % (what, rx, ry))
            return ("agg", rx, [walk(p, q) for p, q in zip(fx, fy)])
        if not _same_constant(rx, ry):
            raise StructureMismatch("%s holds the compile-time value %r on one "
                                    "path and %r on the other" % (what, rx, ry))
        return ("const", x)

    tree = walk(a, b)
    return pairs, lambda values: _build(tree, iter(values))
