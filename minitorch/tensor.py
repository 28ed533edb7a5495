"""Tensor: a numpy array with an id that tapes can refer to.

Every method that computes something calls an op function (ops/*.py), which
calls `execute("OpName", inputs, attrs)` (autograd/execute.py). The tensor
itself keeps no graph: the tapes do, by id. `requires_grad`, `.grad` and
`.backward()` are the PyTorch door onto the same tapes (autograd/autograd_tape.py).
"""
import itertools

import numpy as np

from . import dtypes

_next_id = itertools.count(1).__next__


class Tensor:
    """An n-dimensional array of one dtype (a numpy array plus an id the tapes refer to).

    Make one with `mt.tensor(data)`; `requires_grad=True` lets `.backward()` fill `.grad`.

    >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> x.shape, x.dtype
    ((2, 2), minitorch.float32)
    >>> (x * x).sum().backward()
    >>> x.grad
    tensor([[2., 4.],
            [6., 8.]])
    """
    __slots__ = ("_data", "_id", "_requires_grad", "grad", "_on_tape", "__weakref__")

    def __init__(self, data, dtype=None, requires_grad=False):
        array = _to_array(data, dtype)
        self._data = array
        self._id = _next_id()
        self._requires_grad = False
        self.grad = None
        self._on_tape = False  # set once a tape or accumulator knows this tensor's id
        if requires_grad:
            self.requires_grad_(True)

    @staticmethod
    def _from_array(array):
        """Wraps a numpy array without copying or checking: the fast path for op results."""
        return wrap_array(array)

    def __del__(self):
        # The tapes free what only this tensor kept alive (seed: DeleteTrace).
        # Tensors no tape ever saw (constants, plain gradients) skip it.
        if self._on_tape and (active_tapes or active_accumulators):
            delete_trace(self._id)

    # ----- attributes -----

    @property
    def shape(self):
        """The size of each dimension, as a tuple.

        >>> mt.zeros(2, 3).shape
        (2, 3)
        """
        return self._data.shape

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

    def dim(self):
        """The number of dimensions (same as `.ndim`).

        >>> mt.zeros(2, 3).dim()
        2
        """
        return self._data.ndim

    def size(self, dim=None):
        """The shape as a tuple, or the length of dimension `dim`.

        >>> x = mt.zeros(2, 3)
        >>> x.size(), x.size(1)
        ((2, 3), 3)
        """
        return self._data.shape if dim is None else self._data.shape[dim]

    def numel(self):
        """The number of elements.

        >>> mt.zeros(2, 3).numel()
        6
        """
        return self._data.size

    def is_floating_point(self):
        """True for float16/32/64 tensors.

        >>> mt.tensor([1.0]).is_floating_point(), mt.tensor([1]).is_floating_point()
        (True, False)
        """
        return self._data.dtype.kind == "f"

    @property
    def T(self):
        """All dimensions reversed. Runs the "Transpose" op.

        >>> mt.zeros(2, 3, 4).T.shape
        (4, 3, 2)
        """
        return self.permute(*reversed(range(self.ndim)))

    @property
    def mT(self):
        """The last two dimensions swapped (a batch of transposed matrices). Runs the "Transpose" op.

        >>> mt.zeros(5, 2, 3).mT.shape
        (5, 3, 2)
        """
        return self.transpose(-2, -1)

    @property
    def data(self):
        """The same values, detached from every tape (as PyTorch's `.data`).

        >>> mt.tensor([1.0], requires_grad=True).data
        tensor([1.])
        """
        return self.detach()

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
        if requires_grad:
            autograd_tape.watch(self)
        return self

    @property
    def is_leaf(self):
        """True for tensors no recorded op produced (user-made tensors, parameters).

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> x.is_leaf, (x * 2).is_leaf
        (True, False)
        """
        return not self._requires_grad or autograd_tape.AUTOGRAD_TAPE.tensor_tape.get(self._id, -1) == -1

    @property
    def grad_fn(self):
        """The name of the op that made this tensor on the autograd tape (None for leaves).

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> (x * 2).grad_fn, x.grad_fn
        ('Mul', None)
        """
        return autograd_tape.producer_name(self)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulates d(self)/d(leaf) into `.grad` of every leaf that requires grad.

        A non-scalar tensor needs `gradient` (the vector in the vector-Jacobian
        product); `create_graph=True` records the backward pass for higher derivatives.

        >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
        >>> (x ** 2).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        """
        autograd_tape.backward(self, gradient, retain_graph, create_graph, inputs)

    def register_hook(self, hook):
        """Calls `hook(grad)` when this tensor's gradient is computed; a returned tensor replaces it.

        >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
        >>> handle = x.register_hook(lambda g: g * 10)
        >>> x.sum().backward()
        >>> x.grad
        tensor([10., 10.])
        >>> handle.remove()
        """
        return hooks.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Calls `hook(self)` during backward(), right after this leaf's `.grad` has been updated.

        >>> w = mt.tensor([1.0, 2.0], requires_grad=True)
        >>> handle = w.register_post_accumulate_grad_hook(lambda p: print("ready:", p.grad))
        >>> (w * w).sum().backward()
        ready: tensor([2., 4.])
        >>> handle.remove()
        """
        return hooks.register_post_accumulate_grad_hook(self, hook)

    def retain_grad(self):
        """Keeps this non-leaf tensor's gradient in `.grad` after backward().

        >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> y.retain_grad()
        >>> (y * y).sum().backward()
        >>> y.grad
        tensor([6., 12.])
        """
        hooks.retain_grad(self)

    def detach(self):
        """The same values as a new tensor that no tape sees through. Runs the "StopGradient" op.

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> (x * 2).detach()
        tensor([2.])
        """
        return array_ops.stop_gradient(self)

    def detach_(self):
        """Makes this tensor stop requiring gradients, in place; returns self.

        >>> x = mt.tensor([1.0], requires_grad=True).detach_()
        >>> x.requires_grad
        False
        """
        self._requires_grad = False
        return self

    # ----- numpy interop and Python conversions -----

    def numpy(self):
        """The data as a numpy array, sharing memory (refused while the tensor requires grad).

        >>> mt.tensor([1.0, 2.0]).numpy()
        array([1., 2.], dtype=float32)
        """
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

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self._data.size} values is ambiguous")
        return bool(self._data.reshape(()).item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    __hash__ = object.__hash__

    def __deepcopy__(self, memo):
        """A new tensor with a copy of the data and a new id (tapes tell tensors apart by id)."""
        copy = Tensor(self._data, requires_grad=self._requires_grad and self.is_leaf)  # Tensor() copies
        copy.grad = None if self.grad is None else Tensor(self.grad._data)
        memo[id(self)] = copy
        return copy

    def __repr__(self):
        return format_tensor(self)

    # ----- dtype conversions -----

    def to(self, dtype=None, *args, **kwargs):
        """This tensor converted to `dtype` (runs the "Cast" op); a device name ("cpu") returns self.

        >>> mt.tensor([1.5, 2.5]).to(mt.int64)
        tensor([1, 2])
        >>> x = mt.ones(1); x.to("cpu") is x
        True
        """
        if dtype is None or isinstance(dtype, str) and dtype in ("cpu", "cuda"):
            return self  # one device: the CPU
        return math_ops.cast(self, dtype)

    def type(self, dtype):
        """This tensor converted to `dtype` (same as `.to(dtype)`).

        >>> mt.tensor([1, 2]).type(mt.float64)
        tensor([1., 2.], dtype=minitorch.float64)
        """
        return self.to(dtype)

    def float(self):
        """This tensor as float32.

        >>> mt.tensor([1, 2]).float()
        tensor([1., 2.])
        """
        return self.to(dtypes.float32)

    def double(self):
        """This tensor as float64.

        >>> mt.tensor([1, 2]).double().dtype
        minitorch.float64
        """
        return self.to(dtypes.float64)

    def long(self):
        """This tensor as int64 (floats are truncated toward zero).

        >>> mt.tensor([1.7, -1.7]).long()
        tensor([ 1, -1])
        """
        return self.to(dtypes.int64)

    def int(self):
        """This tensor as int32.

        >>> mt.tensor([1.7]).int()
        tensor([1], dtype=minitorch.int32)
        """
        return self.to(dtypes.int32)

    def bool(self):
        """This tensor as bool (nonzero is True).

        >>> mt.tensor([0.0, 2.0]).bool()
        tensor([False,  True])
        """
        return self.to(dtypes.bool_)

    def cpu(self):
        """Self: minitorch has one device, the CPU.

        >>> x = mt.ones(1)
        >>> x.cpu() is x
        True
        """
        return self

    # ----- operators -----

    def __add__(self, other):
        return math_ops._binary("Add", self, other)

    def __radd__(self, other):
        return math_ops._binary("Add", other, self)

    def __sub__(self, other):
        return math_ops._binary("Sub", self, other)

    def __rsub__(self, other):
        return math_ops._binary("Sub", other, self)

    def __mul__(self, other):
        return math_ops._binary("Mul", self, other)

    def __rmul__(self, other):
        return math_ops._binary("Mul", other, self)

    def __truediv__(self, other):
        return math_ops.div(self, other)

    def __rtruediv__(self, other):
        return math_ops.div(other, self)

    def __pow__(self, other):
        return math_ops._binary("Pow", self, other)

    def __rpow__(self, other):
        return math_ops._binary("Pow", other, self)

    def __matmul__(self, other):
        return math_ops.matmul(self, other)

    def __rmatmul__(self, other):
        return math_ops.matmul(other, self)

    def __neg__(self):
        return math_ops.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return math_ops.abs(self)

    def __lt__(self, other):
        return math_ops.lt(self, other)

    def __le__(self, other):
        return math_ops.le(self, other)

    def __gt__(self, other):
        return math_ops.gt(self, other)

    def __ge__(self, other):
        return math_ops.ge(self, other)

    def __eq__(self, other):
        return math_ops.eq(self, other)

    def __ne__(self, other):
        return math_ops.ne(self, other)

    def __and__(self, other):
        return math_ops.logical_and(self, other)

    def __or__(self, other):
        return math_ops.logical_or(self, other)

    def __xor__(self, other):
        return math_ops.logical_xor(self, other)

    def __invert__(self):
        return math_ops.logical_not(self)

    def __getitem__(self, index):
        return array_ops.getitem(self, index)

    def __setitem__(self, index, value):
        """Writes into the data in place; allowed only where no tape would miss it."""
        _check_in_place(self, "__setitem__")
        index, _ = array_ops._normalize_index(self, index)
        self._data[index] = value._data if isinstance(value, Tensor) else value

    # ----- methods that mirror the functional API -----

    def add(self, other, alpha=1):
        """self + alpha * other (see `mt.add`). Runs the "Add" op.

        >>> mt.tensor([1.0, 2.0]).add(1)
        tensor([2., 3.])
        """
        return math_ops.add(self, other, alpha)

    def sub(self, other, alpha=1):
        """self - alpha * other (see `mt.sub`). Runs the "Sub" op.

        >>> mt.tensor([1.0, 2.0]).sub(mt.tensor([1.0, 1.0]), alpha=2)
        tensor([-1., 0.])
        """
        return math_ops.sub(self, other, alpha)

    def mul(self, other):
        """self * other (see `mt.mul`). Runs the "Mul" op.

        >>> mt.tensor([1.0, 2.0]).mul(3)
        tensor([3., 6.])
        """
        return math_ops.mul(self, other)

    def div(self, other):
        """self / other, true division (see `mt.div`). Runs the "RealDiv" op.

        >>> mt.tensor([1.0, 2.0]).div(4)
        tensor([0.2500, 0.5000])
        """
        return math_ops.div(self, other)

    def pow(self, exponent):
        """self to the power `exponent` (see `mt.pow`). Runs the "Pow" op.

        >>> mt.tensor([2.0, 3.0]).pow(3)
        tensor([8., 27.])
        """
        return math_ops.pow(self, exponent)

    def matmul(self, other):
        """The matrix product self @ other (see `mt.matmul`). Runs the "MatMul" op.

        >>> mt.tensor([[1.0, 2.0]]).matmul(mt.tensor([[3.0], [4.0]]))
        tensor([[11.]])
        """
        return math_ops.matmul(self, other)

    def neg(self):
        """-self. Runs the "Neg" op.

        >>> mt.tensor([1.0, -2.0]).neg()
        tensor([-1., 2.])
        """
        return math_ops.neg(self)

    def abs(self):
        """The absolute value of each element. Runs the "Abs" op.

        >>> mt.tensor([-1.0, 2.0]).abs()
        tensor([1., 2.])
        """
        return math_ops.abs(self)

    def exp(self):
        """e to the power of each element. Runs the "Exp" op.

        >>> mt.tensor([0.0, 1.0]).exp()
        tensor([1.0000, 2.7183])
        """
        return math_ops.exp(self)

    def log(self):
        """The natural logarithm of each element. Runs the "Log" op.

        >>> mt.tensor([1.0, 4.0]).log()
        tensor([0.0000, 1.3863])
        """
        return math_ops.log(self)

    def sqrt(self):
        """The square root of each element. Runs the "Sqrt" op.

        >>> mt.tensor([4.0, 9.0]).sqrt()
        tensor([2., 3.])
        """
        return math_ops.sqrt(self)

    def sin(self):
        """The sine of each element. Runs the "Sin" op.

        >>> mt.tensor([0.0]).sin()
        tensor([0.])
        """
        return math_ops.sin(self)

    def cos(self):
        """The cosine of each element. Runs the "Cos" op.

        >>> mt.tensor([0.0]).cos()
        tensor([1.])
        """
        return math_ops.cos(self)

    def tanh(self):
        """The hyperbolic tangent of each element. Runs the "Tanh" op.

        >>> mt.tensor([0.0, 1.0]).tanh()
        tensor([0.0000, 0.7616])
        """
        return math_ops.tanh(self)

    def sigmoid(self):
        """The logistic sigmoid of each element. Runs the "Sigmoid" op.

        >>> mt.tensor([0.0]).sigmoid()
        tensor([0.5000])
        """
        return math_ops.sigmoid(self)

    def relu(self):
        """max(self, 0) elementwise. Runs the "Relu" op.

        >>> mt.tensor([-1.0, 2.0]).relu()
        tensor([0., 2.])
        """
        return math_ops.relu(self)

    def sign(self):
        """-1, 0 or 1 by the sign of each element. Runs the "Sign" op.

        >>> mt.tensor([-3.0, 0.0, 2.0]).sign()
        tensor([-1., 0., 1.])
        """
        return math_ops.sign(self)

    def square(self):
        """self * self elementwise. Runs the "Mul" op.

        >>> mt.tensor([-2.0, 3.0]).square()
        tensor([4., 9.])
        """
        return math_ops.square(self)

    def clamp(self, min=None, max=None):
        """Each element limited to [min, max] (see `mt.clamp`); `clip` is the same method. Runs the "ClipByValue" op.

        >>> mt.tensor([-2.0, 0.5, 3.0]).clamp(min=0)
        tensor([0.0000, 0.5000, 3.0000])
        """
        return math_ops.clamp(self, min, max)

    clip = clamp

    def maximum(self, other):
        """The larger of self and other, elementwise. Runs the "Maximum" op.

        >>> mt.tensor([1.0, 5.0]).maximum(mt.tensor([3.0, 2.0]))
        tensor([3., 5.])
        """
        return math_ops.maximum(self, other)

    def minimum(self, other):
        """The smaller of self and other, elementwise. Runs the "Minimum" op.

        >>> mt.tensor([1.0, 5.0]).minimum(mt.tensor([3.0, 2.0]))
        tensor([1., 2.])
        """
        return math_ops.minimum(self, other)

    def eq(self, other):
        """self == other elementwise, as a bool tensor. Runs the "Equal" op.

        >>> mt.tensor([1, 2]).eq(2)
        tensor([False,  True])
        """
        return math_ops.eq(self, other)

    def isnan(self):
        """True where an element is NaN. Runs the "IsNan" op.

        >>> mt.tensor([1.0, float("nan")]).isnan()
        tensor([False,  True])
        """
        return math_ops.isnan(self)

    def sum(self, dim=None, keepdim=False, dtype=None):
        """The sum of all elements, or over `dim` (see `mt.sum`). Runs the "Sum" op.

        >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> x.sum(), x.sum(dim=1)
        (tensor(10.), tensor([3., 7.]))
        """
        return reduction_ops.sum(self, dim, keepdim, dtype)

    def mean(self, dim=None, keepdim=False, dtype=None):
        """The mean of all elements, or over `dim` (see `mt.mean`). Runs the "Mean" op.

        >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> x.mean(), x.mean(dim=0)
        (tensor(2.5000), tensor([2., 3.]))
        """
        return reduction_ops.mean(self, dim, keepdim, dtype)

    def prod(self, dim=None, keepdim=False):
        """The product of all elements, or over `dim`. Runs the "Prod" op.

        >>> mt.tensor([1.0, 2.0, 3.0]).prod()
        tensor(6.)
        """
        return reduction_ops.prod(self, dim, keepdim)

    def max(self, dim=None, keepdim=False):
        """The largest value; with `dim`, a (values, indices) pair (see `mt.max`). Runs the "Max" op.

        >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> x.max()
        tensor(5.)
        >>> x.max(dim=0).indices
        tensor([1, 0])
        """
        return reduction_ops.max(self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        """The smallest value; with `dim`, a (values, indices) pair (see `mt.min`). Runs the "Min" op.

        >>> x = mt.tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> x.min()
        tensor(1.)
        >>> x.min(dim=1).values
        tensor([1., 2.])
        """
        return reduction_ops.min(self, dim, keepdim)

    def amax(self, dim=None, keepdim=False):
        """The largest values over `dim`, without indices. Runs the "Max" op.

        >>> mt.tensor([[1.0, 5.0], [4.0, 2.0]]).amax(dim=1)
        tensor([5., 4.])
        """
        return reduction_ops.amax(self, dim, keepdim)

    def amin(self, dim=None, keepdim=False):
        """The smallest values over `dim`, without indices. Runs the "Min" op.

        >>> mt.tensor([[1.0, 5.0], [4.0, 2.0]]).amin(dim=1)
        tensor([1., 2.])
        """
        return reduction_ops.amin(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        """The index of the largest value (flattened, or along `dim`). Runs the "ArgMax" op.

        >>> mt.tensor([[1.0, 5.0], [4.0, 2.0]]).argmax()
        tensor(1)
        """
        return reduction_ops.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        """The index of the smallest value (flattened, or along `dim`). Runs the "ArgMin" op.

        >>> mt.tensor([[1.0, 5.0], [4.0, 2.0]]).argmin(dim=0)
        tensor([0, 1])
        """
        return reduction_ops.argmin(self, dim, keepdim)

    def all(self, dim=None, keepdim=False):
        """True if every element is true, overall or along `dim`. Runs the "All" op.

        >>> mt.tensor([1, 1, 0]).all()
        tensor(False)
        """
        return reduction_ops.all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        """True if some element is true, overall or along `dim`. Runs the "Any" op.

        >>> mt.tensor([1, 1, 0]).any()
        tensor(True)
        """
        return reduction_ops.any(self, dim, keepdim)

    def var(self, dim=None, unbiased=None, keepdim=False, correction=None):
        """Variance, with Bessel's correction by default (see `mt.var`).

        >>> mt.tensor([1.0, 2.0, 3.0, 4.0]).var()
        tensor(1.6667)
        """
        return reduction_ops.var(self, dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=None, keepdim=False, correction=None):
        """Standard deviation, with Bessel's correction by default (see `mt.std`).

        >>> mt.tensor([1.0, 2.0, 3.0, 4.0]).std(correction=0)
        tensor(1.1180)
        """
        return reduction_ops.std(self, dim, unbiased, keepdim, correction)

    def logsumexp(self, dim, keepdim=False):
        """log(sum(exp(self))) over `dim`, computed stably. Runs the "LogSumExp" op.

        >>> mt.tensor([0.0, 0.0]).logsumexp(dim=0)
        tensor(0.6931)
        """
        return reduction_ops.logsumexp(self, dim, keepdim)

    def softmax(self, dim, dtype=None):
        """exp(self) / sum(exp(self)) along `dim`. Runs the "Softmax" op.

        >>> mt.tensor([0.0, 2.0]).softmax(dim=0)
        tensor([0.1192, 0.8808])
        """
        return reduction_ops.softmax(self, dim, dtype)

    def log_softmax(self, dim, dtype=None):
        """log(softmax(self)) along `dim`, computed stably. Runs the "LogSoftmax" op.

        >>> mt.tensor([0.0, 0.0]).log_softmax(dim=0)
        tensor([-0.6931, -0.6931])
        """
        return reduction_ops.log_softmax(self, dim, dtype)

    def reshape(self, *shape):
        """The same elements in a new shape (one size may be -1); `view` is the same method. Runs the "Reshape" op.

        >>> mt.arange(6).reshape(2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
        >>> mt.arange(6).view(-1, 2).shape
        (3, 2)
        """
        return array_ops.reshape(self, *shape)

    view = reshape

    def view_as(self, other):
        """The same elements in `other`'s shape. Runs the "Reshape" op.

        >>> mt.arange(6).view_as(mt.zeros(3, 2)).shape
        (3, 2)
        """
        return array_ops.reshape(self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Dimensions start_dim..end_dim merged into one. Runs the "Reshape" op.

        >>> mt.zeros(2, 3, 4).flatten(1).shape
        (2, 12)
        """
        return array_ops.flatten(self, start_dim, end_dim)

    def squeeze(self, dim=None):
        """Size-1 dimensions removed (all, or those in `dim`). Runs the "Reshape" op.

        >>> mt.zeros(1, 3, 1).squeeze().shape
        (3,)
        """
        return array_ops.squeeze(self, dim)

    def unsqueeze(self, dim):
        """A size-1 dimension inserted at `dim`. Runs the "Reshape" op.

        >>> mt.tensor([1, 2]).unsqueeze(1)
        tensor([[1],
                [2]])
        """
        return array_ops.unsqueeze(self, dim)

    def permute(self, *dims):
        """The dimensions reordered as `dims`. Runs the "Transpose" op.

        >>> mt.zeros(2, 3, 4).permute(2, 0, 1).shape
        (4, 2, 3)
        """
        return array_ops.permute(self, *dims)

    def transpose(self, dim0, dim1):
        """Dimensions dim0 and dim1 swapped. Runs the "Transpose" op.

        >>> mt.zeros(2, 3, 4).transpose(0, 2).shape
        (4, 3, 2)
        """
        return array_ops.transpose(self, dim0, dim1)

    def t(self):
        """The transpose of a tensor with at most 2 dimensions. Runs the "Transpose" op.

        >>> mt.tensor([[1, 2, 3]]).t()
        tensor([[1],
                [2],
                [3]])
        """
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return self.T

    def expand(self, *sizes):
        """A broadcast view at a larger size (-1 keeps a dimension). Runs the "BroadcastTo" op.

        >>> mt.tensor([[1], [2]]).expand(-1, 3)
        tensor([[1, 1, 1],
                [2, 2, 2]])
        """
        return array_ops.expand(self, *sizes)

    def expand_as(self, other):
        """This tensor broadcast to `other`'s shape. Runs the "BroadcastTo" op.

        >>> mt.tensor([1, 2]).expand_as(mt.zeros(2, 2))
        tensor([[1, 2],
                [1, 2]])
        """
        return array_ops.broadcast_to(self, other.shape)

    def contiguous(self):
        """Self if the data is C-contiguous, else a contiguous copy (runs the "Identity" op).

        >>> x = mt.zeros(2, 3)
        >>> x.contiguous() is x
        True
        """
        return array_ops.contiguous(self)

    def clone(self):
        """A copy with its own data; gradients flow back to self. Runs the "Identity" op.

        >>> x = mt.tensor([1.0])
        >>> y = x.clone()
        >>> _ = y.add_(1)
        >>> x, y
        (tensor([1.]), tensor([2.]))
        """
        return array_ops.clone(self)

    # ----- in-place updates (for optimizers and initialisers, under no_grad) -----

    def add_(self, other, alpha=1):
        """Adds alpha * other into this tensor in place (no op is recorded: use under `mt.no_grad()` for parameters).

        >>> x = mt.zeros(2)
        >>> x.add_(mt.tensor([1.0, 2.0]), alpha=3)
        tensor([3., 6.])
        """
        _check_in_place(self, "add_")
        other = other._data if isinstance(other, Tensor) else other
        self._data += other if alpha == 1 else alpha * other
        return self

    def sub_(self, other, alpha=1):
        """Subtracts alpha * other from this tensor in place (an optimizer's step).

        >>> w = mt.tensor([1.0, 1.0], requires_grad=True)
        >>> with mt.no_grad():
        ...     w.sub_(mt.tensor([0.5, 1.0]), alpha=0.1)
        tensor([0.9500, 0.9000], requires_grad=True)
        """
        return self.add_(other, alpha=-alpha)

    def mul_(self, other):
        """Multiplies this tensor by other in place.

        >>> mt.tensor([1.0, 2.0]).mul_(3)
        tensor([3., 6.])
        """
        _check_in_place(self, "mul_")
        self._data *= other._data if isinstance(other, Tensor) else other
        return self

    def div_(self, other):
        """Divides this tensor by other in place.

        >>> mt.tensor([1.0, 2.0]).div_(2)
        tensor([0.5000, 1.0000])
        """
        _check_in_place(self, "div_")
        self._data /= other._data if isinstance(other, Tensor) else other
        return self

    def zero_(self):
        """Fills this tensor with zeros in place (how optimizers clear `.grad`).

        >>> mt.ones(3).zero_()
        tensor([0., 0., 0.])
        """
        return self.fill_(0)

    def fill_(self, value):
        """Fills this tensor with `value` in place.

        >>> mt.zeros(2).fill_(7)
        tensor([7., 7.])
        """
        _check_in_place(self, "fill_")
        self._data[...] = value._data if isinstance(value, Tensor) else value
        return self

    def copy_(self, src):
        """Copies `src` (broadcast to this shape, cast to this dtype) into this tensor in place.

        >>> x = mt.zeros(2, 2)
        >>> x.copy_(mt.tensor([1, 2]))
        tensor([[1., 2.],
                [1., 2.]])
        """
        _check_in_place(self, "copy_")
        src = src._data if isinstance(src, Tensor) else np.asarray(src)
        try:
            self._data[...] = src
        except ValueError:
            raise ShapeError(f"copy_: cannot copy a tensor of shape {src.shape} into one of shape {self.shape}") from None
        return self

    def clamp_(self, min=None, max=None):
        """Limits each element to [min, max] in place.

        >>> mt.tensor([-2.0, 0.5, 3.0]).clamp_(-1, 1)
        tensor([-1.0000, 0.5000, 1.0000])
        """
        _check_in_place(self, "clamp_")
        np.clip(self._data, min, max, out=self._data)
        return self

    def uniform_(self, a=0.0, b=1.0):
        """Fills this tensor in place with uniform random numbers in [a, b) from the global generator.

        >>> _ = mt.manual_seed(0)
        >>> x = mt.empty(100).uniform_(-1, 1)
        >>> bool(((x >= -1) & (x < 1)).all())
        True
        """
        return self.copy_(random.generator().uniform(a, b, self.shape))

    def normal_(self, mean=0.0, std=1.0):
        """Fills this tensor in place with normal random numbers (mean, std) from the global generator.

        >>> _ = mt.manual_seed(0)
        >>> mt.empty(2, 3).normal_(0.0, 0.01).shape
        (2, 3)
        """
        return self.copy_(random.generator().normal(mean, std, self.shape))


def wrap_array(array):
    """A Tensor around `array`, no copy, no checks (execute calls this once per op result)."""
    t = _new(Tensor)
    t._data = array
    t._id = _next_id()
    t._requires_grad = False
    t.grad = None
    t._on_tape = False
    return t


_new = object.__new__


class SavedTensor(Tensor):
    """An op's output rebuilt from its saved array and id for a backward pass.

    Keeps the original's id, so tapes link it to the op that made it, but is
    not the original: its death must not delete the original's trace.
    """

    __slots__ = ()

    @classmethod
    def _restore(cls, array, tensor_id):
        t = object.__new__(cls)
        t._data = array
        t._id = tensor_id
        t._requires_grad = tensor_id in autograd_tape.AUTOGRAD_TAPE.tensor_tape
        t.grad = None
        t._on_tape = False  # the original owns the trace
        return t

    def __del__(self):
        pass


def _check_in_place(t, op_name):
    if t._requires_grad and tape_set.thread_state.recording:
        what = "a leaf Variable that requires grad" if t.is_leaf else "a Tensor that requires grad"
        raise RuntimeError(f"{op_name}: {what} is being used in an in-place operation (wrap it in mt.no_grad()).")


def _to_array(data, dtype=None):
    """numpy array for `data` with PyTorch's default dtypes (float32 for Python floats, int64 for ints)."""
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, np.ndarray):
        array = data
    elif isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
        array = np.array(_untensor(data))
    else:
        array = np.array(data)
    if np_dtype is None:
        if array.dtype.kind == "f" and not isinstance(data, np.ndarray):
            np_dtype = dtypes.default_float.numpy
        elif array.dtype.kind in "OUSV" or array.dtype.kind == "c":
            raise TypeError(f"can't convert {type(data).__name__} of dtype {array.dtype} to a minitorch Tensor")
        else:
            np_dtype = array.dtype
    dtypes.from_numpy_dtype(np.dtype(np_dtype))
    return np.array(array, dtype=np_dtype, copy=True)


def _flat(data):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _untensor(data):
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (list, tuple)):
        return [_untensor(x) for x in data]
    return data


_scalar_cache = {}


def as_tensor(value, like=None, dtype=None):
    """`value` as a Tensor. A Python number next to a tensor takes the tensor's
    dtype when it is of the same or a lower category (PyTorch's 'wrapped numbers')."""
    if isinstance(value, Tensor):
        return value if dtype is None else value.to(dtype)
    if dtype is None and like is not None and isinstance(value, (int, float, bool)):
        ref = like._data.dtype
        kind = 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2
        np_dtype = ref if kind <= dtypes.category(ref) else (np.dtype(np.int64) if kind == 1 else dtypes.default_float.numpy)
        key = (type(value), value, np_dtype)
        t = _scalar_cache.get(key)
        if t is None:
            if len(_scalar_cache) > 4096:
                _scalar_cache.clear()
            t = _scalar_cache[key] = Tensor._from_array(np.array(value, dtype=np_dtype))
        return t
    if isinstance(value, np.ndarray) and dtype is None:
        return Tensor._from_array(value)
    return Tensor(value, dtype=dtype)


def format_tensor(t):
    """PyTorch-like repr: tensor([1., 2.], dtype=minitorch.float64, requires_grad=True)."""
    array = t._data
    if array.dtype.kind == "f":
        formatter = {"float_kind": _float_formatter(array)}
    else:
        formatter = None
    body = np.array2string(array, separator=", ", prefix="tensor(", formatter=formatter, threshold=1000, edgeitems=3)
    extras = []
    if array.size == 0 and array.ndim != 1:
        extras.append(f"size={tuple(array.shape)}")
    if array.dtype not in (dtypes.default_float.numpy, np.dtype(np.int64), np.dtype(np.bool_)):
        extras.append(f"dtype={t.dtype!r}")
    name = t.grad_fn if t._requires_grad else None
    if name is not None:
        extras.append(f"grad_fn=<{name}Backward>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"


def _float_formatter(array):
    finite = array[np.isfinite(array)] if array.size else array
    integral = finite.size == 0 or np.all(finite == np.round(finite))
    big = finite.size and (np.max(np.abs(finite)) >= 1e8 or (np.min(np.abs(finite[finite != 0])) < 1e-4 if np.any(finite != 0) else False))
    if big:
        return lambda x: f"{x:.4e}"
    if integral:
        return lambda x: f"{x:.0f}." if np.isfinite(x) else str(x)
    return lambda x: f"{x:.4f}" if np.isfinite(x) else str(x)


from . import random  # noqa: E402
from .autograd import autograd_tape, hooks, tape_set  # noqa: E402
from .autograd.tape_set import active_accumulators, active_tapes, delete_trace  # noqa: E402
from .autograd.execute import ShapeError  # noqa: E402
from .ops import array_ops, math_ops, reduction_ops  # noqa: E402
