"""A pytest plugin for the Triton half of a conformance run: the suite's own
test helpers (the `_internal_testing.py` that sits beside its tests, from
the same commit) replace the installed Triton's, which may be older than
the tests and lack names they import.

Those helpers build inputs, convert dtypes and skip by device; they compile
and launch nothing, so Triton's results are still Triton's own. tile's half
loads the same file through triton_alias."""

import importlib.util
import os
import sys

import triton

_path = os.environ.get("TILE_CONFORMANCE_HELPERS")
if not _path or not os.path.exists(_path):
    raise RuntimeError("triton_helpers: TILE_CONFORMANCE_HELPERS must name the "
                       "suite's _internal_testing.py, got %r" % (_path,))
_spec = importlib.util.spec_from_file_location("triton._internal_testing", _path)
_module = importlib.util.module_from_spec(_spec)
sys.modules["triton._internal_testing"] = _module
_spec.loader.exec_module(_module)
triton._internal_testing = _module
