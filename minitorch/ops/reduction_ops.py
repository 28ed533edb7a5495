"""Reductions and softmax: each op's numpy kernel, then its gradient, then its forward rule.

`axis` is a tuple of dimensions or None (all), `keepdims` a bool, as numpy
takes them. A reduced gradient is reshaped to the kept-dims shape and
broadcast back over the reduced dimensions.
"""
from collections import namedtuple

import builtins

import numpy as np
from scipy.special import logsumexp as _scipy_logsumexp

from .. import dtypes
from ..engine.execute import execute
from ..engine.registry import TRANSPOSE, gradient, jvp, kernel, not_differentiable
from ..tensor import Tensor
from .jvp import linear
from .math_ops import exp, maximum, minimum

values_indices = namedtuple("values_indices", ["values", "indices"])


def _kept_shape(shape, axis):
    """The shape of a reduction over `axis` with keepdims=True."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


def _unreduce(grad, op):
    """Reshapes a reduction's gradient so it broadcasts against the input."""
    if op.attrs["keepdims"]:
        return grad
    return grad.reshape(_kept_shape(op.input_shapes[0], op.attrs["axis"]))


def _broadcast_back(grad, op):
    return execute("BroadcastTo", (_unreduce(grad, op),), {"shape": op.input_shapes[0]})


# The reductions call the ufuncs' reduce themselves (np.sum calls the same, through a
# Python frame of numpy's): numpy's overflow warnings then come from this file, where
# the op table's warning filter silences them as PyTorch is silent (engine/registry.py).


@kernel("Sum")
def _sum(x, axis, keepdims):
    return np.add.reduce(x, axis=axis, keepdims=keepdims)


@gradient("Sum", needs="nothing")
def _sum_grad(op, grad):
    """d sum(x) = sum(dx): the gradient is broadcast back over the summed axes."""
    return _broadcast_back(grad, op)


jvp("Sum")(linear("Sum"))


@kernel("Mean")
def _mean(x, axis, keepdims):
    """np.mean's arithmetic (float16 summed in float32, integers in float64); the mean of
    nothing is nan, without np.mean's "Mean of empty slice" warning."""
    count = x.size if axis is None else int(np.prod([x.shape[i] for i in axis]))
    accumulate = np.float32 if x.dtype == np.float16 else np.float64 if x.dtype.kind in "biu" else None
    mean = np.true_divide(np.add.reduce(x, axis=axis, dtype=accumulate, keepdims=keepdims), count)
    return mean.astype(np.float16) if x.dtype == np.float16 else mean


@gradient("Mean", needs="nothing")
def _mean_grad(op, grad):
    """d mean(x) = mean(dx): the gradient is broadcast back and divided by the count."""
    shape, axis = op.input_shapes[0], op.attrs["axis"]
    count = int(np.prod([shape[i] for i in axis] if axis is not None else shape))
    return _broadcast_back(grad, op) / builtins.max(count, 1)


jvp("Mean")(linear("Mean"))


@kernel("Prod")
def _prod(x, axis, keepdims):
    return np.multiply.reduce(x, axis=axis, keepdims=keepdims)


@gradient("Prod", needs="both", jvp=TRANSPOSE)
def _prod_grad(op, grad):
    """d prod(x) / dx_i = prod(x) / x_i (inputs containing zeros are not supported)."""
    x = op.inputs[0]
    return _unreduce(grad, op) * _unreduce(op.outputs[0], op) / x


@kernel("Max")
def _max(x, axis, keepdims):
    return np.max(x, axis=axis, keepdims=keepdims)


@kernel("Min")
def _min(x, axis, keepdims):
    return np.min(x, axis=axis, keepdims=keepdims)


def _extremum_grad(op, grad):
    """d max(x) = dx at the maximum, shared evenly among elements equal to it (min likewise)."""
    x = op.inputs[0]
    chosen = (x == _unreduce(op.outputs[0], op)).to(grad.dtype)
    count = chosen.sum(dim=op.attrs["axis"], keepdim=True)
    return _unreduce(grad, op) * chosen / count


gradient("Max", needs="both", jvp=TRANSPOSE)(_extremum_grad)
gradient("Min", needs="both", jvp=TRANSPOSE)(_extremum_grad)


@kernel("LogSumExp")
def _logsumexp(x, axis, keepdims):
    return _scipy_logsumexp(x, axis=axis, keepdims=keepdims).astype(x.dtype, copy=False)


@gradient("LogSumExp", needs="both")
def _logsumexp_grad(op, grad):
    """d logsumexp(x) / dx = softmax(x) = exp(x - logsumexp(x))."""
    x = op.inputs[0]
    return _unreduce(grad, op) * (x - _unreduce(op.outputs[0], op)).exp()


@jvp("LogSumExp")
def _logsumexp_jvp(inputs, outputs, attrs, tangents):
    """d logsumexp(x) = sum(softmax(x) dx)."""
    x, t = inputs[0], tangents[0]
    out = outputs[0]
    kept = out if attrs["keepdims"] else execute("Reshape", (out,), {"shape": _kept_shape(x.shape, attrs["axis"])})
    return execute("Sum", (exp(x - kept) * t,), {"axis": attrs["axis"], "keepdims": attrs["keepdims"]})


