"""@constexpr_function: plain Python run while a kernel compiles, on
compile-time values, giving a compile-time value (Triton's
`triton.constexpr_function`)."""

import ast
import builtins
import hashlib
import inspect
import textwrap
import types


class constexpr_function:
    """Wraps `fn` so that kernels may call it with constexpr arguments: it
    runs in Python during the compile and its result is a constexpr. Its
    source is part of the cache key of every kernel that calls it."""

    tile_constexpr_function = True

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        try:
            self.src = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):
            self.src = fn.__name__
        self.hash = None

    def __call__(self, *args, **kwargs):
        unwrap = lambda v: getattr(v, "value", v) if type(v).__name__ == \
            "constexpr" else v
        return self.fn(*[unwrap(a) for a in args],
                       **{k: unwrap(v) for k, v in kwargs.items()})

    def _unsafe_update_src(self, new_src):
        """Replaces the function by `new_src` (run in its module's globals)."""
        scope = {}
        exec(compile(textwrap.dedent(new_src), "<%s>" % self.__name__, "exec"),
             self.fn.__globals__, scope)
        new = next(v for v in scope.values() if isinstance(v, types.FunctionType)
                   or isinstance(v, constexpr_function))
        self.fn = new.fn if isinstance(new, constexpr_function) else new
        self.src = new_src
        self.hash = None

    @property
    def cache_key(self):
        """A hash of the source. Reading a global that is neither a
        compile-time value nor another constexpr function (say
        torch.cuda.get_device_capability) is refused: its result could
        change with no change to the source."""
        if self.hash is None:
            self._check_globals()
            self.hash = hashlib.sha256(self.src.encode()).hexdigest()
        return self.hash

    def _check_globals(self):
        try:
            tree = ast.parse(self.src)
        except SyntaxError:
            return
        scope = self.fn.__globals__
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            chain, base = [node.attr], node.value
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if not isinstance(base, ast.Name) or base.id not in scope:
                continue
            value = scope[base.id]
            if not isinstance(value, types.ModuleType):
                continue
            for attr in reversed(chain):
                value = getattr(value, attr, None)
            if callable(value) and not isinstance(value, (type, constexpr_function)) \
                    and getattr(builtins, getattr(value, "__name__", ""), None) is not value \
                    and not getattr(value, "tile_jit_function", False) \
                    and not getattr(value, "__tile_builtin__", False):
                raise RuntimeError(
                    "constexpr function %s calls %s.%s, which is not a "
                    "constexpr function: its result could change without its "
                    "source changing" % (self.__name__, base.id,
                                         ".".join(reversed(chain))))

    def __repr__(self):
        return "constexpr_function(%s)" % self.__qualname__
