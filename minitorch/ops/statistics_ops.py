"""Statistics built from the reductions: NaN-skipping sums and means, std/var with the mean,
aminmax, counting, covariance and correlation, histograms.

Everything differentiable here is a composite of existing ops (the gradient
comes from theirs); the counting ops ("CountNonzero", "Bincount", "Histogram")
have no gradient in PyTorch and none here.
"""
import builtins

import numpy as np

from .. import dtypes
from ..engine.execute import execute
from ..errors import ShapeError
from ..tensor import Tensor
from . import return_types
from .coercion import as_operand, cast
from .comparison_ops import clamp, isnan, where
from .dims import normalize_dims, numpy_names
from .product_ops import matmul
from .reduction_ops import amax, amin, mean, sum, var
from .rows import op


def nansum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    """The sum with NaNs counted as zero (their gradient is zero). Built from "IsNan", "SelectV2" and "Sum".

    >>> mt.nansum(mt.tensor([1.0, float("nan"), 2.0]))
    tensor(3.)
    """
    dim, keepdim = numpy_names("nansum", dim, keepdim, axis, keepdims)
    if input._data.dtype.kind == "f":
        input = where(isnan(input), as_operand(np.zeros((), input._data.dtype)), input)
    return sum(input, dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    """The mean of the elements that are not NaN (NaN where all are). Built from `nansum` and a count.

    NaN elements get a zero gradient (PyTorch's is NaN where a whole slice is NaN).

    >>> mt.nanmean(mt.tensor([[1.0, float("nan")], [2.0, 4.0]]), dim=1)
    tensor([1., 3.])
    """
    dim, keepdim = numpy_names("nanmean", dim, keepdim, axis, keepdims)
    if dtype is not None:
        input = cast(input, dtype)
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got {input.dtype}")
    present = sum(~isnan(input), dim, keepdim)
    return nansum(input, dim, keepdim) / cast(present, input._data.dtype)


def var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None, axis=None, keepdims=None):
    """(var(x), mean(x)) over `dim`, as `var` and `mean` compute them (Bessel's correction by default).

    >>> mt.var_mean(mt.tensor([1.0, 2.0, 3.0, 4.0]))
    (tensor(1.6667), tensor(2.5000))
    """
    dim, keepdim = numpy_names("var_mean", dim, keepdim, axis, keepdims)
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


def std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None, axis=None, keepdims=None):
    """(std(x), mean(x)) over `dim` (Bessel's correction by default).

    >>> mt.std_mean(mt.tensor([1.0, 2.0, 3.0, 4.0]), correction=0)
    (tensor(1.1180), tensor(2.5000))
    """
    dim, keepdim = numpy_names("std_mean", dim, keepdim, axis, keepdims)
    variance, average = var_mean(input, dim, unbiased, keepdim, correction=correction)
    return variance.sqrt(), average


def aminmax(input, *, dim=None, keepdim=False, axis=None, keepdims=None):
    """The smallest and the largest elements, overall or along `dim`: a (min, max) pair (ties share
    the gradient, as `amin` and `amax`).

    >>> mt.aminmax(mt.tensor([[1.0, 5.0], [4.0, 2.0]]), dim=1)
    aminmax(min=tensor([1., 2.]), max=tensor([5., 4.]))
    """
    dim, keepdim = numpy_names("aminmax", dim, keepdim, axis, keepdims)
    if input.numel() == 0:
        raise RuntimeError(f"aminmax(): cannot compute aminmax over an empty tensor (shape {input.shape})")
    if dim is None:
        return return_types.aminmax(amin(input, keepdim=keepdim), amax(input, keepdim=keepdim))
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    return return_types.aminmax(amin(input, dim, keepdim), amax(input, dim, keepdim))


def count_nonzero(input, *dims, dim=None, axis=None):
    """How many elements are not zero, overall or over `dim` (int64). Runs the "CountNonzero" op (not differentiable).

    >>> mt.count_nonzero(mt.tensor([[0.0, 1.0], [2.0, 3.0]]), dim=0)
    tensor([1, 2])
    """
    if dims not in ((), (None,)):
        if dim is not None:
            raise TypeError("count_nonzero(): dim given both by position and as dim=")
        dim = dims[0] if len(dims) == 1 else dims
    dim, _ = numpy_names("count_nonzero", dim, False, axis, None)
    return execute("CountNonzero", (input,), {"axis": normalize_dims(dim, input.ndim, "count_nonzero")})


