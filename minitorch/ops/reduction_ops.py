"""Reductions and softmax: each op's numpy kernel, then its gradient, then its forward rule.

`axis` is a tuple of dimensions or None (all), `keepdims` a bool, as numpy
takes them. A reduced gradient is reshaped to the kept-dims shape and
broadcast back over the reduced dimensions.
"""
import builtins
import math
import warnings

import numpy as np
from scipy.special import logsumexp as _scipy_logsumexp

from .. import dtypes
from ..engine.backprop import broadcast_axes, sum_to_shape
from ..engine.execute import execute
from ..tensor import Tensor
from . import return_types
from .coercion import cast
from .comparison_ops import isnan, maximum, minimum
from .dims import normalize_dims, numpy_names, one_dim, take_along
from .exponential_ops import exp
from .rows import TRANSPOSE, linear, op
from .scan_ops import cumulative


def _kept_shape(shape, axis):
    """The shape of a reduction over `axis` with keepdims=True."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


def _unreduce(grad, op):
    """Reshapes a reduction's gradient so it broadcasts against the input."""
    if op.attrs["keepdims"]:
        return grad
    return execute("Reshape", (grad,), {"shape": _kept_shape(op.input_shapes[0], op.attrs["axis"])})


def _broadcast_back(grad, op):
    return execute("BroadcastTo", (_unreduce(grad, op),), {"shape": op.input_shapes[0]})


# The reductions call the ufuncs' reduce themselves (np.sum calls the same, through a
# Python frame of numpy's): numpy's overflow warnings then come from this file, where
# the op table's warning filter silences them as PyTorch is silent (engine/registry.py).


def _sum(x, axis, keepdims):
    return np.add.reduce(x, axis=axis, keepdims=keepdims)


def _sum_grad(op, grad):
    """d sum(x) = sum(dx): the gradient is broadcast back over the summed axes."""
    return _broadcast_back(grad, op)


op("Sum", _sum, _sum_grad, needs="nothing", jvp=linear)


def _mean(x, axis, keepdims):
    """np.mean's arithmetic (float16 summed in float32, integers in float64); the mean of
    nothing is nan, without np.mean's "Mean of empty slice" warning."""
    count = x.size if axis is None else int(math.prod([x.shape[i] for i in axis]))
    accumulate = np.float32 if x.dtype == np.float16 else np.float64 if x.dtype.kind in "biu" else None
    mean = np.true_divide(np.add.reduce(x, axis=axis, dtype=accumulate, keepdims=keepdims), count)
    return mean.astype(np.float16) if x.dtype == np.float16 else mean


def _mean_grad(op, grad):
    """d mean(x) = mean(dx): the gradient is broadcast back and divided by the count."""
    shape, axis = op.input_shapes[0], op.attrs["axis"]
    count = int(math.prod([shape[i] for i in axis] if axis is not None else shape))
    return _broadcast_back(grad, op) / builtins.max(count, 1)


op("Mean", _mean, _mean_grad, needs="nothing", jvp=linear)


def _prod(x, axis, keepdims):
    return np.multiply.reduce(x, axis=axis, keepdims=keepdims)


def _prod_grad(op, grad):
    """d prod(x) / dx_k = prod_{i != k} x_i: the product of the elements before k times that of
    those after k, two exclusive cumprods (exact with zeros; TensorFlow's _ProdGrad)."""
    x = op.inputs[0]
    if x.ndim == 0:
        return grad
    axis = op.attrs["axis"]
    reduced = tuple(range(x.ndim)) if axis is None else axis
    perm = [d for d in range(x.ndim) if d not in reduced] + list(reduced)
    moved = x.permute(*perm)
    count = int(math.prod([x.shape[d] for d in reduced]))
    rows = moved.reshape(moved.shape[: x.ndim - len(reduced)] + (count,))
    return _unreduce(grad, op) * products_of_others(rows).reshape(moved.shape).permute(*np.argsort(perm))


op("Prod", _prod, _prod_grad, needs="inputs", jvp=TRANSPOSE)


