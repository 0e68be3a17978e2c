"""The program an interpreted kernel is running as: its id, the grid and
the memory it addresses. One per thread, while a launch runs."""

import threading

_state = threading.local()


class Program:
    def __init__(self, grid, memory):
        self.grid = grid
        self.pid = (0, 0, 0)
        self.memory = memory
        self.functions = {}  # JITFunction -> its function over rebound globals


def current():
    program = getattr(_state, "program", None)
    if program is None:
        raise RuntimeError("the tile interpreter is not running a kernel")
    return program


def enter(program):
    saved = getattr(_state, "program", None)
    _state.program = program
    return saved


def leave(saved):
    _state.program = saved
