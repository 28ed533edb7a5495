"""Cumulative ops (scans) along one dimension: cumsum, cumprod, logcumsumexp, cummax, cummin.

One family: "Cumsum", "Cumprod" and "CumulativeLogsumexp" (TensorFlow's op
names) each take `axis` and `reverse` (the scan runs from the end), and each
gradient is a scan the other way round (tensorflow/python/ops/math_grad.py:
_CumsumGrad, _CumprodGrad, _CumulativeLogsumexpGrad). cummax and cummin pick
values at positions, so they gather: their gradient goes back to the picked
positions. `diff`, the trapezoid rule and `gradient` (finite differences), a
cumulative sum's inverses and its use, close the file.
"""
import numpy as np

from .. import dtypes
from ..engine.execute import execute
from ..tensor import Tensor
from . import return_types
from .coercion import as_operand, cast, floating
from .comparison_ops import where
from .dims import numpy_names, one_dim, take_along
from .exponential_ops import exp, log
from .rows import TRANSPOSE, linear, op


def _scan(accumulate):
    """A scan kernel from a ufunc's accumulate: forwards, or from the end with `reverse`."""

    def run(x, axis, reverse=False):
        if x.ndim == 0:
            return x.copy()
        if not reverse:
            return accumulate(x, axis=axis)
        flip = (slice(None),) * axis + (slice(None, None, -1),)
        return np.ascontiguousarray(accumulate(x[flip], axis=axis)[flip])

    return run


def cumulative(op_name, x, axis, reverse=False):
    """Runs the scan `op_name` ("Cumsum", "Cumprod", "CumulativeLogsumexp") along `axis` (from the end with `reverse`).

    >>> from minitorch.ops.scan_ops import cumulative
    >>> cumulative("Cumsum", mt.tensor([1.0, 2.0, 3.0]), 0, reverse=True)
    tensor([6., 5., 3.])
    """
    return execute(op_name, (x,), {"axis": axis, "reverse": reverse})


def _cumsum_grad(op, grad):
    """y_j = sum_{i<=j} x_i: dx_i = sum_{j>=i} dy_j, a cumulative sum the other way."""
    return cumulative("Cumsum", grad, op.attrs["axis"], not op.attrs["reverse"])


op("Cumsum", _scan(np.add.accumulate), _cumsum_grad, needs="nothing", jvp=linear)


def _cumprod_grad(op, grad):
    """y_j = prod_{i<=j} x_i: dx_k = sum_{j>=k} dy_j y_j / x_k where no x is 0. With zeros,
    dx_k = sum_{j>=k} dy_j prod_{i<=j, i!=k} x_i, one cumprod per k (x with x_k set to 1):
    exact to every order, at n times the memory. PyTorch's cumprod_backward
    (torch/csrc/autograd/FunctionsManual.cpp) also changes formula at zeros."""
    x, y = op.inputs[0], op.outputs[0]
    axis, reverse = op.attrs["axis"], op.attrs["reverse"]
    if x.ndim == 0:
        return grad
    if not (x._data == 0).any():
        return cumulative("Cumsum", grad * y, axis, not reverse) / x
    n = x.shape[axis]
    rows = where(as_operand(np.eye(n, dtype=bool)), as_operand(np.ones((), x._data.dtype)),
                 x.transpose(axis, -1).unsqueeze(-2))  # [..., k, i]: x with x_k set to 1
    products = cumulative("Cumprod", rows, rows.ndim - 1, reverse)
    later = (np.tril if reverse else np.triu)(np.ones((n, n), x._data.dtype))  # [k, j]: j at or after k
    return (products * grad.transpose(axis, -1).unsqueeze(-2) * as_operand(later)).sum(dim=-1).transpose(axis, -1)


op("Cumprod", _scan(np.multiply.accumulate), _cumprod_grad, needs="both", jvp=TRANSPOSE)


def _logcumsumexp_grad(op, grad):
    """y_j = log sum_{i<=j} e^{x_i}: dx_k = sum_{j>=k} dy_j e^{x_k - y_j}, summed in log space
    for the positive and the negative part of dy apart (TensorFlow's _CumulativeLogsumexpGrad)."""
    x, y = op.inputs[0], op.outputs[0]
    axis, reverse = op.attrs["axis"], op.attrs["reverse"]
    if x.ndim == 0:
        return grad
    lowest = as_operand(np.array(np.finfo(x._data.dtype).min / 4, x._data.dtype))  # log(0), with room to add to
    one = as_operand(np.ones((), x._data.dtype))
    parts = []
    for part in (grad, -grad):
        positive = part > 0
        log_part = where(positive, log(where(positive, part, one)), lowest)  # log(0) never taken
        parts.append(exp(cumulative("CumulativeLogsumexp", log_part - y, axis, not reverse) + x))
    return parts[0] - parts[1]