def products_of_others(rows):
    """prod_{i != k} x_i for each k along the last axis, without division (exact with zeros): the
    exclusive cumprods from both ends, multiplied.

    >>> from minitorch.ops.reduction_ops import products_of_others
    >>> products_of_others(mt.tensor([2.0, 0.0, 3.0]))
    tensor([0., 6., 0.])
    """
    return _exclusive_cumprod(rows, False) * _exclusive_cumprod(rows, True)


def _exclusive_cumprod(rows, reverse):
    """prod_{i<k} x_i (or prod_{i>k} with `reverse`) along the last axis: the cumprod shifted by one, a 1 first."""
    n = rows.shape[-1]
    if n == 0:
        return rows
    last = rows.ndim - 1
    products = cumulative("Cumprod", rows, last, reverse)
    kept, into, first = (slice(1, None), slice(None, -1), -1) if reverse else (slice(None, -1), slice(1, None), 0)
    shifted = execute("StridedSliceGrad", (products[..., kept],), {"shape": rows.shape, "index": (Ellipsis, into)})
    one_first = np.zeros(n, rows._data.dtype)
    one_first[first] = 1
    return shifted + Tensor._make(one_first)


def _max(x, axis, keepdims):
    return np.max(x, axis=axis, keepdims=keepdims)


def _min(x, axis, keepdims):
    return np.min(x, axis=axis, keepdims=keepdims)


def extremum_grad(op, grad):
    """d max(x) = dx at the maximum, shared evenly among the elements equal to it (NaN counting as
    equal to a NaN result), min and median likewise: PyTorch's evenly_distribute_backward.

    >>> x = mt.tensor([1.0, 3.0, 3.0], requires_grad=True)
    >>> x.max().backward()
    >>> x.grad
    tensor([0.0000, 0.5000, 0.5000])
    """
    x = op.inputs[0]
    value = _unreduce(op.outputs[0], op)
    chosen = x == value
    if x._data.dtype.kind == "f" and np.isnan(op.outputs[0]._data).any():
        chosen = chosen | (isnan(x) & isnan(value))
    chosen = chosen.to(grad.dtype)
    count = chosen.sum(dim=op.attrs["axis"], keepdim=True)
    return _unreduce(grad, op) * chosen / count


op("Max", _max, extremum_grad, needs="both", jvp=TRANSPOSE)
op("Min", _min, extremum_grad, needs="both", jvp=TRANSPOSE)


def _logsumexp(x, axis, keepdims):
    return _scipy_logsumexp(x, axis=axis, keepdims=keepdims).astype(x.dtype, copy=False)


def _logsumexp_grad(op, grad):
    """d logsumexp(x) / dx = softmax(x) = exp(x - logsumexp(x))."""
    x = op.inputs[0]
    return _unreduce(grad, op) * (x - _unreduce(op.outputs[0], op)).exp()


def _logsumexp_jvp(inputs, outputs, attrs, tangents):
    """d logsumexp(x) = sum(softmax(x) dx)."""
    x, t = inputs[0], tangents[0]
    out = outputs[0]
    kept = out if attrs["keepdims"] else execute("Reshape", (out,), {"shape": _kept_shape(x.shape, attrs["axis"])})
    return execute("Sum", (exp(x - kept) * t,), {"axis": attrs["axis"], "keepdims": attrs["keepdims"]})


op("LogSumExp", _logsumexp, _logsumexp_grad, needs="both", jvp=_logsumexp_jvp)


