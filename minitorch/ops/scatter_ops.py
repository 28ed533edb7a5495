"""Writing by index: scatter, scatter_add, scatter_reduce, index_add/copy/fill/put/reduce, masked_scatter, put.

Each returns a new tensor (the in-place twins, `scatter_` and friends, come
from the table of in-place twins, ops/in_place_twins.py). They build a numpy index as
the readers in index_ops.py do and run one of three ops:

* "TensorScatterUpdate" (array_ops.py): out = x with out[index] = updates;
  the gradient of x is the incoming gradient with the written places zeroed,
  that of the updates is the gradient read at index.
* "TensorScatterAdd" (TensorFlow's name): out = x with updates added at index,
  repeated positions adding up (numpy's `np.add.at`, in the order given).
* "ScatterReduce": out[index] combines x (with include_self) and every update
  sent there by sum, prod, mean, amax or amin. Its gradient is PyTorch's
  (torch/csrc/autograd/FunctionsManual.cpp, scatter_reduce_backward), written
  with minitorch ops so that it is differentiable again.
"""
import numpy as np

from ..engine.execute import execute
from ..tensor import Tensor
from .array_ops import broadcast_to, getitem, normalize_index, reshape, wrap_dim
from .coercion import as_operand, cast
from .comparison_ops import eq, where
from .in_place_ops import would_record
from .index_ops import along_dim, check_range, index_array
from .rows import TRANSPOSE, linear_in_all, op

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


# ----- the ops -----

def _tensor_scatter_add(x, updates, index):
    out = x.copy()
    np.add.at(out, index, updates)
    return out


def _tensor_scatter_add_grad(op, grad):
    """y = x with u added at index: dy/dx = grad, dy/du = grad[index]."""
    need_x, need_updates = op.needs_input_grad
    return (grad if need_x else None,
            execute("GatherNd", (grad,), {"index": op.attrs["index"]}) if need_updates else None)


op("TensorScatterAdd", _tensor_scatter_add, _tensor_scatter_add_grad, needs="nothing", jvp=linear_in_all)


def _scatter_counts(shape, index, updates_shape):
    """How many updates each position of an output of `shape` receives."""
    counts = np.zeros(shape, np.int64)
    np.add.at(counts, index, np.ones(updates_shape, np.int64))
    return counts