op("CumulativeLogsumexp", _scan(np.logaddexp.accumulate), _logcumsumexp_grad, needs="both", jvp=TRANSPOSE)


# ----- the functional API -----

def _scan_input(x, dtype, op_name):
    """PyTorch's dtype rule for cumsum and cumprod: integers and bools accumulate in int64."""
    if dtype is not None:
        return cast(x, dtype)
    if x._data.dtype.kind in "bui":
        return cast(x, dtypes.int64)
    return x


def cumsum(input, dim=None, *, dtype=None, axis=None):
    """Running sums along `dim` (integers and bools sum as int64). Runs the "Cumsum" op.

    >>> mt.cumsum(mt.tensor([1.0, 2.0, 3.0]), dim=0)
    tensor([1., 3., 6.])
    >>> mt.tensor([[1, 2], [3, 4]]).cumsum(1)
    tensor([[1, 3],
            [3, 7]])
    """
    dim, _ = numpy_names("cumsum", dim, False, axis, None)
    return cumulative("Cumsum", _scan_input(input, dtype, "Cumsum"), one_dim(dim, input.ndim, "Cumsum"))


def cumprod(input, dim=None, *, dtype=None, axis=None):
    """Running products along `dim` (integers and bools multiply as int64). Runs the "Cumprod" op.

    Gradients are exact with zeros in `x` too (see the op's gradient).

    >>> mt.cumprod(mt.tensor([1.0, 2.0, 3.0, 0.5]), dim=0)
    tensor([1., 2., 6., 3.])
    """
    dim, _ = numpy_names("cumprod", dim, False, axis, None)
    return cumulative("Cumprod", _scan_input(input, dtype, "Cumprod"), one_dim(dim, input.ndim, "Cumprod"))


def logcumsumexp(input, dim=None, *, axis=None):
    """log(cumsum(exp(x))) along `dim`, computed stably. Runs the "CumulativeLogsumexp" op.

    >>> mt.logcumsumexp(mt.tensor([0.0, 0.0, 0.0]), dim=0)
    tensor([0.0000, 0.6931, 1.0986])
    """
    dim, _ = numpy_names("logcumsumexp", dim, False, axis, None)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"logcumsumexp: not implemented for '{input.dtype}' (floating point tensors only)")
    return cumulative("CumulativeLogsumexp", input, one_dim(dim, input.ndim, "CumulativeLogsumexp"))


def _cumulative_argmax(x, axis, largest):
    """Where each running maximum (or minimum) was last reached (ties and NaNs take the latest position, as PyTorch)."""
    running = (np.maximum if largest else np.minimum).accumulate(x, axis=axis)
    reached = (x == running) | (x != x)
    positions = np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - axis - 1))
    return np.maximum.accumulate(np.where(reached, positions, 0), axis=axis)


op("CumulativeArgMax", _cumulative_argmax)


def _cumulative_extremum(x, dim, largest, result_type):
    axis = one_dim(dim, x.ndim, result_type.__name__)
    if x.ndim == 0:
        return result_type(take_along(x, None, 0), as_operand(np.zeros((), np.int64)))
    indices = execute("CumulativeArgMax", (x,), {"axis": axis, "largest": largest})
    return result_type(take_along(x, indices._data, axis), indices)


def cummax(input, dim=None, *, axis=None):
    """The running maximum along `dim` and where it was reached: a (values, indices) pair. Runs
    "CumulativeArgMax" and "GatherNd".

    The gradient goes to the position each value came from.

    >>> mt.cummax(mt.tensor([1.0, 3.0, 2.0, 5.0]), dim=0)
    cummax(values=tensor([1., 3., 3., 5.]), indices=tensor([0, 1, 1, 3]))
    """
    dim, _ = numpy_names("cummax", dim, False, axis, None)
    return _cumulative_extremum(input, dim, True, return_types.cummax)


