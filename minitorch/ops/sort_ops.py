"""Sorting and order statistics: sort, argsort, topk, kthvalue, median, mode, quantile, unique.

The order is found by the op "ArgSort" (numpy's stable argsort: NaN sorts above
every number, as in PyTorch; not differentiable), and the values are read at
the chosen positions with `take_along` ("GatherNd"), so the gradient goes back
to exactly the elements picked (PyTorch's value_selecting_reduction_backward). The median of a whole
tensor is one op, "Median", whose gradient is shared evenly among the elements
equal to it (PyTorch's evenly_distribute_backward), like max's. unique and
unique_consecutive are not differentiable (PyTorch has no derivative for them).
"""
import numpy as np

from ..engine.execute import execute
from ..tensor import Tensor
from . import return_types
from .coercion import as_operand
from .comparison_ops import where
from .dims import numpy_names, one_dim, take_along
from .reduction_ops import extremum_grad
from .rows import TRANSPOSE, op


def _sorted_order(a, axis, descending=False):
    """The stable order of the numpy array `a` along `axis` (NaN largest); descending keeps equal
    elements in their original order too."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    flip = (slice(None),) * axis + (slice(None, None, -1),)
    return (a.shape[axis] - 1 - np.argsort(a[flip], axis=axis, kind="stable"))[flip]


def _argsort(x, axis, descending):
    return _sorted_order(x, axis, descending) if x.ndim else np.zeros((), np.int64)


def _argmode(x, axis):
    """The last index of the most frequent value (the smallest of equally frequent ones) along `axis`, kept."""
    a = np.moveaxis(x, axis, -1)
    s = np.sort(a, axis=-1)
    n = s.shape[-1]
    positions = np.arange(n)
    edge = np.ones(s.shape[:-1] + (1,), bool)
    starts = np.concatenate([edge, s[..., 1:] != s[..., :-1]], axis=-1)
    ends = np.concatenate([s[..., 1:] != s[..., :-1], edge], axis=-1)
    run_start = np.maximum.accumulate(np.where(starts, positions, 0), axis=-1)
    run_end = np.minimum.accumulate(np.where(ends, positions, n)[..., ::-1], axis=-1)[..., ::-1]
    value = np.take_along_axis(s, np.argmax(run_end - run_start, axis=-1)[..., None], axis=-1)
    last = n - 1 - np.argmax((a == value)[..., ::-1], axis=-1)[..., None]
    return np.moveaxis(last, -1, axis)


op("ArgSort", _argsort)
op("ArgMode", _argmode)


def _order_of(x, axis, descending=False):
    """The stable order of `x` along `axis`. Runs the "ArgSort" op."""
    return execute("ArgSort", (x,), {"axis": axis, "descending": bool(descending)})


def _finish(x, indices, axis, keepdim, result_type):
    """The values at `indices` (a kept-dims int64 array) along `axis`, and the indices (both without
    the `axis` dimension unless `keepdim`)."""
    if not keepdim:
        indices = indices.squeeze(axis)
    return result_type(take_along(x, indices, axis, kept=keepdim), as_operand(indices))


def _scalar_result(x, result_type):
    return result_type(take_along(x, None, 0), as_operand(np.zeros((), np.int64)))


def sort(input, dim=-1, descending=False, *, stable=False, axis=None):
    """The elements sorted along `dim` and where each came from: a (values, indices) pair.

    The sort is always stable (equal elements keep their order; `stable=` is accepted);
    NaN sorts above every number, as in PyTorch. The gradient goes back to the source
    positions. Runs "GatherNd".

    >>> mt.sort(mt.tensor([3.0, 1.0, 2.0]))
    sort(values=tensor([1., 2., 3.]), indices=tensor([1, 2, 0]))
    >>> mt.tensor([[3, 1, 2]]).sort(dim=1, descending=True).indices
    tensor([[0, 2, 1]])
    """
    dim, _ = numpy_names("sort", dim, False, axis, None, -1)
    if input.ndim == 0:
        return _scalar_result(input, return_types.sort)
    axis = one_dim(dim, input.ndim, "sort")
    order = _order_of(input, axis, descending)
    return return_types.sort(take_along(input, order._data, axis), order)


def argsort(input, dim=-1, descending=False, *, stable=False, axis=None):
    """The indices that sort `x` along `dim` (stable; NaN largest). Runs the "ArgSort" op (not differentiable).

    >>> mt.argsort(mt.tensor([3.0, 1.0, 2.0]), descending=True)
    tensor([0, 2, 1])
    """
    dim, _ = numpy_names("argsort", dim, False, axis, None, -1)
    return _order_of(input, one_dim(dim, input.ndim, "argsort"), descending)


def msort(input):
    """The elements sorted along the first dimension (`sort(x, dim=0).values`).

    >>> mt.msort(mt.tensor([[2.0, 1.0], [0.0, 3.0]]))
    tensor([[0., 1.],
            [2., 3.]])
    """
    return sort(input, dim=0).values


def topk(input, k, dim=-1, largest=True, sorted=True, *, axis=None):
    """The `k` largest (or, with `largest=False`, smallest) elements along `dim` and their indices,
    largest first. Ties keep their order. The gradient goes back to the picked elements. Runs "GatherNd".

    >>> mt.topk(mt.tensor([1.0, 5.0, 3.0, 4.0]), 2)
    topk(values=tensor([5., 4.]), indices=tensor([1, 3]))
    """
    dim, _ = numpy_names("topk", dim, False, axis, None, -1)
    size = input.shape[one_dim(dim, input.ndim, "topk")] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"topk: selected index k out of range (k={k}, dimension of size {size})")
    if input.ndim == 0:
        return _scalar_result(input, return_types.topk)
    axis = one_dim(dim, input.ndim, "topk")
    order = _order_of(input, axis, descending=largest)._data[(slice(None),) * axis + (slice(0, k),)]
    return _finish(input, order, axis, True, return_types.topk)


def _pick(x, dim, keepdim, name, position, result_type):
    """The element at sorted `position` (a function of the sorted numpy slices and the axis) along `dim`."""
    if x.ndim == 0:
        return _scalar_result(x, result_type)
    axis = one_dim(dim, x.ndim, name)
    if x.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size (shape {x.shape})")
    order = _order_of(x, axis)._data
    positions = position(np.take_along_axis(x._data, order, axis), axis)
    return _finish(x, np.take_along_axis(order, positions, axis), axis, keepdim, result_type)


def kthvalue(input, k, dim=-1, keepdim=False, *, axis=None, keepdims=None):
    """The k-th smallest element (k from 1) along `dim` and its index. The gradient goes to that element.

    >>> mt.kthvalue(mt.tensor([3.0, 1.0, 2.0, 5.0]), 2)
    kthvalue(values=tensor(2.), indices=tensor(2))
    """
    dim, keepdim = numpy_names("kthvalue", dim, keepdim, axis, keepdims, -1)
    size = input.shape[one_dim(dim, input.ndim, "kthvalue")] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim} (k={k}, size {size})")
    return _pick(input, dim, keepdim, "kthvalue", lambda s, axis: np.full(s.shape[:axis] + (1,) + s.shape[axis + 1:], k - 1),
                 return_types.kthvalue)


def _median_position(ignore_nan):
    """The sorted position of the lower median of each slice: NaNs (sorted last) propagate, or are skipped."""
    def position(sorted_values, axis):
        n = sorted_values.shape[axis]
        kept = sorted_values.shape[:axis] + (1,) + sorted_values.shape[axis + 1:]
        nans = np.isnan(sorted_values).sum(axis=axis, keepdims=True) if sorted_values.dtype.kind == "f" else 0
        chosen = np.maximum(n - nans - 1, 0) // 2 if ignore_nan else np.where(nans > 0, n - nans, (n - 1) // 2)
        return np.broadcast_to(chosen, kept).astype(np.int64)
    return position


def _median(x, axis, keepdims, ignore_nan):
    """The lower median of all elements (NaN if any is NaN, unless `ignore_nan`: then of the others)."""
    values = x.ravel()
    if x.dtype.kind == "f":
        missing = np.isnan(values)
        if ignore_nan:
            values = values[~missing]
        elif missing.any():
            return np.array(np.nan, x.dtype)
    if values.size == 0:
        return np.array(np.nan, x.dtype)
    middle = (values.size - 1) // 2
    return np.partition(values, middle)[middle]


op("Median", _median, extremum_grad, needs="both", jvp=TRANSPOSE)


def _median_of(x, dim, keepdim, ignore_nan, name, result_type):
    if dim is None:
        return execute("Median", (x,), {"axis": None, "keepdims": False, "ignore_nan": ignore_nan})
    return _pick(x, dim, keepdim, name, _median_position(ignore_nan), result_type)


def median(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """The lower median (no averaging of the two middle values), as PyTorch: of all elements
    (runs the "Median" op; ties share the gradient), or along `dim` with its index. NaN propagates.

    >>> mt.median(mt.tensor([4.0, 1.0, 3.0, 2.0]))
    tensor(2.)
    >>> mt.tensor([[4.0, 1.0, 3.0], [0.0, 9.0, 5.0]]).median(dim=1)
    median(values=tensor([3., 5.]), indices=tensor([2, 2]))
    """
    dim, keepdim = numpy_names("median", dim, keepdim, axis, keepdims)
    return _median_of(input, dim, keepdim, False, "median", return_types.median)


def nanmedian(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """The lower median of the elements that are not NaN (NaN where all are), like `median`.

    >>> mt.nanmedian(mt.tensor([4.0, float("nan"), 1.0, 3.0]))
    tensor(3.)
    """
    dim, keepdim = numpy_names("nanmedian", dim, keepdim, axis, keepdims)
    return _median_of(input, dim, keepdim, True, "nanmedian", return_types.nanmedian)


def mode(input, dim=-1, keepdim=False, *, axis=None, keepdims=None):
    """The most frequent value along `dim` (the smallest of equally frequent ones) and the last index
    where it occurs, as PyTorch. Runs "ArgMode" and "GatherNd": the gradient goes to that element.

    >>> mt.mode(mt.tensor([1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 5.0]))
    mode(values=tensor(1.), indices=tensor(5))
    """
    dim, keepdim = numpy_names("mode", dim, keepdim, axis, keepdims, -1)
    if input.ndim == 0:
        return _scalar_result(input, return_types.mode)
    axis = one_dim(dim, input.ndim, "mode")
    if input.shape[axis] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size (shape {input.shape})")
    return _finish(input, execute("ArgMode", (input,), {"axis": axis})._data, axis, keepdim, return_types.mode)


# ----- quantiles -----

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x, q, dim, keepdim, interpolation, ignore_nan, name):
    """PyTorch's quantile_compute (aten/src/ATen/native/Sorting.cpp): ranks q (n - 1) into the sorted
    slice, rounded as `interpolation` says, and the values below and above blended (lerp)."""
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype, got {x.dtype}")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{name}() interpolation must be one of {', '.join(_INTERPOLATIONS)}. Got {interpolation!r}")
    scalar_q = not isinstance(q, Tensor) or q.ndim == 0
    if isinstance(q, Tensor):
        if q._data.dtype != x._data.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor (got {q.dtype} and {x.dtype})")
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor, got {q.ndim} dimensions")
        q = q.reshape(-1)
    else:
        q = as_operand(np.array([q], x._data.dtype))
    if ((q._data < 0) | (q._data > 1)).any():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    source = x.reshape(-1) if dim is None or x.ndim == 0 else x
    axis = 0 if dim is None or x.ndim == 0 else one_dim(dim, x.ndim, name)
    if source.shape[axis] == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    moved = source.permute(*[d for d in range(source.ndim) if d != axis], axis)  # the slices last
    a = moved._data
    order = _order_of(moved, moved.ndim - 1)._data
    missing = np.isnan(a)
    last = a.shape[-1] - 1
    q = q.reshape((q.shape[0],) + (1,) * a.ndim)
    if ignore_nan:  # the rank follows q (a gradient for q, as PyTorch's), except where it is clamped
        ranks = q * as_operand(((~missing).sum(axis=-1, keepdims=True) - 1).astype(a.dtype))
        ranks = where(ranks < 0, as_operand(np.zeros((), a.dtype)), ranks)
    else:
        ranks = where(as_operand(missing.any(axis=-1, keepdims=True)), as_operand(np.array(last, a.dtype)), q * last)
    rounded = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}.get(interpolation)
    if rounded is not None:
        ranks = as_operand(rounded(ranks._data))
    below = np.floor(ranks._data).astype(np.int64)

    def values_at(ranked):  # [Q, ..., 1] sorted positions -> the values there, [Q, ...]
        picked = np.take_along_axis(np.broadcast_to(order, ranked.shape[:-1] + order.shape[-1:]), ranked, axis=-1)
        gathered = take_along(moved, np.moveaxis(picked[..., 0], 0, -1), moved.ndim - 1)
        return gathered.permute(gathered.ndim - 1, *range(gathered.ndim - 1))

    result = values_at(below)
    if interpolation in ("linear", "midpoint"):
        if interpolation == "midpoint":
            weights = as_operand(np.full(ranks.shape[:-1], 0.5, a.dtype))
        else:
            weights = (ranks - as_operand(below.astype(a.dtype))).squeeze(-1)
        upper = values_at(np.ceil(ranks._data).astype(np.int64))
        result = where(weights < 0.5, result + weights * (upper - result), upper - (upper - result) * (1 - weights))
    if keepdim:
        kept = (1,) * x.ndim if dim is None else x.shape[:axis] + (1,) + x.shape[axis + 1:]
        result = result.reshape((result.shape[0],) + kept)
    return result.squeeze(0) if scalar_q else result


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", axis=None, keepdims=None):
    """The q-th quantiles of `x` (of all elements, or along `dim`); a 1-D `q` adds a first dimension.
    NaN in a slice gives NaN. Built from "GatherNd" and arithmetic, so the gradient goes to the
    (one or two) elements each quantile is read from.

    >>> mt.quantile(mt.tensor([1.0, 2.0, 3.0, 4.0]), 0.5)
    tensor(2.5000)
    >>> mt.quantile(mt.tensor([[0.0, 1.0], [2.0, 5.0]]), mt.tensor([0.25, 1.0]), dim=1)
    tensor([[0.2500, 2.7500],
            [1.0000, 5.0000]])
    """
    dim, keepdim = numpy_names("quantile", dim, keepdim, axis, keepdims)
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", axis=None, keepdims=None):
    """`quantile` of the elements that are not NaN (NaN where all are).

    >>> mt.nanquantile(mt.tensor([1.0, float("nan"), 3.0]), 0.5)
    tensor(2.)
    """
    dim, keepdim = numpy_names("nanquantile", dim, keepdim, axis, keepdims)
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


# ----- unique -----

def _unique(x, axis):
    """Sorted distinct elements (axis None) or slices along `axis`, where each element went, and counts."""
    if axis is None:
        values, inverse, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        return values, inverse.reshape(x.shape).astype(np.int64), counts.astype(np.int64)
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=axis, equal_nan=False)
    return values, inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)


def _unique_consecutive(x, axis):
    """Runs of equal consecutive elements (axis None, flattened) or slices along `axis`: one of each,
    the run of every element, the runs' lengths."""
    a = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
    if a.shape[0] == 0:
        empty = np.zeros(0, np.int64)
        return (a if axis is None else x), (empty.reshape(x.shape) if axis is None else empty), empty
    changed = (a[1:] != a[:-1]).reshape(a.shape[0] - 1, -1).any(axis=1)
    starts = np.flatnonzero(np.concatenate([[True], changed]))
    values = a[starts] if axis is None else np.moveaxis(a[starts], 0, axis)
    inverse = np.cumsum(np.concatenate([[0], changed])).astype(np.int64)
    counts = np.diff(np.append(starts, a.shape[0])).astype(np.int64)
    return values, (inverse.reshape(x.shape) if axis is None else inverse), counts


