"""For each autotune config that tile found over the SM's resources in a
CPU-mode library check (or, with COMPILE_INTERPRETED_RECORD_ALL=1, each
specialisation the check ran), compile the same specialisation with the
installed Triton (no GPU needed) and print both compilers' shared memory
and registers: where Triton fits a config that tile cannot, tile's
autotuner has fewer configs to choose from than Triton's.

    COMPILE_INTERPRETED_RECORD=/tmp/oor.json LIBRARY_CHECK_CPU=1 \\
        python3 gemlite_check.py tile /tmp/g.pt
    LIBRARY_DIR=... python3 resources_vs_triton.py /tmp/oor.json

LIBRARY_DIR is put on sys.path so that the records' modules import (under
Triton this time). The library imports as it would on an H100: the torch
device queries and Triton's driver answer for one, as library_check.py's
CPU mode does for tile."""
import importlib
import json
import os
import sys
import types

import torch
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

TARGET = GPUTarget("cuda", 90, 32)
torch.cuda.get_device_properties = lambda device=None: types.SimpleNamespace(
    name="NVIDIA H100 80GB HBM3", major=9, minor=0,
    multi_processor_count=132, total_memory=80 << 30,
    shared_memory_per_block_optin=232448, warp_size=32)
torch.cuda.get_device_capability = lambda device=None: (9, 0)


class _H100Driver:
    def get_current_target(self):
        return TARGET

    def get_current_device(self):
        return 0

    def get_active_torch_device(self):
        return torch.device("cpu")

    class utils:
        @staticmethod
        def get_device_properties(device):
            return {"max_shared_mem": 232448, "multiprocessor_count": 132,
                    "max_num_regs": 65536, "warpSize": 32}


triton.runtime.driver.set_active(_H100Driver())
if os.environ.get("LIBRARY_DIR"):
    sys.path.insert(0, os.environ["LIBRARY_DIR"])


def constant(value):
    if isinstance(value, str) and value.startswith("tl:"):
        return getattr(tl, value[3:])
    return value


def main():
    records = json.load(open(sys.argv[1]))
    print("%-40s %-44s %10s %10s %8s %8s" % ("kernel", "config", "tile",
                                              "triton", "regs", "regs"))
    for r in records:
        fn = getattr(importlib.import_module(r["module"]), r["name"])
        while not isinstance(fn, triton.runtime.jit.JITFunction):
            fn = fn.fn
        constants = {k: constant(v) for k, v in r["constants"].items()}
        aligned = {(i,): [["tt.divisibility", 16]]
                   for i, t in enumerate(r["signature"].values())
                   if t.startswith("*")}
        # The block sizes (upper-case integer constexprs: BLOCK_SIZE_M, BK).
        blocks = " ".join("%s=%s" % (k.replace("BLOCK_SIZE_", ""), v)
                          for k, v in constants.items()
                          if k.isupper() and type(v) is int and v > 1)
        config = "%s warps=%d stages=%d" % (blocks, r["num_warps"],
                                             r["num_stages"])
        try:
            kernel = triton.compile(
                ASTSource(fn, r["signature"], constants, aligned),
                target=TARGET, options={"num_warps": r["num_warps"],
                                        "num_stages": r["num_stages"]})
            theirs = kernel.metadata.shared
            kernel._init_handles = None  # no driver: registers from ptxas
            their_regs = _ptxas_registers(kernel.asm["ptx"])
        except Exception as error:  # noqa: BLE001
            theirs, their_regs = type(error).__name__, ""
        print("%-40s %-44s %10s %10s %8s %8s" % (
            r["name"][:40], config[:44], r["tile_shared"], theirs,
            r.get("tile_regs", ""), their_regs))


def _ptxas_registers(ptx):
    """Registers per thread ptxas gives the PTX (the driver's number,
    without a driver): `ptxas -v` on sm_90a."""
    import re
    import subprocess
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
        f.write(ptx)
        f.flush()
        out = subprocess.run(
            [os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas"),
             "-arch=sm_90a", "-v", f.name, "-o", os.devnull],
            capture_output=True, text=True).stderr
    found = re.findall(r"Used (\d+) registers", out)
    return int(found[-1]) if found else "?"


if __name__ == "__main__":
    main()
