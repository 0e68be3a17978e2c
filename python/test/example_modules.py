"""The examples/ programs as modules, for the tests that call their kernels
and host functions directly."""

import importlib.util
import pathlib
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def attention_example():
    """examples/05_attention.py (its kernels, `attention`,
    `attention_backward` and the autograd `Attention`), loaded afresh; its
    `common` import finds examples/ on the path."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(
        "example_attention", EXAMPLES / "05_attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
