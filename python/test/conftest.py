import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

# Compiled kernels of a test run go to a fresh cache, not ~/.cache/tile.
if "TILE_CACHE_DIR" not in os.environ:
    import tempfile
    os.environ["TILE_CACHE_DIR"] = tempfile.mkdtemp(prefix="tile-test-cache-")
