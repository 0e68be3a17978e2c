"""tile kernels inside torch.compile: a launch wrapped as a torch operator.

torch.compile cannot trace into `kernel[grid](...)`: the launch is a call
into tile's C++ dispatcher, so Dynamo would break the graph there (and
`fullgraph=True` would fail). A `torch.library` custom operator is opaque to
it instead: the compiled graph calls the operator, and a fake (meta)
implementation tells the compiler the outputs' shapes, dtypes and devices
without running anything. `custom_op` registers one in a single decorator.
"""


def custom_op(name, fn=None, *, fake, mutates_args=(), device_types="cuda",
              schema=None):
    """Registers `fn`, a Python function that launches tile kernels on torch
    tensors, as the operator `name` ("namespace::op_name") and returns it.

    `fake(*args)` builds empty outputs of the right shape, dtype and device
    (`torch.empty_like(x)`, `x.new_empty(...)`); it must not launch
    anything. `mutates_args` names the arguments the launch writes in place
    ("unknown" when it cannot be said). `fn` needs type annotations (as
    torch.library.custom_op requires) unless `schema` is given.

        @tile.custom_op("mylib::add", fake=lambda x, y: torch.empty_like(x))
        def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            out = torch.empty_like(x)
            add_kernel[(tile.cdiv(x.numel(), 1024),)](x, y, out, x.numel(),
                                                       BLOCK=1024)
            return out

        torch.compile(lambda x, y: add(x, y) * 2, fullgraph=True)
    """
    try:
        import torch
    except ImportError as error:
        raise ImportError("tile.custom_op needs torch (torch.library)") from error
    if not callable(fake):
        raise TypeError("tile.custom_op(%r): fake must be a function that "
                        "returns empty outputs" % (name,))

    def register(function):
        op = torch.library.custom_op(name, mutates_args=mutates_args,
                                     device_types=device_types,
                                     schema=schema)(function)
        op.register_fake(fake)
        return op

    return register if fn is None else register(fn)
