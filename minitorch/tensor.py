"""Tensor: a numpy array with an id that tapes can refer to.

This file is the value the engine records, and nothing more: its data (the
array, its shape and dtype), its id, and its autograd flags (requires_grad,
grad, is_leaf, grad_fn). The tensor keeps no graph: the tapes do, by id
(engine/tape.py). Every method, operator and conversion (`x * y`, `exp`,
`reshape`, `numpy()`, `item()`, `backward()`, printing) is bound onto the
class by tensor_methods.py, from the op functions in minitorch/ops/ or its
own, so this file imports nothing above the engine's first floor
(tests/test_structure.py holds it to that).
"""
import itertools
import math

import numpy as np

from . import dtypes
from .engine import autograd_tape

_next_id = itertools.count(1).__next__
_new = object.__new__


class Tensor:
    """An n-dimensional array of one dtype (a numpy array plus an id the tapes refer to).

    Make one with `mt.tensor(data)`; `requires_grad=True` lets `.backward()` fill `.grad`.

    >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.shape, x.dtype
    (minitorch.Size([2, 2]), minitorch.float32)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([[2., 4.],
            [6., 8.]])
    """
    __slots__ = ("_data", "_id", "_requires_grad", "_grad", "_node", "_tracker", "_version", "_view_of", "_hooks", "__weakref__")

    def __new__(cls, *data, dtype=None, requires_grad=False):
        """PyTorch's legacy constructor: `mt.Tensor(2, 3)` has that shape (zeros), `mt.Tensor([1, 2])` is float32."""
        if dtype is not None or requires_grad or (len(data) == 1 and isinstance(data[0], Tensor)):
            return cls._from_data(*data, dtype=dtype, requires_grad=requires_grad)
        sizes = tuple(data[0]) if len(data) == 1 and isinstance(data[0], Size) else data
        if all(isinstance(size, int) and not isinstance(size, bool) for size in sizes):  # none: empty
            return cls._make(np.zeros(sizes or (0,), dtype=dtypes.default_float.numpy))
        if len(data) != 1:
            raise TypeError(f"Tensor(): expected sizes (ints) or one sequence of data, got {data!r}")
        return cls._make(to_array(data[0], dtypes.default_float))

    @classmethod
    def _from_data(cls, data, dtype=None, requires_grad=False):
        """A copy of `data` in `dtype` or the data's own (what `mt.tensor` makes)."""
        t = cls._make(to_array(data, dtype))
        return t.requires_grad_() if requires_grad else t

    @classmethod
    def _make(cls, array, tensor_id=None):
        """The one constructor: wraps a numpy array without copying or checking. `_from_data` converts data and comes
        here; execute wraps op results with it; saved outputs keep their `tensor_id`; Parameter makes itself with it."""
        t = _new(cls)
        t._data = array
        t._id = _next_id() if tensor_id is None else tensor_id
        t._requires_grad = False
        t._grad = None
        t._node = None  # the entry of the recorded op that made it (engine/entry.py): its grad_fn
        t._tracker = None  # the weakref that reports its death, if its death concerns a tape (engine/state.py, track)
        t._version = None  # the storage's VersionCounter (engine/versions.py), made on first use
        t._view_of = None  # (parent, view op, attrs) when a recorded view op made this tensor
        return t

    # ----- the data -----

    @property
    def shape(self):
        """The size of each dimension, as an `mt.Size` (a tuple).

        >>> mt.zeros(2, 3).shape
        minitorch.Size([2, 3])
        """
        return Size(self._data.shape)

    @property
    def dtype(self):
        """The data type (`mt.float32`, `mt.int64`, ...).

        >>> mt.tensor([1, 2]).dtype
        minitorch.int64
        """
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self):
        """The number of dimensions.

        >>> mt.zeros(2, 3, 4).ndim
        3
        """
        return self._data.ndim

    # ----- the autograd flags (the PyTorch door's view of the autograd tape) -----

    @property
    def requires_grad(self):
        """True when the autograd tape records ops on this tensor (settable on leaves).

        >>> x = mt.tensor([1.0])
        >>> x.requires_grad = True
        >>> x.requires_grad, (x * 2).requires_grad
        (True, True)
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Makes this leaf require gradients (the autograd tape will watch it); returns self.

        >>> w = mt.ones(2).requires_grad_()
        >>> w.requires_grad
        True
        """
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError(f"only Tensors of floating point dtype can require gradients (got {self.dtype})")
        if not requires_grad and not self.is_leaf:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        self._requires_grad = bool(requires_grad)
        (autograd_tape.watch if requires_grad else autograd_tape.unwatch)(self)
        return self

    @property
    def grad(self):
        """The gradient backward() accumulated (None before); assigning checks its shape and dtype, as PyTorch."""
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            data = value._data
            if data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(data.shape)}' to a tensor of size "
                                   f"'{list(self._data.shape)}'. Please ensure that the gradient and the tensor are the same size")
            if data.dtype != self._data.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype '{data.dtype}' to a tensor with dtype "
                                   f"'{self._data.dtype}'. Please ensure that the gradient and the tensor have the same dtype")
        self._grad = value

    @property
    def is_leaf(self):
        """True for tensors no recorded op produced (user-made tensors, parameters).

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> x.is_leaf, (x * 2).is_leaf
        (True, False)
        """
        return not self._requires_grad or self._node is None or autograd_tape.AUTOGRAD_TAPE not in self._node.tapes

    @property
    def grad_fn(self):
        """The node of the op that made this tensor on the autograd tape (None for leaves and constants).

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> y = (x * 2).sum()
        >>> y.grad_fn.name(), x.grad_fn
        ('SumBackward0', None)
        >>> y.grad_fn.next_functions[0][0].name()
        'MulBackward0'
        """
        return None if self.is_leaf else self._node

    # ----- the data out, to numpy and Python -----

    def numpy(self, *, force=False):
        """The data as a numpy array, sharing memory; refused while the tensor requires grad unless
        `force=True` (PyTorch's keyword), which hands over the detached data.

        >>> mt.tensor([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        >>> mt.ones(2, requires_grad=True).numpy(force=True)
        array([1., 1.], dtype=float32)
        """
        if force:
            return self._data.view()
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and dtype != self._data.dtype:
            return self._data.astype(dtype)
        return self._data.copy() if copy else self._data

    def item(self):
        """The value of a one-element tensor as a Python number.

        >>> mt.tensor([[2.5]]).item()
        2.5
        """
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        """The data as (nested) Python lists of numbers.

        >>> mt.tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
        """
        return self._data.tolist()

    def _scalar(self):
        """The one element as a Python number (float(), int(), format() of one-element tensors)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self):
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar())

    def __bool__(self):
        if self._data.size != 1:
            amount = "no values" if self._data.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self._scalar())

    __hash__ = object.__hash__  # by identity: the tapes tell tensors apart by id, whatever __eq__ becomes


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as `minitorch.Size([2, 3])` (torch.Size).

    >>> size = mt.zeros(2, 3).shape
    >>> size, size.numel(), size[1:], size + (4,), size == (2, 3)
    (minitorch.Size([2, 3]), 6, minitorch.Size([3]), minitorch.Size([2, 3, 4]), True)
    """
    __slots__ = ()

    def numel(self):
        """The number of elements of a tensor of this size."""
        return math.prod(self)

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other))) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, count):
        return Size(tuple.__mul__(self, count))

    __rmul__ = __mul__

    def __repr__(self):
        return f"minitorch.Size({list(self)})"


