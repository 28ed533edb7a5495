"""Shape ops, indexing, concatenation: each op's numpy kernel, then its gradient and forward rule.

All of these ops are linear, so each forward rule runs the op itself on the tangent.

Indexing follows numpy/PyTorch. Basic indexing (ints, slices, None,
Ellipsis) is "StridedSlice", whose gradient "StridedSliceGrad" writes the
incoming gradient into zeros; advanced indexing (integer arrays, boolean
masks) is "GatherNd", whose gradient "ScatterNd" adds it (repeated indices
add up). Each gradient op is the other's gradient, so indexing stays
differentiable to any order.
"""
import math

import numpy as np

from .. import dtypes
from ..engine.execute import execute
from ..engine.registry import STORAGE, VIEW
from ..engine.versions import share_storage
from ..errors import ShapeError
from ..tensor import Size, Tensor
from .coercion import as_operand, cast
from .reduction_ops import normalize_dims
from .rows import linear, linear_in_all, op, read_back_by, written_into_zeros


def _reshape(x, shape):
    return np.reshape(x, shape)


def _reshape_grad(op, grad):
    """d reshape(x) = reshape(dx): the gradient takes the input's shape back."""
    return grad.reshape(op.input_shapes[0])


op("Reshape", _reshape, _reshape_grad, needs="nothing", jvp=linear, view=VIEW)


def _transpose(x, perm):
    return np.transpose(x, perm)


def _transpose_grad(op, grad):
    """d transpose(x, perm) = transpose(dx, perm): the gradient goes through the inverse permutation."""
    return grad.permute(*np.argsort(op.attrs["perm"]))


op("Transpose", _transpose, _transpose_grad, needs="nothing", jvp=linear, view=VIEW)


def _broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


def _broadcast_to_grad(op, grad):
    """d broadcast(x) = broadcast(dx): the tape sums the gradient back to the input's shape."""
    return grad


op("BroadcastTo", _broadcast_to, _broadcast_to_grad, needs="nothing", jvp=linear, view=VIEW)


def _identity(x, copy=False):
    return np.array(x, copy=True) if copy else np.ascontiguousarray(x)


def _identity_grad(op, grad):
    """d x = dx."""
    return grad


op("Identity", _identity, _identity_grad, needs="nothing", jvp=linear)


op("StopGradient", lambda x: x.view(), view=STORAGE)


def _strided_slice(x, index):
    return x[index]


def _strided_slice_grad_kernel(grad, shape, index):
    out = np.zeros(shape, grad.dtype)
    out[index] = grad
    return out


op("StridedSlice", _strided_slice, written_into_zeros("StridedSliceGrad"), needs="nothing", jvp=linear, view=VIEW)
op("StridedSliceGrad", _strided_slice_grad_kernel, read_back_by("StridedSlice"), needs="nothing", jvp=linear)


def _gather(x, index):
    return x[index]


def _scatter(grad, shape, index):
    out = np.zeros(shape, grad.dtype)
    np.add.at(out, index, grad)
    return out


op("GatherNd", _gather, written_into_zeros("ScatterNd"), needs="nothing", jvp=linear)  # repeated indices add up
op("ScatterNd", _scatter, read_back_by("GatherNd"), needs="nothing", jvp=linear)


def _tensor_scatter_update(x, updates, index):
    out = x.copy()
    out[index] = updates
    return out


def _tensor_scatter_update_grad(op, grad):
    """y = x with y[index] = u: dy/dx is the gradient with the written region zeroed, dy/du = grad[index]."""
    index = op.attrs["index"]
    need_x, need_updates = op.needs_input_grad
    zero = Tensor._make(np.zeros((), grad._data.dtype))
    grad_x = execute("TensorScatterUpdate", (grad, zero), {"index": index}) if need_x else None
    return grad_x, (execute("GatherNd", (grad,), {"index": index}) if need_updates else None)


op("TensorScatterUpdate", _tensor_scatter_update, _tensor_scatter_update_grad, needs="nothing", jvp=linear_in_all)


def _concat(*xs, axis):
    return np.concatenate(xs, axis=axis)


def _concat_grad(op, grad):
    """d cat(x1, ..., xn) = cat(dx1, ..., dxn): each input gets its slice of the gradient."""
    axis = op.attrs["axis"]
    grads, start = [], 0
    for shape in op.input_shapes:
        stop = start + shape[axis]
        grads.append(grad[(slice(None),) * axis + (slice(start, stop),)])
        start = stop
    return tuple(grads)


op("ConcatV2", _concat, _concat_grad, needs="nothing", jvp=linear_in_all)


