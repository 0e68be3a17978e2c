#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: lit (FileCheck),
# GoogleTest, pytest and the tile-opt mutation fuzzer, all through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
utils/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure
