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

    >>> rebuild, arguments = mt.ones(2, requires_grad=True).__reduce_ex__(2)  # what pickle.dumps writes
    >>> rebuild(*arguments)
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

# The methods that are the function of the same name (`x.exp()` is `mt.exp(x)`), by the file that holds them.
SAME_NAMES = {
    arithmetic_ops: "add sub mul div pow floor_divide remainder fmod neg positive resolve_neg abs square reciprocal "
                    "float_power lerp addcmul addcdiv",
    exponential_ops: "exp exp2 expm1 log log2 log10 log1p logaddexp logaddexp2 sqrt rsqrt ldexp frexp",
    trigonometric_ops: "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh sinc hypot deg2rad rad2deg",
    rounding_ops: "floor ceil round trunc frac sign signbit copysign heaviside nextafter",
    comparison_ops: "eq ne lt le gt ge logical_and logical_or logical_xor logical_not isnan isinf isfinite isposinf "
                    "isneginf isreal isclose allclose equal maximum minimum fmax fmin clamp clamp_min clamp_max "
                    "nan_to_num masked_fill",
    bitwise_ops: "bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift gcd lcm",
    activation_ops: "relu sigmoid logit hardshrink prelu",
    special_ops: "erf erfc erfinv xlogy lgamma digamma mvlgamma igamma igammac i0",
    coercion: "type_as bfloat16",
    reduction_ops: "sum mean prod max min amax amin argmax argmin all any var std logsumexp softmax log_softmax "
                   "sum_to_size",
    scan_ops: "cumsum cumprod logcumsumexp cummax cummin diff",
    sort_ops: "sort argsort msort topk kthvalue median nanmedian mode quantile nanquantile unique unique_consecutive",
    statistics_ops: "nansum nanmean aminmax count_nonzero cov corrcoef bincount histc histogram",
    norm_ops: "dist renorm",
    product_ops: "matmul mm bmm mv dot vdot inner outer kron addmm addbmm baddbmm addmv addr matrix_power cross",
    matrix_ops: "diag diag_embed diagflat diagonal trace tril triu",
    linalg: "logdet inverse pinverse cholesky_solve matrix_exp symeig",
    array_ops: "contiguous reshape view flatten squeeze unsqueeze permute transpose expand clone broadcast_to",
    shape_ops: "t flip fliplr flipud roll rot90 repeat tile repeat_interleave movedim swapaxes swapdims narrow select "
               "unfold unflatten ravel reshape_as adjoint stride as_strided",
    join_ops: "split_with_sizes chunk unbind tensor_split hsplit vsplit dsplit unsafe_split",
    index_ops: "gather take_along_dim take index_select masked_select nonzero nonzero_static argwhere",
    scatter_ops: "scatter scatter_add scatter_reduce index_add index_copy index_fill index_put index_reduce "
                 "masked_scatter put",
    shape_in_place_ops: "squeeze_ unsqueeze_ t_ transpose_ swapaxes_ resize_ resize_as_ resize resize_as",
    in_place_ops: "zero_ fill_ copy_ uniform_ normal_ bernoulli_ masked_fill_",
    random_ops: "random_ exponential_ geometric_ log_normal_ cauchy_",
}

# Python's binary operators: `x + y` is add(x, y), `2 + x` its reflected form, add(2, x).
BINARY_OPERATORS = {
    "add": arithmetic_ops.add, "sub": arithmetic_ops.sub, "mul": arithmetic_ops.mul, "truediv": arithmetic_ops.div,
    "floordiv": arithmetic_ops.floor_divide, "mod": arithmetic_ops.remainder, "pow": arithmetic_ops.pow,
    "matmul": product_ops.matmul, "and": bitwise_ops.bitwise_and, "or": bitwise_ops.bitwise_or,
    "xor": bitwise_ops.bitwise_xor, "lshift": bitwise_ops.bitwise_left_shift, "rshift": bitwise_ops.bitwise_right_shift,
}

# PyTorch's other names for methods above: the same functions.
ALIASES = {
    "negative": "neg", "absolute": "abs", "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2", "arcsinh": "asinh", "arccosh": "acosh",
    "arctanh": "atanh", "fix": "trunc", "sgn": "sign", "greater": "gt", "greater_equal": "ge", "less": "lt",
    "less_equal": "le", "not_equal": "ne", "clip": "clamp", "ger": "outer", "moveaxis": "movedim",
    "split": "unsafe_split", "unsafe_split_with_sizes": "split_with_sizes", "unsafe_chunk": "chunk",
    "swapdims_": "transpose_", "ndimension": "dim", "nelement": "numel",
}

METHODS = {name: getattr(module, name) for module, names in SAME_NAMES.items() for name in names.split()}
METHODS.update({f"__{name}__": fn for name, fn in BINARY_OPERATORS.items()})
METHODS.update({f"__r{name}__": _reflected(fn) for name, fn in BINARY_OPERATORS.items()})
METHODS.update({
    # the other operators
    "__neg__": arithmetic_ops.neg, "__pos__": pos, "__abs__": arithmetic_ops.abs, "__invert__": bitwise_ops.bitwise_not,
    "__eq__": comparison_ops.eq, "__ne__": comparison_ops.ne, "__lt__": comparison_ops.lt, "__le__": comparison_ops.le,
    "__gt__": comparison_ops.gt, "__ge__": comparison_ops.ge, "__getitem__": array_ops.getitem,
    "__setitem__": in_place_ops.setitem,
    # methods whose function has another name or other arguments
    "type": coercion.type_, **coercion.CONVERSIONS, "where": where, "polygamma": special_ops.polygamma_method,
    "norm": norm_ops.norm_method, "multinomial": random_ops.multinomial_method,
    "bernoulli": random_ops.bernoulli_method, "det": linalg.torch_det, "slogdet": linalg.torch_slogdet,
    "cholesky": linalg.torch_cholesky, "qr": linalg.torch_qr, "svd": linalg.torch_svd, "eig": linalg.legacy_eig,
    "lstsq": linalg.legacy_lstsq, "solve": linalg.legacy_solve, "storage_offset": shape_ops.offset_in_storage,
    "detach": array_ops.stop_gradient, "view_as": view_as, "expand_as": expand_as, "as_subclass": as_subclass,
    # sizes, devices, new tensors like this one (this file's and creation.py's)
    "dim": dim, "size": size, "numel": numel, "is_floating_point": is_floating_point, "is_contiguous": is_contiguous,
    "to": to, "cpu": cpu, "cuda": cuda, "get_device": get_device, "device": property(device),
    "is_cuda": property(is_cuda), "is_cpu": property(is_cpu), "layout": property(layout), "new_tensor": new_tensor,
    "new_zeros": new_zeros, "new_ones": new_ones, "new_empty": new_empty, "new_full": new_full, "new": new,
    # autograd
    "backward": backward, "detach_": detach_, "register_hook": register_hook,
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook, "retain_grad": retain_grad,
    "retains_grad": property(retains_grad), "grad_dtype": property(grad_dtype), "volatile": property(volatile),
    "reinforce": reinforce,
    # Python's protocols
    "__len__": __len__, "__iter__": __iter__, "__repr__": format_tensor, "__format__": format_,
    "__complex__": complex_, "__round__": round_, "__deepcopy__": __deepcopy__, "__reduce_ex__": reduce_ex,
})
METHODS.update({alias: METHODS[name] for alias, name in ALIASES.items()})

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