op("Unique", _unique)
op("UniqueConsecutive", _unique_consecutive)


def _unique_result(op_name, x, dim, return_inverse, return_counts):
    axis = None if dim is None else one_dim(dim, x.ndim, op_name)
    values, inverse, counts = execute(op_name, (x,), {"axis": axis})
    out = (values,) + ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return out[0] if len(out) == 1 else out


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or, with `dim`, distinct slices along `dim`), sorted; optionally where
    each element went (`return_inverse`) and how often each occurs (`return_counts`). NaNs stay
    distinct, as in PyTorch. Runs the "Unique" op (not differentiable).

    >>> mt.unique(mt.tensor([3, 1, 3, 2]))
    tensor([1, 2, 3])
    >>> mt.unique(mt.tensor([3, 1, 3]), return_inverse=True, return_counts=True)
    (tensor([1, 3]), tensor([1, 0, 1]), tensor([1, 2]))
    """
    return _unique_result("Unique", input, dim, return_inverse, return_counts)


def unique_consecutive(x, return_inverse=False, return_counts=False, dim=None):
    """Runs of equal consecutive elements (or slices along `dim`) collapsed to one; optionally the run
    each element belongs to (`return_inverse`) and the runs' lengths (`return_counts`). Runs the
    "UniqueConsecutive" op (not differentiable).

    >>> mt.unique_consecutive(mt.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 2]))
    """
    return _unique_result("UniqueConsecutive", x, dim, return_inverse, return_counts)
