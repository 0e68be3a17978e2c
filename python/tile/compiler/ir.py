"""Tile IR as text, handed to libtile to parse, verify and transform."""

from tile import _C


class IRError(Exception):
    """libtile rejected a module. ``diagnostics`` holds every message with the
    file, line and column it points at (for IR emitted by the front end, the
    kernel's Python source)."""

    def __init__(self, diagnostics):
        self.diagnostics = list(diagnostics)
        lines = ["%s:%d:%d: %s: %s" % (d.file or "<unknown>", d.line, d.column,
                                        d.severity.name, d.message)
                 for d in self.diagnostics]
        super().__init__("\n".join(lines) or "invalid Tile IR")


def _check(result):
    if not result.ok:
        raise IRError(result.diagnostics)
    return result.ir


def verify_ir(source, name="<tile>"):
    """Parse and verify Tile IR text; return it re-printed with locations."""
    return _check(_C.parse_and_verify(source, name))


def run_pipeline(source, pipeline, name="<tile>"):
    """Run a pass pipeline such as ``builtin.module(canonicalize)``."""
    return _check(_C.run_pipeline(source, name, pipeline))
