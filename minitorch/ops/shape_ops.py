"""Reordering and reshaping: flip, roll, rot90, repeat, tile, movedim, narrow, select, unfold, ...

Most of these are compositions of the ops in array_ops.py ("Reshape",
"Transpose", "BroadcastTo", "StridedSlice"), so they are views where PyTorch
returns views (narrow, select, movedim, swapaxes, unflatten) and their
gradients come for free. Three need ops of their own: "ReverseV2" (flip, a
copy as in PyTorch), "Roll", and "Unfold" (overlapping sliding windows, a
read-only view of the input, whose gradient "UnfoldGrad" adds each window's
gradient back where the window was taken).
"""
import math

import numpy as np

from ..engine.execute import execute
from ..engine.registry import VIEW
from ..tensor import Tensor
from .array_ops import clone, getitem, permute, reshape, shape_arg, transpose, unsqueeze, wrap_dim
from .rows import linear, op, read_back_by, written_into_zeros


# ----- the ops -----

def _flipped(x, axis):
    return np.ascontiguousarray(np.flip(x, axis))


def _reverse_grad(op, grad):
    """d flip(x) = flip(dx): the gradient is flipped back."""
    return execute("ReverseV2", (grad,), op.attrs)


op("ReverseV2", _flipped, _reverse_grad, needs="nothing", jvp=linear)


def _roll(x, shift, axis):
    return np.roll(x, shift, axis)


def _roll_grad(op, grad):
    """d roll(x, s) = roll(dx, s): the gradient is rolled back by -s."""
    shift = op.attrs["shift"]
    back = -shift if isinstance(shift, int) else tuple(-s for s in shift)
    return execute("Roll", (grad,), {"shift": back, "axis": op.attrs["axis"]})


op("Roll", _roll, _roll_grad, needs="nothing", jvp=linear)


def _unfold(x, dim, size, step):
    windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=dim, writeable=True)  # writes may overlap, as PyTorch's
    return windows[(slice(None),) * dim + (slice(None, None, step),)]


def _unfold_grad_kernel(grad, shape, dim, size, step):
    out = np.zeros(shape, grad.dtype)
    along = np.moveaxis(out, dim, -1)  # a view: adding into it adds into out
    count = grad.shape[dim]
    for k in range(size):  # element k of every window at once
        along[..., k: k + (count - 1) * step + 1: step] += np.moveaxis(grad[..., k], dim, -1)
    return out


op("Unfold", _unfold, written_into_zeros("UnfoldGrad"), needs="nothing", jvp=linear, view=VIEW)
op("UnfoldGrad", _unfold_grad_kernel, read_back_by("Unfold"), needs="nothing", jvp=linear)


# ----- as_strided: any strided window on a tensor's memory -----

