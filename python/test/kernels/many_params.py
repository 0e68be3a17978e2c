"""A kernel with more parameters than the launcher once took (64): kernel
libraries that pass every stride of every tensor reach 74 (mamba-ssm's
SSD backward). Generated, since writing 100 parameters out helps nobody."""

import os

from kernels.libdevice_sources import load

COUNT = 100  # scalar parameters, besides the output pointer


def source():
    names = ["s%d" % i for i in range(COUNT)]
    return "\n".join([
        "import tile",
        "import tile.language as tl",
        "",
        "",
        "@tile.jit",
        "def weighted_sum(out_ptr, %s, BLOCK: tl.constexpr):" % ", ".join(names),
        "    offs = tl.arange(0, BLOCK)",
        "    total = tl.zeros((BLOCK,), tl.float32)",
    ] + ["    total += %s * (offs + %d).to(tl.float32)" % (n, i)
         for i, n in enumerate(names)] + [
        "    tl.store(out_ptr + offs, total)",
        ""])


def kernel(directory):
    return load(directory, "many_params_%d" % os.getpid(), source()).weighted_sum


def expected(values, block):
    """out[j] = sum_i values[i] * (j + i), in float64."""
    return [sum(v * (j + i) for i, v in enumerate(values)) for j in range(block)]
