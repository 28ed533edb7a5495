"""Reading by index: gather, take_along_dim, take, index_select, masked_select, nonzero, searchsorted, isin.

The readers build a numpy index and run "GatherNd" (array_ops.py), whose
gradient "ScatterNd" adds the incoming gradient back where each element was
read (an element read twice gets both gradients). nonzero ("Where") and
searchsorted ("LowerBound"/"UpperBound", TensorFlow's names) return integer
positions and are not differentiable.

Indices are checked before numpy sees them, with PyTorch's messages: numpy
would read a negative index from the end where PyTorch's gather refuses it.
"""
import math

import numpy as np

from ..engine.execute import execute
from ..tensor import Tensor
from .array_ops import broadcast_to, clone, getitem, reshape, wrap_dim
from .rows import op


# ----- the non-differentiable ops -----


def _search(side):
    def search(sorted_sequence, values, out_type):
        if sorted_sequence.ndim == 1:
            return np.searchsorted(sorted_sequence, values, side).astype(out_type)
        out = np.empty(values.shape, out_type)
        for row in np.ndindex(values.shape[:-1]):  # numpy searches one sorted row at a time
            out[row] = np.searchsorted(sorted_sequence[row], values[row], side)
        return out

    return search


def _isin(elements, test_elements, assume_unique, invert):
    return np.isin(elements, test_elements, assume_unique=assume_unique, invert=invert)


op("Where", np.argwhere)
op("LowerBound", _search("left"))
op("UpperBound", _search("right"))
op("IsIn", _isin)


# ----- checking indices -----

def index_array(index, name, allow_int32=True):
    """The numpy array of an integer index tensor, or PyTorch's error."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): index must be a Tensor, got {type(index).__name__}")
    kinds = (np.int64, np.int32) if allow_int32 else (np.int64,)
    if index._data.dtype not in kinds:
        raise RuntimeError(f"{name}(): Expected dtype {'int32/int64' if allow_int32 else 'int64'} for index, got {index.dtype}")
    return index._data


def check_range(index, size, dim, name, negative=False, error=RuntimeError):
    """PyTorch's error for an index outside 0..size-1 (or -size..size-1 where negatives are allowed)."""
    bad = (index >= size) | (index < (-size if negative else 0))
    if bad.any():
        raise error(f"{name}(): index {index[bad].flat[0]} is out of bounds for dimension {dim} with size {size}")


def along_dim(x_shape, dim, index, name, src_shape=None):
    """The numpy index that reads (or writes) x[i][j][index[i][j][k]]... for dim 2: `index` along `dim`,
    the position itself along every other dimension (PyTorch's gather/scatter addressing)."""
    ndim = max(len(x_shape), 1)
    if index.ndim != len(x_shape) and not (index.ndim <= 1 and len(x_shape) <= 1):
        raise RuntimeError(f"{name}(): Index tensor must have the same number of dimensions as input tensor "
                           f"(index {list(index.shape)}, input {list(x_shape)})")
    x_shape = tuple(x_shape) or (1,)
    index = index.reshape(-1) if index.ndim == 0 else index
    for d in range(ndim):
        too_big = d != dim and index.shape[d] > x_shape[d]
        if too_big or (src_shape is not None and index.shape[d] > (tuple(src_shape) or (1,))[d]):
            against = "" if src_shape is None else f" and to be no larger size than src {list(src_shape)}"
            raise RuntimeError(f"{name}(): Expected index {list(index.shape)} to be no larger than self {list(x_shape)} "
                               f"apart from dimension {dim}{against}")
    check_range(index, x_shape[dim], dim, name)
    return tuple(index if d == dim else np.arange(index.shape[d]).reshape((-1,) + (1,) * (ndim - 1 - d))
                 for d in range(ndim))


# ----- the functions -----

def gather(input, dim, index, *, sparse_grad=False):
    """The values of `x` at `index` along `dim`: out[i][j] = x[i][index[i][j]] for dim 1. Runs the
    "GatherNd" op; its gradient adds back into the positions read.

    >>> x = mt.tensor([[1, 2], [3, 4]])
    >>> mt.gather(x, 1, mt.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """
    dim = wrap_dim(dim, input.ndim, "gather")
    index = index_array(index, "gather")
    where = along_dim(input.shape, dim, index, "gather")
    if input.ndim == 0:  # a 0-d tensor reads as one element; the result has index's shape
        return reshape(getitem(reshape(input, 1), where), index.shape)
    return getitem(input, where)


