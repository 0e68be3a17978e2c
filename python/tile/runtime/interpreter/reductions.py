"""tl.dot, reductions, scans, histograms and Philox random numbers in the
interpreter. Reductions combine halves of the axis, the shape of the GPU's
reduction tree, so float sums round alike."""

import builtins

import numpy as np

from tile.language import dtypes as d
from tile.language import semantic as sem
from tile.runtime.interpreter import numbers
from tile.runtime.interpreter import tensor as T
from tile.runtime.interpreter.builtins import (_check_shape, _flag, builtin,
                                               full, reshape, umulhi)
from tile.runtime.interpreter.tensor import (SemanticError, Tensor,
                                             broadcast_to, cast, compare,
                                             lift, like, make, minmax,
                                             shape_of, unwrap)

# ----------------------------------------------------- dot and reductions

@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=None):
    a, c = lift(input), lift(other)
    precision = unwrap(input_precision)
    if precision is None and unwrap(allow_tf32) is not None:
        precision = "tf32" if unwrap(allow_tf32) else "ieee"
    precision, out, shape = sem.dot_types(a.type, c.type, precision,
                                          unwrap(out_dtype))
    at = a.type.scalar
    if at.is_int():
        product = np.matmul(a.data.astype(np.int64), c.data.astype(np.int64))
    else:
        x, y = a.data.astype(np.float64), c.data.astype(np.float64)
        if at == d.float32 and precision == "tf32":
            x, y = numbers.round_to(x, "tf32"), numbers.round_to(y, "tf32")
        product = np.matmul(x, y)
    acc = full(list(shape), 0, out) if acc is None else \
        broadcast_to(cast(lift(acc, out), unwrap(acc).type.scalar
                          if isinstance(unwrap(acc), Tensor) else out), shape)
    ty = acc.type.scalar
    with np.errstate(all="ignore"):
        if ty.is_int():
            total = (product + acc.data.astype(np.int64)).astype(numbers.compute_type(ty))
        else:
            total = numbers.to_float(product + acc.data.astype(np.float64), ty)
    return make(total, ty, shape)


def _tree_reduce(values, axis, combine):
    """Reduces same-shape Tensors along `axis` by combining halves, the
    shape of the GPU's reduction tree, so float results round alike."""
    while values[0].type.shape[axis] > 1:
        n = values[0].type.shape[axis] // 2
        lo = [_slice(v, axis, 0, n) for v in values]
        hi = [_slice(v, axis, n, 2 * n) for v in values]
        values = [cast(lift(r, v.type.scalar), v.type.scalar)
                  for r, v in zip(_as_list(combine(lo, hi)), lo)]
    return [_squeeze(v, axis) for v in values]


def _slice(v, axis, start, stop):
    index = [builtins.slice(None)] * len(v.type.shape)
    index[axis] = builtins.slice(start, stop)
    data = v.data[tuple(index)]
    return make(data, v.type.scalar, data.shape)


def _squeeze(v, axis):
    data = np.squeeze(v.data, axis=axis)
    return make(data, v.type.scalar, data.shape)


def _as_list(results):
    return list(results) if isinstance(results, (tuple, list)) else [results]


def _reduce(values, axis, combine, keep_dims):
    values = [lift(v) for v in values]
    axis = unwrap(axis)
    kept_rank = None
    if axis is None:
        # keep_dims over every axis keeps the rank, as compiled.
        if unwrap(keep_dims) and values[0].type.is_block():
            kept_rank = len(values[0].type.shape)
        values = [reshape(v, [v.type.numel]) if v.type.is_block() else v
                  for v in values]
        axis = 0
    for v in values:
        if not v.type.is_block():
            raise SemanticError("reductions need tensor operands")
    rank = len(values[0].type.shape)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError("axis %d is out of range for a %d-D tensor" % (axis, rank))
    outs = _tree_reduce(values, axis, combine)
    if kept_rank is not None:
        for _ in range(kept_rank):
            outs = [T.expand_dims(o, 0) for o in outs]
    elif unwrap(keep_dims):
        outs = [T.expand_dims(o, axis) for o in outs]
    return outs


def _add(lhs, rhs):
    return [T.binary("+", lhs[0], rhs[0])]


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    x = lift(input)
    x = cast(x, sem.sum_dtype(x.type.scalar, unwrap(dtype)))
    return _reduce([x], axis, _add, keep_dims)[0]