class SavedTensor(Tensor):
    """An op's output rebuilt from its saved array and id for a backward pass.

    Keeps the original's id and links to the entry that made it, so a tape
    recording the gradient sees where it came from, but is not the original:
    its death concerns nobody.
    """

    __slots__ = ()

    @classmethod
    def _restore(cls, array, tensor_id, node, requires_grad):
        t = cls._make(array, tensor_id)
        t._node = node
        t._requires_grad = requires_grad
        return t


def to_array(data, dtype=None):
    """A new numpy array for `data`, with PyTorch's default dtypes (float32 for Python floats, int64 for ints)."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, np.ndarray):
        array = data
    elif isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _nested_items(data)):
        array = np.array(_untensor(data))
    else:
        array = np.array(data)
    if np_dtype is None:
        if array.dtype.kind == "f" and not isinstance(data, np.ndarray):
            np_dtype = dtypes.default_float.numpy
        elif array.dtype.kind in "OUSVc":
            raise TypeError(f"can't convert {type(data).__name__} of dtype {array.dtype} to a minitorch Tensor")
        else:
            np_dtype = array.dtype
    dtypes.from_numpy_dtype(np.dtype(np_dtype))
    return np.array(array, dtype=np_dtype, copy=True)


def _nested_items(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _nested_items(x)
        else:
            yield x


def _untensor(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_untensor(x) for x in data]
    return data
