#!/usr/bin/env bash
# Installs what is missing, builds, and shows a vector-add kernel in Tile IR
# going through tile-opt and through the Python package.
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
utils/build.sh
BUILD_DIR=${BUILD_DIR:-build}

echo "== Tile IR of a vector add, canonicalized by tile-opt =="
"$BUILD_DIR/bin/tile-opt" examples/vector_add.mlir -canonicalize -cse

echo "== The same kernel verified from Python =="
PYTHONPATH="$BUILD_DIR/python_packages" ${PYTHON:-python3} - <<'PY'
import pathlib, tile
text = pathlib.Path("examples/vector_add.mlir").read_text()
print("tile", tile.__version__, "verified", len(tile.verify_ir(text, "vector_add.mlir")), "bytes of IR")
try:
    tile.verify_ir(text.replace("end = 1024", "end = 1000"), "vector_add.mlir")
except tile.IRError as err:
    print("and rejects a broken one:", err)
PY
