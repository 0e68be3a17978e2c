"""tl.extra.cuda.libdevice on the GPU against float64 numpy references, and
the whole symbol table compiled and launched (poisoned outputs)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
from kernels import libdevice_math as lm  # noqa: E402
from kernels.libdevice_sources import (POINTERS, every_signature_source,  # noqa: E402
                                       load)


@pytest.mark.parametrize("n,seed", [(64, 0), (1024, 1)])
def test_libdevice_matches_float64(n, seed):
    x, y = lm.inputs(n, seed)
    out = torch.full((lm.total(n),), float("nan"), device="cuda")
    lm.libdevice_kernel[(1,)](torch.from_numpy(x).cuda(),
                              torch.from_numpy(y).cuda(), out, n)
    lm.check(out.cpu().numpy(), x, y)


def test_every_signature_runs(tmp_path):
    # Every symbol launched once on small positive data: nothing traps, and
    # the outputs are all written (no NaN poison left where the function is
    # finite on that input).
    n = 32
    inputs = {
        "fp32": torch.rand(n, device="cuda") + 0.5,
        "fp64": torch.rand(n, device="cuda", dtype=torch.float64) + 0.5,
        "i32": torch.randint(1, 100, (n,), device="cuda", dtype=torch.int32),
        "u32": torch.randint(1, 100, (n,), device="cuda",
                             dtype=torch.int32).view(torch.uint32),
        "i64": torch.randint(1, 100, (n,), device="cuda", dtype=torch.int64),
        "u64": torch.randint(1, 100, (n,), device="cuda",
                             dtype=torch.int64).view(torch.uint64),
        "i16": torch.randint(1, 100, (n,), device="cuda", dtype=torch.int16),
    }
    for chunk in range(4):
        text, picked = every_signature_source(chunk, 4)
        module = load(str(tmp_path), "gpu_chunk%d" % chunk, text)
        out = torch.full((len(picked) * n,), float("nan"), device="cuda")
        args = [inputs[t] for t in POINTERS]
        module.every_signature[(1,)](out, *args, n)
        torch.cuda.synchronize()
        rows = out.view(len(picked), n).cpu().numpy()
        # A function may be NaN on these inputs (acosh of 0.7); it must at
        # least have stored something other than the poison for most.
        written = sum(1 for row in rows if not np.isnan(row).all())
        assert written >= 0.8 * len(picked), (chunk, written, len(picked))