def _softmax(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def _softmax_grad(op, grad):
    """dx = y (g - sum(g y))."""
    y = op.outputs[0]
    return y * (grad - (grad * y).sum(dim=op.attrs["axis"], keepdim=True))


def _softmax_jvp(inputs, outputs, attrs, tangents):
    """dy = y (dx - sum(y dx))."""
    y, t = outputs[0], tangents[0]
    return y * (t - execute("Sum", (y * t,), {"axis": attrs["axis"], "keepdims": True}))


op("Softmax", _softmax, _softmax_grad, needs="outputs", jvp=_softmax_jvp)


def _log_softmax(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _log_softmax_grad(op, grad):
    """dx = g - exp(y) sum(g)."""
    y = op.outputs[0]
    return grad - y.exp() * grad.sum(dim=op.attrs["axis"], keepdim=True)


def _log_softmax_jvp(inputs, outputs, attrs, tangents):
    """dy = dx - sum(softmax(x) dx), softmax(x) = exp(y)."""
    y, t = outputs[0], tangents[0]
    return t - execute("Sum", (exp(y) * t,), {"axis": attrs["axis"], "keepdims": True})


op("LogSoftmax", _log_softmax, _log_softmax_grad, needs="outputs", jvp=_log_softmax_jvp)


op("ArgMax", lambda x, axis, keepdims: np.argmax(x, axis=axis, keepdims=keepdims))
op("ArgMin", lambda x, axis, keepdims: np.argmin(x, axis=axis, keepdims=keepdims))
op("All", lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims))
op("Any", lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims))


# ----- the functional API -----
# Every function with a `dim` also takes PyTorch's numpy-style aliases `axis=` and `keepdims=`.

def _reduce(op_name, x, dim, keepdim):
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None  # PyTorch: an empty list of dims reduces over all of them
    axis = normalize_dims(dim, x.ndim, op_name)
    return execute(op_name, (x,), {"axis": axis, "keepdims": bool(keepdim)})


def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    """The sum of all elements, or over `dim`. Runs the "Sum" op (integers and bools sum as int64).

    >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mt.sum(x)
    tensor(10.)
    >>> x.sum(dim=0)
    tensor([4., 6.])
    >>> x.sum(axis=1, keepdims=True)
    tensor([[3.],
            [7.]])
    """
    dim, keepdim = numpy_names("sum", dim, keepdim, axis, keepdims)
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "bui":
        input = input.to(dtypes.int64)  # PyTorch sums integers and bools as int64
    return _reduce("Sum", input, dim, keepdim)


def sum_to_size(x, *sizes, size=None):
    """`x` summed down to `size`, a shape that broadcasts to x's: the sum that undoes broadcasting
    (what the engine does to every gradient of a broadcasting op). Runs "Sum" and "Reshape".

    >>> mt.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    """
    if size is None:
        size = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
    size = tuple(size)
    if broadcast_axes(tuple(x.shape), size) is None:
        raise RuntimeError(f"sum_to_size: size {list(size)} is not expandable to size {list(x.shape)}")
    return x if tuple(x.shape) == size else sum_to_shape(x, size, "sum_to_size")


