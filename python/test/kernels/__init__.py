

def bench_kernels():
    """bench/kernels_src.py (the benchmark's kernels, written for both
    compilers) loaded as a tile module."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench",
                        "kernels_src.py")
    spec = importlib.util.spec_from_file_location("bench_kernels_tile", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
