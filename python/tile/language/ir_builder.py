"""Builds Tile IR as MLIR text.

The front end emits text rather than calling into MLIR so that tile._C binds
only libtile's small API; libtile parses and verifies the text. Every op
carries the Python source location it came from, which is how MLIR
diagnostics map back to kernel lines.
"""

import contextlib


class Value:
    """An SSA value: its name in the text and its tile.language type.

    `host` is set on kernel-uniform integer and pointer scalars that the
    host can recompute from the launch arguments (a nested list: see
    tile.runtime.host_values); descriptors made in the kernel from such
    values are encoded at launch instead of on the device."""

    __slots__ = ("name", "type", "host", "region")

    def __init__(self, name, type, host=None, region=None):
        self.name = name
        self.type = type
        self.host = host
        # The region (IRBuilder.current_region) the value was made in; None
        # for a function's parameters.
        self.region = region

    def __repr__(self):
        return "Value(%s : %r)" % (self.name, self.type)


def quote(text):
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend("\\%02X" % b for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'



class IRBuilder:
    def __init__(self, filename):
        self.filename = filename
        self.location = (0, 0)
        self._next_id = 0
        self._blocks = [[]]   # a stack of line lists, one per open region
        self._depth = 1
        # Ids of the regions open now, innermost last: a value made in one
        # is visible to ops emitted later in the same region.
        self._regions = [0]
        self._last_region = 0
        self.functions = []   # finished func.func texts, in emission order
        self.in_kernel = False
        # Compile tl.device_assert (Triton's `debug`).
        self.debug = True
        # (parameter Value, recipe) of each tensor descriptor the kernel
        # makes from host-computable values: extra kernel parameters.
        self.host_descriptors = []
        # Every recipe a descriptor was made from, in order (a loop that
        # assumed its carried values keep their recipes checks them).
        self.host_recipes = []
        # The target ("sm_90a") and the parameters known to be multiples of
        # 16, where the compile says (tile.compiler.lower_to_tile_ir).
        self.target = None
        # The warps per program of this compile (tl.extra.cuda.num_warps).
        self.num_warps = None
        self.divisible_args = set()

    # Locations and names.
    def set_location(self, line, col):
        self.location = (line, col)

    def loc(self):
        line, col = self.location
        return "loc(%s:%d:%d)" % (quote(self.filename), line, col + 1)

    def fresh(self, type):
        return Value(self.fresh_name(), type, region=self.current_region())

    def results(self, types):
        """Names the results of one op: returns the text left of its `=`
        (`%r`, or `%r:N` for several) and one Value per result (`%r`, or
        `%r#0` ... `%r#N-1`)."""
        name = self.fresh_name()
        region = self.current_region()
        if len(types) == 1:
            return name, [Value(name, types[0], region=region)]
        return ("%s:%d" % (name, len(types)),
                [Value("%s#%d" % (name, i), t, region=region)
                 for i, t in enumerate(types)])

    def current_region(self):
        return self._regions[-1]

    def at_function_top(self):
        return len(self._regions) == 1

    @contextlib.contextmanager
    def _new_region(self):
        self._last_region += 1
        self._regions.append(self._last_region)
        try:
            yield
        finally:
            self._regions.pop()

    def fresh_name(self):
        self._next_id += 1
        return "%%v%d" % self._next_id

    # Emission.
    def emit(self, text, with_loc=True):
        suffix = " " + self.loc() if with_loc else ""
        self._blocks[-1].append("  " * self._depth + text + suffix)

    def op(self, result_type, text):
        """Emits `%r = <text>` and returns %r."""
        value = self.fresh(result_type)
        self.emit("%s = %s" % (value.name, text))
        return value

    @contextlib.contextmanager
    def region(self, header, footer="}"):
        """Emits `header` (ending in '{'), the body built inside the `with`,
        then `footer` carrying the location."""
        self.emit(header, with_loc=False)
        self._depth += 1
        with self._new_region():
            yield
        self._depth -= 1
        self.emit(footer)

    @contextlib.contextmanager
    def capture(self, lines):
        """Collects what the `with` body emits into `lines`, indented one
        level deeper, instead of emitting it; replay it with `emit_lines`."""
        self._blocks.append(lines)
        self._depth += 1
        try:
            with self._new_region():
                yield
        finally:
            self._depth -= 1
            self._blocks.pop()

    def emit_lines(self, lines):
        self._blocks[-1].extend(lines)

    @contextlib.contextmanager
    def function(self):
        """Collects a function's lines apart from the one being built."""
        saved_blocks, saved_depth = self._blocks, self._depth
        saved_regions = self._regions
        self._last_region += 1
        self._blocks, self._depth = [[]], 1
        self._regions = [self._last_region]
        try:
            yield
        finally:
            self.functions.append("\n".join(self._blocks[0]))
            self._blocks, self._depth = saved_blocks, saved_depth
            self._regions = saved_regions

    def module_text(self):
        return "module {\n%s\n}\n" % "\n".join(self.functions)
