"""Generated kernels for the libdevice tests: one store per (function,
argument types) of tl.extra.cuda.libdevice, from the table itself, so that
every symbol is compiled. @tile.jit needs a source file: the text is
written to a directory and imported from there."""

import importlib.util
import os

from tile.language.extra.cuda.libdevice_table import FUNCTIONS

# The parameter each argument type is loaded from.
POINTERS = {"fp32": "xf", "fp64": "xd", "i32": "xi", "u32": "xu",
            "i64": "xl", "u64": "xul", "i16": "xs"}


def signatures():
    return [(name, args) for name, entries in sorted(FUNCTIONS.items())
            for args in entries]


def every_signature_source(chunk, of):
    """A kernel storing, as fp32, one call of each signature in chunk
    `chunk` of `of`."""
    picked = signatures()[chunk::of]
    lines = ["import tile", "import tile.language as tl",
             "from tile.language.extra.cuda import libdevice", "", "",
             "@tile.jit",
             "def every_signature(out, %s, N: tl.constexpr):"
             % ", ".join(POINTERS.values()),
             "    offs = tl.arange(0, N)"]
    for ty, pointer in POINTERS.items():
        lines.append("    %s_v = tl.load(%s + offs)" % (pointer, pointer))
    for k, (name, args) in enumerate(picked):
        call = "libdevice.%s(%s)" % (name, ", ".join(
            POINTERS[a] + "_v" for a in args))
        lines.append("    tl.store(out + %d * N + offs, %s.to(tl.float32))"
                     % (k, call))
    return "\n".join(lines) + "\n", picked


def load(directory, name, text):
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
