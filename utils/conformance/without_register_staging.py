"""Runs a check script with tile's pipeliner not staging register loads
(the schedule before session 38 for loops whose loads reach dots only
through registers, and dot loops' other register loads), for same-run A/B
timings:

    python3 without_register_staging.py liger_check.py tile OUT.pt

The disk cache is off for the run, so that no kernel compiled the other way
is reused."""
import os
import runpy
import sys

os.environ["TILE_CACHE"] = "0"
script = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(script))

# The check's harness sets up its CPU mode before tile is first imported.
import library_check  # noqa: E402

library_check.without_register_staging()
runpy.run_path(script, run_name="__main__")
