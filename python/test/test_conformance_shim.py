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