def _pack(*xs, axis):
    return np.stack(xs, axis=axis)


def _pack_grad(op, grad):
    """d stack(x1, ..., xn) = stack(dx1, ..., dxn): each input gets its slice of the gradient."""
    axis = op.attrs["axis"]
    return tuple(grad[(slice(None),) * axis + (i,)] for i in range(len(op.input_shapes)))


op("Pack", _pack, _pack_grad, needs="nothing", jvp=linear_in_all)


# ----- the functional API -----

def shape_arg(shape, keyword=None, name="reshape", keyword_name="shape"):
    """A shape (or list of dims) as PyTorch takes it: several ints, one sequence, or by keyword:
    `x.reshape(2, 3)`, `x.reshape((2, 3))` and `x.reshape(shape=(2, 3))` alike."""
    if keyword is not None:
        if shape:
            raise TypeError(f"{name}(): {keyword_name} given both by position and as {keyword_name}=")
        shape = (keyword,)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = shape[0]
    return tuple(int(n) for n in shape)


def reshape(input, *sizes, shape=None):
    """The same elements in a new shape (one dimension may be -1): a view where the strides allow it,
    else a copy. Runs the "Reshape" op.

    >>> mt.reshape(mt.arange(6), (2, 3))
    tensor([[0, 1, 2],
            [3, 4, 5]])
    >>> mt.arange(6).reshape(3, -1).shape, mt.arange(6).reshape(shape=(2, 3)).shape
    (minitorch.Size([3, 2]), minitorch.Size([2, 3]))
    """
    shape = _checked_shape(input, shape_arg(sizes, shape), "Reshape")
    return execute("Reshape", (input,), {"shape": shape})


def _checked_shape(input, shape, name):
    """`shape` if input's elements fit it (at most one -1), else PyTorch's error."""
    if shape == input._data.shape:
        return shape
    known = int(math.prod([n for n in shape if n != -1]))
    if shape.count(-1) > 1 or (
        (input.numel() != known) if -1 not in shape else (known == 0 or input.numel() % known)
    ):
        raise ShapeError(f"{name}: shape {list(shape)} is invalid for input of size {input.numel()} (shape {input.shape})")
    return shape


