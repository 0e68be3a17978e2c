"""Loading and launching compiled kernels (triton.runtime's names)."""

from tile.runtime.autotuner import (Autotuner, Config, Heuristics,
                                    KernelInterface, autotune, heuristics)
from tile.runtime.driver import driver
from tile.runtime.errors import InterpreterError, OutOfResources
from tile.runtime.jit import JITFunction
from tile.runtime.reinterpret import TensorWrapper, reinterpret
from tile.runtime.specialization import MockTensor

__all__ = ["driver", "Config", "Heuristics", "autotune", "heuristics",
           "JITFunction", "KernelInterface", "OutOfResources",
           "InterpreterError", "Autotuner", "MockTensor", "TensorWrapper",
           "reinterpret"]
