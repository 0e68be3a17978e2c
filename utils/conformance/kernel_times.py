"""Per-kernel GPU times of a library check's ops, forward + backward, from
torch.profiler over 20 steps after 5 warm-up steps, for same-run
comparisons the per-call timings of run_libraries.sh cannot make (a
library's host work can be ten times its kernels' time):

    python3 kernel_times.py liger tile rms_norm layer_norm
    python3 kernel_times.py fla tile-nostage chunk_simple_gla

The first argument names the check (liger for liger_check.py), the second
the flavour: tile, triton, or tile-nostage (tile without register-load
staging, the compiler's over-the-limit retry, for A/B runs); the rest are
the check's op names. Prints one line per kernel over 3 µs a step and the
step's kernel total. Run alternating flavours in one device call: clocks
differ between machines."""
import importlib
import os
import sys

check, flavour, names = sys.argv[1], sys.argv[2], sys.argv[3:]
sys.argv = ["x", "triton" if flavour == "triton" else "tile", os.devnull]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if flavour == "tile-nostage":
    # No kernel compiled the other way may come from the disk cache.
    os.environ["TILE_CACHE"] = "0"

import library_check as lc  # noqa: E402

if flavour == "tile-nostage":
    lc.without_register_staging()

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

ops = {}
lc.main = lambda make_ops, env: ops.update(make_ops())
importlib.import_module(check + "_check")

unknown = [name for name in names if name not in ops]
if unknown:
    sys.exit("%s_check.py has no op %s; it has: %s"
             % (check, ", ".join(unknown), " ".join(ops)))

for name in names:
    make, call, _ = ops[name]
    leaves = [t.detach().clone().requires_grad_(t.requires_grad)
              for t in make()]

    def step():
        outs = [o for o in lc.as_tuple(call(*leaves))
                if torch.is_tensor(o) and o.requires_grad]
        torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
        for t in leaves:
            t.grad = None

    for _ in range(5):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            step()
        torch.cuda.synchronize()
    total = 0.0
    for event in prof.key_averages():
        if event.device_type.name != "CUDA" or event.count < 20:
            continue
        us = event.device_time_total / 20
        total += us
        if us > 3:
            print("%s %s %-44s %8.1f us" % (flavour, name, event.key[:44], us))
    print("%s %s all kernels %.1f us a step" % (flavour, name, total))