def _owner(array):
    """The numpy array that owns `array`'s memory (the end of its chain of bases)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def offset_in_storage(input):
    """Where `input` starts in the memory it shares with its views, in elements (PyTorch's storage_offset()).

    >>> mt.arange(6.0)[2:].storage_offset()
    2
    """
    array = input._data
    return (array.ctypes.data - _owner(array).ctypes.data) // array.itemsize


def _as_strided(x, size, stride, start, index):
    """The elements `start + sum(i_k * stride_k)` (in elements, from x's first) as a writable view.
    `index` (their positions in x) is for the gradient and for rewriting x after a write."""
    owner = _owner(x)
    offset = x.ctypes.data - owner.ctypes.data + start * x.itemsize
    return np.ndarray(size, x.dtype, buffer=owner, offset=offset, strides=tuple(s * x.itemsize for s in stride))


def _as_strided_grad(op, grad):
    """d as_strided(x) = as_strided(dx): each element's gradient is added where it was read (overlaps add up)."""
    return execute("ScatterNd", (grad,), {"shape": op.input_shapes[0], "index": op.attrs["index"]})


op("AsStrided", _as_strided, _as_strided_grad, needs="nothing", jvp=linear, view=VIEW)


def as_strided(input, size, stride, storage_offset=None):
    """A view of `input`'s memory with the given size and strides (in elements), starting at
    `storage_offset` (default: where `input` starts). Runs the "AsStrided" op; writes go through.
    The view must stay within `input`'s own elements (PyTorch lets it reach the rest of the storage).

    >>> x = mt.zeros(6)
    >>> _ = x.as_strided((2, 2), (3, 1)).fill_(1.0); x
    tensor([1., 1., 0., 1., 1., 0.])
    """
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"as_strided: mismatch in length of strides and shape ({len(stride)} and {len(size)})")
    if any(n < 0 for n in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: negative sizes or strides are not allowed (size {list(size)}, stride {list(stride)})")
    start = 0 if storage_offset is None else int(storage_offset) - offset_in_storage(input)
    index = _positions_in(input, size, stride, start)
    return execute("AsStrided", (input,), {"size": size, "stride": stride, "start": start, "index": index})


def _addresses(shape, strides, start):
    """The byte address of each element of an array of `shape` with byte `strides` starting at `start`."""
    addresses = np.full(shape, start, dtype=np.int64)
    for axis, (n, step) in enumerate(zip(shape, strides)):
        addresses += (np.arange(n, dtype=np.int64) * step).reshape((n,) + (1,) * (len(shape) - axis - 1))
    return addresses


def _positions_in(input, size, stride, start):
    """The position in `input` of each element of the strided view (found by address), or RuntimeError
    where one falls outside input's elements."""
    array = input._data
    held = _addresses(array.shape, array.strides, array.ctypes.data).reshape(-1)
    wanted = _addresses(size, [s * array.itemsize for s in stride], array.ctypes.data + start * array.itemsize)
    wanted = wanted.reshape(-1)
    order = np.argsort(held, kind="stable")
    at = np.searchsorted(held, wanted, sorter=order)
    inside = at < held.size
    inside[inside] = held[order[at[inside]]] == wanted[inside]
    if not inside.all():
        raise RuntimeError(f"as_strided: size {list(size)}, stride {list(stride)} and storage offset reach memory "
                           f"outside the tensor of shape {list(input.shape)} (minitorch keeps a strided view inside "
                           "the tensor it is taken of)")
    return np.unravel_index(order[at].reshape(size), input.shape)


# ----- flipping and rotating -----

def _dims(dims, ndim, name):
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    wrapped = tuple(wrap_dim(d, ndim, name) for d in dims)
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"{name}: dim {d} appears multiple times in the list of dims")
    return wrapped


def flip(input, *dim_list, dims=None):
    """A copy of `x` with the order of elements reversed along `dims`. Runs the "ReverseV2" op.

    >>> mt.flip(mt.tensor([[1, 2], [3, 4]]), [1])
    tensor([[2, 1],
            [4, 3]])
    >>> mt.tensor([[1, 2], [3, 4]]).flip(0, 1)
    tensor([[4, 3],
            [2, 1]])
    """
    dims = _dims(shape_arg(dim_list, dims, "flip", "dims"), input.ndim, "flip")
    if input.ndim == 0:
        return clone(input)
    return execute("ReverseV2", (input,), {"axis": dims})


def fliplr(input):
    """`x` flipped left to right (along dimension 1). Runs the "ReverseV2" op.

    >>> mt.fliplr(mt.tensor([[1, 2, 3]]))
    tensor([[3, 2, 1]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"fliplr: Input must be >= 2-d (got shape {tuple(input.shape)})")
    return flip(input, 1)


def flipud(input):
    """`x` flipped upside down (along dimension 0). Runs the "ReverseV2" op.

    >>> mt.flipud(mt.tensor([[1, 2], [3, 4]]))
    tensor([[3, 4],
            [1, 2]])
    """
    if input.ndim < 1:
        raise RuntimeError("flipud: Input must be >= 1-d (got a 0-d tensor)")
    return flip(input, 0)


def roll(input, shifts, dims=()):
    """`x` rolled by `shifts` along `dims` (elements leaving one end come back at the other);
    without `dims`, the flattened tensor is rolled and the shape restored. Runs the "Roll" op.

    >>> mt.roll(mt.tensor([1, 2, 3, 4]), 1)
    tensor([4, 1, 2, 3])
    >>> mt.roll(mt.tensor([[1, 2], [3, 4]]), (1, 1), (0, 1))
    tensor([[4, 3],
            [2, 1]])
    """
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(int(s) for s in shifts)
    if dims is None or dims == () or dims == []:
        if len(shifts) != 1:
            raise RuntimeError(f"roll: shifts and dimensions must align. shifts: {len(shifts)}, dims: 0")
        return execute("Roll", (input,), {"shift": int(shifts[0]), "axis": None})
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll: shifts and dimensions must align. shifts: {len(shifts)}, dims: {len(dims)}")
    axis = tuple(wrap_dim(d, input.ndim, "roll") for d in dims)
    if input.ndim == 0:
        return clone(input)
    return execute("Roll", (input,), {"shift": tuple(int(s) for s in shifts), "axis": axis})


def rot90(input, k=1, dims=(0, 1)):
    """`x` rotated by 90 degrees `k` times in the plane of `dims`, from the first toward the second.
    A flip and a transpose, as in PyTorch.

    >>> mt.rot90(mt.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90: expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"rot90: expected total dims >= 2, but got total dims = {input.ndim}")
    first, second = wrap_dim(dims[0], input.ndim, "rot90"), wrap_dim(dims[1], input.ndim, "rot90")
    if first == second:
        raise RuntimeError(f"rot90: expected rotation dims to be different, but got dim0 = {first} and dim1 = {second}")
    k %= 4
    if k == 1:
        return transpose(flip(input, second), first, second)
    if k == 2:
        return flip(input, first, second)
    if k == 3:
        return flip(transpose(input, first, second), second)
    return clone(input)


# ----- repeating -----

def repeat(x, *sizes, repeats=None):
    """`x` repeated `sizes[i]` times along each dimension (more sizes than dimensions add leading
    ones). Always a copy. A reshape, an expand and a reshape: no op of its own.

    >>> mt.tensor([1, 2]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    sizes = shape_arg(sizes, repeats, "repeat", "repeats")
    if len(sizes) < x.ndim:
        raise RuntimeError(f"repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           f"of tensor ({len(sizes)} < {x.ndim})")
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"repeat: repeats must be non-negative, got {list(sizes)}")
    shape = (1,) * (len(sizes) - x.ndim) + tuple(x.shape)
    if all(n == 1 for n in sizes):
        return clone(reshape(x, shape))
    spread = [d for n, s in zip(sizes, shape) for d in (1, s)]
    expanded = [d for n, s in zip(sizes, shape) for d in (n, s)]
    return reshape(reshape(x, spread).expand(*expanded), tuple(n * s for n, s in zip(sizes, shape)))


def tile(input, *dim_list, dims=None):
    """`x` repeated `dims[i]` times along each dimension; fewer dims than dimensions repeat the
    last ones (numpy's tile). Same as `repeat` after padding `dims` with leading ones.

    >>> mt.tile(mt.tensor([[1, 2]]), (2,))
    tensor([[1, 2, 1, 2]])
    """
    dims = shape_arg(dim_list, dims, "tile", "dims")
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def repeat_interleave(input=None, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along `dim`) repeated `repeats` times in place, one after the other;
    without `dim`, over the flattened tensor. `repeats` is an int or a tensor of one count per
    element; `mt.repeat_interleave(counts)` alone repeats 0, 1, 2, ... A tensor of counts runs
    "GatherNd" (gradients add up over the copies); an int count is a reshape and an expand.

    >>> mt.repeat_interleave(mt.tensor([1, 2]), 2)
    tensor([1, 1, 2, 2])
    >>> mt.repeat_interleave(mt.tensor([[1, 2], [3, 4]]), mt.tensor([1, 2]), dim=0)
    tensor([[1, 2],
            [3, 4],
            [3, 4]])
    >>> mt.repeat_interleave(mt.tensor([2, 0, 1]))
    tensor([0, 0, 2])
    """
    if input is None or repeats is None:  # repeat_interleave(counts), or repeat_interleave(repeats=counts)
        counts = _counts(repeats if input is None else input, "repeat_interleave")
        if counts.ndim != 1:
            raise RuntimeError(f"repeat_interleave: repeats must be 0-dim or 1-dim tensor, got shape {list(counts.shape)}")
        return Tensor._make(np.repeat(np.arange(counts.size), counts))
    if dim is None:
        input, dim = reshape(input, -1), 0
    dim = wrap_dim(dim, input.ndim, "repeat_interleave")
    if input.ndim == 0:
        input = reshape(input, 1)
    if isinstance(repeats, Tensor) and repeats.ndim == 0:
        repeats = int(repeats.item())
    if isinstance(repeats, (int, np.integer)):
        if repeats < 0:
            raise RuntimeError(f"repeat_interleave: Repeats must be non-negative, got {repeats}")
        size = input.shape[dim]
        out = unsqueeze(input, dim + 1).expand(*input.shape[: dim + 1], int(repeats), *input.shape[dim + 1:])
        result = reshape(out, input.shape[:dim] + (size * int(repeats),) + input.shape[dim + 1:])
        if repeats == 1:
            result = clone(result)  # a reshape of x itself: PyTorch's result is always a copy
    else:
        counts = _counts(repeats, "repeat_interleave")
        if counts.ndim != 1 or counts.size != input.shape[dim]:
            raise RuntimeError(f"repeat_interleave: repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.size} and input.size({dim}) = {input.shape[dim]}")
        result = getitem(input, (slice(None),) * dim + (np.repeat(np.arange(counts.size), counts),))
    if output_size is not None and result.shape[dim] != output_size:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match the total of repeats "
                           f"{result.shape[dim]}")
    return result


def _counts(repeats, name):
    counts = np.asarray(repeats._data if isinstance(repeats, Tensor) else repeats)
    if counts.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: repeats has to be an integer tensor, got {counts.dtype}")
    if (counts < 0).any():
        raise RuntimeError(f"{name}: repeats can not be negative")
    return counts.reshape(-1) if counts.ndim == 0 else counts


# ----- reordering dimensions (views) -----

def movedim(input, source, destination):
    """`x` with the dimensions in `source` moved to the positions in `destination`, the others
    keeping their order. A view (runs the "Transpose" op); `mt.moveaxis` is the same function.

    >>> mt.movedim(mt.zeros(2, 3, 4), 0, -1).shape
    minitorch.Size([3, 4, 2])
    >>> mt.movedim(mt.zeros(2, 3, 4), (0, 1), (2, 0)).shape
    minitorch.Size([3, 4, 2])
    """
    source = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    destination = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain "
                           f"the same number of dims as destination ({list(destination)} dims)")
    source = tuple(wrap_dim(d, input.ndim, "movedim") for d in source)
    destination = tuple(wrap_dim(d, input.ndim, "movedim") for d in destination)
    for name, dims in (("source", source), ("destination", destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    if input.ndim == 0:
        return reshape(input, ())
    rest = iter(d for d in range(input.ndim) if d not in source)
    placed = dict(zip(destination, source))
    return permute(input, tuple(placed[i] if i in placed else next(rest) for i in range(input.ndim)))


def swapaxes(input, axis0, axis1):
    """Dimensions axis0 and axis1 swapped: `mt.transpose` under numpy's name. A view.

    >>> mt.swapaxes(mt.zeros(2, 3, 4), 0, 2).shape
    minitorch.Size([4, 3, 2])
    """
    return transpose(input, axis0, axis1)


def swapdims(input, dim0, dim1):
    """Dimensions dim0 and dim1 swapped: `mt.transpose` under another name. A view.

    >>> mt.swapdims(mt.zeros(2, 3, 4), 0, 2).shape
    minitorch.Size([4, 3, 2])
    """
    return transpose(input, dim0, dim1)


def t(input):
    """The transpose of a tensor with at most 2 dimensions (0-d and 1-d come back as they are). A view.

    >>> mt.t(mt.tensor([[1, 2, 3]]))
    tensor([[1],
            [2],
            [3]])
    """
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return permute(input, tuple(reversed(range(input.ndim))))


def _matrices_transposed(x, name):
    """The last two dimensions swapped; `name` is what PyTorch calls the operation in its error."""
    if x.ndim < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got {x.ndim}-D tensor.")
    return transpose(x, -2, -1)


def adjoint(input):
    """The conjugate transpose of the last two dimensions; for real tensors, `x.mT`. A view.

    >>> mt.adjoint(mt.tensor([[1, 2, 3]])).shape
    minitorch.Size([3, 1])
    """
    return _matrices_transposed(input, "tensor.adjoint()")


def matrix_transpose(x):
    """`x.mT`: the last two dimensions swapped (a batch of transposed matrices). A view.

    >>> mt.zeros(5, 2, 3).mT.shape
    minitorch.Size([5, 3, 2])
    """
    return _matrices_transposed(x, "tensor.mT")


def matrix_conjugate_transpose(x):
    """`x.mH`: the conjugate transpose of the last two dimensions; for real tensors, `x.mT`. A view.

    >>> mt.zeros(5, 2, 3).mH.shape
    minitorch.Size([5, 3, 2])
    """
    return _matrices_transposed(x, "tensor.mH")


def conjugate_transpose(x):
    """`x.H`: the conjugate transpose of a matrix; for real tensors, its transpose. A view.

    >>> mt.tensor([[1, 2, 3]]).H.shape
    minitorch.Size([3, 1])
    """
    if x.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {x.ndim}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if x.ndim > 2 else ""))
    return transpose(x, 0, 1)


