"""Counter-based random numbers: Philox-4x32 with 10 rounds (Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3", SC'11).

`seed` (a 32- or 64-bit scalar) is the key, `offset` (usually a block of
element indices) the counter, so each element's stream is reproducible and
independent of how the work is split over programs."""

from tile.language import core
from tile.language import dtypes as d
from tile.language import semantic as sem

# The Weyl increments of the key and the round multipliers from the paper.
_KEY_STEP = (0x9E3779B9, 0xBB67AE85)
_MULTIPLIER = (0xD2511F53, 0xCD9E8D57)
ROUNDS = 10


def _u32(x):
    return x.to(d.uint32, bitcast=x.dtype.primitive_bitwidth == 32) \
        if x.dtype.primitive_bitwidth == 32 else x.to(d.uint32)


def _philox(seed, c0, c1, c2, c3, rounds):
    seed = core.tensor(sem.lift(core.current_builder(), core._raw(seed)))
    if not seed.dtype.is_int():
        raise sem.SemanticError("the seed must be an integer, got %s" % seed.dtype)
    seed64 = seed.to(d.uint64)
    k0 = (seed64 & 0xFFFFFFFF).to(d.uint32)
    k1 = ((seed64 >> 32) & 0xFFFFFFFF).to(d.uint32)
    for _ in range(rounds):
        prev0, prev2 = c0, c2
        c0 = core.umulhi(prev2, _MULTIPLIER[1]) ^ c1 ^ k0
        c2 = core.umulhi(prev0, _MULTIPLIER[0]) ^ c3 ^ k1
        c1 = prev2 * _MULTIPLIER[1]
        c3 = prev0 * _MULTIPLIER[0]
        k0 = k0 + _KEY_STEP[0]
        k1 = k1 + _KEY_STEP[1]
    return c0, c1, c2, c3


def _counter(offset):
    b = core.current_builder()
    offset = core.tensor(sem.lift(b, core._raw(offset)))
    if not offset.dtype.is_int():
        raise sem.SemanticError("the offset must be an integer, got %s" % offset.dtype)
    c0 = _u32(offset)
    zero = core.zeros_like(c0)
    return c0, zero


def _uniform(x):
    """A uint32 to a float32 in [0, 1): keep 31 bits through the sign-folded
    int32, scaled by 2^-31 (never 1.0)."""
    i = x.to(d.int32, bitcast=True)
    i = core.where(i < 0, -i - 1, i)
    return i.to(d.float32) * 4.6566127342e-10


@core.builtin
def randint4x(seed, offset, n_rounds=ROUNDS):
    c0, zero = _counter(offset)
    return _philox(seed, c0, zero, zero, zero, int(core._unwrap(n_rounds)))


@core.builtin
def randint(seed, offset, n_rounds=ROUNDS):
    return randint4x(seed, offset, n_rounds)[0]


@core.builtin
def rand(seed, offset, n_rounds=ROUNDS):
    return _uniform(randint(seed, offset, n_rounds))


@core.builtin
def rand4x(seed, offset, n_rounds=ROUNDS):
    return tuple(_uniform(x) for x in randint4x(seed, offset, n_rounds))


@core.builtin
def randn(seed, offset, n_rounds=ROUNDS):
    """A standard normal sample by the Box-Muller transform."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    u1 = core.maximum(_uniform(i1), 1.0e-7)
    u2 = _uniform(i2)
    radius = core.sqrt(-2.0 * core.log(u1))
    return radius * core.cos(6.283185307179586 * u2)
