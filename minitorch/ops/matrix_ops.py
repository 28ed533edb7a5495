"""Matrix structure: diagonals, triangles, traces.

Two ops hold the diagonals, each the other's gradient (like StridedSlice and
StridedSliceGrad): "Diagonal" reads the diagonal of two dimensions (a
read-only view of the input), "DiagEmbed" writes a diagonal into zeros.
"MatrixBandPart" (TensorFlow's name) keeps the lower or upper triangle; it is
its own gradient. trace, diag, diagflat and fill_diagonal_ are built from them.
"""
import numpy as np

from .. import dtypes
from ..creation import check_placement
from ..engine.execute import execute
from ..engine.registry import VIEW
from .coercion import as_operand, cast
from .comparison_ops import where
from .dims import normalize_dims
from .rows import linear, op, read_back_by, written_into_zeros


def _diagonal(x, offset, dim1, dim2):
    """np.diagonal's elements as a writable view (numpy's own is read-only): the stride along the
    diagonal is the sum of the two dimensions' strides, as PyTorch's diagonal view."""
    moved = np.moveaxis(x, (dim1, dim2), (-2, -1))
    start = moved[..., max(-offset, 0):, max(offset, 0):]
    length = max(min(start.shape[-2], start.shape[-1]), 0)
    return np.lib.stride_tricks.as_strided(start, start.shape[:-2] + (length,),
                                           start.strides[:-2] + (start.strides[-2] + start.strides[-1],))


def _diag_embed(values, shape, offset, dim1, dim2):
    out = np.zeros(shape, values.dtype)
    length = values.shape[-1]
    moved = np.moveaxis(out, (dim1, dim2), (-2, -1))  # a view: writing into it writes `out`
    moved[..., np.arange(length) + max(-offset, 0), np.arange(length) + max(offset, 0)] = values
    return out


op("Diagonal", _diagonal, written_into_zeros("DiagEmbed"), needs="nothing", jvp=linear, view=VIEW)
op("DiagEmbed", _diag_embed, read_back_by("Diagonal"), needs="nothing", jvp=linear)


def _band_part(x, lower, diagonal):
    return (np.tril if lower else np.triu)(x, diagonal)


def _band_part_grad(op, grad):
    """Keeping a triangle is a mask: its gradient keeps the same triangle of the gradient."""
    return execute("MatrixBandPart", (grad,), op.attrs)


op("MatrixBandPart", _band_part, _band_part_grad, needs="nothing", jvp=linear)


# ----- the functional API -----