# ----- covariance and correlation -----

def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of `x` (observations in the columns),
    with frequency and/or reliability weights, as PyTorch's composite (aten/src/ATen/native/Correlation.cpp).

    >>> mt.cov(mt.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    if input.ndim > 2:
        raise ShapeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions")
    if input._data.dtype.kind != "f":
        input = cast(input, dtypes.default_float.numpy)
    rows = input.reshape(1, -1) if input.ndim < 2 else input
    observations = rows.shape[1]
    weights = None
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is None:
            continue
        w = as_operand(w)
        if w.ndim > 1 or w.shape[0] != observations:
            raise ShapeError(f"cov(): expected {name} to have one dimension of size {observations}, got shape {tuple(w.shape)}")
        if name == "fweights" and w._data.dtype.kind not in "iu":
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got {w.dtype}")
        if (w._data < 0).any():
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = cast(w, input._data.dtype)
        weights = w if weights is None else weights * w
    if weights is None:
        total = observations
        average = rows.mean(dim=1, keepdim=True)
    else:
        total = weights.sum()
        average = (rows * weights).sum(dim=1, keepdim=True) / total
    if weights is not None and aweights is not None and correction != 0:
        normalizer = total - correction * (weights * cast(as_operand(aweights), input._data.dtype)).sum() / total
    else:
        normalizer = total - correction
    if isinstance(normalizer, Tensor):
        normalizer = clamp(normalizer, min=0)
    else:
        normalizer = builtins.max(normalizer, 0)
    centered = rows - average
    covariance = matmul(centered, (centered if weights is None else centered * weights).t()) / normalizer
    return covariance.squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of `x` (clipped to [-1, 1]).

    >>> mt.corrcoef(mt.tensor([[0.0, 1.0, 2.0], [0.0, 2.0, 4.5]]))
    tensor([[1.0000, 0.9979],
            [0.9979, 1.0000]])
    """
    covariance = cov(input)
    if covariance.ndim == 0:
        return covariance / covariance
    rows = np.arange(covariance.shape[0])
    spread = covariance[rows, rows].sqrt()
    return clamp(covariance / spread.reshape(-1, 1) / spread.reshape(1, -1), -1, 1)


# ----- counting and histograms (no gradient) -----


def _bincount(x, *weights, minlength):
    counts = np.bincount(x, weights=weights[0] if weights else None, minlength=minlength)
    if not weights:
        return counts.astype(np.int64)
    return counts.astype(weights[0].dtype if weights[0].dtype in (np.float32, np.float64) else np.float64)


def _histogram(points, *weights, edges, density):
    """np.histogramdd of the rows of `points` over the bin `edges` (one array per column), in points' dtype."""
    counts, _ = np.histogramdd(points, bins=list(edges), weights=weights[0] if weights else None, density=density)
    return counts.astype(points.dtype)


op("CountNonzero", lambda x, axis: np.asarray(np.count_nonzero(x, axis=axis), dtype=np.int64))
op("Bincount", _bincount)
op("Histogram", _histogram)


def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in the 1-D non-negative integer tensor `x` (or the sum of
    `weights` at its positions): int64 counts, or the weights' dtype (float32 stays float32, other
    weights give float64, as PyTorch). Runs the "Bincount" op (not differentiable).

    >>> mt.bincount(mt.tensor([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    """
    if input.ndim != 1 or input._data.dtype.kind not in "iu" or (input._data < 0).any():
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs (got shape {tuple(input.shape)}, {input.dtype})")
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, got {minlength}")
    inputs = (input,) if weights is None else (input, as_operand(weights))
    if len(inputs) == 2 and inputs[1].shape != input.shape:
        raise RuntimeError(f"bincount: weights should be 1-d and have the same length as input "
                           f"({tuple(inputs[1].shape)} vs {tuple(input.shape)})")
    return execute("Bincount", inputs, {"minlength": int(minlength)})


def _even_edges(values, bins, low, high, dtype):
    """bins + 1 equal-width edges over [low, high] (the data's range when not given; widened by 1/2
    each side when empty), computed in `dtype` as PyTorch does."""
    if low is None:
        low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    if low == high:
        low, high = low - 0.5, high + 0.5
    return np.linspace(low, high, int(bins) + 1, dtype=dtype)


def _histogram_of(name, points, edges, weight, density):
    """Runs "Histogram" on the rows of the numpy `points`' tensor over `edges` (numpy arrays, one per column)."""
    inputs = (points,)
    if weight is not None:
        weight = as_operand(weight)
        if weight.numel() != points.shape[0]:
            raise RuntimeError(f"{name}(): weight should have the same shape as the input's points ({tuple(weight.shape)})")
        inputs += (weight.reshape(-1),)
    return execute("Histogram", inputs, {"edges": tuple(edges), "density": bool(density)})


def _require_histogram_input(x, name):
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f"{name}: \"histogram_cpu\" not implemented for '{x.dtype}'")


def histc(input, bins=100, min=0, max=0):
    """A histogram of `x` in `bins` equal bins between `min` and `max` (the data's range when both are 0);
    elements outside are ignored. Floating tensors only. Runs the "Histogram" op (not differentiable).

    >>> mt.histc(mt.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    _require_histogram_input(input, "histc")
    if bins <= 0:
        raise RuntimeError(f"histc: bins must be > 0, got {bins}")
    low, high = float(min), float(max)
    if low == high and input.numel() > 0:
        low, high = float(input._data.min()), float(input._data.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError(f"histc: max must be larger than min (got min={min}, max={max})")
    edges = np.linspace(low, high, int(bins) + 1, dtype=input._data.dtype)
    return _histogram_of("histc", input.reshape(-1, 1), [edges], None, False)


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """A histogram of `x`: `bins` equal bins over `range` (the data's range by default), or the bin edges
    given as a 1-D tensor; a (hist, bin_edges) pair. Optional `weight` per element and `density`
    (the histogram integrates to 1). Runs the "Histogram" op (not differentiable).

    >>> mt.histogram(mt.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
    histogram(hist=tensor([0., 2., 1., 0.]), bin_edges=tensor([0.0000, 0.7500, 1.5000, 2.2500, 3.0000]))
    """
    _require_histogram_input(input, "histogram")
    if isinstance(bins, Tensor):
        if bins.ndim != 1:
            raise RuntimeError(f"histogram(): bins tensor should have one dimension, but got {bins.ndim}")
        edges = bins._data.astype(input._data.dtype)
    else:
        if bins <= 0:
            raise RuntimeError(f"histogram(): bins must be > 0, but got {bins}")
        low, high = (None, None) if range is None else range
        edges = _even_edges(input._data, bins, low, high, input._data.dtype)
    hist = _histogram_of("histogram", input.reshape(-1, 1), [edges], weight, density)
    return return_types.histogram(hist, as_operand(edges))


def histogramdd(input, bins, range=None, weight=None, density=False):
    """A D-dimensional histogram of the points in the rows of `x` (..., D): `bins` per dimension (an int,
    a list of ints, or a list of 1-D edge tensors), `range` as [min_0, max_0, min_1, max_1, ...];
    a (hist, bin_edges) pair with one edge tensor per dimension. Runs "Histogram" (not differentiable).

    >>> mt.histogramdd(mt.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]), bins=2).hist
    tensor([[0., 1.],
            [1., 1.]])
    """
    _require_histogram_input(input, "histogramdd")
    if input.ndim < 2:
        raise RuntimeError(f"histogramdd: input should have at least 2 dimensions, but got {input.ndim}")
    points = input.reshape(-1, input.shape[-1])
    dims = points.shape[1]
    if isinstance(bins, (int, np.integer)):
        bins = [int(bins)] * dims
    if len(bins) != dims:
        raise RuntimeError(f"histogramdd: expected {dims} sequences of bin edges or counts, got {len(bins)}")
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b._data.astype(input._data.dtype))
        else:
            low, high = (None, None) if range is None else (float(range[2 * d]), float(range[2 * d + 1]))
            edges.append(_even_edges(points._data[:, d], b, low, high, input._data.dtype))
    hist = _histogram_of("histogramdd", points, edges, weight, density)
    return return_types.histogramdd(hist, tuple(as_operand(e) for e in edges))