def _arg_reduce(input, axis, is_max, keep_dims):
    x = lift(input)
    axis = unwrap(axis)
    if axis is None:
        x = reshape(x, [x.type.numel])
        axis = 0
    shape = shape_of(x)
    if axis < 0:
        axis += len(shape)
    idx_shape = [1] * len(shape)
    idx_shape[axis] = shape[axis]
    idx = make(np.broadcast_to(np.arange(shape[axis], dtype=np.int32)
                               .reshape(idx_shape), shape), d.int32, shape)

    def combine(lhs, rhs):
        (va, ia), (vb, ib) = lhs, rhs
        better = compare(">" if is_max else "<", vb, va)
        tie = T.binary("&", compare("==", vb, va), compare("<", ib, ia))
        take = T.binary("|", better, tie)
        return [T.where(take, vb, va), T.where(take, ib, ia)]
    return tuple(_reduce([x, idx], axis, combine, keep_dims))


@builtin
def max(input, axis=None, return_indices=False,
        return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, return_indices, keep_dims, True)


@builtin
def min(input, axis=None, return_indices=False,
        return_indices_tie_break_left=True, keep_dims=False):
    return _minmax_reduce(input, axis, return_indices, keep_dims, False)


def _minmax_reduce(input, axis, return_indices, keep_dims, is_max):
    indices = _flag("return_indices", return_indices)
    x = lift(input)
    x = cast(x, sem.minmax_dtype(x.type.scalar, indices))
    if indices:
        return _arg_reduce(x, axis, is_max, keep_dims)
    return _reduce([x], axis, lambda l, r: [minmax(l[0], r[0], is_max)],
                   keep_dims)[0]


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    return _reduce([input], axis, lambda l, r: [T.binary("^", l[0], r[0])],
                   keep_dims)[0]


@builtin
def reduce_or(input, axis=None, keep_dims=False):
    return _reduce([input], axis, lambda l, r: [T.binary("|", l[0], r[0])],
                   keep_dims)[0]


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, True, keep_dims)[1]


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    return _arg_reduce(input, axis, False, keep_dims)[1]


def _user_combine(combine_fn, count):
    def combine(lhs, rhs):
        return _as_list(combine_fn(*(list(lhs) + list(rhs))))[:count]
    return combine


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    values = list(input) if isinstance(input, (tuple, list)) else [input]
    outs = _reduce(values, axis, _user_combine(combine_fn, len(values)), keep_dims)
    return tuple(outs) if isinstance(input, (tuple, list)) else outs[0]


def _scan(values, axis, combine, reverse):
    values = [lift(v) for v in values]
    for v in values:
        if not v.type.is_block():
            raise SemanticError("scans need tensor operands")
    rank = len(values[0].type.shape)
    axis = unwrap(axis)
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise SemanticError("axis %d is out of range for a %d-D tensor" % (axis, rank))
    n = values[0].type.shape[axis]
    order = list(builtins.range(n))
    if unwrap(reverse):
        order.reverse()
    outs = [v.data.copy() for v in values]
    index = [builtins.slice(None)] * rank
    running = None
    for i in order:
        index[axis] = builtins.slice(i, i + 1)
        current = [make(v.data[tuple(index)], v.type.scalar,
                        v.data[tuple(index)].shape) for v in values]
        if running is None:
            running = current
        else:
            running = [cast(lift(r), v.type.scalar) for r, v in
                       zip(_as_list(combine(running, current)), values)]
        for out, r in zip(outs, running):
            out[tuple(index)] = r.data
    return [make(o, v.type.scalar, o.shape) for o, v in zip(outs, values)]


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    x = lift(input)
    x = cast(x, sem.scan_dtype(x.type.scalar, unwrap(dtype)))
    return _scan([x], axis, _add, reverse)[0]


@builtin
def cumprod(input, axis=0, reverse=False):
    x = lift(input)
    x = cast(x, sem.scan_dtype(x.type.scalar, summing=False))
    return _scan([x], axis, lambda l, r: [T.binary("*", l[0], r[0])],
                 reverse)[0]


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    values = list(input) if isinstance(input, (tuple, list)) else [input]
    outs = _scan(values, axis, _user_combine(combine_fn, len(values)), reverse)
    return tuple(outs) if isinstance(input, (tuple, list)) else outs[0]


@builtin
def histogram(input, num_bins, mask=None):
    x = lift(input)
    bins = int(unwrap(num_bins))
    _check_shape([bins])
    if not x.type.is_block() or len(x.type.shape) != 1 or not x.type.scalar.is_int():
        raise SemanticError("histogram needs a 1-D integer tensor")
    values = x.data.astype(np.int64)
    keep = (values >= 0) & (values < bins)
    if unwrap(mask) is not None:
        m = lift(mask)
        if m.type.is_block() and list(m.type.shape) != list(x.type.shape):
            raise SemanticError("histogram's mask must have the input's "
                                "shape %s" % (list(x.type.shape),))
        keep &= np.broadcast_to(m.data.astype(bool), values.shape)
    values = values[keep]
    return make(np.bincount(values, minlength=bins).astype(np.int32), d.int32, (bins,))