def take_along_dim(input, indices, dim=None):
    """The values of `x` at `indices` along `dim`, with `x` and `indices` broadcast against each other
    along the other dimensions (numpy's take_along_axis); without `dim`, over the flattened tensor.
    Negative indices count from the end. Runs the "GatherNd" op.

    >>> x = mt.tensor([[10, 30, 20], [60, 40, 50]])
    >>> mt.take_along_dim(x, mt.argmax(x, dim=1, keepdim=True), dim=1)
    tensor([[30],
            [60]])
    """
    index = index_array(indices, "take_along_dim")
    if dim is None:
        input, index, dim = reshape(input, -1), index.reshape(-1), 0
    if input.ndim != index.ndim:
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number of dimensions, but got "
                           f"{input.ndim} dimensions for input, and {index.ndim} dimensions for indices")
    dim = wrap_dim(dim, input.ndim, "take_along_dim")
    shape = np.broadcast_shapes(input.shape[:dim] + (1,) + input.shape[dim + 1:], index.shape[:dim] + (1,) + index.shape[dim + 1:])
    check_range(index, input.shape[dim], dim, "take_along_dim", negative=True)
    where = []
    for d in range(input.ndim):
        if d == dim:
            where.append(np.broadcast_to(index, shape[:d] + (index.shape[d],) + shape[d + 1:]))
        else:
            position = np.arange(shape[d]) if input.shape[d] == shape[d] else np.zeros(shape[d], np.int64)
            where.append(position.reshape((-1,) + (1,) * (input.ndim - 1 - d)))
    return getitem(input, tuple(where))


def take(input, index):
    """The elements of the flattened `x` at `index` (negative indices count from the end), in
    `index`'s shape. Runs the "GatherNd" op.

    >>> mt.take(mt.tensor([[4, 3], [5, 7]]), mt.tensor([0, -1]))
    tensor([4, 7])
    """
    index = index_array(index, "take", allow_int32=False)
    bad = (index >= input.numel()) | (index < -input.numel())
    if bad.any():
        raise IndexError(f"take(): out of range: tried to access index {index[bad].flat[0]} on a tensor of {input.numel()} elements.")
    return getitem(reshape(input, -1), (index,))


def index_select(input, dim, index):
    """The slices of `x` along `dim` at the positions in the 1-d `index` (repeats allowed). Runs
    the "GatherNd" op.

    >>> mt.index_select(mt.tensor([[1, 2, 3], [4, 5, 6]]), 1, mt.tensor([2, 0]))
    tensor([[3, 1],
            [6, 4]])
    """
    dim = wrap_dim(dim, input.ndim, "index_select")
    index = index_array(index, "index_select")
    if index.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, got shape {list(index.shape)}")
    size = input.shape[dim] if input.ndim else 1
    # PyTorch's CPU kernel raises IndexError ("index out of range in self"), but RuntimeError along dim 1
    check_range(index, size, dim, "index_select", error=RuntimeError if dim == 1 else IndexError)
    if input.ndim == 0:
        if index.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)")
        return clone(input)
    return getitem(input, (slice(None),) * dim + (index.reshape(-1),))


def masked_select(input, mask):
    """The elements of `x` where the boolean `mask` is True, in a 1-d tensor (`x` and `mask`
    broadcast together). Runs the "GatherNd" op.

    >>> mt.masked_select(mt.tensor([[1, 2], [3, 4]]), mt.tensor([True, False]))
    tensor([1, 3])
    """
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {getattr(mask, 'dtype', type(mask).__name__)}")
    shape = np.broadcast_shapes(input.shape, mask.shape)
    if not shape:
        return getitem(reshape(input, 1), (np.broadcast_to(mask._data, (1,)),))
    return getitem(broadcast_to(input, shape), (np.broadcast_to(mask._data, shape),))


def nonzero(input, *, as_tuple=False):
    """The positions of the non-zero elements: an (n, ndim) int64 tensor, one row per element, or,
    with as_tuple=True, one 1-d tensor per dimension (for indexing). Runs the "Where" op.

    >>> mt.nonzero(mt.tensor([[0, 1], [2, 0]]))
    tensor([[0, 1],
            [1, 0]])
    >>> mt.nonzero(mt.tensor([0, 3, 4]), as_tuple=True)
    (tensor([1, 2]),)
    """
    positions = execute("Where", (reshape(input, 1) if as_tuple and input.ndim == 0 else input,))
    if not as_tuple:
        return positions
    return tuple(Tensor._make(np.ascontiguousarray(column)) for column in positions._data.T)


