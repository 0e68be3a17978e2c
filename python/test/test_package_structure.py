"""The shape of the tree: the Python package is layered without import
cycles, and no source file grows past 600 lines without saying why.

Layers, each importing only itself and those before it (and tile._C):
  tile.knobs     the settings object (environment variables and hooks)
  tile.language  what kernels are written in, and the IR builder it uses
  tile.compiler  Python AST to Tile IR, then libtile down to a cubin
  tile.backends  the driver interface the runtime implements
  tile.runtime   specialising, caching, loading and launching
  tile.tools     host-side helpers kernels take as arguments
  tile, tile.testing  the public surface
"""

import ast
import os
import subprocess
import sys

import pytest

import tile

PACKAGE = os.path.dirname(os.path.abspath(tile.__file__))
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAYERS = ["tile.knobs", "tile.language", "tile.compiler", "tile.backends",
          "tile.runtime", "tile.tools",
          "tile.testing", "tile"]
MAX_LINES = 600


def modules():
    """{module name: path} of every .py file of the package."""
    found = {}
    for root, _, files in os.walk(PACKAGE):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            parts = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def layer(module):
    for rank, prefix in enumerate(LAYERS):
        if module == prefix or module.startswith(prefix + "."):
            return rank
    raise AssertionError("%s is in no layer" % module)


def imports(path, known):
    """(imported tile module, line, inside a function) for each import."""
    tree = ast.parse(open(path).read(), path)
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "tile":
                        found.append((alias.name, child.lineno, in_function))
            elif isinstance(child, ast.ImportFrom) and child.module and \
                    child.module.split(".")[0] == "tile" and child.level == 0:
                for alias in child.names:
                    full = child.module + "." + alias.name
                    if full == "tile._C":
                        continue
                    target = full if full in known else child.module
                    found.append((target, child.lineno, in_function))
            visit(child, nested)

    visit(tree, False)
    return [(m, line, fn) for m, line, fn in found if m != "tile._C"]


def test_layers_and_no_deferred_imports():
    known = modules()
    problems = []
    for module, path in sorted(known.items()):
        for target, line, in_function in imports(path, known):
            where = "%s:%d" % (os.path.relpath(path, REPO), line)
            if in_function:
                problems.append("%s imports %s inside a function" % (where, target))
            if target != "tile" and layer(target) > layer(module):
                problems.append("%s: %s (layer %s) imports %s (layer %s)" % (
                    where, module, LAYERS[layer(module)], target,
                    LAYERS[layer(target)]))
    assert not problems, "\n".join(problems)


def test_no_import_cycle():
    known = modules()
    graph = {m: sorted({t for t, _, _ in imports(p, known) if t in known})
             for m, p in known.items()}
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in graph[m]:
            if state.get(t) == "open":
                cycle = stack[stack.index(t):] + [t]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)


@pytest.mark.parametrize("module", sorted(modules()))
def test_module_imports_in_a_fresh_interpreter(module):
    """Each module imports first in a new process (what a cycle hidden by
    import order would break)."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(PACKAGE))
    result = subprocess.run([sys.executable, "-c", "import " + module],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr


def source_files():
    roots = [os.path.join(REPO, "lib"), os.path.join(REPO, "python", "src"),
             os.path.join(REPO, "python", "tile")]
    for root in roots:
        for directory, _, files in os.walk(root):
            for name in files:
                if name.endswith((".cpp", ".h", ".py")):
                    yield os.path.join(directory, name)


def test_long_files_say_why():
    if not os.path.isdir(os.path.join(REPO, "lib")):
        pytest.skip("not run from a source tree")
    unexplained = []
    for path in source_files():
        lines = open(path).read().splitlines()
        if len(lines) <= MAX_LINES:
            continue
        banner = [l.lstrip("/#*\" ") for l in lines[:20]]
        if not any(l.startswith("Why this file is long:") for l in banner):
            unexplained.append("%s: %d lines" % (os.path.relpath(path, REPO),
                                                 len(lines)))
    assert not unexplained, (
        "files over %d lines need a 'Why this file is long:' line in their "
        "first 20 lines:\n%s" % (MAX_LINES, "\n".join(unexplained)))
