"""tile.runtime.driver: the active driver, as `triton.runtime.driver`.

`driver.active` is created on first use, so importing tile touches no GPU.
Device queries go to the CUDA driver through libtile (cuDeviceGetAttribute,
cuFuncGetAttribute); devices and streams are torch's.
"""

import collections

from tile import _C
from tile.backends.driver import GPUDriver
from tile.language import target_info
from tile.runtime import benchmarking

GPUTarget = collections.namedtuple("GPUTarget", ["backend", "arch",
                                                 "warp_size"])


class CudaUtils:
    """`driver.active.utils`."""

    def get_device_properties(self, device):
        """max_shared_mem, max_num_regs, multiprocessor_count, warpSize,
        sm_clock_rate, mem_clock_rate (kHz) and mem_bus_width (bits) of
        device `device`, from the CUDA driver."""
        _require_driver()
        properties = dict(_C.device_properties(int(device)))
        properties.pop("capability", None)
        return properties

    def load_binary(self, name, cubin, shared, device):
        """(module, function, n_regs, n_spills, n_max_threads) of `cubin`'s
        kernel `name` loaded on `device`."""
        _require_driver()
        handle = _C.load_kernel(cubin, name, shared, 128, device)
        registers, local_bytes, max_threads = _C.kernel_attributes(handle)
        return (handle.module, handle.function, registers, local_bytes // 4,
                max_threads)


def _require_driver():
    ok, why = _C.driver_available()
    if not ok:
        raise RuntimeError("tile: no CUDA driver: %s" % why)


class CudaDriver(GPUDriver):
    backend = "cuda"

    def __init__(self):
        self.utils = CudaUtils()

    @classmethod
    def is_active(cls):
        return _C.driver_available()[0]

    def get_current_target(self):
        """GPUTarget("cuda", 90, 32) on an H100: the current device's
        compute capability as one number."""
        _require_driver()
        major, minor = _C.device_properties(self.get_current_device())[
            "capability"]
        return GPUTarget("cuda", major * 10 + minor, 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cuda", self.get_current_device())

    def get_current_device(self):
        try:
            return super().get_current_device()
        except ImportError:
            return 0

    def get_benchmarker(self):
        return benchmarking.do_bench

    def get_empty_cache_for_benchmark(self):
        """A buffer as large as the L2 cache (and then some): writing it
        between timed runs evicts what the last run left there."""
        import torch
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32,
                           device="cuda")

    def clear_cache(self, cache):
        cache.zero_()

    def map_python_to_cpp_type(self, ty):
        return {"i1": "int8_t", "i8": "int8_t", "i16": "int16_t",
                "i32": "int32_t", "i64": "int64_t", "u1": "uint8_t",
                "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t",
                "u64": "uint64_t", "fp16": "double", "bf16": "double",
                "fp32": "double", "f32": "double", "fp64": "double"}.get(
                    ty, "CUdeviceptr" if ty.startswith("*") else ty)


class DriverConfig:
    """`driver.active` (created on first use), `driver.default`,
    `set_active(driver)` and `reset_active()`."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self):
        if self._default is None:
            self._default = CudaDriver()
        return self._default

    @property
    def active(self):
        if self._active is None:
            self._active = self.default
        return self._active

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = self.default


driver = DriverConfig()
# tl.target_info's compile-time tests ask the active driver.
target_info.set_target_query(lambda: driver.active.get_current_target())

__all__ = ["driver", "CudaDriver", "DriverConfig", "GPUTarget"]
