"""Triton's sorting functions (`sort`, `topk`, `bitonic_merge`), written as
bitonic networks with tile.language builtins (composites: the interpreter
runs these bodies too).

Why a hypercube: a dimension of 2^k elements is viewed as k dimensions of 2,
one per bit of the index (the most significant first). The partner of an
element in a compare-and-swap on bit b is then its neighbour along one axis
of size 2, which a reduction over that axis reaches wherever the two sit
(a register of the same thread, a shuffle to another lane, the reduction's
scratch for another warp).
"""

import builtins

from tile.language import core
from tile.language import dtypes as d
from tile.language.semantic import SemanticError


def _sorted_axis(x, dim, what):
    """(shape, dim, bits) of the dimension `what` works along: a
    power-of-two extent of 2^bits."""
    # (A compiler tl.tensor or an interpreter Tensor: both have a type.)
    kind = getattr(x, "type", None)
    if kind is None or not kind.is_block():
        raise SemanticError("%s needs a block, got %r" % (what, core._unwrap(x)))
    shape = core._static_shape(x)
    rank = len(shape)
    dim = core._unwrap(dim)
    dim = rank - 1 if dim is None else dim
    if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
        raise SemanticError("%s: dim %r is out of range for a block of rank %d"
                            % (what, dim, rank))
    dim %= rank
    n = shape[dim]
    if n & (n - 1):
        raise SemanticError("%s needs a power-of-two extent along dim %d, "
                            "got %d" % (what, dim, n))
    if x.dtype.is_ptr():
        raise SemanticError("%s cannot order pointers" % what)
    return shape, dim, n.bit_length() - 1


class _Cube:
    """A block whose dimension `dim` is split into `bits` axes of 2; bit b
    of the index along `dim` is the axis `dim + bits - 1 - b`."""

    def __init__(self, value, dim, bits):
        self.value, self.dim, self.bits = value, dim, bits

    @classmethod
    def of(cls, x, shape, dim, bits):
        return cls(core.reshape(x, shape[:dim] + [2] * bits + shape[dim + 1:]),
                   dim, bits)

    def axis(self, bit):
        return self.dim + self.bits - 1 - bit

    def bit_mask(self, bit):
        """A boolean block, broadcastable to the cube, true where the
        index's bit `bit` is set."""
        rank = len(self.value.shape)
        ones = core.arange(0, 2)
        for axis in builtins.range(rank):
            if axis != self.axis(bit):
                ones = core.expand_dims(ones, axis)
        return ones == 1

    def compare_and_swap(self, bit, descending):
        """Orders each pair of elements that differ in `bit` only: the one
        with the bit clear gets the smaller value, unless `descending`
        (a bool, or a boolean block) is true there. Both elements of a
        pair decide from the same (low, high) values, so the network
        moves values and never duplicates or loses one, NaNs included."""
        x = self.value
        as_int = x
        if x.dtype.is_floating():
            as_int = x.to(d.dtype("int%d" % x.dtype.primitive_bitwidth),
                          bitcast=True)
        # The pair's xor, spread to both: xor with it gives the partner.
        partner_bits = as_int ^ core.xor_sum(as_int, self.axis(bit), keep_dims=True)
        partner = partner_bits.to(x.dtype, bitcast=True) \
            if x.dtype.is_floating() else partner_bits
        high = self.bit_mask(bit)
        low_value = core.where(high, partner, x)
        high_value = core.where(high, x, partner)
        # Strict comparisons both ways: ties and NaNs never swap.
        up, down = low_value > high_value, low_value < high_value
        if isinstance(descending, bool):
            swap = down if descending else up
        else:
            swap = core.where(descending, down, up)
        self.value = core.where(swap, partner, x)

    def merge(self, size_bits, descending):
        """Sorts each bitonic run of 2^size_bits elements (the runs along
        the low bits) in the direction `descending`."""
        for bit in builtins.range(size_bits - 1, -1, -1):
            self.compare_and_swap(bit, descending)

    def direction(self, stage, final):
        """Runs of 2^stage elements go up and down alternately, by the next
        bit of their index, until the last stage, which goes `final`."""
        return self.bit_mask(stage) if stage < self.bits else final

    def keep_best_half(self, bit, largest):
        """Of each pair of runs that differ in `bit` (one sorted up, one
        down), keeps the elementwise larger (or smaller) values: a bitonic
        run holding the best half of the two. The axis of `bit` goes."""
        reduce = core.max if largest else core.min
        self.value = reduce(self.value, self.axis(bit))
        self.bits -= 1

    def block(self, shape, dim):
        return core.reshape(self.value, shape[:dim] + [2 ** self.bits]
                            + shape[dim + 1:])


def _direction_flag(descending, what):
    value = core._unwrap(descending)
    if not isinstance(value, (bool, int)):
        raise SemanticError("%s: descending must be a compile-time bool, got %r"
                            % (what, value))
    return bool(value)


@core.builtin
def sort(x, dim=None, descending=False):
    """`x` sorted along `dim` (the last when None), ascending unless
    `descending`. The extent along `dim` must be a power of two. NaNs stay
    where the comparisons leave them (every comparison with one is false),
    as in Triton."""
    descending = _direction_flag(descending, "sort")
    shape, dim, bits = _sorted_axis(x, dim, "sort")
    cube = _Cube.of(x, shape, dim, bits)
    for stage in builtins.range(1, bits + 1):
        cube.merge(stage, cube.direction(stage, descending))
    return cube.block(shape, dim)


@core.builtin
def topk(x, k, dim=None, descending=True):
    """The `k` largest elements of `x` along `dim` (the last when None),
    largest first; with descending=False the `k` smallest, smallest first.
    `k` and the extent along `dim` must be powers of two, k <= extent.

    The runs of k are sorted, then halved in rounds: of two neighbouring
    runs, one sorted up and one down, the elementwise maxima are a bitonic
    run holding the larger k of the 2k, which one merge sorts again."""
    largest = _direction_flag(descending, "topk")
    shape, dim, bits = _sorted_axis(x, dim, "topk")
    k = core._unwrap(k)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1 or k & (k - 1) \
            or k > shape[dim]:
        raise SemanticError("topk: k must be a power of two from 1 to %d (the "
                            "extent along dim %d), got %r" % (shape[dim], dim, k))
    k_bits = k.bit_length() - 1
    cube = _Cube.of(x, shape, dim, bits)
    for stage in builtins.range(1, k_bits + 1):
        cube.merge(stage, cube.direction(stage, largest))
    while cube.bits > k_bits:
        cube.keep_best_half(k_bits, largest)
        cube.merge(k_bits, cube.direction(k_bits, largest))
    return cube.block(shape, dim)


@core.builtin
def bitonic_merge(x, dim=None, descending=False):
    """Sorts `x` along `dim` (the last when None) when that dimension is
    bitonic (rises then falls, or falls then rises, cyclically): the last
    stage of `sort` alone."""
    descending = _direction_flag(descending, "bitonic_merge")
    shape, dim, bits = _sorted_axis(x, dim, "bitonic_merge")
    cube = _Cube.of(x, shape, dim, bits)
    cube.merge(bits, descending)
    return cube.block(shape, dim)