def mean(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    """The mean of all elements, or over `dim` (floating dtypes only). Runs the "Mean" op.

    >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mt.mean(x)
    tensor(2.5000)
    >>> x.mean(dim=1, keepdim=True)
    tensor([[1.5000],
            [3.5000]])
    """
    dim, keepdim = numpy_names("mean", dim, keepdim, axis, keepdims)
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"Mean: could not infer output dtype. Input dtype must be floating point, got {input.dtype}")
    return _reduce("Mean", input, dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    """The product of all elements, or over one `dim` (integers and bools multiply as int64). Runs the "Prod" op.

    The gradient is exact where elements are zero (products of the others, no division).

    >>> mt.prod(mt.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
    tensor([ 2., 12.])
    """
    dim, keepdim = numpy_names("prod", dim, keepdim, axis, keepdims)
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "bui":
        input = cast(input, dtypes.int64)
    return _reduce("Prod", input, dim, keepdim)


def _extremum(op_name, x, dim, keepdim, result_type):
    """max/min: over everything, the value (ties share the gradient, as PyTorch's evenly_distribute_backward);
    along `dim`, the values at the first arg-extremum, which alone gets the gradient (PyTorch's
    value_selecting_reduction_backward); with a tensor, the elementwise form."""
    if isinstance(dim, Tensor):
        return (maximum if op_name == "Max" else minimum)(x, dim)
    if dim is None:
        if x.numel() == 0:
            raise RuntimeError(f"{op_name}: expected a non-empty tensor, got shape {x.shape}")
        return _reduce(op_name, x, None, False)
    axis = one_dim(dim, x.ndim, op_name)
    if x.ndim and x.shape[axis] == 0:
        raise IndexError(f"{op_name}: cannot reduce over dimension {dim} of size 0 (shape {x.shape})")
    indices = _arg_extremum("Arg" + op_name, x, axis, keepdim)
    return result_type(take_along(x, indices._data, axis, kept=keepdim or not x.ndim), indices)


def max(input, dim=None, keepdim=False, *, other=None, axis=None, keepdims=None):
    """The largest value; with `dim`, a (values, indices) pair as PyTorch; with a tensor, the elementwise maximum. Runs the "Max" op (and "ArgMax").

    >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    >>> mt.max(x)
    tensor(5.)
    >>> x.max(dim=1)
    max(values=tensor([5., 4.]), indices=tensor([1, 0]))
    """
    dim, keepdim = numpy_names("max", dim, keepdim, axis, keepdims)
    return _extremum("Max", input, dim if other is None else other, keepdim, return_types.max)


def min(input, dim=None, keepdim=False, *, other=None, axis=None, keepdims=None):
    """The smallest value; with `dim`, a (values, indices) pair as PyTorch; with a tensor, the elementwise minimum. Runs the "Min" op (and "ArgMin").

    >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    >>> mt.min(x)
    tensor(1.)
    >>> values, indices = x.min(dim=0)
    >>> values, indices
    (tensor([1., 2.]), tensor([0, 1]))
    """
    dim, keepdim = numpy_names("min", dim, keepdim, axis, keepdims)
    return _extremum("Min", input, dim if other is None else other, keepdim, return_types.min)


def amax(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    """The largest values over `dim` (all dimensions by default; no indices; ties share the gradient). Runs the "Max" op.

    >>> mt.amax(mt.tensor([[1.0, 5.0], [4.0, 2.0]]), dim=0)
    tensor([4., 5.])
    """
    dim, keepdim = numpy_names("amax", None if dim == () else dim, keepdim, axis, keepdims)
    return _reduce("Max", input, dim, keepdim)


def amin(input, dim=(), keepdim=False, *, axis=None, keepdims=None):
    """The smallest values over `dim` (all dimensions by default; no indices; ties share the gradient). Runs the "Min" op.

    >>> mt.amin(mt.tensor([[1.0, 5.0], [4.0, 2.0]]), dim=0)
    tensor([1., 2.])
    """
    dim, keepdim = numpy_names("amin", None if dim == () else dim, keepdim, axis, keepdims)
    return _reduce("Min", input, dim, keepdim)


def _arg_extremum(op_name, x, dim, keepdim):
    if dim is None:
        flat = execute(op_name, (x.reshape(-1),), {"axis": 0, "keepdims": False})
        return flat.reshape((1,) * x.ndim) if keepdim else flat
    return execute(op_name, (x,), {"axis": normalize_dims(dim, x.ndim, op_name)[0] if x.ndim else None,
                                   "keepdims": keepdim})


def argmax(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """The index of the largest value (of the flattened tensor, or along `dim`). Runs the "ArgMax" op.

    >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    >>> mt.argmax(x)
    tensor(1)
    >>> x.argmax(dim=1)
    tensor([1, 0])
    """
    dim, keepdim = numpy_names("argmax", dim, keepdim, axis, keepdims)
    return _arg_extremum("ArgMax", input, dim, keepdim)


def argmin(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """The index of the smallest value (of the flattened tensor, or along `dim`). Runs the "ArgMin" op.

    >>> mt.argmin(mt.tensor([[1.0, 5.0], [4.0, 2.0]]), dim=0, keepdim=True)
    tensor([[0, 1]])
    """
    dim, keepdim = numpy_names("argmin", dim, keepdim, axis, keepdims)
    return _arg_extremum("ArgMin", input, dim, keepdim)


def all(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """True if every element is true (nonzero), overall or along `dim`. Runs the "All" op.

    >>> mt.all(mt.tensor([[True, False], [True, True]]), dim=1)
    tensor([False,  True])
    """
    dim, keepdim = numpy_names("all", dim, keepdim, axis, keepdims)
    return _reduce("All", input, dim, keepdim)


def any(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """True if some element is true (nonzero), overall or along `dim`. Runs the "Any" op.

    >>> mt.any(mt.tensor([[True, False], [False, False]]), dim=1)
    tensor([ True, False])
    """
    dim, keepdim = numpy_names("any", dim, keepdim, axis, keepdims)
    return _reduce("Any", input, dim, keepdim)


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None, axis=None, keepdims=None):
    """Variance with Bessel's correction by default (`correction=1`), as PyTorch. Built from "Mean", "Sub", "Mul", "Sum" and "RealDiv".

    `var(x, False)` reads the bool as `unbiased`, as PyTorch's overload does.

    >>> mt.var(mt.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor(1.6667)
    >>> mt.var(mt.tensor([1.0, 2.0, 3.0, 4.0]), correction=0)
    tensor(1.2500)
    """
    dim, keepdim = numpy_names("var", dim, keepdim, axis, keepdims)
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"var: input dtype should be floating point, got {input.dtype}")
    if correction is None:
        correction = 1 if unbiased else 0
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    axis = normalize_dims(dim, input.ndim, "Var")
    count = input.numel() if axis is None else int(math.prod([input.shape[i] for i in axis]))
    if count - correction <= 0:
        warnings.warn("var(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=2)
    centered = input - input.mean(dim=axis, keepdim=True)
    return (centered * centered).sum(dim=axis, keepdim=keepdim) / builtins.max(count - correction, 0)


def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None, axis=None, keepdims=None):
    """Standard deviation: the square root of `var` (Bessel's correction by default, as PyTorch).

    >>> mt.std(mt.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor(1.2910)
    """
    dim, keepdim = numpy_names("std", dim, keepdim, axis, keepdims)
    return var(input, dim, unbiased, keepdim, correction=correction).sqrt()


def logsumexp(input, dim=None, keepdim=False, *, axis=None, keepdims=None):
    """log(sum(exp(x))) over `dim`, computed stably. Runs the "LogSumExp" op.

    >>> mt.logsumexp(mt.tensor([[0.0, 0.0], [1.0, 1.0]]), dim=1)
    tensor([0.6931, 1.6931])
    """
    dim, keepdim = numpy_names("logsumexp", dim, keepdim, axis, keepdims)
    if dim is None:
        raise TypeError("logsumexp() missing required argument 'dim'")
    if input._data.dtype.kind != "f":
        input = cast(input, dtypes.default_float.numpy)
    return _reduce("LogSumExp", input, dim, keepdim)


def softmax(input, dim=None, dtype=None, *, axis=None):
    """exp(x) / sum(exp(x)) along `dim`. Runs the "Softmax" op.

    >>> mt.softmax(mt.tensor([[1.0, 1.0], [0.0, 2.0]]), dim=1)
    tensor([[0.5000, 0.5000],
            [0.1192, 0.8808]])
    """
    dim, _ = numpy_names("softmax", dim, False, axis, None)
    if dim is None:
        raise TypeError("softmax() missing required argument 'dim'")
    if dtype is not None:
        input = input.to(dtype)
    return execute("Softmax", (input,), {"axis": normalize_dims(dim, input.ndim, "Softmax") or ()})


def log_softmax(input, dim=None, dtype=None, *, axis=None):
    """log(softmax(x)) along `dim`, computed stably. Runs the "LogSoftmax" op.

    >>> mt.log_softmax(mt.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
    """
    dim, _ = numpy_names("log_softmax", dim, False, axis, None)
    if dim is None:
        raise TypeError("log_softmax() missing required argument 'dim'")
    if dtype is not None:
        input = input.to(dtype)
    return execute("LogSoftmax", (input,), {"axis": normalize_dims(dim, input.ndim, "LogSoftmax") or ()})