@kernel("Softmax")
def _softmax(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


@gradient("Softmax", needs="outputs")
def _softmax_grad(op, grad):
    """dx = y (g - sum(g y))."""
    y = op.outputs[0]
    return y * (grad - (grad * y).sum(dim=op.attrs["axis"], keepdim=True))


@jvp("Softmax")
def _softmax_jvp(inputs, outputs, attrs, tangents):
    """dy = y (dx - sum(y dx))."""
    y, t = outputs[0], tangents[0]
    return y * (t - execute("Sum", (y * t,), {"axis": attrs["axis"], "keepdims": True}))


@kernel("LogSoftmax")
def _log_softmax(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@gradient("LogSoftmax", needs="outputs")
def _log_softmax_grad(op, grad):
    """dx = g - exp(y) sum(g)."""
    y = op.outputs[0]
    return grad - y.exp() * grad.sum(dim=op.attrs["axis"], keepdim=True)


@jvp("LogSoftmax")
def _log_softmax_jvp(inputs, outputs, attrs, tangents):
    """dy = dx - sum(softmax(x) dx), softmax(x) = exp(y)."""
    y, t = outputs[0], tangents[0]
    return t - execute("Sum", (exp(y) * t,), {"axis": attrs["axis"], "keepdims": True})


kernel("ArgMax")(lambda x, axis, keepdims: np.argmax(x, axis=axis, keepdims=keepdims))
kernel("ArgMin")(lambda x, axis, keepdims: np.argmin(x, axis=axis, keepdims=keepdims))
kernel("All")(lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims))
kernel("Any")(lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims))
not_differentiable("ArgMax", "ArgMin", "All", "Any")


# ----- the functional API -----

