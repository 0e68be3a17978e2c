#!/usr/bin/env bash
# The whole GPU run, on a GPU host without LLVM: rebuild tile._C for the
# host's Python against a prebuilt libtile.so ($1, or .devcarry/libtile.so.gz
# as carried by the device tool), run the GPU tests, the same tests under
# compute-sanitizer (memcheck, racecheck), and the benchmarks. STEPS picks
# a subset (default: "tests sanitizer bench").
set -uo pipefail
STEPS=${STEPS:-tests sanitizer bench}
cd "$(dirname "$0")/.."
LIBTILE=${1:-.devcarry/libtile.so.gz}
PKG=$(mktemp -d)/site
mkdir -p "$PKG/tile"
cp -r python/tile/. "$PKG/tile/"
case "$LIBTILE" in
  *.gz) gzip -dc "$LIBTILE" > "$PKG/tile/libtile.so" ;;
  *) cp "$LIBTILE" "$PKG/tile/libtile.so" ;;
esac
g++ -O2 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) -Iinclude \
    python/src/*.cpp -L"$PKG/tile" -ltile -Wl,-rpath,'$ORIGIN' \
    -o "$PKG/tile/_C$(python3-config --extension-suffix)" || exit 1
export PYTHONPATH="$PKG" PYTHONUNBUFFERED=1
# Later commands of the same device call find this build's package here
# (several runs leave several /tmp/tmp.*/site behind).
echo "$PKG" > /tmp/tile_site_path
# Cold caches for both compilers: the benchmark reports cold compile times.
export TILE_CACHE_DIR=$(mktemp -d) TRITON_CACHE_DIR=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
if [[ $STEPS == *tests* ]]; then
  echo "== GPU tests"
  python3 -m pytest -q -p no:cacheprovider python/test/test_gpu*.py -rs
  rc=$?
fi
if [[ $STEPS == *sanitizer* ]]; then
  SAN=/usr/local/cuda/bin/compute-sanitizer
  for tool in memcheck racecheck; do
    echo "== compute-sanitizer --tool $tool"
    # The assert test traps on purpose, in a child process.
    $SAN --tool $tool --error-exitcode 9 python3 -m pytest -q -p no:cacheprovider \
        python/test/test_gpu*.py -k "not assert" 2>&1 | tail -6
  done
fi
if [[ $STEPS == *bench* ]]; then
  echo "== bench"
  python3 bench/bench.py
fi
exit $rc
