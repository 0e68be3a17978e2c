"""The examples on the GPU (issue 19): each checks itself against float64,
and with --compare runs again in the interpreter on the same inputs and
requires the two to agree."""

import os
import pathlib
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

pytestmark = pytest.mark.gpu

EXAMPLES_DIR = pathlib.Path(__file__).resolve().parents[2] / "examples"
EXAMPLES = sorted(p.stem for p in EXAMPLES_DIR.glob("0*.py"))
# Extra flags for every example: under compute-sanitizer, "--no-bench".
FLAGS = os.environ.get("TILE_EXAMPLE_FLAGS", "").split()


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_on_gpu_and_against_interpreter(example):
    result = subprocess.run(
        [sys.executable, str(EXAMPLES_DIR / (example + ".py")), "--compare"]
        + FLAGS,
        capture_output=True, text=True, timeout=600)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "on the GPU" in result.stdout
    assert "GPU vs interpreter" in result.stdout
    assert "FAILED" not in result.stdout
