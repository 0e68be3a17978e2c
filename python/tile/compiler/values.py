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
            return ("leaf", raw.type)
        if isinstance(raw, (tuple, list)):
            return ("seq", raw, [self._walk(x) for x in raw])
        if hasattr(raw, "tile_fields"):
            return ("obj", raw, [self._walk(x) for x in raw.tile_fields()])
        return ("const", v)

    @property
    def types(self):
        return [leaf.type for leaf in self.leaves]

    def key(self):
        """A hashable description: equal keys, equal skeletons and leaf
        types (what a @jit specialization is keyed on)."""
        def key(node):
            kind = node[0]
            if kind == "leaf":
                return ("leaf", repr(node[1]))
            if kind == "const":
                return ("const", repr(python_value(node[1])))
            return (kind, type(node[1]).__qualname__,
                    tuple(key(c) for c in node[2]))
        return key(self._tree)

    def build(self, leaves):
        """The skeleton with `leaves` (tl.tensors or IR Values) in place of
        this structure's leaves."""
        it = iter(leaves)

        def build(node):
            kind = node[0]
            if kind == "leaf":
                leaf = next(it)
                return leaf if isinstance(leaf, tl.tensor) else tl._wrap_param(leaf)
            if kind == "const":
                return node[1]
            return _rebuild(node[1], [build(c) for c in node[2]])
        return build(self._tree)


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

    def walk(x, y):
        rx, ry = python_value(x), python_value(y)
        numbers = (bool, int, float)
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
        if isinstance(rx, (tuple, list)) or hasattr(rx, "tile_fields"):
            fx = list(rx) if isinstance(rx, (tuple, list)) else rx.tile_fields()
            same_kind = type(rx) is type(ry)
            fy = (list(ry) if isinstance(ry, (tuple, list)) else ry.tile_fields()) \
                if same_kind else None
            if not same_kind or len(fx) != len(fy):
                raise StructureMismatch("%s is %r on one path and %r on the "
                                        "other" % (what, rx, ry))
            return ("seq", rx, [walk(p, q) for p, q in zip(fx, fy)])
        if not _same_constant(rx, ry):
            raise StructureMismatch("%s holds the compile-time value %r on one "
                                    "path and %r on the other" % (what, rx, ry))
        return ("const", x)

    tree = walk(a, b)

    def build(values):
        it = iter(values)

        def make(node):
            if node[0] == "leaf":
                v = next(it)
                return v if isinstance(v, tl.tensor) else tl._wrap_param(v)
            if node[0] == "const":
                return node[1]
            return _rebuild(node[1], [make(c) for c in node[2]])
        return make(tree)
    return pairs, build
