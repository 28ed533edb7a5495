"""Resample: a sparse linear map along one axis, y = W x, and its builders.

Interpolation (nearest, linear, bicubic, antialiased, area), the reflect,
replicate and circular paddings and adaptive average pooling all take each
output element, along one axis at a time, as a weighted sum of a few input
elements. One op covers them: "Resample" applies a sparse (out, in) matrix W
along an axis. It is linear, so its gradient is the same op with W^T, whose
gradient is the op with W again: first and second order from one kernel.

A sparse matrix, not a dense one: a dense product would also read the zero
weights, and 0 * inf or 0 * nan would spread a non-finite input over whole
rows of the output, where PyTorch touches only each output's neighbours.
When every row of W picks one input with weight 1 (nearest neighbours, the
paddings), the kernel copies with np.take instead: exact for any dtype.
"""
import numpy as np
from scipy import sparse

from ..engine.execute import execute
from ..errors import ShapeError
from .rows import TRANSPOSE, op


def _is_selection(matrix):
    """True when each row of the CSR matrix holds exactly one entry, equal to 1."""
    return bool(np.all(np.diff(matrix.indptr) == 1) and np.all(matrix.data == 1))


def _resample(x, axis, matrix, adjoint):
    if _is_selection(matrix):
        return np.take(x, matrix.indices, axis=axis)
    moved = np.moveaxis(x, axis, 0)
    columns = np.ascontiguousarray(moved, dtype=matrix.dtype).reshape(moved.shape[0], -1)  # (in, everything else)
    out = np.asarray(matrix @ columns).astype(x.dtype, copy=False)  # scipy's CSR product: only the stored weights are read
    return np.moveaxis(out.reshape(matrix.shape[0], *moved.shape[1:]), 0, axis)


def _resample_grad(op, grad):
    """y = W x along an axis is linear: dx = W^T dy, the same op with the transposed matrix."""
    return execute("Resample", (grad,), {**op.attrs, "matrix": op.attrs["adjoint"], "adjoint": op.attrs["matrix"]})


op("Resample", _resample, _resample_grad, needs="nothing", jvp=TRANSPOSE)


def resample(x, axis, matrix):
    """y = W x along `axis` for a sparse (out, in) matrix W, any other axes kept. Runs the "Resample" op.

    >>> from scipy import sparse
    >>> halves = sparse.csr_array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])  # means of neighbours
    >>> resample(mt.tensor([[1.0, 3.0, 7.0]]), 1, halves)
    tensor([[2., 5.]])
    """
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis < x.ndim:
        raise ShapeError(f"Resample: axis {axis} is out of range for input of shape {tuple(x.shape)}")
    matrix = sparse.csr_array(matrix)
    if matrix.shape[1] != x.shape[axis]:
        raise ShapeError(
            f"Resample: a ({matrix.shape[0]}, {matrix.shape[1]}) matrix cannot resample axis {axis} "
            f"of input {tuple(x.shape)} (size {x.shape[axis]})"
        )
    if x.is_floating_point():  # float16 is weighted in float32 (scipy.sparse has no float16), as PyTorch's opmath
        matrix = matrix.astype(np.float64 if np.asarray(x).dtype == np.float64 else np.float32)
    elif not _is_selection(matrix):
        raise TypeError(f"Resample: weighted resampling needs a floating-point input, got {x.dtype}")
    matrix.sum_duplicates()
    return execute("Resample", (x,), {"axis": axis, "matrix": matrix, "adjoint": matrix.T.tocsr()})


def selection_matrix(rows, in_size):
    """The (len(rows), in_size) matrix whose row i picks input rows[i] (weight 1).

    >>> selection_matrix([2, 0], 3).toarray()
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    rows = np.asarray(rows, dtype=np.int64)
    return sparse.csr_array((np.ones(len(rows)), rows, np.arange(len(rows) + 1)), shape=(len(rows), in_size))


def taps_matrix(indices, weights, in_size):
    """The (out, in_size) matrix with weights[i, t] at column indices[i, t]; repeated columns add up.

    >>> taps_matrix(np.array([[0, 1], [1, 1]]), np.array([[0.25, 0.75], [0.5, 0.5]]), 2).toarray()
    array([[0.25, 0.75],
           [0.  , 1.  ]])
    """
    indices, weights = np.asarray(indices), np.asarray(weights)
    out, taps = indices.shape
    matrix = sparse.csr_array((weights.ravel(), indices.ravel(), np.arange(0, out * taps + 1, taps)), shape=(out, in_size))
    matrix.sum_duplicates()
    return matrix
