"""Stand-ins for the launch-path tests: a tensor-like object and a launcher
that records instead of running."""


class FakeTensor:
    """What the launch path needs of a torch tensor."""

    def __init__(self, ptr, dtype="torch.float32", is_cuda=True):
        self._ptr, self.dtype, self.is_cuda = ptr, dtype, is_cuda
        self.device = "cuda:0" if is_cuda else "cpu"

    def data_ptr(self):
        return self._ptr


class Recorder:
    """A launcher that keeps (kernel, grid, args) of every launch."""

    def __init__(self):
        self.launches = []

    def launch(self, kernel, grid, args):
        self.launches.append((kernel, grid, args))
