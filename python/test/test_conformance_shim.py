"""The conformance shim (utils/conformance/triton_alias.py) counts only
tile's code under tile's name: a module tile lacks is missing, never the
real Triton's, even where Triton is installed."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIM = os.path.join(ROOT, "utils", "conformance")

PROBE = textwrap.dedent("""
    import sys
    import triton_alias
    import tile, tile.language
    import triton, triton.language as tl
    assert triton is tile and tl is tile.language
    try:
        import triton.backends.amd.compiler
    except ModuleNotFoundError as error:
        print("missing:", error)
    else:
        print("loaded:", sys.modules["triton.backends.amd.compiler"].__file__)
    try:
        import triton._internal_testing
    except ModuleNotFoundError:
        print("helpers refused")
""")


def test_missing_tile_module_is_not_tritons(tmp_path):
    # A stand-in for an installed Triton, with a module tile does not have.
    fake = tmp_path / "site" / "triton" / "backends" / "amd"
    fake.mkdir(parents=True)
    for d in (fake.parent.parent, fake.parent, fake):
        (d / "__init__.py").write_text("")
    (fake / "compiler.py").write_text("HIP = 'the real one'\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [SHIM] + [p for p in sys.path if p] + [str(tmp_path / "site")])
    env.pop("TILE_CONFORMANCE_HELPERS", None)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, text=True,
                         capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "missing: No module named 'triton.backends.amd' (tile has no" in out.stdout
    assert "loaded:" not in out.stdout
    assert "helpers refused" in out.stdout


def test_triton_imported_first_is_refused():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([SHIM] + [p for p in sys.path if p])
    probe = ("import sys, types; sys.modules['triton'] = types.ModuleType('triton');"
             "import triton_alias")
    out = subprocess.run([sys.executable, "-c", probe], env=env, text=True,
                         capture_output=True, timeout=120)
    assert out.returncode != 0
    assert "Triton was imported before the alias" in out.stderr


def test_a_run_cut_short_reports_the_tests_that_finished(tmp_path):
    # --budget interrupts pytest (SIGINT), which still writes the results of
    # the finished tests; the table says the column is partial.
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "_internal_testing.py").write_text("")
    (suite / "test_slow.py").write_text(textwrap.dedent("""
        import time
        import pytest

        @pytest.mark.parametrize("i", range(40))
        def test_slow(i):
            if i >= 3:
                time.sleep(120)
    """))
    import tile
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(tile.__file__))] +
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    result = subprocess.run(
        [sys.executable, os.path.join(SHIM, "run.py"), "--only", "tile",
         "--suite", str(suite), "--out", str(tmp_path / "out"), "--budget", "30",
         "test_slow.py"], capture_output=True, text=True, env=env, timeout=300)
    # Three tests finish at once, the others take two minutes each: however
    # many workers pytest runs, not all finish in 30 s, and its start-up
    # leaves time for the quick ones (budgets of 4 s and 8 s ended runs in
    # CI's installed-wheel test pass before any test had finished).
    assert "tile was cut short at --budget 30 s" in result.stdout, result.stdout
    total = [line for line in result.stdout.splitlines() if "**total**" in line][0]
    passed = int(total.split("**")[3].split("/")[0])
    assert 1 <= passed < 40
    assert "(collection)" not in result.stdout


def test_concurrent_runs_both_compilers_at_once(tmp_path):
    # --concurrent starts both pytest sessions together: each test records
    # when it ran and under which name `triton` was; the two runs overlap.
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "_internal_testing.py").write_text("")
    stamps = tmp_path / "stamps"
    stamps.mkdir()
    (suite / "test_both.py").write_text(textwrap.dedent("""
        import os, sys, time
        import pytest

        @pytest.mark.parametrize("i", range(3))
        def test_stamp(i):
            flavor = "tile" if "triton_alias" in sys.modules else "triton"
            start = time.time()
            time.sleep(1.0)
            with open(os.path.join(%r, "%%s-%%d" %% (flavor, i)), "w") as f:
                f.write("%%f %%f" %% (start, time.time()))
    """ % str(stamps)))
    # The Triton half needs a `triton` to import: a stand-in package will
    # do (this test is about the runner, and CI has no Triton).
    stub = tmp_path / "stub" / "triton"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("")
    import tile
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(tile.__file__)),
         str(tmp_path / "stub")] +
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    result = subprocess.run(
        [sys.executable, os.path.join(SHIM, "run.py"), "--concurrent",
         "--suite", str(suite), "--out", str(tmp_path / "out"),
         "test_both.py"], capture_output=True, text=True, env=env, timeout=300)
    total = [line for line in result.stdout.splitlines() if "**total**" in line]
    assert total and total[0].count("**3 / 0 / 0**") == 2, result.stdout
    spans = {}
    for stamp in stamps.iterdir():
        flavor = stamp.name.split("-")[0]
        start, end = map(float, stamp.read_text().split())
        lo, hi = spans.get(flavor, (start, end))
        spans[flavor] = (min(lo, start), max(hi, end))
    (a_lo, a_hi), (b_lo, b_hi) = spans["tile"], spans["triton"]
    assert a_lo < b_hi and b_lo < a_hi   # the two sessions overlapped


def test_sample_ranges_cover_each_bucket_once():
    sys.path.insert(0, SHIM)
    try:
        import run
    finally:
        sys.path.remove(SHIM)
    assert run.parse_sample("3/40") == ({3}, 40)
    assert run.parse_sample("0-2,7/8") == ({0, 1, 2, 7}, 8)
    halves = run.parse_sample("0-19/40")[0] | run.parse_sample("20-39/40")[0]
    assert halves == set(range(40))
    for bad in ("40/40", "5-41/40"):
        try:
            run.parse_sample(bad)
        except SystemExit as e:
            assert "buckets must lie in 0..39" in str(e)
        else:
            raise AssertionError(bad + " was accepted")
