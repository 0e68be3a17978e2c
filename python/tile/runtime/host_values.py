"""Values a kernel computes from its launch arguments, recomputed on the host.

`tl.make_tensor_descriptor` in a kernel records how its base, shape and
strides follow from the kernel's parameters (a recipe of nested lists, kept
in the kernel's metadata); at launch the launcher evaluates the recipe and
encodes the CUtensorMap, which the kernel receives as a trailing parameter.
The evaluation follows the kernel's integer semantics: every intermediate
wraps to its IR type, division and remainder truncate toward zero.

Recipe forms:
  ["arg", name]                       a kernel parameter
  ["const", value]                    an integer constant
  ["int", op, bits, signed, lhs, rhs] integer arithmetic
  ["cast", bits, signed, value]       an integer conversion
  ["addptr", element_bytes, ptr, offset]
"""

from tile.runtime.tensor_map import encode_tensor_map, tma_element


def _wrap(value, bits, signed):
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _divide(x, y, remainder):
    if y == 0:
        raise ZeroDivisionError("integer division by zero")
    q = abs(x) // abs(y)
    if (x < 0) != (y < 0):
        q = -q
    return x - q * y if remainder else q


_OPS = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "//": lambda x, y: _divide(x, y, False),
    "%": lambda x, y: _divide(x, y, True),
    "&": lambda x, y: x & y,
    "|": lambda x, y: x | y,
    "^": lambda x, y: x ^ y,
    "<<": lambda x, y: x << y,
    ">>": lambda x, y: x >> y,
}


def _address(value):
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return interface["data"][0]
    return int(value)


def evaluate(recipe, args):
    """The value of `recipe` for the bound arguments `args` (name -> value);
    pointers evaluate to addresses."""
    kind = recipe[0]
    if kind == "arg":
        value = args[recipe[1]]
        for index in recipe[2:]:     # an item of a tuple argument
            value = value[index]
        if isinstance(value, bool):
            return int(value)
        return value if isinstance(value, int) else _address(value)
    if kind == "const":
        return recipe[1]
    if kind == "int":
        _, op, bits, signed, lhs, rhs = recipe
        x, y = evaluate(lhs, args), evaluate(rhs, args)
        if op == ">>" and not signed:
            x &= (1 << bits) - 1
        return _wrap(_OPS[op](x, y), bits, signed)
    if kind == "cast":
        _, bits, signed, value = recipe
        return _wrap(evaluate(value, args), bits, signed)
    if kind == "addptr":
        _, size, ptr, offset = recipe
        return (evaluate(ptr, args) + size * evaluate(offset, args)) & (2**64 - 1)
    raise ValueError("tile: unknown host recipe %r" % (recipe,))


def _arguments(recipe):
    """The kernel parameters a recipe reads, for error messages."""
    if recipe[0] == "arg":
        return [recipe[1]]
    names = []
    for part in recipe[1:]:
        if isinstance(part, list):
            names += [n for n in _arguments(part) if n not in names]
    return names


class KernelDescriptor:
    """A descriptor made by `tl.make_tensor_descriptor`, ready to encode."""

    __slots__ = ("dtype", "address", "shape", "strides", "block_shape")

    def __init__(self, recipe, args):
        self.dtype = recipe["dtype"]
        self.address = evaluate(recipe["base"], args)
        self.shape = [evaluate(s, args) for s in recipe["shape"]]
        self.strides = [evaluate(s, args) for s in recipe["strides"]]
        self.block_shape = list(recipe["block_shape"])
        self._check(recipe)

    def _check(self, recipe):
        names = _arguments(recipe["base"])
        where = "argument '%s'" % names[0] if names else "the base"
        site = "the descriptor made at %s" % recipe.get("site", "?")
        size = tma_element(self.dtype)[0]
        if self.address % 16:
            raise ValueError("%s: %s needs a 16-byte aligned base, got 0x%x"
                             % (where, site, self.address))
        if any(s <= 0 for s in self.shape):
            raise ValueError("%s: %s has shape %s; dimensions must be positive"
                             % (where, site, self.shape))
        if self.strides[-1] != 1:
            raise ValueError("%s: %s needs a contiguous last dimension (stride "
                             "1), got strides %s" % (where, site, self.strides))
        for s in self.strides[:-1]:
            if s <= 0 or s * size % 16:
                raise ValueError("%s: %s has strides %s; they must be positive "
                                 "multiples of 16 bytes (elements of %d bytes)"
                                 % (where, site, self.strides, size))
        if recipe.get("stored") and self.shape[-1] * size % 16:
            raise ValueError(
                "%s: the kernel stores through %s, whose rows (%d elements of "
                "%d bytes) are not a multiple of 16 bytes: a TMA store would "
                "write past each row's end; pad the rows or store with "
                "pointers" % (where, site, self.shape[-1], size))

    def encode(self):
        return encode_tensor_map(self.dtype, self.address, self.shape,
                                 self.strides, self.block_shape)

    def __repr__(self):
        return "KernelDescriptor(0x%x, shape=%s, strides=%s, block_shape=%s, %s)" % (
            self.address, self.shape, self.strides, self.block_shape, self.dtype)


def descriptors(recipes, args):
    """The trailing descriptor arguments of a launch."""
    return [KernelDescriptor(recipe, args) for recipe in recipes]
