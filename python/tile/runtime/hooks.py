"""What knobs.runtime's hooks receive, and the specialization data that
`JITFunction.preload` replays."""

import ast
import json

from tile.language import core as tl
from tile.language import dtypes as d

class LaunchMetadata:
    """What knobs.runtime.launch_enter_hook gets: `get()` is the kernel's
    name, grid and stream, plus what the @jit's `launch_metadata(grid,
    kernel, args)` returns (computed on first use)."""

    def __init__(self, fn, kernel, grid, bound):
        self._fn, self._kernel, self._grid, self._bound = fn, kernel, grid, bound
        self._data = None

    def get(self):
        if self._data is None:
            self._data = {"name": self._kernel.name, "grid": self._grid,
                          "function": self._kernel}
            if self._fn.launch_metadata is not None:
                self._data.update(self._fn.launch_metadata(
                    self._grid, self._kernel, self._bound))
        return self._data


class JitFunctionInfo:
    """The `fn` a compile hook receives."""

    def __init__(self, fn):
        self.module = fn.module
        self.name = fn.fn.__qualname__
        self.jit_function = fn


def full_name(fn):
    return "%s.%s" % (fn.module, fn.fn.__qualname__)


def specialization_data(fn, key, options):
    """A JSON text from which `preload` recompiles this specialization."""
    return json.dumps({"name": full_name(fn), "key": key,
                       "options": options._asdict()})


def key_from_json(value):
    if isinstance(value, list):
        return tuple(key_from_json(v) for v in value)
    return value


def constexpr_from_repr(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        dtype = getattr(d, text.rpartition(".")[2], None)
        if isinstance(dtype, d.dtype):
            return dtype
        raise RuntimeError("cannot preload a constexpr written as %s" % text)
