#!/usr/bin/env python3
"""Writes the PTX of every bench/ kernel, specialised as bench/bench.py
launches it, without a GPU: `python3 utils/bench_ptx.py OUT_DIR`.

Refactors of the compiler must leave this output byte-identical (or explain
each difference): run it before and after, then `diff -r`. The launches go
through the real dispatcher and specialisation with stand-in tensors and a
recording launcher, so the keys (16-byte alignment, unit strides, integer
ranges) are the ones a GPU run would use."""

import importlib.util
import os
import sys

from tile.runtime import launcher

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "bench", "kernels_src.py")


class StandIn:
    """A contiguous CUDA tensor as far as the launch path looks."""

    def __init__(self, shape, dtype, address=1 << 32):
        self.shape = list(shape)
        self.dtype = dtype
        self.is_cuda = True
        self.device = "cuda:0"
        self._address = address

    def data_ptr(self):
        return self._address

    def stride(self, dim=None):
        strides, step = [], 1
        for size in reversed(self.shape):
            strides.insert(0, step)
            step *= size
        return strides if dim is None else strides[dim]

    def reshape(self, *shape):
        rows = 1
        for size in self.shape[:-1]:
            rows *= size
        return StandIn([rows, self.shape[-1]], self.dtype, self._address)


class Recorder:
    def launch(self, kernel, grid, args):
        pass


def load_kernels():
    spec = importlib.util.spec_from_file_location("kernels_tile", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launches(m):
    """(label, kernel, thunk) for every launch bench/bench.py makes."""
    f16, f32 = "torch.float16", "torch.float32"
    config = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8)
    size = 4096
    a, b, c = (StandIn([size, size], f16) for _ in range(3))
    args = (a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0),
            b.stride(1), c.stride(0), c.stride(1))
    descs = (m.TensorDescriptor.from_tensor(a, [128, 64]),
             m.TensorDescriptor.from_tensor(b, [64, 256]),
             m.TensorDescriptor.from_tensor(c, [128, 256]))
    yield "matmul", m.matmul_kernel, lambda k: k[(1,)](
        *args, num_warps=8, num_stages=3, **config)
    yield "matmul_persistent", m.matmul_persistent_kernel, lambda k: k[(1,)](
        *args, NUM_SMS=132, num_warps=8, num_stages=3, **config)
    yield "matmul_tma", m.matmul_tma_kernel, lambda k: k[(1,)](
        *descs, size, size, size, num_warps=8, num_stages=4, **config)
    yield "matmul_tma_ws", m.matmul_tma_kernel, lambda k: k[(1,)](
        *descs, size, size, size, num_warps=8, num_stages=4,
        WARP_SPECIALIZE=True, **config)
    yield "matmul_make_desc", m.matmul_make_desc_kernel, lambda k: k[(1,)](
        a, b, c, size, size, size, num_warps=8, num_stages=4, **config)

    heads, seq, dim = 128, 4096, 128
    q, kk, v, out = (StandIn([heads, seq, dim], f16) for _ in range(4))
    rows = [("attention", "attention_fwd_kernel", {}, (128, 64, 8, 3)),
            ("attention_overlap", "attention_fwd_overlap_kernel", {},
             (128, 64, 8, 3)),
            ("attention_tma", "attention_fwd_tma_kernel", {}, (128, 128, 8, 3)),
            ("attention_tma_ws", "attention_fwd_tma_kernel",
             {"WARP_SPECIALIZE": True}, (128, 128, 8, 3)),
            ("attention_tma_overlap_ws", "attention_fwd_tma_overlap_kernel",
             {"WARP_SPECIALIZE": True}, (128, 128, 8, 2)),
            ("attention_tma_overlap_ws3", "attention_fwd_tma_overlap_kernel",
             {"WARP_SPECIALIZE": True}, (128, 128, 8, 3)),
            ("attention_tma_persistent_ws", "attention_fwd_tma_persistent_kernel",
             {"WARP_SPECIALIZE": True, "NUM_SMS": 132}, (128, 128, 8, 3))]
    for label, name, extra, (bm, bn, warps, stages) in rows:
        options = dict(BLOCK_M=bm, BLOCK_N=bn, HEAD_DIM=dim, num_warps=warps,
                       num_stages=stages, **extra)
        if "tma" in label:
            flat = [t.reshape(-1, dim) for t in (q, kk, v, out)]
            blocks = (bm, bn, bn, bm)
            attention_descs = [m.TensorDescriptor.from_tensor(t, [blk, dim])
                               for t, blk in zip(flat, blocks)]
            tail = (heads,) if "persistent" in label else ()
            yield label, getattr(m, name), (
                lambda k, d=attention_descs, o=options, t=tail:
                k[(1,)](*d, 0.088, seq, *t, **o))
        else:
            yield label, getattr(m, name), (
                lambda k, o=options: k[(1,)](q, kk, v, out, 0.088, dim, dim,
                                             dim, dim, seq, **o))

    n = 1 << 28
    x, y, z = (StandIn([n], f32) for _ in range(3))
    yield "add", m.add_kernel, lambda k: k[(1,)](x, y, z, n, BLOCK_SIZE=1024)
    rows_, cols = 32768, 1024
    s_in, s_out = StandIn([rows_, cols], f32), StandIn([rows_, cols], f32)
    yield "softmax", m.softmax_kernel, lambda k: k[(1,)](
        s_out, s_in, cols, cols, rows_, cols, BLOCK_SIZE=1024)


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__)
        return 0 if argv[1:] in (["-h"], ["--help"]) else 2
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    m = load_kernels()
    with launcher.use_launcher(Recorder()):
        for label, kernel, launch in launches(m):
            before = set(map(id, kernel.cache.values()))
            launch(kernel)
            new = [k for k in kernel.cache.values() if id(k) not in before]
            if len(new) != 1:
                raise RuntimeError("%s: expected one new compile, got %d"
                                   % (label, len(new)))
            with open(os.path.join(out_dir, label + ".ptx"), "w") as f:
                f.write(new[0].asm["ptx"])
            print("%-26s %s" % (label, new[0].name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
