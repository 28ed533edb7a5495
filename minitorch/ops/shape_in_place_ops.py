"""In-place shape changes: squeeze_, unsqueeze_, t_, transpose_, swapaxes_, swapdims_; and PyTorch's legacy
resize_ (and resize, its deprecated copy), which change the number of elements too.

The tensor keeps its Python object and its storage; its shape changes and
its version is bumped, as in PyTorch. What must stay right is what the
engine knows about views (engine/versions.py, ops/in_place_ops.py): a view
remembers the op that made it from its base, and the views made from this
tensor remember its old shape.

So the tensor becomes a view of a "root": the tensor as it was before its
first in-place shape change. However many changes follow, it stays two view
ops away from that root, `Reshape(Transpose(root, perm), shape)`: squeezing,
unsqueezing and transposing only reorder the dimensions of size other than 1
and add or drop dimensions of size 1, and any such arrangement is one
transpose of the root followed by one reshape. The chain does not grow with
the number of changes. Views made from the tensor before a change hang from a
node that keeps the tensor's old arrangement (alive as long as those views).

When a tape records the change, the new value is recorded as those two ops
(the tensor takes the new id); otherwise the tensor keeps its id.
"""
import math
import warnings
import weakref

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..engine.execute import execute
from ..engine.state import thread_state
from ..engine.versions import bump, counter_of
from ..tensor import Tensor
from .array_ops import clone, shape_arg, wrap_dim
from .in_place_ops import _stand_in, _take_identity, would_record

# The Transpose nodes this module puts between a tensor and its root, by id (not a WeakSet: sets
# compare members with ==, which a Tensor answers elementwise).
_ARRANGERS = weakref.WeakValueDictionary()


