"""Tensor's operators and methods, bound onto the class from one table.

tensor.py is the value core and imports no op; the op functions live in
minitorch/ops/. This file sits above both and attaches each function to
Tensor as a method (JAX's `_set_array_base_attributes` in array_methods.py
does the same, and tinygrad's early `register` did). A method is the very
function it names, so `help(mt.Tensor.exp)` shows `mt.exp`'s documentation
and `x.exp()` is `mt.exp(x)`. Where to look for `x * y`: METHODS says
"__mul__" is `math_ops.mul`, which runs the "Mul" op (ops/math_ops.py).
"""
from . import dtypes
from .autograd.backward import backward as backward_of
from .ops import array_ops, in_place_ops, math_ops, reduction_ops
from .tensor import Tensor


def _reflected(fn):
    """`other <op> self` for a binary function: Python's __radd__ and friends."""

    def reflected(self, other):
        return fn(other, self)

    reflected.__name__ = reflected.__qualname__ = f"r{fn.__name__}"
    reflected.__doc__ = f"`{fn.__name__}` with the operands swapped (other {fn.__name__} self)."
    return reflected


# ----- methods that exist only as methods -----

def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates d(self)/d(leaf) into `.grad` of every leaf that requires grad.

    A non-scalar tensor needs `gradient` (the vector in the vector-Jacobian
    product); `create_graph=True` records the backward pass for higher derivatives.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> (x ** 2).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    backward_of(self, gradient, retain_graph, create_graph, inputs)


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


def type_(self, dtype):
    """This tensor converted to `dtype` (same as `.to(dtype)`).

    >>> mt.tensor([1, 2]).type(mt.float64)
    tensor([1., 2.], dtype=minitorch.float64)
    """
    return math_ops.cast(self, dtype)


def _conversion(name, dtype, example):
    def convert(self):
        return math_ops.cast(self, dtype)

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"This tensor as {dtype.name} (runs the \"Cast\" op when the dtype differs).\n\n{example}"
    return convert


def cpu(self):
    """Self: minitorch has one device, the CPU.

    >>> x = mt.ones(1)
    >>> x.cpu() is x
    True
    """
    return self


def pos(self):
    """+x: the tensor itself."""
    return self


def t(self):
    """The transpose of a tensor with at most 2 dimensions. Runs the "Transpose" op.

    >>> mt.tensor([[1, 2, 3]]).t()
    tensor([[1],
            [2],
            [3]])
    """
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return array_ops.permute(self, *reversed(range(self.ndim)))


def view_as(self, other):
    """The same elements in `other`'s shape. Runs the "Reshape" op.

    >>> mt.arange(6).view_as(mt.zeros(3, 2)).shape
    (3, 2)
    """
    return array_ops.reshape(self, other.shape)


