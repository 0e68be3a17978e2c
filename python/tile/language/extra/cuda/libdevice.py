"""tl.extra.cuda.libdevice: every elementwise function of CUDA's libdevice
under Triton's names (`libdevice.tanh(x)`, `libdevice.pow(x, y)`, ...),
dispatched on the argument types: fp32 calls `__nv_<name>f`, fp64
`__nv_<name>`, integer families their own symbols (see
libdevice_table.py, generated from the bitcode by utils/gen_libdevice.py).

Each is a tl.extern_elementwise call, so arguments broadcast together and,
where their types have no entry, are promoted to one arithmetic type first.
An argument type the function lacks (fp16 for `sin`) is a CompilationError
at the call that lists the types it takes."""

from tile.language import core
from tile.language import dtypes as d
from tile.language.extra.cuda.libdevice_table import FUNCTIONS


def _table(entries):
    return {tuple(d.parse_signature_type(t) for t in args):
            (symbol, d.parse_signature_type(result))
            for args, (symbol, result) in entries.items()}


def _define(name, entries):
    table = _table(entries)
    arity = len(next(iter(table)))

    def function(*args):
        if len(args) != arity:
            raise TypeError("libdevice.%s takes %d argument(s), got %d"
                            % (name, arity, len(args)))
        return core.extern_elementwise("libdevice", "", list(args), table,
                                       True)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = "libdevice's %s: %s" % (name, ", ".join(
        "(%s) -> %s" % (", ".join(args), result)
        for args, (_, result) in entries.items()))
    function.__tile_builtin__ = True
    function.tile_libdevice = table
    return function


for _name, _entries in FUNCTIONS.items():
    globals()[_name] = _define(_name, _entries)

__all__ = sorted(FUNCTIONS)
