"""The tutorials in examples/ (issue 19): every kernel compiles for sm_90a
on the CPU, and every example runs and checks itself in the interpreter.
test_gpu_examples.py runs them on the GPU."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES_DIR = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES_DIR))

# examples/common.py sets TILE_INTERPRET for its own process when there is
# no GPU; here tile is loaded first (so this process keeps compiling) and
# the variable is put back for the other tests' subprocesses.
import tile  # noqa: E402,F401

_saved = os.environ.get("TILE_INTERPRET")
import demo  # noqa: E402
if _saved is None:
    os.environ.pop("TILE_INTERPRET", None)
else:
    os.environ["TILE_INTERPRET"] = _saved


def interpreter_env():
    env = dict(os.environ, TILE_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


@pytest.mark.parametrize("entry", demo.KERNELS, ids=lambda e: e[1])
def test_example_kernel_compiles(entry):
    compiled, _ = demo.compile_kernel(entry)
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
    assert compiled.metadata["num_regs"] > 0


def test_every_example_kernel_is_listed():
    # A new example's kernels join the compile check and the demo.
    listed = {(example, name) for example, name, *_ in demo.KERNELS}
    for example in demo.EXAMPLES:
        module = demo.load_example(example)
        for attr, value in vars(module).items():
            try:
                kernel = demo.kernel_function(module, attr)
            except AttributeError:
                continue
            # @jit helpers (leaky_relu, names with a leading underscore)
            # are called by kernels, not launched.
            if kernel.__name__ != "leaky_relu" and not attr.startswith("_"):
                assert (example, attr) in listed, (example, attr)


@pytest.mark.parametrize("example", demo.EXAMPLES)
def test_example_runs_in_interpreter(example):
    result = subprocess.run(
        [sys.executable, str(EXAMPLES_DIR / (example + ".py")), "--small"],
        env=interpreter_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "interpreter" in result.stdout
    assert " ok" in result.stdout and "FAILED" not in result.stdout


def test_example_check_can_fail():
    import common
    import numpy as np
    with pytest.raises(AssertionError, match="1 of 3 elements off"):
        common.check("poisoned", np.array([1.0, np.nan, 3.0]),
                     np.array([1.0, 2.0, 3.0]), 1e-3)


def test_demo_without_gpu():
    result = subprocess.run([sys.executable, str(EXAMPLES_DIR / "demo.py")],
                            env=interpreter_env(), capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "no GPU here" in out
    for entry in demo.KERNELS:
        assert entry[1] in out
    # Every check of every example: 1 + 1 + 2 + 4 + 16 + 1 (attention:
    # the output by pointers and by descriptors, dQ, dK, dV and the
    # descriptor backward's dQ, dK, dV, full and causal).
    assert out.count(" ok\n") == 25 and "FAILED" not in out
