"""The driver interface (triton.backends.driver): what `tile.runtime.driver`
hands out."""

import abc


class DriverBase(metaclass=abc.ABCMeta):

    @classmethod
    @abc.abstractmethod
    def is_active(cls):
        """Whether this driver's devices are usable here."""

    @abc.abstractmethod
    def get_current_target(self):
        """The GPUTarget kernels compile for now."""

    @abc.abstractmethod
    def get_active_torch_device(self):
        """The torch.device kernels run on now."""

    @abc.abstractmethod
    def get_benchmarker(self):
        """The function the autotuner times configs with."""


class GPUDriver(DriverBase):
    """A driver whose devices and streams are torch's."""

    def get_current_device(self):
        import torch
        return torch.cuda.current_device()

    def set_current_device(self, device):
        import torch
        torch.cuda.set_device(device)

    def get_current_stream(self, device=None):
        import torch
        if device is None:
            device = self.get_current_device()
        return torch.cuda.current_stream(device).cuda_stream

    def get_device_capability(self, device=None):
        import torch
        if device is None:
            device = self.get_current_device()
        return torch.cuda.get_device_capability(device)