def view(input, *sizes, size=None, dtype=None):
    """The same storage seen in another shape, never a copy: where the strides do not allow it (a
    transposed tensor flattened), PyTorch's error, not a silent copy (`reshape` copies). With `dtype`,
    the same bytes read as another dtype. Runs the "Reshape" op.

    >>> x = mt.zeros(2, 3)
    >>> v = x.view(-1)
    >>> v[0] = 5.0; x[0, 0].item()
    5.0
    >>> x.t().view(-1)
    Traceback (most recent call last):
    ...
    RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.
    """
    if len(sizes) == 1 and isinstance(sizes[0], dtypes.DType):  # x.view(mt.int32), PyTorch's other form
        sizes, dtype = (), sizes[0]
    if dtype is not None:
        if sizes or size is not None:
            raise TypeError("view() takes a size or a dtype, not both")
        return _reinterpreted(input, dtype)
    shape = _checked_shape(input, shape_arg(sizes, size, "view", "size"), "view")
    try:
        np.reshape(input._data, shape, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    return execute("Reshape", (input,), {"shape": shape})


def _reinterpreted(input, dtype):
    """`x.view(dtype)`: the same storage read as `dtype` (not recorded: bits are not differentiable)."""
    np_dtype = dtypes.to_numpy_dtype(dtype)
    array = input._data
    if np_dtype.itemsize != array.dtype.itemsize and array.ndim and array.strides[-1] != array.itemsize:
        raise RuntimeError(f"self.stride(-1) must be 1 to view {input.dtype} as {dtypes.from_numpy_dtype(np_dtype)} "
                           f"(different element sizes), but got {array.strides[-1] // array.itemsize}")
    try:
        viewed = array.view(np_dtype)
    except ValueError as error:
        raise RuntimeError(f"view: cannot view a {input.dtype} tensor of shape {list(input.shape)} as "
                           f"{dtypes.from_numpy_dtype(np_dtype)}: {error}") from None
    result = Tensor._make(viewed)
    share_storage(result, input)
    return result


def flatten(input, start_dim=0, end_dim=-1):
    """Dimensions start_dim..end_dim merged into one. Runs the "Reshape" op.

    >>> mt.flatten(mt.zeros(2, 3, 4)).shape
    minitorch.Size([24])
    >>> mt.flatten(mt.zeros(2, 3, 4), start_dim=1).shape
    minitorch.Size([2, 12])
    """
    if input.ndim == 0:
        return reshape(input, 1)
    start, end = start_dim % input.ndim, end_dim % input.ndim
    shape = input.shape[:start] + (-1,) + input.shape[end + 1 :] if start <= end else input.shape
    if input.numel() == 0:
        shape = input.shape[:start] + (int(math.prod(input.shape[start : end + 1])),) + input.shape[end + 1 :]
    return reshape(input, shape)


def wrap_dim(dim, ndim, name):
    """PyTorch's dimension argument (negatives count from the end) as an index in 0..ndim-1.

    A 0-d tensor accepts 0 and -1, as in PyTorch. Out of range: PyTorch's IndexError.

    >>> wrap_dim(-1, 3, "flip")
    2
    """
    rank = max(ndim, 1)
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}: dim must be an int, got {type(dim).__name__}")
    if not -rank <= dim < rank:
        raise IndexError(f"{name}: Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    return int(dim) % rank


def squeeze_shape(shape, dim, name="squeeze"):
    """`shape` without its size-1 dimensions (all of them, or those in `dim`)."""
    if dim is None:
        return tuple(n for n in shape if n != 1)
    dims = {wrap_dim(d, len(shape), name) for d in ((dim,) if isinstance(dim, (int, np.integer)) else dim)}
    return tuple(n for i, n in enumerate(shape) if not (i in dims and n == 1))


def squeeze(input, *dims, dim=None):
    """Size-1 dimensions removed (all of them, or those in `dim`: one, a sequence, or several). Runs the "Reshape" op.

    >>> mt.squeeze(mt.zeros(2, 1, 3, 1)).shape
    minitorch.Size([2, 3])
    >>> mt.squeeze(mt.zeros(2, 1, 3, 1), 1).shape, mt.zeros(2, 1, 3, 1).squeeze(1, 3).shape
    (minitorch.Size([2, 3, 1]), minitorch.Size([2, 3]))
    """
    if dims not in ((), (None,)) or dim is not None:
        dim = shape_arg(dims, dim, "squeeze", "dim")
    return reshape(input, squeeze_shape(input.shape, dim))


def unsqueeze(input, dim):
    """A size-1 dimension inserted at `dim`. Runs the "Reshape" op.

    >>> mt.unsqueeze(mt.tensor([1, 2, 3]), 0)
    tensor([[1, 2, 3]])
    >>> mt.unsqueeze(mt.tensor([1, 2, 3]), -1).shape
    minitorch.Size([3, 1])
    """
    dim = wrap_dim(dim, input.ndim + 1, "unsqueeze")
    return reshape(input, input.shape[:dim] + (1,) + input.shape[dim:])


def permute(input, *dim_order, dims=None):
    """The dimensions reordered as `dims`. Runs the "Transpose" op.

    >>> mt.permute(mt.zeros(2, 3, 4), (2, 0, 1)).shape, mt.zeros(2, 3, 4).permute(dims=(2, 0, 1)).shape
    (minitorch.Size([4, 2, 3]), minitorch.Size([4, 2, 3]))
    """
    dims = shape_arg(dim_order, dims, "permute", "dims")
    if len(dims) != input.ndim:
        raise ShapeError(f"permute: number of dimensions in the tensor input does not match the length of the desired "
                         f"ordering of dimensions i.e. input.dim() = {input.ndim} is not equal to len(dims) = {len(dims)}")
    perm = tuple(wrap_dim(d, input.ndim, "permute") for d in dims)
    if len(set(perm)) != len(perm):
        raise ShapeError(f"permute(): duplicate dims are not allowed (got {dims})")
    return execute("Transpose", (input,), {"perm": perm})


def transpose(input, dim0, dim1):
    """Dimensions dim0 and dim1 swapped. Runs the "Transpose" op.

    >>> mt.transpose(mt.tensor([[1, 2, 3], [4, 5, 6]]), 0, 1)
    tensor([[1, 4],
            [2, 5],
            [3, 6]])
    """
    dim0, dim1 = wrap_dim(dim0, input.ndim, "transpose"), wrap_dim(dim1, input.ndim, "transpose")
    perm = list(range(input.ndim))
    if input.ndim:
        perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
    return execute("Transpose", (input,), {"perm": tuple(perm)})


def expand(x, *sizes, size=None, implicit=False):
    """A broadcast view at a larger size (-1 keeps a dimension). Runs the "BroadcastTo" op.

    >>> mt.tensor([[1], [2]]).expand(2, 3)
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """
    sizes = shape_arg(sizes, size, "expand", "size")
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise ShapeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the number "
                         f"of dimensions in the tensor ({x.ndim}) (shape {tuple(x.shape)})")
    for i, n in enumerate(sizes[:lead]):
        if n < 0:
            raise ShapeError(f"expand: the expanded size of the tensor ({n}) isn't allowed in a leading, non-existing dimension {i}")
    shape = sizes[:lead] + tuple(old if n == -1 else n for old, n in zip(x.shape, sizes[lead:]))
    for i, (old, n) in enumerate(zip(x.shape, shape[lead:])):
        if old != n and old != 1:
            raise ShapeError(f"expand: the expanded size of the tensor ({n}) must match the existing size ({old}) at "
                             f"non-singleton dimension {i + lead}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(x.shape)}")
    return broadcast_to(x, shape)


