#!/usr/bin/env bash
# Installs what is missing, builds, then compiles the examples' Python
# kernels for sm_90a (a per-stage summary) and runs every example: on the
# GPU when torch finds one (checked against float64, timed next to torch,
# and next to Triton when it is installed), otherwise in tile's interpreter
# on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
utils/install-deps.sh
utils/build.sh
BUILD_DIR=${BUILD_DIR:-build}
PYTHONPATH="$BUILD_DIR/python_packages${PYTHONPATH:+:$PYTHONPATH}" \
  exec ${PYTHON:-python3} examples/demo.py "$@"
