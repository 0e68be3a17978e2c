#!/usr/bin/env bash
# Downloads and unpacks the PyPI Triton kernel libraries the *_check.py
# scripts run (on a machine with network; the GPU host has none), into
# DIR (default .devcarry/libs), one folder per checker's *_DIR variable:
#   LIGER_KERNEL_DIR FLA_DIR MAMBA_DIR FLASH_ATTN_DIR GEMLITE_DIR CCE_DIR
#   LIGHTNING_DIR
# Nothing of them is kept in the repository. Prints the exports to use.
set -euo pipefail
DIR=$(realpath -m "${1:-.devcarry/libs}")
TMP=$(mktemp -d)
mkdir -p "$DIR"
fetch() {  # fetch DEST [pip download args...]
  local dest=$DIR/$1
  shift
  mkdir -p "$dest"
  pip download --no-deps --no-build-isolation -q -d "$TMP/$(basename "$dest")" "$@" \
    >/dev/null 2>&1 || true
  for f in "$TMP/$(basename "$dest")"/*; do
    case "$f" in
      *.whl) unzip -q -o "$f" -d "$dest" -x '*.dist-info/*' ;;
      *.tar.gz) tar xzf "$f" -C "$TMP" && cp -r "$TMP"/"$(basename "$f" .tar.gz)"/* "$dest"/ ;;
    esac
  done
}
sdist() {  # sdist DEST PACKAGE: source archives pip cannot prepare (CUDA builds)
  local dest=$DIR/$1 url
  mkdir -p "$dest"
  url=$(python3 - "$2" <<'PY'
import json, sys, urllib.request
data = json.load(urllib.request.urlopen("https://pypi.org/pypi/%s/json" % sys.argv[1]))
url = [f["url"] for f in data["urls"] if f["filename"].endswith(".tar.gz")][0]
if "://" not in url:  # a mirror's relative link: the file host's path
    url = "https://files.pythonhosted.org/packages/" + url.split("packages/")[-1]
print(url)
PY
)
  curl -sSL "$url" | tar xz -C "$TMP"
  cp -r "$TMP"/"$(echo "$2" | tr - _)"-*/"$(echo "$2" | tr - _)" "$dest"/
}
fetch liger liger-kernel packaging
fetch fla fla-core einops
fetch gemlite tqdm
sdist gemlite gemlite
fetch cce cut-cross-entropy
fetch lightning lightning-attn
sdist mamba mamba-ssm
sdist flash_attn flash-attn
for d in mamba flash_attn; do cp -r "$DIR"/fla/einops "$DIR/$d"/; done
rm -rf "$TMP"
echo "export LIGER_KERNEL_DIR=$DIR/liger FLA_DIR=$DIR/fla MAMBA_DIR=$DIR/mamba" \
     "FLASH_ATTN_DIR=$DIR/flash_attn GEMLITE_DIR=$DIR/gemlite CCE_DIR=$DIR/cce" \
     "LIGHTNING_DIR=$DIR/lightning"