def _identity_of(reduce, dtype):
    """The value a position starts from when include_self=False."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    return np.iinfo(dtype).min if reduce == "amax" else np.iinfo(dtype).max


_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _scatter_reduce(x, updates, index, reduce, include_self):
    out = x.copy()
    if not include_self:
        out[index] = _identity_of(reduce, x.dtype)
    _UFUNCS[reduce].at(out, index, updates)
    if reduce == "mean":
        counts = np.maximum(_scatter_counts(x.shape, index, updates.shape) + include_self, 1)
        out = out // counts if out.dtype.kind in "iu" else (out / counts).astype(out.dtype)
    return out


def _scatter_reduce_grad(op, grad):
    """PyTorch's scatter_reduce_backward. sum: dx = g, du = g[index]. mean: both divided by the
    count of each position. amax/amin: g shared evenly by the x and u equal to the result. prod:
    g times the product of the others (computed without dividing by zero)."""
    x, updates = op.inputs
    (result,) = op.outputs
    index, reduce, include_self = op.attrs["index"], op.attrs["reduce"], op.attrs["include_self"]

    def read(t):
        return execute("GatherNd", (t,), {"index": index})

    def add_at(base, values):
        return execute("TensorScatterAdd", (base, values), {"index": index})

    if reduce == "sum":
        grad_x, grad_updates = grad, read(grad)
    elif reduce == "mean":
        counts = np.maximum(_scatter_counts(x.shape, index, updates.shape) + include_self, 1)
        grad_x = grad / Tensor._make(counts.astype(grad._data.dtype))
        grad_updates = read(grad_x)
    elif reduce in ("amax", "amin"):
        x_hit, updates_hit = cast(eq(x, result), grad.dtype), cast(eq(updates, read(result)), grad.dtype)
        share = grad / add_at(x_hit, updates_hit)
        grad_x, grad_updates = x_hit * share, updates_hit * read(share)
    else:
        grad_x, grad_updates = _prod_grads(grad, x, updates, result, op.attrs, read, add_at)
    if not include_self:
        grad_x = execute("TensorScatterUpdate", (grad_x, Tensor._make(np.zeros((), grad._data.dtype))), {"index": index})
    return grad_x, grad_updates


op("ScatterReduce", _scatter_reduce, _scatter_reduce_grad, needs="both", jvp=TRANSPOSE)


def _prod_grads(grad, x, updates, result, attrs, read, add_at):
    """d prod: each factor's gradient is g times the product of the other factors. Dividing the
    result by the factor fails at zeros, so, as PyTorch, zeros are replaced by ones and the
    product taken again where needed."""
    zero = Tensor._make(np.zeros((), grad._data.dtype))
    one = Tensor._make(np.ones((), grad._data.dtype))
    x_zero = eq(x, zero)
    x_ones = where(x_zero, one, x)
    grad_x = grad * execute("ScatterReduce", (x_ones, updates), attrs) / x_ones
    updates_zero = eq(updates, zero)
    zeros_here = read(add_at(Tensor._make(np.zeros(x.shape, grad._data.dtype)), cast(updates_zero, grad.dtype)))
    single_zero = updates_zero & eq(zeros_here, one)
    if bool((zeros_here._data > 1).any()) and would_record((grad, x, updates)):
        raise RuntimeError("scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
                           "scattered to the same position in self (as in PyTorch)")
    without_single_zero = execute("ScatterReduce", (x, where(single_zero, one, updates)), attrs)
    grad_updates = where(single_zero, read(grad * without_single_zero),
                         read(grad * result) / where(updates_zero, one, updates))
    return grad_x, grad_updates


# ----- the functions -----

def _same_dtype_as(x, src, name):
    if src._data.dtype != x._data.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype (got {x.dtype} and {src.dtype})")


def _fitted_src(src, index_shape):
    """The first index.shape[d] elements of src along each dimension d (what PyTorch's scatter reads)."""
    if tuple(src.shape) == tuple(index_shape):
        return src
    return getitem(src, tuple(slice(0, n) for n in index_shape))


def _scalar_like(value, x):
    return cast(as_operand(value, like=x), x._data.dtype)


def _scatter_operands(x, dim, index, src, name):
    """(numpy index, updates of index's shape) for scatter-like functions of `src` (a tensor or a number)."""
    dim = wrap_dim(dim, x.ndim, name)
    index = index_array(index, name)
    src_shape = src.shape if isinstance(src, Tensor) else None
    if src_shape is not None:
        _same_dtype_as(x, src, name)
    where_ = along_dim(x.shape, dim, index, name, src_shape)
    shape = index.shape if index.ndim else (1,)
    if src_shape is None:
        updates = broadcast_to(_scalar_like(src, x), shape)
    else:
        updates = _fitted_src(reshape(src, 1) if src.ndim == 0 else src, shape)
    return where_, updates


def _on_flat(x, compute):
    """compute on x (a 0-d tensor read as 1-d), back in x's shape."""
    return reshape(compute(reshape(x, 1)), ()) if x.ndim == 0 else compute(x)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """`x` with `src` (a tensor, or the number `value`) written at `index` along `dim`:
    out[i][index[i][j]] = src[i][j] for dim 1. With reduce="add" or "multiply", combined with what
    is there instead. Runs "TensorScatterUpdate" (or "TensorScatterAdd", "ScatterReduce").

    >>> mt.zeros(2, 3).scatter(1, mt.tensor([[2], [0]]), mt.tensor([[7.0], [9.0]]))
    tensor([[0., 0., 7.],
            [9., 0., 0.]])
    >>> mt.zeros(3).scatter(0, mt.tensor([1, 1]), 2.0, reduce="add")
    tensor([0., 4., 0.])
    """
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing the source: pass src (a tensor) or value (a number)")
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError(f"scatter(): reduce argument must be either add or multiply, got {reduce}")
    where_, updates = _scatter_operands(input, dim, index, src, "scatter")
    if reduce is None:
        return _on_flat(input, lambda flat: execute("TensorScatterUpdate", (flat, updates), {"index": where_}))
    if reduce == "add":
        return _on_flat(input, lambda flat: execute("TensorScatterAdd", (flat, updates), {"index": where_}))
    attrs = {"index": where_, "reduce": "prod", "include_self": True}
    return _on_flat(input, lambda flat: execute("ScatterReduce", (flat, updates), attrs))


def scatter_add(input, dim, index, src):
    """`x` with the values of `src` added at `index` along `dim` (repeated indices add up):
    out[i][index[i][j]] += src[i][j] for dim 1. Runs "TensorScatterAdd".

    >>> mt.zeros(4).scatter_add(0, mt.tensor([0, 1, 1, 3]), mt.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([1., 5., 0., 4.])
    """
    where_, updates = _scatter_operands(input, dim, index, src, "scatter_add")
    return _on_flat(input, lambda flat: execute("TensorScatterAdd", (flat, updates), {"index": where_}))


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """`x` with the values of `src` sent to `index` along `dim` and combined, at each position, by
    `reduce` ("sum", "prod", "mean", "amax", "amin"), with the value already there unless
    include_self=False. Positions no index names keep their value. Runs "ScatterReduce".

    >>> x = mt.tensor([1.0, 2.0, 3.0])
    >>> x.scatter_reduce(0, mt.tensor([0, 0, 2]), mt.tensor([5.0, 7.0, 1.0]), "amax")
    tensor([7., 2., 3.])
    >>> x.scatter_reduce(0, mt.tensor([0, 0, 2]), mt.tensor([5.0, 7.0, 1.0]), "mean", include_self=False)
    tensor([6., 2., 1.])
    """
    if reduce not in REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): src must be a Tensor, got {type(src).__name__}")
    where_, updates = _scatter_operands(input, dim, index, src, "scatter_reduce")
    attrs = {"index": where_, "reduce": reduce, "include_self": bool(include_self)}
    return _on_flat(input, lambda flat: execute("ScatterReduce", (flat, updates), attrs))


