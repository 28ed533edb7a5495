"""Dimension and size arguments as PyTorch takes them, and picking values along one dimension.

Shared by the reductions, scans, sorts and linear algebra: `normalize_dims`
reads PyTorch's `dim` (an int, a tuple, None; negatives allowed),
`numpy_names` its numpy-style aliases, and `take_along` reads values at
chosen indices (a sort's order, a cummax's positions) so that the gradient
scatters back to exactly those indices. Shared by the convolutions,
poolings and their layers: `int_tuple` reads a kernel size, a stride, a
padding (an int, or one per spatial dimension), and `single`, `pair`
are PyTorch's own looser readers (torch.nn.modules.utils).
"""
import builtins
import collections.abc
import itertools

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


def int_tuple(value, n, name, op_name):
    """An int, or a sequence of 1 or n ints, as a tuple of n ints (a kernel size, a stride, ...); anything
    else raises a ValueError naming the op and the argument.

    >>> from minitorch.ops.dims import int_tuple
    >>> int_tuple(3, 2, "stride", "Conv2D"), int_tuple((1, 2), 2, "stride", "Conv2D"), int_tuple([5], 2, "stride", "Conv2D")
    ((3, 3), (1, 2), (5, 5))
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    values = tuple(value) if isinstance(value, collections.abc.Iterable) else (value,) * (n + 1)
    if len(values) == 1:
        values = values * n
    if len(values) != n or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        raise ValueError(f"{op_name}: {name} must be an int or a tuple of {n} ints, got {value!r}")
    return tuple(int(v) for v in values)


def ntuple(n, name="parse"):
    """PyTorch's reader (`torch.nn.modules.utils._ntuple`): an iterable as a tuple, anything else repeated n times."""

    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = parse.__qualname__ = name
    return parse


single = ntuple(1, "_single")
pair = ntuple(2, "_pair")