def expand_as(self, other):
    """This tensor broadcast to `other`'s shape. Runs the "BroadcastTo" op.

    >>> mt.tensor([1, 2]).expand_as(mt.zeros(2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    return array_ops.broadcast_to(self, other.shape)


def _transposed(self):
    """All dimensions reversed. Runs the "Transpose" op.

    >>> mt.zeros(2, 3, 4).T.shape
    (4, 3, 2)
    """
    return array_ops.permute(self, *reversed(range(self.ndim)))


def _matrix_transposed(self):
    """The last two dimensions swapped (a batch of transposed matrices). Runs the "Transpose" op.

    >>> mt.zeros(5, 2, 3).mT.shape
    (5, 3, 2)
    """
    return array_ops.transpose(self, -2, -1)


def _detached(self):
    """The same values, detached from every tape (as PyTorch's `.data`).

    >>> mt.tensor([1.0], requires_grad=True).data
    tensor([1.])
    """
    return array_ops.stop_gradient(self)


# ----- the table: method name -> function -----

METHODS = {
    # arithmetic and its operators
    "add": math_ops.add, "__add__": math_ops.add, "__radd__": _reflected(math_ops.add),
    "sub": math_ops.sub, "__sub__": math_ops.sub, "__rsub__": _reflected(math_ops.sub),
    "mul": math_ops.mul, "__mul__": math_ops.mul, "__rmul__": _reflected(math_ops.mul),
    "div": math_ops.div, "__truediv__": math_ops.div, "__rtruediv__": _reflected(math_ops.div),
    "pow": math_ops.pow, "__pow__": math_ops.pow, "__rpow__": _reflected(math_ops.pow),
    "matmul": math_ops.matmul, "__matmul__": math_ops.matmul, "__rmatmul__": _reflected(math_ops.matmul),
    "neg": math_ops.neg, "__neg__": math_ops.neg, "__pos__": pos,
    "abs": math_ops.abs, "__abs__": math_ops.abs,
    # comparisons and logic
    "eq": math_ops.eq, "__eq__": math_ops.eq, "__ne__": math_ops.ne,
    "__lt__": math_ops.lt, "__le__": math_ops.le, "__gt__": math_ops.gt, "__ge__": math_ops.ge,
    "__and__": math_ops.logical_and, "__or__": math_ops.logical_or, "__xor__": math_ops.logical_xor,
    "__invert__": math_ops.logical_not, "isnan": math_ops.isnan,
    # elementwise functions
    "exp": math_ops.exp, "log": math_ops.log, "sqrt": math_ops.sqrt, "sin": math_ops.sin, "cos": math_ops.cos,
    "tanh": math_ops.tanh, "sigmoid": math_ops.sigmoid, "relu": math_ops.relu, "sign": math_ops.sign,
    "square": math_ops.square, "clamp": math_ops.clamp, "clip": math_ops.clamp,
    "maximum": math_ops.maximum, "minimum": math_ops.minimum,
    # reductions
    "sum": reduction_ops.sum, "mean": reduction_ops.mean, "prod": reduction_ops.prod,
    "max": reduction_ops.max, "min": reduction_ops.min, "amax": reduction_ops.amax, "amin": reduction_ops.amin,
    "argmax": reduction_ops.argmax, "argmin": reduction_ops.argmin, "all": reduction_ops.all, "any": reduction_ops.any,
    "var": reduction_ops.var, "std": reduction_ops.std, "logsumexp": reduction_ops.logsumexp,
    "softmax": reduction_ops.softmax, "log_softmax": reduction_ops.log_softmax,
    # shapes and indexing
    "reshape": array_ops.reshape, "view": array_ops.reshape, "view_as": view_as, "flatten": array_ops.flatten,
    "squeeze": array_ops.squeeze, "unsqueeze": array_ops.unsqueeze, "permute": array_ops.permute,
    "transpose": array_ops.transpose, "t": t, "expand": array_ops.expand, "expand_as": expand_as,
    "contiguous": array_ops.contiguous, "clone": array_ops.clone, "detach": array_ops.stop_gradient,
    "__getitem__": array_ops.getitem,
    # in-place updates
    "__setitem__": in_place_ops.setitem, "add_": in_place_ops.add_, "sub_": in_place_ops.sub_,
    "mul_": in_place_ops.mul_, "div_": in_place_ops.div_, "zero_": in_place_ops.zero_, "fill_": in_place_ops.fill_,
    "copy_": in_place_ops.copy_, "clamp_": in_place_ops.clamp_, "uniform_": in_place_ops.uniform_,
    "normal_": in_place_ops.normal_,
    # conversions and autograd
    "to": to, "type": type_, "cpu": cpu, "backward": backward,
    "float": _conversion("float", dtypes.float32, ">>> mt.tensor([1, 2]).float()\ntensor([1., 2.])"),
    "double": _conversion("double", dtypes.float64, ">>> mt.tensor([1, 2]).double().dtype\nminitorch.float64"),
    "long": _conversion("long", dtypes.int64, ">>> mt.tensor([1.7, -1.7]).long()  # truncated toward zero\ntensor([ 1, -1])"),
    "int": _conversion("int", dtypes.int32, ">>> mt.tensor([1.7]).int()\ntensor([1], dtype=minitorch.int32)"),
    "bool": _conversion("bool", dtypes.bool_, ">>> mt.tensor([0.0, 2.0]).bool()\ntensor([False,  True])"),
}

PROPERTIES = {"T": _transposed, "mT": _matrix_transposed, "data": _detached}


def bind():
    """Attaches every method and property of the tables to Tensor (once, when minitorch is imported)."""
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, getter in PROPERTIES.items():
        setattr(Tensor, name, property(getter, doc=getter.__doc__))


bind()