def broadcast_to(input, *sizes, size=None):
    """`x` broadcast to `size` (numpy's rules). Runs the "BroadcastTo" op.

    >>> mt.broadcast_to(mt.tensor([1, 2, 3]), (2, 3))
    tensor([[1, 2, 3],
            [1, 2, 3]])
    """
    return execute("BroadcastTo", (input,), {"shape": shape_arg(sizes, size, "broadcast_to", "size")})


def contiguous(x, *, memory_format=None):
    """`x` if its data is C-contiguous, else a contiguous copy. Runs the "Identity" op when it copies.

    >>> x = mt.zeros(2, 3).t()
    >>> x.contiguous().shape
    minitorch.Size([3, 2])
    """
    return x if x._data.flags.c_contiguous else execute("Identity", (x,))


def clone(input, *, memory_format=None):
    """A copy of `x` with its own data; gradients flow back to `x`. Runs the "Identity" op.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> y = mt.clone(x)
    >>> y
    tensor([1., 2.], grad_fn=<IdentityBackward0>)
    """
    return execute("Identity", (input,), {"copy": True})


def cat(tensors, dim=0, *, axis=None):
    """Tensors joined along an existing dimension `dim`. Runs the "ConcatV2" op; `mt.concat` and `mt.concatenate` are the same function.

    >>> mt.cat([mt.tensor([[1, 2]]), mt.tensor([[3, 4]])])
    tensor([[1, 2],
            [3, 4]])
    >>> mt.cat([mt.zeros(2, 1), mt.ones(2, 2)], dim=1).shape
    minitorch.Size([2, 3])
    """
    if axis is not None:  # numpy's name, which PyTorch accepts too
        dim = axis
    tensors = list(tensors)
    if not tensors:
        raise ValueError("ConcatV2: expected a non-empty list of Tensors")
    tensors = same_dtype(tensors)
    for position, t in enumerate(tensors):
        if t.ndim == 0:
            raise ShapeError(f"ConcatV2: zero-dimensional tensor (at position {position}) cannot be concatenated")
    ndim = tensors[0].ndim
    (axis,) = normalize_dims(dim, ndim, "ConcatV2")
    for t in tensors:
        if t.ndim != ndim or any(a != b for i, (a, b) in enumerate(zip(t.shape, tensors[0].shape)) if i != axis):
            shapes = ", ".join(str(tuple(s.shape)) for s in tensors)
            raise ShapeError(f"ConcatV2: sizes of tensors must match except in dimension {dim}; got shapes {shapes}")
    return execute("ConcatV2", tuple(tensors), {"axis": axis})


