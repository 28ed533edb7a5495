"""Dimension arguments as PyTorch takes them, and picking values along one dimension.

Shared by the reductions, scans, sorts and linear algebra: `normalize_dims`
reads PyTorch's `dim` (an int, a tuple, None; negatives allowed),
`numpy_names` its numpy-style aliases, and `take_along` reads values at
chosen indices (a sort's order, a cummax's positions) so that the gradient
scatters back to exactly those indices.
"""
import builtins

import numpy as np

from ..engine.execute import execute


def normalize_dims(dim, ndim, op_name):
    """PyTorch's dim argument (int, tuple, None; negatives allowed) as a sorted tuple or None.

    >>> from minitorch.ops.dims import normalize_dims
    >>> normalize_dims(-1, 3, "Sum"), normalize_dims((2, 0), 3, "Sum"), normalize_dims(None, 3, "Sum")
    ((2,), (0, 2), None)
    """
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


def one_dim(dim, ndim, op_name):
    """A single `dim` (int, negatives allowed) as an axis in [0, ndim); 0 for a 0-d tensor.

    >>> from minitorch.ops.dims import one_dim
    >>> one_dim(-1, 3, "Cumsum")
    2
    """
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{op_name}: dim must be an int, got {type(dim).__name__}")
    axis = normalize_dims(dim, ndim, op_name)
    return 0 if axis is None else axis[0]


def numpy_names(name, dim, keepdim, axis, keepdims, dim_default=None):
    """PyTorch's numpy-style aliases: `axis=` for `dim=`, `keepdims=` for `keepdim=` (every
    function with a `dim` takes them, as torch's argument parser does). `dim_default` is the
    function's default dim: any other dim given with `axis` is an error.

    >>> from minitorch.ops.dims import numpy_names
    >>> numpy_names("sum", None, False, 1, True)
    (1, True)
    """
    if axis is not None:
        if dim is not dim_default and dim != dim_default:
            raise TypeError(f"{name}() received both 'dim' and its alias 'axis'")
        dim = axis
    return dim, keepdim if keepdims is None else keepdims


def along_index(indices, axis, kept=True):
    """The numpy index that picks `indices` (an integer array) along `axis` of an array of the same
    shape in the other dimensions (numpy's take_along_axis, as one index tuple). With `kept=False`,
    `indices` lacks the `axis` dimension (a reduction's indices), and so does what it picks.

    >>> from minitorch.ops.dims import along_index
    >>> a = np.array([[10, 20, 30], [40, 50, 60]])
    >>> a[along_index(np.array([[2, 0], [1, 1]]), 1)]
    array([[30, 10],
           [50, 50]])
    >>> a[along_index(np.array([2, 1]), 1, kept=False)]
    array([30, 50])
    """
    rank = indices.ndim
    index = []
    for d in range(rank + (0 if kept else 1)):
        if d == axis:
            index.append(indices)
            continue
        position = d if kept or d < axis else d - 1
        shape = [1] * rank
        shape[position] = indices.shape[position]
        index.append(np.arange(indices.shape[position]).reshape(shape))
    return tuple(index)


def take_along(x, indices, axis, kept=True):
    """`x`'s values at `indices` (an integer array) along `axis` (see `along_index` for `kept`).
    Runs the "GatherNd" op, whose gradient adds the incoming gradient back at those indices.

    >>> from minitorch.ops.dims import take_along
    >>> take_along(mt.tensor([[1.0, 2.0], [3.0, 4.0]]), np.array([[1], [0]]), 1)
    tensor([[2.],
            [3.]])
    """
    if x.ndim == 0:
        return execute("Identity", (x,), {"copy": True})
    return execute("GatherNd", (x,), {"index": along_index(np.asarray(indices), axis, kept)})