def cummin(input, dim=None, *, axis=None):
    """The running minimum along `dim` and where it was reached: a (values, indices) pair. Runs
    "CumulativeArgMax" (largest=False) and "GatherNd".

    >>> mt.cummin(mt.tensor([3.0, 1.0, 2.0, 0.0]), dim=0)
    cummin(values=tensor([3., 1., 1., 0.]), indices=tensor([0, 1, 1, 3]))
    """
    dim, _ = numpy_names("cummin", dim, False, axis, None)
    return _cumulative_extremum(input, dim, False, return_types.cummin)


# ----- differences and the trapezoid rule -----

def _slice_along(x, axis, start, stop):
    return x[(slice(None),) * axis + (slice(start, stop),)]


def diff(input, n=1, dim=-1, prepend=None, append=None, *, axis=None):
    """The n-th forward difference along `dim` (x[i+1] - x[i], n times), after joining `prepend`
    and `append` to `x` along `dim`. Built from "ConcatV2", "StridedSlice" and "Sub" (bools: "NotEqual").

    >>> mt.diff(mt.tensor([1.0, 4.0, 9.0, 16.0]))
    tensor([3., 5., 7.])
    >>> mt.diff(mt.tensor([1.0, 4.0, 9.0, 16.0]), n=2, prepend=mt.tensor([0.0]))
    tensor([2., 2., 2.])
    """
    dim, _ = numpy_names("diff", dim, False, axis, None, -1)
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    axis = one_dim(dim, input.ndim, "diff")
    joined = [as_operand(p, like=input) for p in (prepend, input, append) if p is not None]
    if len(joined) > 1:
        for p in joined:
            if p.ndim != input.ndim:
                raise RuntimeError("diff expects prepend or append to be the same dimension as input")
            if any(a != b for d, (a, b) in enumerate(zip(p.shape, input.shape)) if d != axis):
                raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match that of input "
                                   f"except along the differencing dimension; got {tuple(p.shape)} and {tuple(input.shape)}")
        input = execute("ConcatV2", tuple(cast(p, input._data.dtype) for p in joined), {"axis": axis})
    for _ in range(n):
        later, earlier = _slice_along(input, axis, 1, None), _slice_along(input, axis, None, -1)
        input = later != earlier if input._data.dtype == np.bool_ else later - earlier
    return input


def _trapezoid_spacing(y, x, dx, axis):
    """The widths of the trapezoids along `axis`: from the sample points `x`, or the constant `dx`."""
    if x is None:
        return dx
    x = as_operand(x, like=y)
    if x.ndim == 1:
        if x.shape[0] != y.shape[axis]:
            raise RuntimeError(f"trapezoid: There must be one `x` value for each sample point; "
                               f"got {x.shape[0]} and {y.shape[axis]} along dim {axis}")
        return diff(x).reshape((-1,) + (1,) * (y.ndim - axis - 1))
    return diff(x, dim=axis)


def trapezoid(y, x=None, *, dx=1, dim=-1, axis=None):
    """The integral of `y` along `dim` by the trapezoid rule, with sample points `x` or spacing `dx`
    (default 1). Built from "StridedSlice", "Add", "Mul" and "Sum"; `mt.trapz` is the same function.

    >>> mt.trapezoid(mt.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    >>> mt.trapezoid(mt.tensor([1.0, 2.0, 3.0]), mt.tensor([0.0, 1.0, 3.0]))
    tensor(6.5000)
    """
    if x is not None and dx != 1:
        raise TypeError("trapezoid: received both `x` and `dx`; give one of them")
    dim, _ = numpy_names("trapezoid", dim, False, axis, None, -1)
    axis = one_dim(dim, y.ndim, "trapezoid")
    y = floating(y)
    if y.ndim == 0 or y.shape[axis] == 0:
        return (y * 0).sum(dim=axis if y.ndim else None)
    widths = _trapezoid_spacing(y, x, dx, axis)
    heights = _slice_along(y, axis, 1, None) + _slice_along(y, axis, None, -1)
    return (heights * widths).sum(dim=axis) / 2


def cumulative_trapezoid(y, x=None, *, dx=1, dim=-1, axis=None):
    """The running integral of `y` along `dim` by the trapezoid rule (one value fewer than `y`).
    Runs the "Cumsum" op on the trapezoids' areas.

    >>> mt.cumulative_trapezoid(mt.tensor([1.0, 2.0, 3.0]))
    tensor([1.5000, 4.0000])
    """
    if x is not None and dx != 1:
        raise TypeError("cumulative_trapezoid: received both `x` and `dx`; give one of them")
    dim, _ = numpy_names("cumulative_trapezoid", dim, False, axis, None, -1)
    axis = one_dim(dim, y.ndim, "cumulative_trapezoid")
    y = floating(y)
    widths = _trapezoid_spacing(y, x, dx, axis)
    heights = _slice_along(y, axis, 1, None) + _slice_along(y, axis, None, -1)
    return cumulative("Cumsum", heights * widths / 2, axis)