def _index_operands(x, dim, index, source, name, int32=True, negative=False, error=RuntimeError):
    """(numpy index of the slices of x along dim at `index`, source) for the index_* functions."""
    dim = wrap_dim(dim, x.ndim, name)
    index = index_array(index, name, allow_int32=int32)
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, got shape {list(index.shape)}")
    index = index.reshape(-1)
    size = x.shape[dim] if x.ndim else 1
    check_range(index, size, dim, name, negative, error)
    if isinstance(source, Tensor):
        if source._data.dtype != x._data.dtype:
            raise RuntimeError(f"{name}(): self ({x.dtype}) and source ({source.dtype}) must have the same scalar type")
        expected = x.shape[:dim] + (index.size,) + x.shape[dim + 1:] if x.ndim else (index.size,)
        if tuple(source.shape) != expected and not (x.ndim == 0 and source.numel() == index.size):
            raise RuntimeError(f"{name}(): Number of indices ({index.size}) should be equal to source.size(dim) and the "
                               f"other sizes of source should match self's: source {list(source.shape)}, self "
                               f"{list(x.shape)}, dim {dim}")
        source = reshape(source, expected)
    return (slice(None),) * dim + (index,), source


def index_add(input, dim, index, source, *, alpha=1):
    """`x` with alpha times the slices of `source` added to the slices of `x` along `dim` at `index`
    (repeated indices add up). Runs "TensorScatterAdd".

    >>> mt.zeros(3, 2).index_add(0, mt.tensor([0, 2, 0]), mt.ones(3, 2))
    tensor([[2., 2.],
            [0., 0.],
            [1., 1.]])
    """
    where_, source = _index_operands(input, dim, index, source, "index_add")
    if alpha != 1:
        source = source * alpha
    return _on_flat(input, lambda flat: execute("TensorScatterAdd", (flat, source), {"index": where_}))


def index_copy(input, dim, index, source):
    """`x` with the slices along `dim` at `index` replaced by the slices of `source`. Runs "TensorScatterUpdate".

    >>> mt.zeros(3, 2).index_copy(0, mt.tensor([2, 0]), mt.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[3., 4.],
            [0., 0.],
            [1., 2.]])
    """
    where_, source = _index_operands(input, dim, index, source, "index_copy", int32=False, error=IndexError)
    return _on_flat(input, lambda flat: execute("TensorScatterUpdate", (flat, source), {"index": where_}))


