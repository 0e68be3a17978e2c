"""tile.testing's clock and memcheck helpers without a GPU: the commands
they run (subprocess stands in for nvidia-smi and compute-sanitizer), the
restore that always follows a clock lock, and how memcheck results fail a
test."""

import types

import pytest

from tile import testing


class Commands:
    """A stand-in for subprocess: records every command; nvidia-smi's
    clock query answers `clocks`."""

    def __init__(self, clocks=(1350, 1215), memcheck_stdout="", returncode=0):
        self.log, self.clocks = [], clocks
        self.memcheck = (memcheck_stdout, returncode)

    def check_output(self, cmd, **kwargs):
        self.log.append(cmd)
        if any(arg.startswith("--query-gpu=") for arg in cmd):
            return (",".join(str(c) for c in self.clocks) + "\n").encode()
        return b""

    def call(self, cmd, **kwargs):
        self.log.append(cmd)
        return 0

    def run(self, cmd, **kwargs):
        self.log.append(cmd)
        stdout, code = self.memcheck
        return types.SimpleNamespace(returncode=code, stdout=stdout, stderr="")


@pytest.fixture
def commands(monkeypatch):
    fake = Commands()
    for name in ("check_output", "call", "run"):
        monkeypatch.setattr(testing.subprocess, name, getattr(fake, name))
    yield fake


def test_a_clock_lock_that_does_not_take_is_an_error_and_is_undone(commands):
    commands.clocks = (1980, 2619)   # the boost clocks: the lock failed
    with pytest.raises(RuntimeError, match="clocks did not lock: SM 1980 MHz"):
        with testing.set_gpu_clock(1350, 1215, device=2):
            pass
    issued = [" ".join(c) for c in commands.log]
    assert "nvidia-smi -i 2 --lock-gpu-clocks=1350,1350" in issued
    assert "nvidia-smi -i 2 --lock-memory-clocks=1215,1215" in issued
    # Restored whatever happened, persistence mode last switched off.
    assert issued[-3:] == ["nvidia-smi -i 2 -pm 0", "nvidia-smi -i 2 -rgc",
                           "nvidia-smi -i 2 -rmc"]


def test_nvsmi_reads_the_queried_values_as_ints(commands):
    commands.clocks = (1755.0, 2619)
    assert testing.nvsmi(["clocks.max.sm", "clocks.max.memory"], 1) == [1755, 2619]
    assert commands.log[-1][:3] == ["nvidia-smi", "-i", "1"]


class FakeRequest:
    def __init__(self, name):
        self.node = types.SimpleNamespace(name=name)


def checked(x, request=None):
    return x * 2


def test_memcheck_reruns_only_the_chosen_parameters(commands):
    wrapped = testing.cuda_memcheck(x=3)(checked)
    assert wrapped(x=4, request=FakeRequest("t[4]")) == 8    # runs directly
    assert commands.log == []
    commands.memcheck = ("========= ERROR SUMMARY: 0 errors\n", 0)
    wrapped(x=3, request=FakeRequest("t[3]"))
    (cmd,) = commands.log
    assert cmd[:3] == ["compute-sanitizer", "--tool", "memcheck"]
    assert cmd[-1].endswith("test_testing_helpers.py::t[3]")


def test_memcheck_errors_fail_the_test(commands):
    wrapped = testing.cuda_memcheck(x=3)(checked)
    commands.memcheck = ("Invalid __global__ read of size 4\n"
                         "========= ERROR SUMMARY: 1 error\n", 1)
    with pytest.raises(AssertionError, match="memcheck found errors"):
        wrapped(x=3, request=FakeRequest("t[3]"))
    with pytest.raises(TypeError, match="needs the `request` fixture"):
        wrapped(x=3)
