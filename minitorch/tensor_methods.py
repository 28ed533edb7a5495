"""Tensor's operators and methods, bound onto the class from one table.

tensor.py is the value (its data, its id, its autograd flags) and imports no op; the op functions
live in minitorch/ops/. This file sits above both and attaches each function to Tensor as a method
(JAX's `_set_array_base_attributes` in array_methods.py does the same, and tinygrad's early
`register` did). A method is the very function it names, so `help(mt.Tensor.exp)` shows `mt.exp`'s
documentation and `x.exp()` is `mt.exp(x)`. Where to look for `x * y`: METHODS says "__mul__" is
`arithmetic_ops.mul`, which runs the "Mul" op (ops/arithmetic_ops.py).

A method's body lives with its op (ops/*.py; creation.py for new_zeros and friends; the in-place
twins in one table, ops/in_place_twins.py), or, for the methods that exist only as methods (sizes,
devices, autograd, Python's protocols), here.
"""
import warnings

import numpy as np

from . import devices, dtypes, layouts
from . import linalg
from .autograd.backward import backward as backward_of
from .creation import new, new_empty, new_full, new_ones, new_tensor, new_zeros
from .engine import hooks
from .engine.anomaly import untracked_write
from .engine.state import switches
from .engine.versions import counter_of, untracked_alias
from .ops import activation_ops, arithmetic_ops, bitwise_ops, coercion, comparison_ops, exponential_ops
from .ops import rounding_ops, special_ops, trigonometric_ops
from .ops import array_ops, in_place_ops, in_place_twins, random_ops, reduction_ops
from .ops import index_ops, join_ops, scatter_ops, shape_in_place_ops, shape_ops
from .ops import matrix_ops, norm_ops, product_ops, scan_ops, sort_ops, statistics_ops
from .printing import format_tensor
from .tensor import Size, Tensor

_DEVICE_LIKE = (str, devices.device, int)


def _reflected(fn):
    """`other <op> self` for a binary function: Python's __radd__ and friends."""

    def reflected(self, other):
        return fn(other, self)

    reflected.__name__ = reflected.__qualname__ = f"r{fn.__name__}"
    reflected.__doc__ = f"`{fn.__name__}` with the operands swapped (other {fn.__name__} self)."
    return reflected


# ----- sizes (PyTorch's names for what tensor.py's data says) -----

def dim(self):
    """The number of dimensions (same as `.ndim`; `ndimension()` is this method).

    >>> mt.zeros(2, 3).dim()
    2
    """
    return self._data.ndim


def size(self, dim=None):
    """The shape as an `mt.Size`, or the length of dimension `dim`.

    >>> x = mt.zeros(2, 3)
    >>> x.size(), x.size(-1)
    (minitorch.Size([2, 3]), 3)
    """
    return Size(self._data.shape) if dim is None else self._data.shape[dim]


def numel(self):
    """The number of elements (`nelement()` is this method).

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


def is_contiguous(self, memory_format=None):
    """True when the elements are stored in row-major order (or channels-last, when asked about that).

    >>> x = mt.zeros(2, 3)
    >>> x.is_contiguous(), x.t().is_contiguous()
    (True, False)
    """
    array = np.asarray(self)
    if memory_format is layouts.channels_last:
        return array.ndim == 4 and array.transpose(0, 2, 3, 1).flags.c_contiguous
    return array.flags.c_contiguous


# ----- devices and memory layout -----

def to_arguments(args, kwargs):
    """PyTorch's three forms: to(device=None, dtype=None, ...), to(dtype, ...), to(other tensor, ...)."""
    kwargs = dict(kwargs)
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    args = list(args)
    if args and isinstance(args[0], Tensor):
        other = args.pop(0)
        dtype = other.dtype
    elif args and (args[0] is None or isinstance(args[0], _DEVICE_LIKE) and not isinstance(args[0], bool)):
        device = args.pop(0)
        if args and not isinstance(args[0], bool):
            dtype = args.pop(0)
    elif args and not isinstance(args[0], bool):
        dtype = args.pop(0)
    flags = dict(zip(("non_blocking", "copy"), args))
    if len(args) > 2 or set(flags) & set(kwargs):
        raise TypeError(f"to() received an invalid combination of arguments: {len(args)} extra positional")
    flags.update(kwargs)
    unknown = set(flags) - {"non_blocking", "copy", "memory_format"}
    if unknown:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(unknown)}")
    if isinstance(dtype, _DEVICE_LIKE) and not isinstance(dtype, bool):
        raise TypeError(f"to() received an invalid combination of arguments: a device ({dtype!r}) where a dtype "
                        "was expected")
    return device, dtype, bool(flags.get("copy", False)), flags.get("memory_format")


