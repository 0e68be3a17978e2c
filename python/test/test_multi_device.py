"""Multi-GPU readiness that needs no GPU: the device of a launch's tensors
(`launcher.tensor_device`), the error naming two arguments on different
devices (through a recording launcher), and many processes sharing one
disk cache: 16 compiling the same kernel through the JIT at once (one
process per rank, as under torchrun), and 16 autotuners persisting their
choice to one file."""

import json
import os
import subprocess
import sys

import pytest

import tile
import tile.language as tl
from launch_helpers import FakeTensor, Recorder
from tile.runtime import cache, launcher
from tile.runtime.launcher import use_launcher

HERE = os.path.dirname(os.path.abspath(__file__))


class DeviceTensor(FakeTensor):
    """A CUDA tensor-like on device `ordinal`, as torch reports it."""

    def __init__(self, ptr, ordinal):
        super().__init__(ptr)
        self.ordinal = ordinal
        self.device = "cuda:%d" % ordinal

    def get_device(self):
        return self.ordinal


@tile.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


def test_tensor_device_reads_what_torch_reports():
    assert launcher.tensor_device(DeviceTensor(256, 3)) == 3
    assert launcher.tensor_device(DeviceTensor(256, -1)) is None   # a CPU tensor
    assert launcher.tensor_device(7) is None
    assert launcher.tensor_device(FakeTensor(256)) is None   # says nothing


def test_tensors_on_two_devices_are_refused_naming_both():
    with use_launcher(Recorder()) as recorder:
        with pytest.raises(ValueError) as info:
            axpy[(4,)](DeviceTensor(256, 0), DeviceTensor(512, 0),
                       DeviceTensor(1024, 1), 2.0, 1000, BLOCK=256)
    message = str(info.value)
    assert "argument 'x_ptr' is on cuda:0" in message
    assert "argument 'out_ptr' is on cuda:1" in message
    assert not recorder.launches


def test_tensors_on_one_device_launch():
    with use_launcher(Recorder()) as recorder:
        axpy[(4,)](DeviceTensor(256, 1), DeviceTensor(512, 1),
                   DeviceTensor(1024, 1), 2.0, 1000, BLOCK=256)
    assert len(recorder.launches) == 1


COMPILER = r"""
import os, sys, time
sys.path.insert(0, {here!r})
from launch_helpers import FakeTensor, Recorder
from tile.runtime.launcher import use_launcher
from test_multi_device import axpy
gate = {gate!r}
while not os.path.exists(gate):      # all start compiling together
    time.sleep(0.001)
with use_launcher(Recorder()):
    axpy[(4,)](FakeTensor(256), FakeTensor(512), FakeTensor(1024), 2.0, 1000,
               BLOCK=512)
(kernel,) = axpy.cache.values()
sys.stdout.buffer.write(kernel.asm["cubin"])
"""


def _race(template, tmp_path, count=16):
    """Runs `count` processes of `template` (formatted with this directory
    and a start gate) on one cache directory, released together; the cache
    directory and each process's stdout. Every process must succeed."""
    cache_dir, gate = tmp_path / "cache", tmp_path / "go"
    script = template.format(here=HERE, gate=str(gate))
    env = dict(os.environ, TILE_CACHE_DIR=str(cache_dir))
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(count)]
    gate.write_text("go")
    results = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), \
        [err.decode()[-800:] for _, err in results if err]
    return cache_dir, [out for out, _ in results]


def test_sixteen_processes_compile_one_kernel_into_one_entry(tmp_path):
    cache_dir, outputs = _race(COMPILER, tmp_path)
    cubins = set(outputs)
    assert len(cubins) == 1 and next(iter(cubins))[:4] == b"\x7fELF"
    entries = [os.path.join(root, d) for root, dirs, _ in os.walk(cache_dir)
               for d in dirs if os.path.exists(os.path.join(root, d, cache._MANIFEST))]
    assert len(entries) == 1, entries
    assert cache._read_entry(entries[0])   # whole and valid
    leftovers = [name for _, dirs, files in os.walk(cache_dir)
                 for name in dirs + files
                 if name.startswith((".tmp-", ".damaged-"))]
    assert not leftovers


TUNER = r"""
import os, sys, time
sys.path.insert(0, {here!r})
import tile
from launch_helpers import FakeTensor, Recorder
from tile.runtime.launcher import use_launcher
from test_multi_device import axpy
timings = {{64: 3.0, 128: 1.0, 256: 2.0}}
def bench(fn, quantiles):
    before = len(recorder.launches)
    fn()
    kernel = recorder.launches[before][0]
    return timings[int(kernel.asm["tile"].split("end = ")[1].split(" ")[0])]
tuned = tile.autotune(configs=[tile.Config({{"BLOCK": b}}) for b in (64, 128, 256)],
                      key=["n"], do_bench=bench, cache_results=True)(axpy)
gate = {gate!r}
while not os.path.exists(gate):
    time.sleep(0.001)
with use_launcher(Recorder()) as recorder:
    tuned[(4,)](FakeTensor(256), FakeTensor(512), FakeTensor(1024), 2.0, 1000)
print(tuned.best_config.kwargs["BLOCK"])
"""


def test_sixteen_autotuners_persist_one_whole_choice(tmp_path):
    cache_dir, outputs = _race(TUNER, tmp_path)
    choices = {out.decode().strip() for out in outputs}
    assert choices == {"128"}
    files = list((cache_dir / "autotune").glob("*"))
    assert len(files) == 1 and files[0].suffix == ".json", files
    record = json.loads(files[0].read_text())   # whole, parseable
    assert record["config"] and "index" in record