def _refuse_leaf(t, name):
    """PyTorch's refusal: a leaf that requires grad, or a view of one, outside no_grad."""
    if not (t._requires_grad and thread_state.recording):
        return
    if t.is_leaf:
        raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in an in-place operation.")
    base = t
    while base._view_of is not None:
        base = base._view_of[0]
    if base._requires_grad and base.is_leaf:
        raise RuntimeError(f"{name}: a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _node_in_place_of(t, record):
    """A tensor that takes `t`'s present arrangement (and, when recording, its id) in the view tree."""
    node = _stand_in(t, copy=False) if record else Tensor._make(t._data)
    counter = counter_of(t)
    node._version = counter
    node._view_of = t._view_of
    if node._view_of is not None:
        counter.views.add(node)
    return node


def _rearrange(t, name, order):
    """Gives `t` the arrangement `order` of its dimensions, in place: order[i] is the present
    dimension that becomes dimension i, or None for a new dimension of size 1."""
    _refuse_leaf(t, name)
    record = would_record((t,))
    counter = counter_of(t)
    arranger = t._view_of[0] if t._view_of is not None else None
    if arranger is not None and _ARRANGERS.get(id(arranger)) is arranger:  # t = Reshape(Transpose(root, perm))
        root, _, attrs = arranger._view_of
        perm = attrs["perm"]
    else:
        root, perm = None, None
    children = [v for v in (counter.views or ()) if v._view_of is not None and v._view_of[0] is t]
    old_place = _node_in_place_of(t, record) if root is None or children else None
    for child in children:
        child._view_of = (old_place,) + child._view_of[1:]
    if root is None:
        root, perm = old_place, tuple(range(t.ndim))

    # Which dimension of the root each dimension of t is (None for the dimensions of size 1).
    sizes = iter(d for d in perm if root.shape[d] != 1)
    labels = [None if n == 1 else next(sizes) for n in t.shape]
    labels = [None if i is None else labels[i] for i in order]
    shape = tuple(1 if i is None else t.shape[i] for i in order)
    perm = tuple(d for d in labels if d is not None) + tuple(d for d in range(root.ndim) if root.shape[d] == 1)

    arranged = execute("Transpose", (root,), {"perm": perm})
    new = execute("Reshape", (arranged,), {"shape": shape})
    if new._view_of is None:  # numpy copied: cannot happen for size-1 changes of a transpose, but never write elsewhere
        raise RuntimeError(f"{name}: internal error: the new arrangement is not a view of the tensor's storage")
    _ARRANGERS[id(arranged)] = arranged
    if record:
        if old_place is None:
            _stand_in(t, copy=False)  # t's old id goes with it: the tapes free what only it needed
        _take_identity(t, new)
    if t._view_of is None:  # (a WeakSet compares members with ==, which a Tensor answers elementwise: add once)
        counter.views.add(t)
    t._data = as_strided(new._data, shape, _pytorch_strides(t, order), writeable=new._data.flags.writeable)
    t._view_of = new._view_of  # `new` itself leaves the set when it dies, at the end of this call
    bump(t)
    return t


def _pytorch_strides(t, order):
    """The strides (bytes) PyTorch gives the new arrangement. They differ from numpy's only along
    dimensions of size 1, where no step is ever taken, but `stride()` shows them."""
    old = t._data.strides
    out = []
    for position, i in enumerate(order):
        if i is not None:
            out.append(old[i])
        else:  # unsqueeze: the size times the stride of the dimension it is put before
            following = order[position + 1] if position + 1 < len(order) else None
            out.append(t._data.itemsize if following is None else t.shape[following] * old[following])
    return tuple(out)


def squeeze_(self, *dim_list, dim=None):
    """Removes size-1 dimensions (all of them, or those in `dim`) in place; same object and storage.

    >>> x = mt.zeros(2, 1, 3)
    >>> x.squeeze_() is x, x.shape
    (True, minitorch.Size([2, 3]))
    """
    if dim_list not in ((), (None,)) or dim is not None:
        dim = shape_arg(dim_list, dim, "squeeze_", "dim")
    dims = range(self.ndim) if dim is None else {wrap_dim(d, self.ndim, "squeeze_") for d in dim}
    order = [i for i, n in enumerate(self.shape) if n != 1 or i not in dims]
    return _rearrange(self, "squeeze_", order)


def unsqueeze_(self, dim):
    """Inserts a size-1 dimension at `dim` in place; same object and storage.

    >>> x = mt.zeros(2, 3)
    >>> x.unsqueeze_(0).shape
    minitorch.Size([1, 2, 3])
    """
    dim = wrap_dim(dim, self.ndim + 1, "unsqueeze_")
    order = list(range(self.ndim))
    order.insert(dim, None)
    return _rearrange(self, "unsqueeze_", order)


def transpose_(self, dim0, dim1):
    """Swaps dimensions dim0 and dim1 in place (also `swapdims_`); same object and storage.

    >>> x = mt.zeros(2, 3)
    >>> x.transpose_(0, 1).shape
    minitorch.Size([3, 2])
    """
    dim0, dim1 = wrap_dim(dim0, self.ndim, "transpose_"), wrap_dim(dim1, self.ndim, "transpose_")
    order = list(range(self.ndim))
    if self.ndim:
        order[dim0], order[dim1] = order[dim1], order[dim0]
    return _rearrange(self, "transpose_", order)


def swapaxes_(self, axis0, axis1):
    """`transpose_` under numpy's names.

    >>> mt.zeros(2, 3).swapaxes_(0, 1).shape
    minitorch.Size([3, 2])
    """
    return transpose_(self, axis0, axis1)


def t_(self):
    """Transposes a tensor of at most 2 dimensions in place; same object and storage.

    >>> x = mt.tensor([[1, 2, 3]])
    >>> x.t_()
    tensor([[1],
            [2],
            [3]])
    """
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _rearrange(self, "t_", list(reversed(range(self.ndim))))


# ----- resizing (PyTorch's legacy in-place resize, where it means something here) -----

def resize_(self, *sizes, size=None, memory_format=None):
    """Gives this tensor the shape `sizes` in place, keeping its elements in order as far as they go
    (new ones are zeros, where PyTorch leaves them uninitialised). As in PyTorch, a tensor that requires
    grad refuses; so does, in minitorch, a tensor that shares its memory with views (clone() it first).

    >>> mt.arange(4.0).resize_(2, 3)
    tensor([[0., 1., 2.],
            [3., 0., 0.]])
    """
    shape = shape_arg(sizes, size, "resize_", "size")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(n < 0 for n in shape):
        raise RuntimeError(f"resize_: Trying to create tensor with negative dimension: {list(shape)}")
    if shape == self._data.shape:
        return self
    counter = self._version
    if self._view_of is not None or self._data.base is not None or counter is not None and counter.views:
        raise RuntimeError("resize_: this tensor shares its memory with views; minitorch resizes only a tensor "
                           "that owns its memory (clone() it first)")
    resized = np.zeros(shape, self._data.dtype)
    kept = min(resized.size, self._data.size)
    resized.reshape(-1)[:kept] = self._data.reshape(-1)[:kept]
    self._data = resized
    bump(self)
    return self


def resize_as_(self, the_template, *, memory_format=None):
    """`resize_` to the shape of `the_template`.

    >>> mt.zeros(2).resize_as_(mt.ones(1, 3)).shape
    minitorch.Size([1, 3])
    """
    return resize_(self, the_template.shape)


def resize(self, *sizes):
    """Deprecated in PyTorch (it warns): a copy of this tensor in the shape `sizes`, which must hold as many
    elements.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     mt.ones(2, 3).resize(3, 2).shape
    minitorch.Size([3, 2])
    """
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    shape = shape_arg(sizes, None, "resize", "size")
    if math.prod(shape) != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, shape))} ({math.prod(shape)} elements in total), "
                           f"but the given tensor has a size of {'x'.join(map(str, self.shape))} "
                           f"({self.numel()} elements). autograd's resize can only change the shape of a given "
                           "tensor, while preserving the number of elements.")
    return clone(self).reshape(shape)


def resize_as(self, tensor):
    """Deprecated `resize` to `tensor`'s shape."""
    return resize(self, *tensor.shape)