def to(self, *args, **kwargs):
    """This tensor on `device` with `dtype` (`to(device, dtype)`, `to(dtype)` or `to(other)`); self when nothing changes.

    Only the CPU exists: another device raises DeviceError. A new dtype runs
    the "Cast" op (recorded, differentiable); `copy=True` always returns a new
    tensor; `memory_format=mt.channels_last` stores a 4-d tensor channels-last.
    `non_blocking` is accepted (copies on the CPU are synchronous).

    >>> x = mt.tensor([1.5, 2.5])
    >>> x.to(mt.int64), x.to("cpu") is x, x.to("cpu", mt.float64).dtype
    (tensor([1, 2]), True, minitorch.float64)
    >>> x.to(mt.zeros(1, dtype=mt.float16)).dtype, x.to(x, copy=True) is x
    (minitorch.float16, False)
    >>> x.to("cuda")
    Traceback (most recent call last):
        ...
    minitorch.devices.DeviceError: device 'cuda' is not available: minitorch computes on the CPU only (mt.cuda.is_available() is False); use 'cpu'
    """
    device, dtype, copy, memory_format = to_arguments(args, kwargs)
    if device is not None:
        devices.cpu_device(device)
    result = self
    if dtype is not None and dtypes.to_numpy_dtype(dtype) != self._data.dtype:
        result = coercion.cast(self, dtype)
    elif copy:
        result = array_ops.clone(self)
    if memory_format is layouts.channels_last:
        result = _channels_last(result, copy=result is self)
    elif memory_format not in (None, layouts.preserve_format, layouts.contiguous_format):
        raise TypeError(f"to(): memory_format must be an mt.memory_format, got {memory_format!r}")
    return result


