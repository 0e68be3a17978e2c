"""A fixed-seed sample of utils/fuzz_kernels.py: random valid kernels
compile and run in the interpreter; random invalid ones are refused with a
CompilationError at the bad line. (The full runs, and the comparison with
the GPU, are recorded in docs/reliability.md.)"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "utils"))
import fuzz_kernels  # noqa: E402


@pytest.mark.parametrize("seed", [20261125, 7])
def test_fuzzed_kernels_compile_interpret_and_errors_are_located(seed, tmp_path, capsys):
    rc = fuzz_kernels.main(["--valid", "25", "--invalid", "60", "--seed", str(seed),
                            "--keep", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "'compiled': 25, 'interpreted': 25" in out
    assert "'located': 60" in out


def test_minimizer_keeps_only_the_statements_the_problem_needs(tmp_path):
    import random
    source = fuzz_kernels.Generator(random.Random(5)).kernel(9)
    lines = source.splitlines()
    culprit = next(line for line in reversed(lines) if "tl.store(OUTI" in line)

    def check(text, where):  # a stand-in for a GPU mismatch: needs the OUTI store
        try:
            compile(text, where, "exec")
        except SyntaxError:
            return None
        return "differs" if culprit in text else None

    path = str(tmp_path / "case.py")
    out, smallest = fuzz_kernels.minimize(source, path, check)
    assert open(out).read() == smallest
    assert culprit in smallest
    body = smallest[smallest.index("i0 = tl.load("):].splitlines()[1:]
    assert body == [culprit], smallest
