"""The rest of `tl.extra.cuda`: special registers, the launch's warp count,
and programmatic dependent launch, written with tile.language's own
inline assembly."""

from tile.language import core
from tile.language import dtypes as d


def _compiled_num_warps():
    warps = getattr(core.current_builder(), "num_warps", None)
    if warps is None:
        raise core.sem.SemanticError(
            "num_warps/num_threads: this compile does not say how many warps "
            "the kernel launches with")
    return warps


@core.builtin
def globaltimer():
    """The GPU's global timer in nanoseconds (%globaltimer), read anew at
    each call."""
    return core.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [],
                                       dtype=d.int64, is_pure=False, pack=1)


@core.builtin
def smid():
    """The index of the SM running this program (%smid)."""
    return core.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [],
                                       dtype=d.int32, is_pure=True, pack=1)


@core.builtin
def num_warps():
    """The warps per program the kernel is compiled for (a constexpr)."""
    return core.constexpr(_compiled_num_warps())


@core.builtin
def num_threads():
    """The threads per program the kernel is compiled for (a constexpr)."""
    return core.constexpr(32 * _compiled_num_warps())


@core.builtin
def gdc_wait():
    """Waits until the grids this one depends on have completed or let it
    start (griddepcontrol.wait): with `launch_pdl=True`, reads of what the
    previous kernel wrote must come after it."""
    core.inline_asm_elementwise("griddepcontrol.wait; // $0", "=r", [],
                                dtype=d.int32, is_pure=False, pack=1)


@core.builtin
def gdc_launch_dependents():
    """Lets the next kernel of the stream (launched with `launch_pdl=True`)
    start before this grid finishes (griddepcontrol.launch_dependents)."""
    core.inline_asm_elementwise("griddepcontrol.launch_dependents; // $0", "=r",
                                [], dtype=d.int32, is_pure=False, pack=1)