def _channels_last(t, copy):
    """The same values stored N, H, W, C in memory (the shape stays N, C, H, W); no recording: a layout change."""
    if t.ndim != 4:
        raise RuntimeError(f"required rank 4 tensor to use channels_last format, got a {t.ndim}-d tensor")
    array = np.asarray(t)
    if array.transpose(0, 2, 3, 1).flags.c_contiguous and not copy:
        return t
    stored = np.ascontiguousarray(array.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    result = Tensor._make(stored)
    return result.requires_grad_(True) if t.requires_grad and t.is_leaf else result


def cpu(self, memory_format=None):
    """This tensor on the CPU: itself (minitorch tensors are always there).

    >>> x = mt.ones(1)
    >>> x.cpu() is x
    True
    """
    return self


def cuda(self, device=None, non_blocking=False, memory_format=None):
    """Raises DeviceError: minitorch has no CUDA device (check `mt.cuda.is_available()` first).

    >>> mt.ones(1).cuda()
    Traceback (most recent call last):
        ...
    minitorch.devices.DeviceError: device 'cuda' is not available: minitorch computes on the CPU only (mt.cuda.is_available() is False); use 'cpu'
    """
    devices.cpu_device("cuda" if device is None else devices.device("cuda", device) if isinstance(device, int)
                       else device)


def device(self):
    """The device holding this tensor: `device(type='cpu')`.

    >>> mt.zeros(2).device
    device(type='cpu')
    """
    return devices.CPU


def get_device(input):
    """The index of the device holding this tensor: -1 for the CPU, as in PyTorch.

    >>> mt.zeros(2).get_device(), mt.get_device(mt.zeros(2))
    (-1, -1)
    """
    return -1


def is_cuda(self):
    """False: minitorch tensors are never on a CUDA device.

    >>> mt.zeros(1).is_cuda
    False
    """
    return False


def is_cpu(self):
    """True: every minitorch tensor is on the CPU.

    >>> mt.zeros(1).is_cpu
    True
    """
    return True


def layout(self):
    """How the elements are stored: always `mt.strided` (dense).

    >>> mt.zeros(1).layout
    minitorch.strided
    """
    return layouts.strided


# ----- autograd -----

def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates d(self)/d(leaf) into `.grad` of every leaf that requires grad.

    A non-scalar tensor needs `gradient` (the vector in the vector-Jacobian
    product); `create_graph=True` records the backward pass for higher derivatives.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> (x ** 2).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    backward_of(self, gradient, retain_graph, create_graph, inputs=inputs)


def detach_(input):
    """Makes this tensor stop requiring gradients, in place; returns it (also `mt.detach_(x)`).

    >>> x = mt.tensor([1.0], requires_grad=True).detach_()
    >>> x.requires_grad, mt.detach_(mt.ones(1, requires_grad=True)).requires_grad
    (False, False)
    """
    input._requires_grad = False
    return input


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
    tensor([ 6., 12.])
    """
    hooks.retain_grad(self)


def retains_grad(self):
    """True when `retain_grad()` was called on this non-leaf tensor.

    >>> x = mt.ones(1, requires_grad=True); y = x * 2; y.retain_grad()
    >>> y.retains_grad, x.retains_grad
    (True, False)
    """
    ref = hooks.retaining.get(self._id)
    return ref is not None and ref() is self


def grad_dtype(self):
    """The dtype `.grad` has: the tensor's own (None for tensors that cannot require grad).

    >>> mt.ones(1).grad_dtype, mt.ones(1, dtype=mt.int64).grad_dtype
    (minitorch.float32, None)
    """
    return self.dtype if self._data.dtype.kind == "f" else None


def volatile(self):
    """Removed from PyTorch long ago: always False, with PyTorch's warning."""
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def reinforce(self, reward):
    """Removed from PyTorch: raises, as PyTorch's does."""
    raise RuntimeError("reinforce() was removed (as in PyTorch): sample an action, then backpropagate "
                       "-log_prob(action) * reward instead.")


def _detached(self):
    """The same storage, detached from every tape (PyTorch's `.data`); assigning replaces the values.

    Writing into `p.data` changes `p` without recording anything (the manual
    SGD step `W.data += -0.1 * W.grad`); `p.data = other` gives p other's
    values (any shape), also unrecorded. As in PyTorch, neither moves p's
    version: `.data` has a version counter of its own, and assigning keeps p's.
    So `w.data.mul_(2)` or `w.data = new` between forward and backward does not
    raise, and a gradient that saved w reads the new values (weight clipping,
    EMA updates in hooks rely on it). Under `mt.autograd.detect_anomaly()` such
    a write warns, naming the ops of a pending graph that saved the values.
    `detach()` is the tracked alias: a write through it moves p's version.

    >>> w = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> w.data
    tensor([1., 2.])
    >>> w.data -= 0.5
    >>> w
    tensor([0.5000, 1.5000], requires_grad=True)
    >>> w.data = mt.zeros(3)
    >>> w.shape
    minitorch.Size([3])
    """
    alias = array_ops.stop_gradient(self)
    untracked_alias(alias, self)
    return alias


def _set_data(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
    if self._requires_grad and other._data.dtype.kind != "f":
        raise RuntimeError(f"data set to a tensor that requires gradients must be floating point, got {other.dtype}")
    if switches.check_anomalies:
        untracked_write(counter_of(self), "x.data = y")
    self._data = other._data
    self._view_of = None


# ----- Python's protocols: length, iteration, printing, copying and pickling -----

def __len__(self):
    if self._data.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self._data.shape[0]


def __iter__(self):
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self._data.shape[0]))


def format_(self, spec):
    """f"{t:spec}": a 0-d tensor formats as its number (PyTorch's rule: f"{loss}" prints the number,
    f"{loss:.4f}" too); a one-element tensor with a spec also does; any other tensor prints as tensor(...).

    >>> loss = mt.tensor(2.4544)
    >>> f"{loss:.2f}", "{:+.1f}".format(mt.tensor([3.25])), f"{mt.tensor(3)}", f"{mt.tensor([1, 2])}"
    ('2.45', '+3.2', '3', 'tensor([1, 2])')
    """
    if self.ndim == 0 or spec and self.numel() == 1:
        return format(self._scalar(), spec)
    return object.__format__(self, spec)


def complex_(self):
    """complex(t) of a one-element tensor.

    >>> complex(mt.tensor([2.5]))
    (2.5+0j)
    """
    return complex(self._scalar())