def stack(tensors, dim=0):
    """Same-shape tensors joined along a new dimension `dim`. Runs the "Pack" op.

    >>> mt.stack([mt.tensor([1, 2]), mt.tensor([3, 4])])
    tensor([[1, 2],
            [3, 4]])
    >>> mt.stack([mt.zeros(3), mt.zeros(3)], dim=1).shape
    minitorch.Size([3, 2])
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("Pack: expected a non-empty list of Tensors")
    tensors = same_dtype(tensors)
    if any(t.shape != tensors[0].shape for t in tensors):
        shapes = ", ".join(str(tuple(s.shape)) for s in tensors)
        raise ShapeError(f"Pack: stack expects each tensor to be equal size, but got shapes {shapes}")
    (axis,) = normalize_dims(dim, tensors[0].ndim + 1, "Pack")
    return execute("Pack", tuple(tensors), {"axis": axis})


def same_dtype(tensors):
    """The tensors cast to PyTorch's result type of a list: the highest category (bool < int < float)
    wins, and within it the tensors with dimensions decide before 0-d ones (cat([float32, int64]) is float32)."""
    tensors = [as_operand(t) for t in tensors]
    top = max(dtypes.category(t._data.dtype) for t in tensors)
    pool = [t._data.dtype for t in tensors if dtypes.category(t._data.dtype) == top]
    pool = [t._data.dtype for t in tensors if dtypes.category(t._data.dtype) == top and t.ndim] or pool
    target = np.result_type(*pool)
    return [cast(t, target) for t in tensors]


def stop_gradient(input):
    """A tensor with the same values that no tape sees through (`detach`). Runs the "StopGradient" op.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> y = mt.stop_gradient(x * 2)
    >>> y, y.requires_grad
    (tensor([2., 4.]), False)
    """
    return execute("StopGradient", (input,))


def getitem(x, index):
    """`x[index]`: basic indexing runs the "StridedSlice" op, integer arrays and bool masks the "GatherNd" op.

    >>> x = mt.tensor([[1, 2, 3], [4, 5, 6]])
    >>> x[1, 1:]
    tensor([5, 6])
    >>> x[x > 3]
    tensor([4, 5, 6])
    """
    index, advanced = normalize_index(x, index)
    return execute("GatherNd" if advanced else "StridedSlice", (x,), {"index": index})


def normalize_index(x, index):
    """Index as a tuple numpy accepts; bool masks become integer arrays; checks ranges with PyTorch's errors."""
    items = [_index_item(item) for item in (index if isinstance(index, tuple) else (index,))]
    taken = sum(_dims_taken(item) for item in items)
    if taken > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    advanced = any(isinstance(item, (np.ndarray, np.bool_)) for item in items)
    out, dim, arrays = [], 0, 0  # PyTorch names an index array's dimension by its place among the arrays
    for item in items:
        if item is Ellipsis:
            dim += x.ndim - taken
        elif isinstance(item, slice):
            if item.step is not None and item.step <= 0:
                raise ValueError("step must be greater than zero" if item.step < 0 else "slice step cannot be zero")
            dim += 1
        elif isinstance(item, np.ndarray) and item.dtype == np.bool_ and item.ndim:
            _check_mask(item, x.shape, dim)
            out.extend(np.nonzero(item))
            dim, arrays = dim + item.ndim, arrays + item.ndim
            continue
        elif isinstance(item, int):
            _check_bounds(item, x.shape[dim], dim)
            dim += 1
        elif isinstance(item, np.ndarray):
            _check_bounds(item, x.shape[dim], arrays)
            dim, arrays = dim + 1, arrays + 1
        out.append(item)
    return tuple(out), advanced


def _index_item(item):
    """One item of an index as numpy takes it: ints, slices, None, Ellipsis, np.bool_ or an integer/bool array."""
    if isinstance(item, Tensor):
        item = item._data
        if item.dtype == np.uint8:  # PyTorch still reads byte tensors as masks
            item = item.astype(np.bool_)
    elif isinstance(item, (list, range)):
        item = np.asarray(item)
        if item.size == 0:
            item = item.astype(np.int64)
    if isinstance(item, (bool, np.bool_)) or isinstance(item, np.ndarray) and item.dtype == np.bool_ and item.ndim == 0:
        return np.bool_(item)
    if isinstance(item, np.ndarray):
        if item.dtype.kind not in "iub":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors (got {item.dtype})")
        return item
    if isinstance(item, (int, np.integer)):
        return int(item)
    if item is None or item is Ellipsis or isinstance(item, slice):
        return item
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     f"indices (got {type(item).__name__})")


def _dims_taken(item):
    """How many dimensions of the indexed tensor an index item consumes."""
    if item is None or item is Ellipsis or isinstance(item, np.bool_):
        return 0
    return item.ndim if isinstance(item, np.ndarray) and item.dtype == np.bool_ else 1


def _check_bounds(index, size, dim):
    """PyTorch's IndexError for an integer index (or array of them) outside -size..size-1."""
    if isinstance(index, int):
        if -size <= index < size:
            return
        index = np.asarray(index)
    bad = (index >= size) | (index < -size)
    if bad.any():
        raise IndexError(f"index {index[bad].flat[0]} is out of bounds for dimension {dim} with size {size}")


def _check_mask(mask, shape, first):
    """A boolean mask must match the dimensions it covers, from `first` on (numpy would read
    a short mask as a list of indices: x[[True, False]] is x[[1, 0]])."""
    for i, n in enumerate(mask.shape):
        if first + i >= len(shape) or shape[first + i] != n:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {i} does not match the shape of the indexed "
                f"tensor {list(shape)} at index {first + i}"
            )
