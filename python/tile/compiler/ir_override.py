"""`ir_override`: a file whose text takes the place of one of the stages a
kernel is compiled through (Triton's option, for tile's stages)."""

import os
import re

from tile import _C
from tile.compiler.errors import PTXASError

# The stages an override may replace, by its suffix: tile's own Tile IR
# (compiled from there on) and the PTX (assembled as given).
IR_OVERRIDE_STAGES = {".tile": "tile", ".ptx": "ptx"}


def check_ir_override(path):
    """`path` as a string when it names a readable file of a stage tile can
    replace (IR_OVERRIDE_STAGES); ValueError naming the option otherwise."""
    if path is None:
        return None
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError("ir_override must be a file path, got %r" % (path,))
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1]
    if suffix not in IR_OVERRIDE_STAGES:
        raise ValueError(
            "ir_override must name a %s file (the stages tile can replace: "
            "its Tile IR and the PTX; it has no Triton IR), got %r"
            % (" or ".join(sorted(IR_OVERRIDE_STAGES)), path))
    if not os.path.isfile(path):
        raise ValueError("ir_override names %r, which is not a file" % path)
    return path


def read_ir_override(path):
    """(stage, text) of the override file, or None without one."""
    path = check_ir_override(path)
    if path is None:
        return None
    with open(path) as f:
        return IR_OVERRIDE_STAGES[os.path.splitext(path)[1]], f.read()


def assemble_ptx_override(asm, path, ptx, target, num_warps, shared,
                          emit_cubin):
    """Puts PTX given in place of the kernel's into `asm` (and its cubin,
    assembled as given); returns the kernel's name (the PTX's entry) and
    its registers per thread (0 without a cubin)."""
    asm["ptx"] = ptx
    entry = re.search(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx)
    if entry is None:
        raise ValueError("ir_override %r has no .entry" % path)
    if not emit_cubin:
        return entry.group(1), 0
    assembled = _C.assemble_ptx(ptx, target, num_warps, shared)
    if not assembled.ok:
        raise PTXASError("ir_override %r: %s" % (
            path, "\n".join(d.message for d in assembled.diagnostics)))
    asm["cubin"] = assembled.cubin
    return entry.group(1), assembled.num_regs