# ----- taking parts (views) -----

def narrow(input, dim, start, length):
    """The part of `x` from `start` to `start + length` along `dim` (negative `start` counts from the end).
    A view (runs the "StridedSlice" op).

    >>> mt.narrow(mt.tensor([0, 1, 2, 3, 4]), 0, 1, 3)
    tensor([1, 2, 3])
    """
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, input.ndim, "narrow")
    start, length, size = int(start), int(length), input.shape[dim]
    if length < 0:
        raise RuntimeError(f"narrow(): length must be non-negative (got {length}).")
    if not -size <= start <= size:
        raise IndexError(f"narrow: start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"narrow: start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return getitem(input, (slice(None),) * dim + (slice(start, start + length),))


def select(input, dim, index):
    """The slice of `x` at `index` along `dim`, with that dimension removed (`x[:, index]` for dim 1).
    A view (runs the "StridedSlice" op).

    >>> mt.select(mt.tensor([[1, 2], [3, 4]]), 1, -1)
    tensor([2, 4])
    """
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, input.ndim, "select")
    index = int(index)
    if not -input.shape[dim] <= index < input.shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {dim}")
    return getitem(input, (slice(None),) * dim + (index,))


def unfold(x, dimension, size, step):
    """Every window of `size` elements along `dimension`, `step` apart, in a new last dimension
    (`dimension` then counts the windows). A view of `x`, written through as in PyTorch. Windows that
    do not overlap are cut with "StridedSlice", "Reshape" and "Transpose"; overlapping windows
    (step < size) run the "Unfold" op, where writes to a shared element overwrite each other, as in PyTorch.

    >>> mt.arange(5).unfold(0, 2, 1)
    tensor([[0, 1],
            [1, 2],
            [2, 3],
            [3, 4]])
    >>> mt.arange(12.0).reshape(3, 4).unfold(1, 2, 2).shape
    minitorch.Size([3, 2, 2])
    """
    dim = wrap_dim(dimension, x.ndim, "unfold")
    length = x.shape[dim] if x.ndim else 1
    if step <= 0:
        raise RuntimeError(f"unfold: step is {step} but must be > 0")
    if size < 0 or size > length:
        raise RuntimeError(f"unfold: maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if x.ndim == 0:
        return reshape(x, 1)[:size]
    count = (length - size) // step + 1
    if step >= size and count * step <= length:
        steps = unflatten(narrow(x, dim, 0, count * step), dim, (count, step))
        return movedim(narrow(steps, dim + 1, 0, size), dim + 1, -1)
    return execute("Unfold", (x,), {"dim": dim, "size": int(size), "step": int(step)})


# ----- reshaping -----

def unflatten(input, dim, sizes):
    """Dimension `dim` split into `sizes` (one of them may be -1). A view where the layout allows
    (runs the "Reshape" op).

    >>> mt.unflatten(mt.zeros(2, 12), 1, (3, -1)).shape
    minitorch.Size([2, 3, 4])
    """
    dim = wrap_dim(dim, input.ndim, "unflatten")
    sizes = tuple(int(n) for n in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = int(math.prod([n for n in sizes if n != -1]))
    size = input.shape[dim] if input.ndim else 1
    if sizes.count(-1) > 1 or (size != known if -1 not in sizes else known == 0 or size % known):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({size}) in the input tensor")
    sizes = tuple(size // known if n == -1 else n for n in sizes)
    return reshape(input, input.shape[:dim] + sizes + input.shape[dim + 1:])


def ravel(input):
    """The elements of `x` in one dimension (a view when `x` is contiguous). Runs the "Reshape" op.

    >>> mt.ravel(mt.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
    """
    return reshape(input, -1)


def reshape_as(x, other):
    """`x` reshaped to `other`'s shape. Runs the "Reshape" op.

    >>> mt.arange(6).reshape_as(mt.zeros(2, 3)).shape
    minitorch.Size([2, 3])
    """
    return reshape(x, tuple(other.shape))


def _at_least(tensors, ndim, shape_for):
    """One tensor in, one out; several (or a list), a tuple."""
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    out = tuple(reshape(t, shape_for(tuple(t.shape))) if t.ndim < ndim else t for t in tensors)
    return out[0] if single else out


def atleast_1d(*tensors):
    """Each tensor with at least 1 dimension (a 0-d tensor becomes shape (1,)); several in, a tuple out.

    >>> mt.atleast_1d(mt.tensor(5))
    tensor([5])
    >>> [t.shape for t in mt.atleast_1d(mt.tensor(1), mt.zeros(2, 2))]
    [minitorch.Size([1]), minitorch.Size([2, 2])]
    """
    return _at_least(tensors, 1, lambda shape: (1,))


def atleast_2d(*tensors):
    """Each tensor with at least 2 dimensions (shape (n,) becomes (1, n)); several in, a tuple out.

    >>> mt.atleast_2d(mt.tensor([1, 2])).shape
    minitorch.Size([1, 2])
    """
    return _at_least(tensors, 2, lambda shape: (1,) * (2 - len(shape)) + shape)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dimensions ((n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)), as numpy.

    >>> mt.atleast_3d(mt.zeros(2, 3)).shape
    minitorch.Size([2, 3, 1])
    """
    return _at_least(tensors, 3, lambda shape: (1,) + shape + (1,) if len(shape) == 1 else shape + (1,) * (3 - len(shape)))


# ----- memory layout -----

def stride(x, dim=None):
    """The step in elements between neighbours along each dimension (numpy's strides over the item size).

    >>> mt.zeros(2, 3, 4).stride()
    (12, 4, 1)
    >>> mt.zeros(2, 3).t().stride(0)
    1
    """
    steps = tuple(s // x._data.itemsize for s in x._data.strides)
    return steps if dim is None else steps[wrap_dim(dim, x.ndim, "stride")]
