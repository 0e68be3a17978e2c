"""Triton's runtime API on the GPU: compiled-kernel handles against the
driver, clusters (num_ctas), maxnreg, cooperative and dependent launches,
an autotuner whose config hooks set descriptor block shapes, the driver
object and tile.testing's benchmark helpers."""

import os

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import tile  # noqa: E402
import tile.language as tl  # noqa: E402
from tile.runtime import driver  # noqa: E402


@tile.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) +
             tl.load(y_ptr + offs, mask=mask), mask=mask)


@tile.jit
def program_ids(out_ptr, count_ptr):
    pid = tl.program_id(0)
    tl.store(out_ptr + 2 * pid, pid)
    tl.store(out_ptr + 2 * pid + 1, tl.num_programs(0))
    tl.atomic_add(count_ptr, 1)


@tile.jit
def small_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                 BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def poisoned(shape, dtype=torch.float32):
    shape = shape if isinstance(shape, tuple) else (shape,)
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def test_handles_match_the_driver():
    x = torch.randn(10_000, device="cuda")
    a = torch.randn(200, 96, device="cuda", dtype=torch.float16)
    b = torch.randn(96, 130, device="cuda", dtype=torch.float16)
    kernels = [
        add_kernel.warmup(x, x, x, x.numel(), BLOCK=1024, grid=(1,)),
        program_ids.warmup(x, x, grid=(1,)),
        small_matmul.warmup(a, b, a, 200, 130, 96, BM=64, BN=64, BK=32,
                            num_warps=4, grid=(1,)),
    ]
    for kernel in kernels:
        assert kernel.n_regs is None
        kernel._init_handles()
        handle = tile._C.load_kernel(kernel.asm["cubin"], kernel.name,
                                     kernel.metadata.shared,
                                     32 * kernel.metadata.num_warps)
        registers, local_bytes, max_threads = tile._C.kernel_attributes(handle)
        assert kernel.n_regs == registers == kernel.metadata.num_regs
        assert kernel.n_spills == local_bytes // 4 == 0
        assert kernel.n_max_threads == max_threads >= 32 * kernel.metadata.num_warps
        assert kernel.function and kernel.module
    # metadata.shared is what the launch reserves: the matmul's operands
    # go through shared memory, the vector add's do not.
    assert kernels[2].metadata.shared > 0 == kernels[0].metadata.shared


def test_compiled_kernel_launches():
    x, y = torch.randn(3000, device="cuda"), torch.randn(3000, device="cuda")
    out = poisoned(3000)
    compiled = add_kernel.warmup(x, y, out, 3000, BLOCK=512, grid=(1,))
    compiled[(6,)](x, y, out, 3000, 512)
    torch.testing.assert_close(out, x + y)


def test_launch_returns_the_compiled_kernel():
    x, y = torch.randn(3000, device="cuda"), torch.randn(3000, device="cuda")
    out = poisoned(3000)
    # Twice: the first launch compiles (Python), the second is the C++
    # dispatcher's hit; both hand back what ran, as Triton's launch does.
    first = add_kernel[(6,)](x, y, out, 3000, BLOCK=512)
    second = add_kernel[(6,)](x, y, out, 3000, BLOCK=512)
    assert first is second
    assert "ld.global" in second.asm["ptx"] and second.metadata.num_warps >= 1
    torch.testing.assert_close(out, x + y)


@pytest.mark.parametrize("num_ctas", [2, 4])
def test_cluster_launch(num_ctas):
    n = 100_003
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = poisoned(n)
    grid = (triton_cdiv(n, 1024),)
    add_kernel[grid](x, y, out, n, BLOCK=1024, num_ctas=num_ctas)
    torch.testing.assert_close(out, x + y)
    # A program is a cluster: ids and counts are the grid's, and each
    # program runs once (the atomic counts programs, not CTAs).
    ids = torch.full((2 * 37,), -1, dtype=torch.int32, device="cuda")
    count = torch.zeros(1, dtype=torch.int32, device="cuda")
    program_ids[(37,)](ids, count, num_ctas=num_ctas)
    ids = ids.view(37, 2).cpu()
    assert ids[:, 0].tolist() == list(range(37))
    assert ids[:, 1].tolist() == [37] * 37
    assert count.item() == 37
    compiled = add_kernel.warmup(x, y, out, n, BLOCK=1024, num_ctas=num_ctas,
                                 grid=grid)
    assert ".reqnctapercluster %d, 1, 1" % num_ctas in compiled.asm["ptx"]