def round_(self, ndigits=None):
    """round(t) or round(t, n) of a one-element tensor: the rounded Python number.

    PyTorch's Tensor has no __round__ (round(t) raises TypeError there);
    minitorch rounds one-element tensors as Python rounds their value.

    >>> round(mt.tensor(2.567), 2), round(mt.tensor([3.7]))
    (2.57, 4)
    """
    return round(self._scalar(), ndigits)


def __deepcopy__(self, memo):
    """A new tensor with a copy of the data and a new id (tapes tell tensors apart by id)."""
    copy = Tensor._from_data(self._data, requires_grad=self._requires_grad and self.is_leaf)  # a copy
    copy.grad = None if self.grad is None else Tensor._from_data(self.grad._data)
    memo[id(self)] = copy
    return copy


def reduce_ex(self, protocol):
    """Pickling out, as PyTorch's (copy.deepcopy of a Module, multiprocessing, DataLoader workers): a
    tensor's values, class and requires_grad (and a subclass's own slots, such as Buffer's persistent),
    never its tape bookkeeping or .grad; it comes back as a new leaf. minitorch.load never unpickles.

    >>> import pickle
    >>> pickle.loads(pickle.dumps(mt.ones(2, requires_grad=True)))
    tensor([1., 1.], requires_grad=True)
    """
    extra = {slot: getattr(self, slot) for cls in type(self).__mro__ if cls is not Tensor and issubclass(cls, Tensor)
             for slot in cls.__dict__.get("__slots__", ()) if hasattr(self, slot)}
    return rebuild_tensor, (type(self), np.array(self._data), self._requires_grad, extra)


def rebuild_tensor(cls, array, requires_grad, extra):
    """The inverse of `reduce_ex`: a new leaf of class `cls` holding `array`."""
    t = cls._make(array)
    for slot, value in extra.items():
        setattr(t, slot, value)
    return t.requires_grad_() if requires_grad else t


# ----- views and choices in other shapes -----

def pos(self):
    """+x: the tensor itself."""
    return self


def view_as(self, other):
    """The same storage in `other`'s shape (`view`: never a copy). Runs the "Reshape" op.

    >>> mt.arange(6).view_as(mt.zeros(3, 2)).shape
    minitorch.Size([3, 2])
    """
    return array_ops.view(self, other.shape)


def expand_as(self, other):
    """This tensor broadcast to `other`'s shape. Runs the "BroadcastTo" op.

    >>> mt.tensor([1, 2]).expand_as(mt.zeros(2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    return array_ops.broadcast_to(self, other.shape)


def where(self, condition, other):
    """self where `condition` holds, else `other` (see `mt.where`). Runs the "SelectV2" op.

    >>> mt.tensor([1.0, -2.0]).where(mt.tensor([True, False]), 0.0)
    tensor([1., 0.])
    """
    return comparison_ops.where(condition, self, other)


def _transposed(self):
    """All dimensions reversed. Runs the "Transpose" op.

    >>> mt.zeros(2, 3, 4).T.shape
    minitorch.Size([4, 3, 2])
    """
    return array_ops.permute(self, *reversed(range(self.ndim)))


def as_subclass(self, cls):
    """This tensor as an instance of the Tensor subclass `cls`: the same memory, still on the autograd graph.

    >>> class Tagged(mt.Tensor):
    ...     __slots__ = ()
    >>> type(mt.ones(2).as_subclass(Tagged)).__name__
    'Tagged'
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass: cls must be a subclass of minitorch.Tensor, got {cls!r}")
    view = array_ops.reshape(self, self.shape)  # a recorded view: shares the memory and the history
    view.__class__ = cls
    return view


# ----- the tables: method name -> function -----