def index_fill(input, dim, index, value):
    """`x` with the slices along `dim` at `index` filled with `value` (a number or a 0-d tensor, which
    then gets the gradient of every filled place). Runs "TensorScatterUpdate".

    >>> mt.ones(2, 3).index_fill(1, mt.tensor([0, 2]), -1.0)
    tensor([[-1.,  1., -1.],
            [-1.,  1., -1.]])
    """
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
                           "dimension(s).")
    where_, _ = _index_operands(input, dim, index, None, "index_fill", int32=False, negative=True,
                                error=IndexError)
    value = _scalar_like(value, input)
    return _on_flat(input, lambda flat: execute("TensorScatterUpdate", (flat, value), {"index": where_}))


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """`x` with the slices of `source` sent to the slices along `dim` at `index` and combined by
    `reduce` ("prod", "mean", "amax", "amin"), with the slice already there unless include_self=False.
    Runs "ScatterReduce".

    >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.index_reduce(0, mt.tensor([0, 0]), mt.tensor([[5.0, 1.0], [2.0, 6.0]]), "amax")
    tensor([[5., 6.],
            [3., 4.]])
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    where_, source = _index_operands(input, dim, index, source, "index_reduce")
    attrs = {"index": where_, "reduce": reduce, "include_self": bool(include_self)}
    return _on_flat(input, lambda flat: execute("ScatterReduce", (flat, source), attrs))


def index_put(input, indices, values, accumulate=False):
    """`x` with `values` written at `x[indices]` (a tuple of index tensors, as in `x[i, j] = values`),
    or added there with accumulate=True (repeated positions add up). Runs "TensorScatterUpdate" or
    "TensorScatterAdd".

    >>> mt.zeros(3).index_put((mt.tensor([0, 0, 2]),), mt.tensor([1.0, 2.0, 3.0]), accumulate=True)
    tensor([3., 0., 3.])
    """
    if not isinstance(indices, (tuple, list)) or not all(isinstance(i, Tensor) for i in indices):
        raise TypeError("index_put(): indices must be a tuple of Tensors")
    values = values if isinstance(values, Tensor) else _scalar_like(values, input)
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {input.dtype} for the "
                           f"destination and {values.dtype} for the source.")
    where_, _ = normalize_index(input, tuple(indices))
    target = np.empty(input.shape, np.bool_)[where_].shape
    try:
        np.broadcast_shapes(values.shape, target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to indexing "
                           f"result of shape {list(target)}") from None
    return execute("TensorScatterAdd" if accumulate else "TensorScatterUpdate", (input, values), {"index": where_})



def masked_scatter(input, mask, source):
    """`x` with the elements of `source`, in order, written where the boolean `mask` is True
    (`x` and `mask` broadcast together). Runs "TensorScatterUpdate".

    >>> mt.zeros(2, 2).masked_scatter(mt.tensor([[True, False], [True, True]]), mt.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([[1., 0.],
            [2., 3.]])
    """
    if not isinstance(mask, Tensor) or mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got {input.dtype} and "
                           f"{source.dtype}")
    shape = np.broadcast_shapes(input.shape, mask.shape)
    if not shape:
        return reshape(masked_scatter(reshape(input, 1), reshape(mask, 1), source), ())
    positions = np.nonzero(np.broadcast_to(mask._data, shape))
    count = positions[0].size
    if source.numel() < count:
        raise RuntimeError(f"masked_scatter: Number of elements of source < number of ones in mask ({source.numel()} < "
                           f"{count})")
    updates = getitem(reshape(source, -1), (slice(0, count),))
    return execute("TensorScatterUpdate", (broadcast_to(input, shape), updates), {"index": positions})


def put(input, index, source, accumulate=False):
    """`x` with the elements of `source` written (or, with accumulate=True, added) at the positions
    `index` of the flattened tensor (negative positions count from the end). Runs
    "TensorScatterUpdate" or "TensorScatterAdd".

    >>> mt.zeros(2, 2).put(mt.tensor([0, -1]), mt.tensor([5.0, 6.0]))
    tensor([[5., 0.],
            [0., 6.]])
    """
    positions = index_array(index, "put", allow_int32=False).reshape(-1)
    if source.numel() != positions.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {positions.size}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got {input.dtype} and {source.dtype}")
    bad = (positions >= input.numel()) | (positions < -input.numel())
    if bad.any():
        raise IndexError(f"put_(): out of range: tried to access index {positions[bad][0]} on a tensor of {input.numel()} "
                         "elements.")
    op = "TensorScatterAdd" if accumulate else "TensorScatterUpdate"
    return reshape(execute(op, (reshape(input, -1), reshape(source, -1)), {"index": (positions,)}), input.shape)