def _two_dims(ndim, dim1, dim2, name):
    if len(normalize_dims((dim1, dim2), ndim, name)) != 2:
        raise RuntimeError(f"{name}: diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dim1 % ndim, dim2 % ndim


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of dimensions `dim1` and `dim2` (above it for `offset` > 0, below for < 0),
    as the last dimension. Runs the "Diagonal" op. A view, as PyTorch's: writing into it writes the diagonal.

    >>> mt.diagonal(mt.tensor([[1, 2, 3], [4, 5, 6]]))
    tensor([1, 5])
    >>> mt.arange(8).reshape(2, 2, 2).diagonal(dim1=1, dim2=2)
    tensor([[0, 3],
            [4, 7]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"diagonal: expected a tensor with at least 2 dimensions, got shape {tuple(input.shape)}")
    dim1, dim2 = _two_dims(input.ndim, dim1, dim2, "diagonal")
    return execute("Diagonal", (input,), {"offset": int(offset), "dim1": dim1, "dim2": dim2})


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonals (of dimensions `dim1`, `dim2` of the result) are the last dimension
    of `x`, zeros elsewhere. Runs the "DiagEmbed" op.

    >>> mt.diag_embed(mt.tensor([[1, 2], [3, 4]]))
    tensor([[[1, 0],
             [0, 2]],
    <BLANKLINE>
            [[3, 0],
             [0, 4]]])
    """
    if input.ndim == 0:
        raise RuntimeError("diag_embed: expected a tensor with at least 1 dimension, got a 0-d tensor")
    ndim = input.ndim + 1
    dim1, dim2 = _two_dims(ndim, dim1, dim2, "diag_embed")
    size = input.shape[-1] + abs(int(offset))
    batch = list(input.shape[:-1])
    shape = tuple(size if d in (dim1, dim2) else batch.pop(0) for d in range(ndim))
    return execute("DiagEmbed", (input,), {"shape": shape, "offset": int(offset), "dim1": dim1, "dim2": dim2})


def diag(input, diagonal=0):
    """For a vector, the square matrix with it on the `diagonal`-th diagonal; for a matrix, that
    diagonal as a vector. Runs "DiagEmbed" or "Diagonal".

    >>> mt.diag(mt.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
    >>> mt.diag(mt.tensor([[1, 2, 3], [4, 5, 6]]), 1)
    tensor([2, 6])
    """
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim == 2:
        main = execute("Diagonal", (input,), {"offset": int(diagonal), "dim1": 0, "dim2": 1})
        return execute("Identity", (main,), {"copy": True})
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input, offset=0):
    """The square matrix with the flattened `x` on its `offset`-th diagonal. Runs "DiagEmbed".

    >>> tuple(mt.diagflat(mt.tensor([[1, 2], [3, 4]])).shape)
    (4, 4)
    """
    return diag_embed(input.reshape(-1), offset, 0, 1)


def trace(input):
    """The sum of the main diagonal of a matrix (integers sum as int64). Built from "Diagonal" and "Sum".

    >>> mt.trace(mt.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(5.)
    """
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return diagonal(input).sum()


def _triangle(x, diagonal, lower, name):
    if x.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions, got shape {tuple(x.shape)}")
    return execute("MatrixBandPart", (x,), {"lower": lower, "diagonal": int(diagonal)})


def tril(input, diagonal=0):
    """The lower triangle of the (batched) matrices in the last two dimensions: elements on and below
    the `diagonal`-th diagonal, zeros above. Runs the "MatrixBandPart" op.

    >>> mt.tril(mt.ones(3, 3))
    tensor([[1., 0., 0.],
            [1., 1., 0.],
            [1., 1., 1.]])
    """
    return _triangle(input, diagonal, True, "tril")


def triu(input, diagonal=0):
    """The upper triangle of the (batched) matrices in the last two dimensions: elements on and above
    the `diagonal`-th diagonal, zeros below. Runs the "MatrixBandPart" op.

    >>> mt.triu(mt.ones(2, 3), diagonal=1)
    tensor([[0., 1., 1.],
            [0., 0., 1.]])
    """
    return _triangle(input, diagonal, False, "triu")


def _triangle_indices(lower, row, col, offset, dtype):
    if row < 0 or col < 0:
        raise RuntimeError(f"{'tril' if lower else 'triu'}_triangle_indices: row and col must be non-negative, got {row}, {col}")
    rows, cols = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    return as_operand(np.stack([rows, cols]).astype(dtypes.to_numpy_dtype(dtype)))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
    """The coordinates of the lower triangle of a row x col matrix, as a 2 x N tensor (row-major order).

    >>> mt.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
    """
    check_placement(device, layout, pin_memory)
    return _triangle_indices(True, row, col, offset, dtypes.int64 if dtype is None else dtype).requires_grad_(requires_grad)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False, requires_grad=False):
    """The coordinates of the upper triangle of a row x col matrix, as a 2 x N tensor (row-major order).

    >>> mt.triu_indices(2, 3, 1)
    tensor([[0, 0, 1],
            [1, 2, 2]])
    """
    check_placement(device, layout, pin_memory)
    return _triangle_indices(False, row, col, offset, dtypes.int64 if dtype is None else dtype).requires_grad_(requires_grad)


def filled_diagonal(x, fill_value, wrap=False):
    """`x` with `fill_value` on its main diagonal (all dimensions of one size beyond 2-D, as numpy's fill_diagonal;
    with `wrap`, a tall matrix's diagonal restarts every n + 1 rows). Runs "SelectV2". Its in-place twin is
    `x.fill_diagonal_(...)`, recorded like any in-place op.

    >>> mt.zeros(3, 3).fill_diagonal_(5.0)
    tensor([[5., 0., 0.],
            [0., 5., 0.],
            [0., 0., 5.]])
    """
    if x.ndim < 2:
        raise RuntimeError(f"fill_diagonal_: dimensions must larger than 1, got shape {tuple(x.shape)}")
    if x.ndim > 2 and len(set(x.shape)) != 1:
        raise RuntimeError(f"fill_diagonal_: all dimensions of input must be of equal length, got shape {tuple(x.shape)}")
    mask = np.zeros(x.shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return where(as_operand(mask), cast(as_operand(fill_value, like=x), x._data.dtype), x)
