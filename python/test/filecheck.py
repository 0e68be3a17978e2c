"""Runs LLVM's FileCheck on text, so IR tests check patterns rather than
whole-text snapshots."""

import os
import shutil
import subprocess
import tempfile

import pytest


def _filecheck():
    for candidate in (os.environ.get("TILE_FILECHECK"), shutil.which("FileCheck"),
                      "/usr/lib/llvm-22/bin/FileCheck"):
        if candidate and os.path.exists(candidate):
            return candidate
    pytest.skip("FileCheck not found")


def filecheck(text, patterns):
    """Fails the test unless `text` matches the CHECK lines in `patterns`."""
    with tempfile.NamedTemporaryFile("w", suffix=".checks", delete=False) as f:
        f.write(patterns)
        path = f.name
    try:
        proc = subprocess.run([_filecheck(), path, "--dump-input=never"],
                              input=text, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        pytest.fail("FileCheck failed:\n%s\n--- input ---\n%s" % (proc.stderr, text))
