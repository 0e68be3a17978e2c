"""The memory an interpreted kernel reads and writes: the buffers of its
arguments, addressed by their real host addresses.

A pointer in the interpreter is a uint64 address, as on the GPU, so pointer
arithmetic, casts to int64 and comparisons behave the same. Every access is
checked against the argument buffers: an address outside all of them is an
error naming the program, where the GPU would fault or read garbage.
"""

import ctypes

import numpy as np

from tile.runtime.interpreter import numbers


class InterpreterError(RuntimeError):
    """A kernel did something the GPU would fault on (or leave undefined)
    while running in the interpreter."""


class _Region:
    __slots__ = ("start", "end", "bytes", "owner")

    def __init__(self, start, size, owner):
        self.start = start
        self.end = start + size
        self.owner = owner  # keeps the memory alive
        buffer = (ctypes.c_uint8 * size).from_address(start) if size else None
        self.bytes = (np.ctypeslib.as_array(buffer) if size else
                      np.zeros(0, np.uint8))


class Memory:
    def __init__(self):
        self.regions = []
        self._starts = None
        self._device_copies = []  # (device storage, host copy) to write back

    # ------------------------------------------------------------ arguments
    def address_of(self, name, value):
        """The host address standing for tensor-like argument `value`,
        registering the memory around it."""
        if hasattr(value, "untyped_storage") and hasattr(value, "data_ptr"):
            return self._torch_address(value)
        if isinstance(value, np.ndarray):
            root = value
            while isinstance(root.base, np.ndarray):
                root = root.base
            lo, hi = _byte_bounds(root)
            self._add(lo, hi - lo, root)
            return int(value.__array_interface__["data"][0])
        raise TypeError("argument '%s': the interpreter takes numpy arrays and "
                        "torch tensors, got %s" % (name, type(value).__name__))

    def _torch_address(self, t):
        storage = t.untyped_storage()
        base = storage.data_ptr()
        offset = t.data_ptr() - base
        if t.device.type != "cpu":
            for device, host in self._device_copies:
                if device.data_ptr() == base:
                    break
            else:
                host = storage.cpu()
                self._device_copies.append((storage, host))
                self._add(host.data_ptr(), host.nbytes(), host)
            return host.data_ptr() + offset
        self._add(base, storage.nbytes(), storage)
        return base + offset

    def _add(self, start, size, owner):
        for r in self.regions:
            if r.start == start and r.end == start + size:
                return
        self.regions.append(_Region(start, size, owner))
        self.regions.sort(key=lambda r: r.start)
        self._starts = np.array([r.start for r in self.regions], np.uint64)

    def finish(self):
        """Copies what the kernel wrote back to the GPU tensors it was given."""
        for device, host in self._device_copies:
            device.copy_(host)
        self._device_copies = []

    # --------------------------------------------------------------- access
    def _locate(self, addresses, size, what):
        """The region index of each address, checking the whole element is
        inside it and aligned."""
        if not self.regions:
            raise InterpreterError("%s through a pointer, but the kernel was "
                                   "given no tensors" % what)
        idx = np.searchsorted(self._starts, addresses, side="right").astype(np.int64) - 1
        ends = np.array([r.end for r in self.regions], np.uint64)
        inside = idx >= 0
        safe = np.where(inside, idx, 0)
        inside &= addresses + np.uint64(size) <= ends[safe]
        if not inside.all():
            bad = int(addresses[~inside][0])
            raise InterpreterError(
                "%s out of bounds: address 0x%x is outside every tensor passed "
                "to the kernel" % (what, bad))
        if size > 1 and (addresses % np.uint64(size)).any():
            bad = int(addresses[(addresses % np.uint64(size)) != 0][0])
            raise InterpreterError("%s at misaligned address 0x%x (elements of "
                                   "%d bytes)" % (what, bad, size))
        return safe

    def _byte_index(self, addresses, size, what):
        regions = self._locate(addresses, size, what)
        lanes = np.arange(size, dtype=np.int64)
        for r in np.unique(regions):
            sel = regions == r
            region = self.regions[r]
            offsets = (addresses[sel] - np.uint64(region.start)).astype(np.int64)
            yield sel, region, offsets[:, None] + lanes

    def read(self, addresses, ty, what="load"):
        """Elements of scalar type `ty` at flat uint64 `addresses`."""
        size = numbers.element_size(ty)
        raw = np.zeros((len(addresses), size), np.uint8)
        for sel, region, index in self._byte_index(addresses, size, what):
            raw[sel] = region.bytes[index]
        bits = raw.view(numbers.storage_type(ty)).reshape(len(addresses))
        return numbers.decode(bits, ty)

    def write(self, addresses, values, ty, what="store"):
        size = numbers.element_size(ty)
        bits = np.ascontiguousarray(numbers.encode(values, ty)).reshape(len(addresses))
        raw = bits.view(np.uint8).reshape(len(addresses), size)
        for sel, region, index in self._byte_index(addresses, size, what):
            region.bytes[index] = raw[sel]


def _byte_bounds(array):
    try:
        from numpy.lib.array_utils import byte_bounds
    except ImportError:  # numpy < 2
        byte_bounds = np.byte_bounds
    return byte_bounds(array)