def _gradient_coordinates(spacing, input, dims):
    """One 1-d numpy array of sample coordinates per differentiated dimension, from PyTorch's
    `spacing`: None, a number, one number per dimension, or one coordinate tensor per dimension."""
    if spacing is None or isinstance(spacing, (int, float)):
        spacing = [1.0 if spacing is None else spacing] * len(dims)
    elif isinstance(spacing, Tensor) and spacing.ndim == 0:
        spacing = [spacing.item()] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to the number of dims ({len(dims)}), but got a list of length {len(spacing)}")
    coordinates = []
    for step, axis in zip(spacing, dims):
        n = input.shape[axis]
        if isinstance(step, Tensor) and step.ndim == 1:
            if step.shape[0] != n:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and of size "
                                   f"{n} along dim {axis}, but got {step.shape[0]}")
            coordinates.append(np.asarray(step._data, np.float64))
        else:
            coordinates.append(np.arange(n) * float(step))
    return coordinates


def _finite_difference(f, x, axis, edge_order):
    """d f / d x along `axis` from samples f at coordinates x: three-point differences inside
    (exact for quadratics, even with uneven steps) and one-sided differences of `edge_order` at the
    ends, with numpy.gradient's weights."""
    def weighted(weights, start, stop):
        w = np.asarray(weights, f._data.dtype).reshape((-1,) + (1,) * (f.ndim - axis - 1))
        return _slice_along(f, axis, start, stop) * Tensor._make(w)

    h = np.diff(x)
    hd, hs = h[:-1], h[1:]
    inside = (weighted(-hs / (hd * (hd + hs)), None, -2) + weighted((hs - hd) / (hd * hs), 1, -1)
              + weighted(hd / (hs * (hd + hs)), 2, None))
    if edge_order == 1:
        first = weighted([-1 / h[0]], 0, 1) + weighted([1 / h[0]], 1, 2)
        last = weighted([-1 / h[-1]], -2, -1) + weighted([1 / h[-1]], -1, None)
    else:
        d1, d2 = h[0], h[1]
        first = (weighted([-(2 * d1 + d2) / (d1 * (d1 + d2))], 0, 1) + weighted([(d1 + d2) / (d1 * d2)], 1, 2)
                 + weighted([-d1 / (d2 * (d1 + d2))], 2, 3))
        d1, d2 = h[-2], h[-1]
        last = (weighted([d2 / (d1 * (d1 + d2))], -3, -2) + weighted([-(d1 + d2) / (d1 * d2)], -2, -1)
                + weighted([(2 * d2 + d1) / (d2 * (d1 + d2))], -1, None))
    return execute("ConcatV2", (first, inside, last), {"axis": axis})


# exported as mt.gradient (PyTorch's name); here `gradient` would read as an op row's gradient function
def finite_gradient(input, *, spacing=None, dim=None, edge_order=1):
    """Estimates of the derivative of the function sampled in `input`, one tensor per dimension
    of `dim` (all by default): central differences inside and one-sided differences of order
    `edge_order` (1 or 2) at both ends, as numpy.gradient. `spacing` is the step between samples
    (a number, or one per dimension) or the sample coordinates (one 1-d tensor per dimension,
    taken as constants). Built from "StridedSlice", "Mul", "AddV2" and "ConcatV2".

    >>> mt.gradient(mt.tensor([1.0, 4.0, 9.0, 16.0]))
    (tensor([3., 4., 6., 7.]),)
    >>> mt.gradient(mt.tensor([1.0, 4.0, 9.0, 16.0, 25.0]), spacing=2.0, edge_order=2)
    (tensor([1., 2., 3., 4., 5.]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}")
    dims = range(input.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    dims = [one_dim(d, input.ndim, "gradient") for d in dims]
    if any(input.shape[axis] < edge_order + 1 for axis in dims):
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = floating(input)
    coordinates = _gradient_coordinates(spacing, input, dims)
    return tuple(_finite_difference(f, x, axis, edge_order) for x, axis in zip(coordinates, dims))
