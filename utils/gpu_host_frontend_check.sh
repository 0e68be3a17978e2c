#!/usr/bin/env bash
# On a GPU host without LLVM: rebuild tile._C for the host's Python against a
# prebuilt libtile.so (passed as $1), then run the Python tests that need no
# LLVM tools, with real torch tensors where torch is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
LIBTILE=${1:-build/lib/libtile.so}
shift || true
PKG=$(mktemp -d)/site
mkdir -p "$PKG/tile"
cp -r python/tile/. "$PKG/tile/"
cp "$LIBTILE" "$PKG/tile/libtile.so"
start=$(date +%s%N)
g++ -O2 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) -Iinclude \
    python/src/*.cpp -L"$PKG/tile" -ltile -Wl,-rpath,'$ORIGIN' \
    -o "$PKG/tile/_C$(python3-config --extension-suffix)"
echo "tile._C rebuilt for $(python3 --version) in $(( ($(date +%s%N) - start) / 1000000 )) ms"
export PYTHONPATH="$PKG"
python3 -c "import tile; print('tile', tile.__version__, 'from', tile.__file__)"
python3 -m pytest -q -p no:cacheprovider python/test "$@"
