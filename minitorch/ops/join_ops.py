"""Splitting and joining: split, chunk, unbind, tensor_split, hstack, block_diag, meshgrid, ...

No op of their own: the pieces of a split are "StridedSlice" views of the
input (as in PyTorch, writing into a piece writes into the input), the joins
are "ConcatV2"/"Pack" of reshaped inputs, and meshgrid's outputs are
"BroadcastTo" views. Gradients come from those ops.
"""
import itertools

import numpy as np

from ..tensor import Tensor
from .array_ops import broadcast_to, cat, getitem, reshape, same_dtype, stack, wrap_dim
from .shape_ops import atleast_1d, atleast_2d, atleast_3d


# ----- splitting (the pieces are views) -----

def _pieces(x, dim, bounds):
    """x[start:stop] along dim for each (start, stop) in bounds."""
    lead = (slice(None),) * dim
    return tuple(getitem(x, lead + (slice(start, stop),)) for start, stop in bounds)


def _bounds(sizes):
    ends = list(itertools.accumulate(sizes))
    return list(zip([0] + ends[:-1], ends))


def split(tensor, split_size_or_sections, dim=0):
    """`x` cut along `dim` into pieces of `split_size` (the last may be smaller), or of the sizes
    in a list. The pieces are views of `x` (runs the "StridedSlice" op).

    >>> [p.tolist() for p in mt.split(mt.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    >>> [p.shape for p in mt.split(mt.zeros(2, 5), [1, 4], dim=1)]
    [minitorch.Size([2, 1]), minitorch.Size([2, 4])]
    """
    if not isinstance(split_size_or_sections, (int, np.integer)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    if tensor.ndim == 0:
        raise RuntimeError("split: cannot split a 0-dim tensor")
    dim, step = wrap_dim(dim, tensor.ndim, "split"), int(split_size_or_sections)
    size = tensor.shape[dim]
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    if size == 0:
        return _pieces(tensor, dim, [(0, 0)])
    return _pieces(tensor, dim, [(start, min(start + step, size)) for start in range(0, size, step)])


def unsafe_split(input, split_size, dim=0):
    """`split` under the names Tensor.split and torch.unsafe_split give its arguments (`split_size`).

    >>> [p.tolist() for p in mt.arange(5).split(split_size=2)]
    [[0, 1], [2, 3], [4]]
    """
    return split(input, split_size, dim)


def split_with_sizes(input, split_sizes, dim=0):
    """`x` cut along `dim` into pieces of the given sizes (they must add up to the size of `dim`). Views.

    >>> [p.tolist() for p in mt.split_with_sizes(mt.arange(5), [2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    if input.ndim == 0:
        raise RuntimeError("split_with_sizes: cannot split a 0-dim tensor")
    dim = wrap_dim(dim, input.ndim, "split_with_sizes")
    sizes = [int(n) for n in split_sizes]
    if any(n < 0 for n in sizes) or sum(sizes) != input.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[dim]} (input tensor's "
                           f"size at dimension {dim}), but got split_sizes={sizes}")
    return _pieces(input, dim, _bounds(sizes))


def chunk(input, chunks, dim=0):
    """`x` cut along `dim` into `chunks` pieces of equal size (the last may be smaller, and there may
    be fewer pieces when the size does not allow that many). Views.

    >>> [p.tolist() for p in mt.chunk(mt.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    """
    if int(chunks) <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, input.ndim, "chunk")
    size = input.shape[dim]
    if size == 0:
        return _pieces(input, dim, [(0, 0)] * int(chunks))
    return split(input, -(-size // int(chunks)), dim)


def unbind(input, dim=0):
    """The slices of `x` along `dim`, that dimension removed. Views (runs the "StridedSlice" op).

    >>> mt.unbind(mt.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    if input.ndim == 0:
        raise IndexError("unbind: Dimension specified as 0 but tensor has no dimensions")
    dim = wrap_dim(dim, input.ndim, "unbind")
    lead = (slice(None),) * dim
    return tuple(getitem(input, lead + (i,)) for i in range(input.shape[dim]))


def tensor_split(input, sections=None, dim=0, *, indices=None, tensor_indices_or_sections=None):
    """`x` cut along `dim` into `sections` nearly equal pieces (the first ones one longer), or at the
    given indices (Python's slicing rules: x[:i0], x[i0:i1], ..., x[ik:]). Views. As in PyTorch, the
    second argument is an int, a list or a tensor by position, and `sections=`, `indices=` or
    `tensor_indices_or_sections=` by keyword.

    >>> [p.tolist() for p in mt.tensor_split(mt.arange(7), 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in mt.tensor_split(mt.arange(7), [1, 5])]
    [[0], [1, 2, 3, 4], [5, 6]]
    """
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = wrap_dim(dim, input.ndim, "tensor_split")
    split_at = _one_split_argument("tensor_split", sections, indices, tensor_indices_or_sections)
    if isinstance(split_at, Tensor):
        if split_at._data.dtype.kind not in "iu" or split_at.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor of integers, but got a tensor of {split_at.ndim} dims "
                               f"and dtype {split_at.dtype}")
        split_at = int(split_at.item()) if split_at.ndim == 0 else split_at.tolist()
    size = input.shape[dim]
    if isinstance(split_at, (int, np.integer)):
        sections = int(split_at)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(size, sections)
        return _pieces(input, dim, _bounds([base + 1] * extra + [base] * (sections - extra)))
    stops = [int(i) for i in split_at] + [None]
    lead = (slice(None),) * dim
    return tuple(getitem(input, lead + (slice(start, stop),)) for start, stop in zip([0] + stops[:-1], stops))


def _one_split_argument(name, *given):
    given = [value for value in given if value is not None]
    if len(given) != 1:
        raise TypeError(f"{name}() takes one of sections, indices and tensor_indices_or_sections, got {len(given)}")
    return given[0]


def _split_along(name, dim, min_ndim):
    def directional_split(input, sections=None, *more_indices, indices=None):
        """`x.hsplit(2)`, `x.hsplit([1, 3])`, `x.hsplit(1, 3)`, `mt.hsplit(x, indices=[1, 3])`."""
        if more_indices:
            sections = (sections,) + more_indices
        indices_or_sections = _one_split_argument(name, sections, indices)
        if input.ndim < min_ndim:
            raise RuntimeError(f"{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                               f"with {input.ndim} dimensions!")
        along = 0 if name == "hsplit" and input.ndim == 1 else dim
        if isinstance(indices_or_sections, (int, np.integer)) and (
                indices_or_sections == 0 or input.shape[along] % indices_or_sections):
            raise RuntimeError(f"{name} attempted to split along dimension {along}, but the size of the dimension "
                               f"{input.shape[along]} is not divisible by the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, along)

    directional_split.__name__ = directional_split.__qualname__ = name
    return directional_split


hsplit = _split_along("hsplit", 1, 1)
hsplit.__doc__ = """`tensor_split` along dimension 1 (dimension 0 for 1-d tensors); sections must divide evenly.

    >>> [p.shape for p in mt.hsplit(mt.zeros(2, 4), 2)]
    [minitorch.Size([2, 2]), minitorch.Size([2, 2])]
    """
vsplit = _split_along("vsplit", 0, 2)
vsplit.__doc__ = """`tensor_split` along dimension 0 of a tensor with at least 2 dimensions; sections must divide evenly.

    >>> [p.shape for p in mt.vsplit(mt.zeros(4, 2), [1])]
    [minitorch.Size([1, 2]), minitorch.Size([3, 2])]
    """
dsplit = _split_along("dsplit", 2, 3)
dsplit.__doc__ = """`tensor_split` along dimension 2 of a tensor with at least 3 dimensions; sections must divide evenly.

    >>> [p.shape for p in mt.dsplit(mt.zeros(1, 2, 4), 2)]
    [minitorch.Size([1, 2, 2]), minitorch.Size([1, 2, 2])]
    """


# ----- joining -----

def _non_empty(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    """Tensors joined column-wise: along dimension 1, or 0 for 1-d tensors. Runs the "ConcatV2" op.

    >>> mt.hstack([mt.tensor([1, 2]), mt.tensor([3])])
    tensor([1, 2, 3])
    """
    tensors = atleast_1d(_non_empty(tensors, "hstack"))
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    """Tensors joined row-wise (along dimension 0), 1-d tensors as rows; `mt.row_stack` is the same function.

    >>> mt.vstack([mt.tensor([1, 2]), mt.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    """
    return cat(atleast_2d(_non_empty(tensors, "vstack")), 0)


def dstack(tensors):
    """Tensors joined depth-wise (along dimension 2), after `atleast_3d`. Runs the "ConcatV2" op.

    >>> mt.dstack([mt.tensor([1, 2]), mt.tensor([3, 4])])
    tensor([[[1, 3],
             [2, 4]]])
    """
    return cat(atleast_3d(_non_empty(tensors, "dstack")), 2)


def column_stack(tensors):
    """Tensors joined as the columns of a matrix: 0-d and 1-d tensors become columns, the rest
    join along dimension 1. Runs the "ConcatV2" op.

    >>> mt.column_stack([mt.tensor([1, 2]), mt.tensor([[3, 4], [5, 6]])])
    tensor([[1, 3, 4],
            [2, 5, 6]])
    """
    tensors = _non_empty(tensors, "column_stack")
    return cat([reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors], 1)


def block_diag(*tensors):
    """A matrix with the given tensors (0-d, 1-d or 2-d) on its diagonal and zeros elsewhere.
    Concatenations of the blocks with zeros ("ConcatV2"), so gradients reach every block.

    >>> mt.block_diag(mt.tensor([[1, 2]]), mt.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    for position, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"block_diag: Input tensors must have 2 or fewer dimensions. Input {position} "
                               f"has {t.ndim} dimensions")
    if not tensors:
        return Tensor._make(np.zeros((1, 0), np.float32))
    blocks = [reshape(t, (1, 1) if t.ndim == 0 else (1, t.shape[0])) if t.ndim < 2 else t for t in same_dtype(tensors)]
    dtype = blocks[0]._data.dtype
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        height, right = b.shape[0], width - left - b.shape[1]
        parts = [Tensor._make(np.zeros((height, left), dtype)), b, Tensor._make(np.zeros((height, right), dtype))]
        rows.append(cat([p for p in parts if p.shape[1] or p is b], 1))
        left += b.shape[1]
    return cat(rows, 0)


# ----- broadcasting and grids -----

def broadcast_shapes(*shapes):
    """The shape that tensors of the given shapes broadcast to (ints count as 1-d shapes).

    >>> mt.broadcast_shapes((2, 1), (3,), 1)
    (2, 3)
    """
    shapes = [(int(s),) if isinstance(s, (int, np.integer)) else tuple(int(n) for n in s) for s in shapes]
    result = []
    for position, shape in enumerate(shapes):
        if any(n < 0 for n in shape):
            raise RuntimeError(f"broadcast_shapes: trying to create tensor with negative dimension: {list(shape)}")
        for back in range(1, len(shape) + 1):
            n = shape[-back]
            if back > len(result):
                result.insert(0, n)
            elif result[-back] == 1:
                result[-back] = n
            elif n != 1 and n != result[-back]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {n} at {-back}! Mismatching argument "
                                   f"at index {position} had {shape}; but expected shape should be broadcastable to {result}")
    return tuple(result)


def broadcast_tensors(*tensors):
    """The tensors broadcast to their common shape (views, runs "BroadcastTo").

    >>> a, b = mt.broadcast_tensors(mt.tensor([1, 2]), mt.tensor([[3], [4]]))
    >>> a
    tensor([[1, 2],
            [1, 2]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shapes = [tuple(t.shape) for t in tensors]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        shape = None
    if shape is None:
        for back in range(1, max(len(s) for s in shapes) + 1):
            sizes = {s[-back] for s in shapes if len(s) >= back} - {1}
            if len(sizes) > 1:
                a, b = sorted(sizes)[:2]
                raise RuntimeError(f"broadcast_tensors: The size of tensor a ({a}) must match the size of tensor b ({b}) "
                                   f"at non-singleton dimension {max(len(s) for s in shapes) - back}")
    return tuple(broadcast_to(t, shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-d tensors: output i varies along dimension i ("ij", the default) or,
    with indexing="xy", the first two dimensions are swapped (numpy's default). Views ("BroadcastTo").

    >>> xs, ys = mt.meshgrid(mt.tensor([1, 2, 3]), mt.tensor([4, 5]), indexing="xy")
    >>> xs
    tensor([[1, 2, 3],
            [1, 2, 3]])
    >>> ys
    tensor([[4, 4, 4],
            [5, 5, 5]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape "
                               f"{list(t.shape)}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        order[0], order[1] = 1, 0
    shape = tuple(tensors[i].numel() for i in order)
    grids = []
    for i, t in enumerate(tensors):
        position = order.index(i)
        grids.append(broadcast_to(reshape(t, tuple(-1 if d == position else 1 for d in range(len(shape)))), shape))
    return tuple(grids)


def cartesian_prod(*tensors):
    """All tuples taking one element from each 1-d tensor, as rows (itertools.product's order).

    >>> mt.cartesian_prod(mt.tensor([1, 2]), mt.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"cartesian_prod: Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([reshape(g, -1) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-`r` combinations of the elements of a 1-d tensor, as rows (itertools' order).
    Runs the "GatherNd" op, so gradients add up over repeated elements.

    >>> mt.combinations(mt.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    >>> mt.combinations(mt.tensor([1, 2]), with_replacement=True)
    tensor([[1, 1],
            [1, 2],
            [2, 2]])
    """
    if input.ndim != 1:
        raise RuntimeError(f"combinations: Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"combinations: Expect a non-negative number, but got {r}")
    if r == 0:
        return getitem(input, (np.zeros(0, np.int64),))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return getitem(input, (index,))