METHODS = {
    # sizes, devices, memory layout
    "dim": dim, "ndimension": dim, "size": size, "numel": numel, "nelement": numel,
    "is_floating_point": is_floating_point, "is_contiguous": is_contiguous, "contiguous": array_ops.contiguous,
    "to": to, "cpu": cpu, "cuda": cuda, "get_device": get_device, "device": property(device),
    "is_cuda": property(is_cuda), "is_cpu": property(is_cpu), "layout": property(layout),
    # dtypes: conversions, new tensors like this one
    "type": coercion.type_, "type_as": coercion.type_as, "bfloat16": coercion.bfloat16, **coercion.CONVERSIONS,
    "new_tensor": new_tensor, "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty,
    "new_full": new_full, "new": new,
    # autograd
    "backward": backward, "detach": array_ops.stop_gradient, "detach_": detach_, "register_hook": register_hook,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook, "retain_grad": retain_grad,
    "retains_grad": property(retains_grad), "grad_dtype": property(grad_dtype), "volatile": property(volatile),
    "reinforce": reinforce,
    # Python's protocols
    "__len__": __len__, "__iter__": __iter__, "__repr__": format_tensor, "__format__": format_,
    "__complex__": complex_, "__round__": round_, "__deepcopy__": __deepcopy__, "__reduce_ex__": reduce_ex,
    # arithmetic and its operators
    "add": arithmetic_ops.add, "__add__": arithmetic_ops.add, "__radd__": _reflected(arithmetic_ops.add),
    "sub": arithmetic_ops.sub, "__sub__": arithmetic_ops.sub, "__rsub__": _reflected(arithmetic_ops.sub),
    "mul": arithmetic_ops.mul, "__mul__": arithmetic_ops.mul, "__rmul__": _reflected(arithmetic_ops.mul),
    "div": arithmetic_ops.div, "__truediv__": arithmetic_ops.div, "__rtruediv__": _reflected(arithmetic_ops.div),
    "pow": arithmetic_ops.pow, "__pow__": arithmetic_ops.pow, "__rpow__": _reflected(arithmetic_ops.pow),
    "floor_divide": arithmetic_ops.floor_divide, "__floordiv__": arithmetic_ops.floor_divide,
    "__rfloordiv__": _reflected(arithmetic_ops.floor_divide), "remainder": arithmetic_ops.remainder,
    "__mod__": arithmetic_ops.remainder, "__rmod__": _reflected(arithmetic_ops.remainder), "fmod": arithmetic_ops.fmod,
    "neg": arithmetic_ops.neg, "__neg__": arithmetic_ops.neg, "negative": arithmetic_ops.neg, "__pos__": pos,
    "positive": arithmetic_ops.positive, "resolve_neg": arithmetic_ops.resolve_neg,
    "abs": arithmetic_ops.abs, "__abs__": arithmetic_ops.abs, "absolute": arithmetic_ops.abs,
    "subtract": arithmetic_ops.sub, "multiply": arithmetic_ops.mul, "divide": arithmetic_ops.div,
    "true_divide": arithmetic_ops.div, "square": arithmetic_ops.square, "reciprocal": arithmetic_ops.reciprocal,
    "float_power": arithmetic_ops.float_power, "lerp": arithmetic_ops.lerp, "addcmul": arithmetic_ops.addcmul,
    "addcdiv": arithmetic_ops.addcdiv, "matmul": product_ops.matmul, "__matmul__": product_ops.matmul,
    "__rmatmul__": _reflected(product_ops.matmul),
    # exponentials, logarithms, roots
    "exp": exponential_ops.exp, "exp2": exponential_ops.exp2, "expm1": exponential_ops.expm1,
    "log": exponential_ops.log, "log2": exponential_ops.log2, "log10": exponential_ops.log10,
    "log1p": exponential_ops.log1p, "logaddexp": exponential_ops.logaddexp, "logaddexp2": exponential_ops.logaddexp2,
    "sqrt": exponential_ops.sqrt, "rsqrt": exponential_ops.rsqrt, "ldexp": exponential_ops.ldexp,
    "frexp": exponential_ops.frexp,
    # trigonometric and hyperbolic functions
    "sin": trigonometric_ops.sin, "cos": trigonometric_ops.cos, "tan": trigonometric_ops.tan,
    "asin": trigonometric_ops.asin, "arcsin": trigonometric_ops.asin, "acos": trigonometric_ops.acos,
    "arccos": trigonometric_ops.acos, "atan": trigonometric_ops.atan, "arctan": trigonometric_ops.atan,
    "atan2": trigonometric_ops.atan2, "arctan2": trigonometric_ops.atan2, "sinh": trigonometric_ops.sinh,
    "cosh": trigonometric_ops.cosh, "tanh": trigonometric_ops.tanh, "asinh": trigonometric_ops.asinh,
    "arcsinh": trigonometric_ops.asinh, "acosh": trigonometric_ops.acosh, "arccosh": trigonometric_ops.acosh,
    "atanh": trigonometric_ops.atanh, "arctanh": trigonometric_ops.atanh, "sinc": trigonometric_ops.sinc,
    "hypot": trigonometric_ops.hypot, "deg2rad": trigonometric_ops.deg2rad, "rad2deg": trigonometric_ops.rad2deg,
    # rounding and signs
    "floor": rounding_ops.floor, "ceil": rounding_ops.ceil, "round": rounding_ops.round, "trunc": rounding_ops.trunc,
    "fix": rounding_ops.trunc, "frac": rounding_ops.frac, "sign": rounding_ops.sign, "sgn": rounding_ops.sign,
    "signbit": rounding_ops.signbit, "copysign": rounding_ops.copysign, "heaviside": rounding_ops.heaviside,
    "nextafter": rounding_ops.nextafter,
    # comparisons, logic, tests, choices
    "eq": comparison_ops.eq, "__eq__": comparison_ops.eq, "ne": comparison_ops.ne, "__ne__": comparison_ops.ne,
    "lt": comparison_ops.lt, "__lt__": comparison_ops.lt, "le": comparison_ops.le, "__le__": comparison_ops.le,
    "gt": comparison_ops.gt, "__gt__": comparison_ops.gt, "ge": comparison_ops.ge, "__ge__": comparison_ops.ge,
    "greater": comparison_ops.gt, "greater_equal": comparison_ops.ge, "less": comparison_ops.lt,
    "less_equal": comparison_ops.le, "not_equal": comparison_ops.ne, "logical_and": comparison_ops.logical_and,
    "logical_or": comparison_ops.logical_or, "logical_xor": comparison_ops.logical_xor,
    "logical_not": comparison_ops.logical_not, "isnan": comparison_ops.isnan, "isinf": comparison_ops.isinf,
    "isfinite": comparison_ops.isfinite, "isposinf": comparison_ops.isposinf, "isneginf": comparison_ops.isneginf,
    "isreal": comparison_ops.isreal, "isclose": comparison_ops.isclose, "allclose": comparison_ops.allclose,
    "equal": comparison_ops.equal, "maximum": comparison_ops.maximum, "minimum": comparison_ops.minimum,
    "fmax": comparison_ops.fmax, "fmin": comparison_ops.fmin, "clamp": comparison_ops.clamp,
    "clip": comparison_ops.clamp, "clamp_min": comparison_ops.clamp_min, "clamp_max": comparison_ops.clamp_max,
    "nan_to_num": comparison_ops.nan_to_num, "where": where, "masked_fill": comparison_ops.masked_fill,
    # integers and bits
    "bitwise_and": bitwise_ops.bitwise_and, "__and__": bitwise_ops.bitwise_and,
    "__rand__": _reflected(bitwise_ops.bitwise_and), "bitwise_or": bitwise_ops.bitwise_or,
    "__or__": bitwise_ops.bitwise_or, "__ror__": _reflected(bitwise_ops.bitwise_or),
    "bitwise_xor": bitwise_ops.bitwise_xor, "__xor__": bitwise_ops.bitwise_xor,
    "__rxor__": _reflected(bitwise_ops.bitwise_xor), "bitwise_not": bitwise_ops.bitwise_not,
    "__invert__": bitwise_ops.bitwise_not, "bitwise_left_shift": bitwise_ops.bitwise_left_shift,
    "__lshift__": bitwise_ops.bitwise_left_shift, "__rlshift__": _reflected(bitwise_ops.bitwise_left_shift),
    "bitwise_right_shift": bitwise_ops.bitwise_right_shift, "__rshift__": bitwise_ops.bitwise_right_shift,
    "__rrshift__": _reflected(bitwise_ops.bitwise_right_shift), "gcd": bitwise_ops.gcd, "lcm": bitwise_ops.lcm,
    # activations, special functions
    "relu": activation_ops.relu, "sigmoid": activation_ops.sigmoid, "logit": activation_ops.logit,
    "hardshrink": activation_ops.hardshrink, "prelu": activation_ops.prelu, "erf": special_ops.erf,
    "erfc": special_ops.erfc, "erfinv": special_ops.erfinv, "xlogy": special_ops.xlogy, "lgamma": special_ops.lgamma,
    "digamma": special_ops.digamma, "polygamma": special_ops.polygamma_method, "mvlgamma": special_ops.mvlgamma,
    "igamma": special_ops.igamma, "igammac": special_ops.igammac, "i0": special_ops.i0,
    # reductions
    "sum": reduction_ops.sum, "mean": reduction_ops.mean, "prod": reduction_ops.prod,
    "max": reduction_ops.max, "min": reduction_ops.min, "amax": reduction_ops.amax, "amin": reduction_ops.amin,
    "argmax": reduction_ops.argmax, "argmin": reduction_ops.argmin, "all": reduction_ops.all, "any": reduction_ops.any,
    "var": reduction_ops.var, "std": reduction_ops.std, "logsumexp": reduction_ops.logsumexp,
    "softmax": reduction_ops.softmax, "log_softmax": reduction_ops.log_softmax,
    # scans, sorting, statistics, norms, products, matrices, linear algebra
    "sum_to_size": reduction_ops.sum_to_size, "cumsum": scan_ops.cumsum, "cumprod": scan_ops.cumprod, "logcumsumexp": scan_ops.logcumsumexp,
    "cummax": scan_ops.cummax, "cummin": scan_ops.cummin, "diff": scan_ops.diff,
    "sort": sort_ops.sort, "argsort": sort_ops.argsort, "msort": sort_ops.msort, "topk": sort_ops.topk,
    "kthvalue": sort_ops.kthvalue, "median": sort_ops.median, "nanmedian": sort_ops.nanmedian, "mode": sort_ops.mode,
    "quantile": sort_ops.quantile, "nanquantile": sort_ops.nanquantile, "unique": sort_ops.unique,
    "unique_consecutive": sort_ops.unique_consecutive,
    "nansum": statistics_ops.nansum, "nanmean": statistics_ops.nanmean, "aminmax": statistics_ops.aminmax,
    "count_nonzero": statistics_ops.count_nonzero, "cov": statistics_ops.cov, "corrcoef": statistics_ops.corrcoef,
    "bincount": statistics_ops.bincount, "histc": statistics_ops.histc, "histogram": statistics_ops.histogram,
    "norm": norm_ops.norm_method, "dist": norm_ops.dist, "renorm": norm_ops.renorm,
    "mm": product_ops.mm, "bmm": product_ops.bmm, "mv": product_ops.mv, "dot": product_ops.dot,
    "vdot": product_ops.vdot, "inner": product_ops.inner, "outer": product_ops.outer, "ger": product_ops.outer,
    "kron": product_ops.kron, "addmm": product_ops.addmm, "addbmm": product_ops.addbmm,
    "baddbmm": product_ops.baddbmm, "addmv": product_ops.addmv, "addr": product_ops.addr,
    "matrix_power": product_ops.matrix_power, "cross": product_ops.cross,
    "diag": matrix_ops.diag, "diag_embed": matrix_ops.diag_embed, "diagflat": matrix_ops.diagflat,
    "diagonal": matrix_ops.diagonal, "trace": matrix_ops.trace, "tril": matrix_ops.tril, "triu": matrix_ops.triu,
    "det": linalg.torch_det, "logdet": linalg.logdet, "slogdet": linalg.torch_slogdet, "inverse": linalg.inverse,
    "pinverse": linalg.pinverse, "cholesky": linalg.torch_cholesky, "cholesky_solve": linalg.cholesky_solve,
    "qr": linalg.torch_qr, "svd": linalg.torch_svd, "matrix_exp": linalg.matrix_exp,
    "symeig": linalg.symeig, "eig": linalg.legacy_eig, "lstsq": linalg.legacy_lstsq, "solve": linalg.legacy_solve,
    # shapes and indexing
    "reshape": array_ops.reshape, "view": array_ops.view, "view_as": view_as, "flatten": array_ops.flatten,
    "squeeze": array_ops.squeeze, "unsqueeze": array_ops.unsqueeze, "permute": array_ops.permute,
    "transpose": array_ops.transpose, "t": shape_ops.t, "expand": array_ops.expand, "expand_as": expand_as,
    "clone": array_ops.clone,
    "__getitem__": array_ops.getitem,
    # shapes, joining and splitting, indexing, scatter and gather
    "flip": shape_ops.flip, "fliplr": shape_ops.fliplr, "flipud": shape_ops.flipud, "roll": shape_ops.roll,
    "rot90": shape_ops.rot90, "repeat": shape_ops.repeat, "tile": shape_ops.tile,
    "repeat_interleave": shape_ops.repeat_interleave, "movedim": shape_ops.movedim, "moveaxis": shape_ops.movedim,
    "swapaxes": shape_ops.swapaxes, "swapdims": shape_ops.swapdims, "narrow": shape_ops.narrow,
    "select": shape_ops.select, "unfold": shape_ops.unfold, "unflatten": shape_ops.unflatten, "ravel": shape_ops.ravel,
    "reshape_as": shape_ops.reshape_as, "broadcast_to": array_ops.broadcast_to, "adjoint": shape_ops.adjoint,
    "stride": shape_ops.stride, "as_strided": shape_ops.as_strided, "storage_offset": shape_ops.offset_in_storage,
    "split": join_ops.unsafe_split, "split_with_sizes": join_ops.split_with_sizes, "chunk": join_ops.chunk,
    "unbind": join_ops.unbind, "tensor_split": join_ops.tensor_split, "hsplit": join_ops.hsplit,
    "vsplit": join_ops.vsplit, "dsplit": join_ops.dsplit, "unsafe_split": join_ops.unsafe_split,
    "unsafe_split_with_sizes": join_ops.split_with_sizes, "unsafe_chunk": join_ops.chunk,
    "gather": index_ops.gather, "take_along_dim": index_ops.take_along_dim, "take": index_ops.take,
    "index_select": index_ops.index_select, "masked_select": index_ops.masked_select, "nonzero": index_ops.nonzero,
    "nonzero_static": index_ops.nonzero_static, "argwhere": index_ops.argwhere,
    "scatter": scatter_ops.scatter, "scatter_add": scatter_ops.scatter_add, "scatter_reduce": scatter_ops.scatter_reduce,
    "index_add": scatter_ops.index_add, "index_copy": scatter_ops.index_copy, "index_fill": scatter_ops.index_fill,
    "index_put": scatter_ops.index_put, "index_reduce": scatter_ops.index_reduce,
    "masked_scatter": scatter_ops.masked_scatter, "put": scatter_ops.put,
    "squeeze_": shape_in_place_ops.squeeze_, "unsqueeze_": shape_in_place_ops.unsqueeze_, "t_": shape_in_place_ops.t_,
    "transpose_": shape_in_place_ops.transpose_, "swapaxes_": shape_in_place_ops.swapaxes_,
    "swapdims_": shape_in_place_ops.transpose_,
    # in-place updates that are no twin of a function (the twins: ops/in_place_twins.py, bound below)
    "__setitem__": in_place_ops.setitem, "zero_": in_place_ops.zero_, "fill_": in_place_ops.fill_,
    "copy_": in_place_ops.copy_, "uniform_": in_place_ops.uniform_, "normal_": in_place_ops.normal_,
    "bernoulli_": in_place_ops.bernoulli_, "masked_fill_": in_place_ops.masked_fill_,
    "resize_": shape_in_place_ops.resize_, "resize_as_": shape_in_place_ops.resize_as_,
    "resize": shape_in_place_ops.resize, "resize_as": shape_in_place_ops.resize_as, "as_subclass": as_subclass,
    # random sampling
    "multinomial": random_ops.multinomial_method, "bernoulli": random_ops.bernoulli_method,
    "random_": random_ops.random_, "exponential_": random_ops.exponential_, "geometric_": random_ops.geometric_,
    "log_normal_": random_ops.log_normal_, "cauchy_": random_ops.cauchy_,
}

# Python's augmented assignments, in place as in PyTorch (which has no in-place `@=`: it rebinds).
AUGMENTED = {
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_", "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_", "__ipow__": "pow_", "__iand__": "bitwise_and_", "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_", "__ilshift__": "bitwise_left_shift_", "__irshift__": "bitwise_right_shift_",
}

PROPERTIES = {"T": (_transposed, None), "mT": (shape_ops.matrix_transpose, None), "data": (_detached, _set_data),
              "H": (shape_ops.conjugate_transpose, None), "mH": (shape_ops.matrix_conjugate_transpose, None)}


def bind():
    """Attaches every method, in-place twin, operator and property of the tables to Tensor
    (once, when minitorch is imported)."""
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in in_place_twins.IN_PLACE.items():
        setattr(Tensor, name, fn)
    for operator, name in AUGMENTED.items():
        setattr(Tensor, operator, getattr(Tensor, name))
    for name, (getter, setter) in PROPERTIES.items():
        setattr(Tensor, name, property(getter, setter, doc=getter.__doc__))


bind()
