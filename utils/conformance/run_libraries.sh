#!/usr/bin/env bash
# Runs the library checks on a GPU host, each under Triton (the installed
# one) and then under tile (comparing with Triton's saved results), and
# prints every result line. Usage, after fetch_libraries.sh's exports and
# with tile importable through TILE_PYTHONPATH:
#   utils/conformance/run_libraries.sh OUT_DIR [check ...]
# Checks: liger mamba flash_attn gemlite cce lightning fla (default: all).
# TIMEOUT (seconds per flavour) bounds each run; without it each check has
# its own (first calls autotune, which dominates: fla's searches take ~50 s
# per op, mamba's SSD scan ~100 s under Triton). All of them together take
# longer than one 600 s device call: split the list across calls.
set -uo pipefail
OUT=$(realpath -m "$1")
shift
mkdir -p "$OUT"
HERE=$(cd "$(dirname "$0")" && pwd)
CHECKS=${*:-liger mamba flash_attn gemlite cce lightning fla}
budget() {
  case $1 in
    fla) echo 320 ;;
    mamba) echo 170 ;;
    *) echo 110 ;;
  esac
}
for check in $CHECKS; do
  limit=${TIMEOUT:-$(budget "$check")}
  for flavour in triton tile; do
    log=$OUT/${check}_$flavour.txt
    if [ $flavour = triton ]; then
      (cd "$HERE" && timeout "$limit" python3 ${check}_check.py triton \
         "$OUT/${check}_triton.pt") >"$log" 2>&1
    else
      (cd "$HERE" && PYTHONPATH=${TILE_PYTHONPATH:-} timeout "$limit" \
         python3 ${check}_check.py tile "$OUT/${check}_tile.pt" \
         "$OUT/${check}_triton.pt") >"$log" 2>&1
    fi
    echo "== $check $flavour (rc $?)"
    grep -E " (tile|triton) +(first|FAILED)" "$log" | cut -c1-220
  done
done