def test_maxnreg_caps_the_cubin():
    a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    free = small_matmul.warmup(a, a, a, 256, 256, 256, BM=128, BN=128, BK=64,
                               num_warps=4, grid=(1,))
    free._init_handles()
    cap = free.n_regs - 8
    capped = small_matmul.warmup(a, a, a, 256, 256, 256, BM=128, BN=128,
                                 BK=64, num_warps=4, maxnreg=cap, grid=(1,))
    capped._init_handles()
    assert free.n_regs > cap >= capped.n_regs
    assert ".maxnreg %d" % cap in capped.asm["ptx"]
    # Still right, spills or not.
    c = poisoned((256, 256), torch.float16)
    small_matmul[(2, 2)](a, a, c, 256, 256, 256, BM=128, BN=128, BK=64,
                         num_warps=4, maxnreg=cap)
    ref = (a.double() @ a.double())
    torch.testing.assert_close(c.double(), ref, atol=0.25, rtol=1e-2)


@pytest.mark.parametrize("option", ["launch_cooperative_grid", "launch_pdl"])
def test_cooperative_and_dependent_launches(option):
    n = 50_000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = poisoned(n)
    add_kernel[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK=1024,
                                        **{option: True})
    # A second launch right behind it (PDL lets it start early).
    out2 = poisoned(n)
    add_kernel[(triton_cdiv(n, 1024),)](out, y, out2, n, BLOCK=1024,
                                        **{option: True})
    torch.testing.assert_close(out2, x + 2 * y)


def test_cooperative_launch_of_clusters():
    # Both at once, as Triton allows: every cluster co-resident, the
    # cluster shape from the kernel (.reqnctapercluster).
    n = 50_000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = poisoned(n)
    add_kernel[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, num_ctas=4,
                                        launch_cooperative_grid=True)
    torch.testing.assert_close(out, x + y)


def test_pinned_host_memory_is_read_and_written():
    # Pinned host memory is addressable from kernels (unified addressing),
    # as Triton accepts it; a plain CPU tensor is refused, naming it.
    n = 3000
    x = torch.randn(n).pin_memory()
    y = torch.randn(n, device="cuda")
    out = torch.full((n,), float("nan")).pin_memory()
    add_kernel[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y.cpu())
    with pytest.raises(ValueError, match="argument 'out_ptr' is a tensor on cpu"):
        add_kernel[(triton_cdiv(n, 1024),)](x, y, torch.empty(n), n, BLOCK=1024)