def nonzero_static(input, *, size, fill_value=-1):
    """`nonzero(x)` with exactly `size` rows: cut off, or padded with rows of `fill_value`. Runs the "Where" op.

    >>> mt.nonzero_static(mt.tensor([0, 3, 0, 4]), size=3)
    tensor([[ 1],
            [ 3],
            [-1]])
    """
    if int(size) < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    positions = nonzero(input)
    found = positions.shape[0]
    if found >= size:
        return positions[: int(size)]
    padding = np.full((int(size) - found, max(input.ndim, 0)), fill_value, np.int64)
    return Tensor._make(np.concatenate([positions._data, padding]))


def unravel_index(indices, shape):
    """The coordinates, in a tensor of `shape`, of each position of its flattened form: one tensor
    per dimension (numpy's unravel_index; negative positions count from the end).

    >>> mt.unravel_index(mt.tensor([4, 1]), (2, 3))
    (tensor([1, 0]), tensor([1, 1]))
    """
    flat = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if flat.dtype.kind not in "iu":
        raise TypeError(f"unravel_index: expected 'indices' to be an integer tensor, but got {flat.dtype}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"unravel_index: 'shape' cannot have negative values, but got {shape}")
    total = int(math.prod(shape))
    bad = (flat >= total) | (flat < -total)
    if bad.any():
        raise ValueError(f"unravel_index: target index {flat[bad].flat[0]} is out of bounds for shape {shape}")
    coords = np.unravel_index(np.where(flat < 0, flat + total, flat), shape)
    return tuple(Tensor._make(np.asarray(c, np.int64)) for c in coords)


def argwhere(input):
    """The positions of the non-zero elements, one row per element (`nonzero(x)`). Runs the "Where" op.

    >>> mt.argwhere(mt.tensor([0.0, 2.0, 3.0]))
    tensor([[1],
            [2]])
    """
    return nonzero(input)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each value would be inserted into the sorted last dimension of `sorted_sequence` to keep
    it sorted: the first such position, or the last with right=True (side="right"). A batch of
    sequences pairs with the same leading dimensions of `values`. Runs "LowerBound" or "UpperBound".

    >>> mt.searchsorted(mt.tensor([1, 3, 5, 7]), mt.tensor([3, 6]))
    tensor([1, 3])
    >>> mt.searchsorted(mt.tensor([1, 3, 5, 7]), 3, right=True)
    tensor(2)
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if sorted_sequence.ndim == 0:
        raise RuntimeError("searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match, but we got a 0-d boundaries tensor")
    input = input if isinstance(input, Tensor) else Tensor._make(np.asarray(input))
    if sorted_sequence.ndim > 1 and (input.ndim != sorted_sequence.ndim or
                                     input.shape[:-1] != sorted_sequence.shape[:-1]):
        raise RuntimeError("searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                           f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(sorted_sequence.shape)} and input value tensor {list(input.shape)}")
    if sorter is not None:
        order = index_array(sorter, "searchsorted")
        if order.shape != sorted_sequence.shape:
            raise RuntimeError(f"searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(sorted_sequence.shape)} and got sorter tensor {list(order.shape)}")
        sorted_sequence = Tensor._make(np.take_along_axis(sorted_sequence._data, order, -1))
    out_type = np.dtype(np.int32 if out_int32 else np.int64)
    return execute("UpperBound" if right else "LowerBound", (sorted_sequence, input), {"out_type": out_type})


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket each value falls in, for 1-d sorted `boundaries`: i such that
    boundaries[i-1] < x <= boundaries[i] (with right=True, boundaries[i-1] <= x < boundaries[i]).
    Runs "LowerBound" or "UpperBound".

    >>> mt.bucketize(mt.tensor([1, 4, 9]), mt.tensor([2, 4, 6]))
    tensor([0, 1, 3])
    """
    if boundaries.ndim != 1:
        raise RuntimeError(f"bucketize: boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements=None, test_elements=None, *, assume_unique=False, invert=False, element=None, test_element=None):
    """True where an element of `elements` is among `test_elements` (False with invert=True).
    Either argument may be a number (by keyword, PyTorch calls a number `element` or `test_element`).
    Runs the "IsIn" op (numpy.isin).

    >>> mt.isin(mt.tensor([[1, 2], [3, 4]]), mt.tensor([2, 3]))
    tensor([[False,  True],
            [ True, False]])
    >>> mt.isin(mt.tensor([1, 2, 3]), 2, invert=True)
    tensor([ True, False,  True])
    """
    elements = element if elements is None else elements
    test_elements = test_element if test_elements is None else test_elements
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() expected at least one of elements or test_elements to be a Tensor")
    elements = elements if isinstance(elements, Tensor) else Tensor._make(np.asarray(elements))
    test_elements = test_elements if isinstance(test_elements, Tensor) else Tensor._make(np.asarray(test_elements))
    return execute("IsIn", (elements, test_elements), {"assume_unique": assume_unique, "invert": invert})
