"""tile.AsyncCompileMode: warmups compile on an executor (Triton's name).

    with ThreadPoolExecutor(8) as pool, tile.AsyncCompileMode(pool):
        for config in configs:
            kernel.warmup(..., grid=(1,))   # submitted, returns a Future
        kernel[grid](...)                   # waits for its own compile only

A specialization is submitted once however often it is warmed up; a launch
that needs one still compiling waits for that future; the compiled kernel
enters the function's cache when its launch (or `__exit__`) collects it.
libtile compiles without the GIL, so a thread pool compiles in parallel.
"""

import concurrent.futures
import contextvars

# What a warmup under AsyncCompileMode returns (Triton's name).
FutureKernel = concurrent.futures.Future

_active = contextvars.ContextVar("tile_async_compile", default=None)


class AsyncCompileMode:
    def __init__(self, executor):
        self.executor = executor
        self.pending = {}   # (function id, key) -> (future, finalize)
        self._token = None

    def submit(self, key, compile_fn, finalize):
        if key not in self.pending:
            self.pending[key] = (self.executor.submit(compile_fn), finalize)
        return self.pending[key][0]

    def collect(self, key):
        """The compiled kernel of a submitted key (waiting for it), or None
        when it was never submitted."""
        entry = self.pending.pop(key, None)
        if entry is None:
            return None
        future, finalize = entry
        kernel = future.result()
        finalize(kernel)
        return kernel

    def __enter__(self):
        if _active.get() is not None:
            raise RuntimeError("AsyncCompileMode is already active")
        self._token = _active.set(self)
        return self

    def __exit__(self, *exc):
        _active.reset(self._token)
        for key in list(self.pending):
            future, _ = self.pending[key]
            if future.done() and future.exception() is None:
                self.collect(key)
        self.pending.clear()
        return False


def active_mode():
    return _active.get()