def normalize_dims(dim, ndim, op_name):
    """PyTorch's dim argument (int, tuple, None; negatives allowed) as a sorted tuple or None."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    rank = builtins.max(ndim, 1)
    out = []
    for d in dims:
        if not -rank <= d < rank:
            raise IndexError(f"{op_name}: dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {d})")
        out.append(int(d) % rank)
    if ndim == 0:
        return None
    return tuple(sorted(set(out)))


def _reduce(op_name, x, dim, keepdim):
    axis = normalize_dims(dim, x.ndim, op_name)
    return execute(op_name, (x,), {"axis": axis, "keepdims": bool(keepdim)})


def sum(x, dim=None, keepdim=False, dtype=None):
    """The sum of all elements, or over `dim`. Runs the "Sum" op (integers and bools sum as int64).

    >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mt.sum(x)
    tensor(10.)
    >>> x.sum(dim=0)
    tensor([4., 6.])
    """
    if dtype is not None:
        x = x.to(dtype)
    elif x._data.dtype.kind in "bui":
        x = x.to(dtypes.int64)  # PyTorch sums integers and bools as int64
    return _reduce("Sum", x, dim, keepdim)


def mean(x, dim=None, keepdim=False, dtype=None):
    """The mean of all elements, or over `dim` (floating dtypes only). Runs the "Mean" op.

    >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> mt.mean(x)
    tensor(2.5000)
    >>> x.mean(dim=1, keepdim=True)
    tensor([[1.5000],
            [3.5000]])
    """
    if dtype is not None:
        x = x.to(dtype)
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"Mean: could not infer output dtype. Input dtype must be floating point, got {x.dtype}")
    return _reduce("Mean", x, dim, keepdim)


def prod(x, dim=None, keepdim=False):
    """The product of all elements, or over `dim`. Runs the "Prod" op.

    >>> mt.prod(mt.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
    tensor([ 2., 12.])
    """
    return _reduce("Prod", x, dim, keepdim)


def _extremum(op_name, arg_op, x, dim, keepdim):
    if x.numel() == 0:
        raise RuntimeError(f"{op_name}: expected a non-empty tensor, got shape {x.shape}")
    if dim is None:
        return _reduce(op_name, x, None, False)
    if isinstance(dim, Tensor):  # mt.max(a, b): the elementwise form
        return (maximum if op_name == "Max" else minimum)(x, dim)
    values = _reduce(op_name, x, dim, keepdim)
    indices = (argmax if op_name == "Max" else argmin)(x, dim, keepdim)
    return values_indices(values, indices)


def max(x, dim=None, keepdim=False):
    """The largest value; with `dim`, a (values, indices) pair as PyTorch; with a tensor, the elementwise maximum. Runs the "Max" op (and "ArgMax").

    >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    >>> mt.max(x)
    tensor(5.)
    >>> x.max(dim=1)
    values_indices(values=tensor([5., 4.]), indices=tensor([1, 0]))
    """
    return _extremum("Max", "ArgMax", x, dim, keepdim)


def min(x, dim=None, keepdim=False):
    """The smallest value; with `dim`, a (values, indices) pair as PyTorch; with a tensor, the elementwise minimum. Runs the "Min" op (and "ArgMin").

    >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    >>> mt.min(x)
    tensor(1.)
    >>> values, indices = x.min(dim=0)
    >>> values, indices
    (tensor([1., 2.]), tensor([0, 1]))
    """
    return _extremum("Min", "ArgMin", x, dim, keepdim)


def amax(x, dim=None, keepdim=False):
    """The largest values over `dim` (no indices; ties share the gradient). Runs the "Max" op.

    >>> mt.amax(mt.tensor([[1.0, 5.0], [4.0, 2.0]]), dim=0)
    tensor([4., 5.])
    """
    return _reduce("Max", x, dim, keepdim)


def amin(x, dim=None, keepdim=False):
    """The smallest values over `dim` (no indices; ties share the gradient). Runs the "Min" op.

    >>> mt.amin(mt.tensor([[1.0, 5.0], [4.0, 2.0]]), dim=0)
    tensor([1., 2.])
    """
    return _reduce("Min", x, dim, keepdim)


def argmax(x, dim=None, keepdim=False):
    """The index of the largest value (of the flattened tensor, or along `dim`). Runs the "ArgMax" op.

    >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    >>> mt.argmax(x)
    tensor(1)
    >>> x.argmax(dim=1)
    tensor([1, 0])
    """
    if dim is None:
        return execute("ArgMax", (x.reshape(-1),), {"axis": 0, "keepdims": False})
    return execute("ArgMax", (x,), {"axis": normalize_dims(dim, x.ndim, "ArgMax")[0], "keepdims": keepdim})


def argmin(x, dim=None, keepdim=False):
    """The index of the smallest value (of the flattened tensor, or along `dim`). Runs the "ArgMin" op.

    >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
    >>> mt.argmin(x)
    tensor(0)
    >>> x.argmin(dim=1)
    tensor([0, 1])
    """
    if dim is None:
        return execute("ArgMin", (x.reshape(-1),), {"axis": 0, "keepdims": False})
    return execute("ArgMin", (x,), {"axis": normalize_dims(dim, x.ndim, "ArgMin")[0], "keepdims": keepdim})


def all(x, dim=None, keepdim=False):
    """True if every element is true (nonzero), overall or along `dim`. Runs the "All" op.

    >>> mt.all(mt.tensor([[True, False], [True, True]]), dim=1)
    tensor([False,  True])
    """
    return _reduce("All", x, dim, keepdim)


def any(x, dim=None, keepdim=False):
    """True if some element is true (nonzero), overall or along `dim`. Runs the "Any" op.

    >>> mt.any(mt.tensor([[True, False], [False, False]]), dim=1)
    tensor([ True, False])
    """
    return _reduce("Any", x, dim, keepdim)


def var(x, dim=None, unbiased=None, keepdim=False, correction=None):
    """Variance with Bessel's correction by default (`correction=1`), as PyTorch. Built from "Mean", "Sub", "Mul", "Sum" and "RealDiv".

    >>> mt.var(mt.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor(1.6667)
    >>> mt.var(mt.tensor([1.0, 2.0, 3.0, 4.0]), correction=0)
    tensor(1.2500)
    """
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    axis = normalize_dims(dim, x.ndim, "Var")
    count = x.numel() if axis is None else int(np.prod([x.shape[i] for i in axis]))
    centered = x - x.mean(dim=axis, keepdim=True)
    return (centered * centered).sum(dim=axis, keepdim=keepdim) / builtins.max(count - correction, 0)


def std(x, dim=None, unbiased=None, keepdim=False, correction=None):
    """Standard deviation: the square root of `var` (Bessel's correction by default, as PyTorch).

    >>> mt.std(mt.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor(1.2910)
    """
    return var(x, dim, unbiased, keepdim, correction).sqrt()


def logsumexp(x, dim, keepdim=False):
    """log(sum(exp(x))) over `dim`, computed stably. Runs the "LogSumExp" op.

    >>> mt.logsumexp(mt.tensor([[0.0, 0.0], [1.0, 1.0]]), dim=1)
    tensor([0.6931, 1.6931])
    """
    return _reduce("LogSumExp", x, dim, keepdim)


def softmax(x, dim, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`. Runs the "Softmax" op.

    >>> mt.softmax(mt.tensor([[1.0, 1.0], [0.0, 2.0]]), dim=1)
    tensor([[0.5000, 0.5000],
            [0.1192, 0.8808]])
    """
    if dtype is not None:
        x = x.to(dtype)
    return execute("Softmax", (x,), {"axis": normalize_dims(dim, x.ndim, "Softmax") or ()})


def log_softmax(x, dim, dtype=None):
    """log(softmax(x)) along `dim`, computed stably. Runs the "LogSoftmax" op.

    >>> mt.log_softmax(mt.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
    """
    if dtype is not None:
        x = x.to(dtype)
    return execute("LogSoftmax", (x,), {"axis": normalize_dims(dim, x.ndim, "LogSoftmax") or ()})