def test_autotune_pre_hook_sets_descriptor_blocks():
    @tile.jit
    def scale_rows(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
        pid_m, pid_n = tl.program_id(0), tl.program_id(1)
        block = in_desc.load([pid_m * BM, pid_n * BN])
        out_desc.store([pid_m * BM, pid_n * BN], block * 3)

    def set_blocks(nargs):
        nargs["in_desc"].block_shape = [nargs["BM"], nargs["BN"]]
        nargs["out_desc"].block_shape = [nargs["BM"], nargs["BN"]]

    configs = [tile.Config({"BM": bm, "BN": bn}, pre_hook=set_blocks)
               for bm, bn in ((32, 64), (64, 64), (128, 32))]
    checked = []
    x = torch.randn(300, 192, device="cuda", dtype=torch.float16)

    def check_each(kernel_call, quantiles):
        out.fill_(float("nan"))
        kernel_call()
        torch.testing.assert_close(out, x * 3)
        checked.append(True)
        return [1.0, 1.0, 1.0]

    tuned = tile.autotune(configs, key=[], do_bench=check_each)(scale_rows)
    out = poisoned((300, 192), torch.float16)
    # A placeholder block shape: each config's hook sets its own.
    a = tile.TensorDescriptor.from_tensor(x, [1, 16])
    b = tile.TensorDescriptor.from_tensor(out, [1, 16])
    tuned[lambda m: (triton_cdiv(300, m["BM"]), triton_cdiv(192, m["BN"]))](a, b)
    assert len(checked) == 3
    torch.testing.assert_close(out, x * 3)


def test_driver_queries_match_torch():
    target = driver.active.get_current_target()
    major, minor = torch.cuda.get_device_capability()
    assert target == ("cuda", major * 10 + minor, 32)
    props = driver.active.utils.get_device_properties(0)
    reference = torch.cuda.get_device_properties(0)
    assert props["multiprocessor_count"] == reference.multi_processor_count
    assert props["warpSize"] == 32
    assert props["max_shared_mem"] >= 227 * 1024 if major >= 9 else True
    assert props["max_num_regs"] == 65536
    assert props["sm_clock_rate"] > 0 and props["mem_clock_rate"] > 0
    assert props["mem_bus_width"] > 0
    assert driver.active.get_active_torch_device() == torch.device("cuda", 0)
    assert driver.active.get_current_stream() == \
        torch.cuda.current_stream().cuda_stream
    assert driver.active.get_benchmarker() is tile.testing.do_bench


def test_testing_helpers(tmp_path):
    x = torch.randn(1 << 20, device="cuda")
    out = torch.empty_like(x)

    def run():
        add_kernel[(1024,)](x, x, out, x.numel(), BLOCK=1024)

    # Peak rates from the driver's attributes: an H100 SXM is ~3.35 TB/s and
    # ~990 dense fp16 tensor TFLOPS at 1830 MHz (more at its top clock).
    props = driver.active.utils.get_device_properties(0)
    if torch.cuda.get_device_capability()[0] == 9:
        assert 2000 < tile.testing.get_dram_gbps() < 6000
        peak = tile.testing.get_max_tensorcore_tflops(torch.float16,
                                                      props["sm_clock_rate"])
        assert 700 < peak < 1500
        assert tile.testing.get_max_tensorcore_tflops(
            tl.float8e4nv, props["sm_clock_rate"]) == 2 * peak
        assert tile.testing.get_max_simd_tflops(
            torch.float32, props["sm_clock_rate"]) < peak / 10
    assert tile.testing.nvsmi(["clocks.max.sm"])[0] > 0

    graph_ms = tile.testing.do_bench_cudagraph(run)
    ms, low, high = tile.testing.do_bench(run, quantiles=[0.5, 0.2, 0.8])
    assert 0 < graph_ms < 1 and 0 < low <= ms <= high < 1

    @tile.testing.perf_report(tile.testing.Benchmark(
        x_names=["size"], x_vals=[1 << 12, 1 << 16], line_arg="provider",
        line_vals=["tile", "torch"], line_names=["tile", "torch"],
        plot_name="add", args={}, ylabel="GB/s"))
    def bench(size, provider):
        a = torch.randn(size, device="cuda")
        c = torch.empty_like(a)
        fn = (lambda: add_kernel[(triton_cdiv(size, 1024),)](
            a, a, c, size, BLOCK=1024)) if provider == "tile" else \
            (lambda: torch.add(a, a, out=c))
        return 3 * size * 4 / tile.testing.do_bench(fn) * 1e-6

    bench.run(save_path=str(tmp_path), print_data=True)
    csv = (tmp_path / "add.csv").read_text().splitlines()
    assert csv[0] == "size,tile,torch" and len(csv) == 3
    if _has_matplotlib():
        assert (tmp_path / "add.png").stat().st_size > 1000


def test_device_assert_needs_debug():
    @tile.jit
    def check_positive(x_ptr):
        tl.device_assert(tl.load(x_ptr) > 0, "x must be positive")

    x = torch.tensor([-1], dtype=torch.int32, device="cuda")
    # Without debug (Triton's default) the assert is not compiled in.
    check_positive[(1,)](x)
    torch.cuda.synchronize()


def triton_cdiv(a, b):
    return (a + b - 1) // b


def _has_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


if os.environ.get("TILE_GPU_RUNTIME_API_VERBOSE"):
    print(driver.active.utils.get_device_properties(0))


def test_launch_from_a_thread_without_a_context():
    # A new thread has no current CUDA context until something makes one;
    # the launch makes the device's primary context current and retries.
    import threading
    n = 4096
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = poisoned(n)
    from tile.runtime import launcher
    compiled = add_kernel.warmup(x, y, out, n, BLOCK=1024, grid=(4,))
    handle = launcher.load(compiled, 0)           # loaded on this thread
    torch.cuda.synchronize()
    errors = []

    def launch():
        try:
            tile._C.launch(handle, 4, 1, 1, 0, compiled.signature,
                           [x.data_ptr(), y.data_ptr(), out.data_ptr(), n])
        except Exception as e:   # reported below
            errors.append(e)

    thread = threading.Thread(target=launch)
    thread.start()
    thread.join()
    assert not errors, errors
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y)


def test_a_kernel_with_100_parameters_launches(tmp_path):
    from kernels import many_params
    kernel = many_params.kernel(str(tmp_path))
    values = torch.randn(many_params.COUNT, dtype=torch.float64).tolist()
    out = torch.full((32,), float("nan"), device="cuda")
    kernel[(1,)](out, *values, BLOCK=32)
    want = torch.tensor(many_params.expected(values, 32), dtype=torch.float64)
    torch.testing.assert_close(out.double().cpu(), want, rtol=1e-5, atol=1e-3)
