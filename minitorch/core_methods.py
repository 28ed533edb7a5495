"""Tensor methods of the core surface: devices (`.to`, `.cpu`, `.device`), new tensors like this one
(`new_zeros`, ...), sizes and memory layout (`nelement`, `is_contiguous`).

tensor_methods.py binds them onto Tensor from its table (the "surface: core" block).
"""
import math
import warnings

import numpy as np

from . import creation, devices, dtypes, layouts
from .engine import hooks
from .engine.versions import bump
from .ops.array_ops import clone, reshape, shape_arg
from .ops.coercion import cast
from .tensor import Tensor

_DEVICE_LIKE = (str, devices.device, int)


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
        result = cast(self, dtype)
    elif copy:
        result = clone(self)
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


def new_tensor(self, data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data`, of this tensor's dtype unless `dtype` is given.

    >>> mt.zeros(2, dtype=mt.int32).new_tensor([1.5, 2.0])
    tensor([1, 2], dtype=minitorch.int32)
    """
    return creation.tensor(data, dtype=self.dtype if dtype is None else dtype, device=device,
                           requires_grad=requires_grad, pin_memory=pin_memory)


def new_zeros(self, *sizes, size=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """Zeros of the given size, of this tensor's dtype unless `dtype` is given.

    >>> mt.zeros(1, dtype=mt.float64).new_zeros(2, 3).dtype
    minitorch.float64
    """
    return creation.zeros(*sizes, size=size, dtype=dtype or self.dtype, layout=layout, device=device,
                          pin_memory=pin_memory, requires_grad=requires_grad)


def new_ones(self, *sizes, size=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """Ones of the given size, of this tensor's dtype unless `dtype` is given.

    >>> mt.tensor([1, 2]).new_ones((2, 2))
    tensor([[1, 1],
            [1, 1]])
    """
    return creation.ones(*sizes, size=size, dtype=dtype or self.dtype, layout=layout, device=device,
                         pin_memory=pin_memory, requires_grad=requires_grad)


def new_empty(self, *sizes, size=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """A tensor of the given size, of this tensor's dtype (its values are zeros in minitorch).

    >>> mt.zeros(1).new_empty(3).shape
    minitorch.Size([3])
    """
    return creation.empty(*sizes, size=size, dtype=dtype or self.dtype, layout=layout, device=device,
                          pin_memory=pin_memory, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """`fill_value` everywhere in the given size, of this tensor's dtype unless `dtype` is given.

    >>> mt.zeros(1).new_full((2,), 3)
    tensor([3., 3.])
    """
    return creation.full(size, fill_value, dtype=dtype or self.dtype, layout=layout, device=device,
                         pin_memory=pin_memory, requires_grad=requires_grad)


def new(self, *args, device=None):
    """PyTorch's legacy constructor: `x.new(2, 3)` (a size: zeros here) or `x.new([1, 2])` (data), in x's dtype.

    >>> x = mt.zeros(1, dtype=mt.int64)
    >>> x.new(2, 3).shape, x.new([1, 2]), x.new().shape
    (minitorch.Size([2, 3]), tensor([1, 2]), minitorch.Size([0]))
    """
    if len(args) == 1 and isinstance(args[0], (list, np.ndarray, Tensor)):
        return new_tensor(self, args[0], device=device)
    return new_zeros(self, *(args or (0,)), device=device)


def detach_(input):
    """Makes `input` stop requiring gradients, in place; returns it (torch.detach_).

    >>> mt.detach_(mt.ones(1, requires_grad=True)).requires_grad
    False
    """
    return input.detach_()


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


_numpy_of = Tensor.numpy  # tensor.py's, which refuses a tensor that requires grad


def numpy(self, *, force=False):
    """The data as a numpy array, sharing memory; refused while the tensor requires grad unless
    `force=True` (PyTorch's keyword), which hands over the detached data.

    >>> w = mt.ones(2, requires_grad=True)
    >>> w.numpy(force=True)
    array([1., 1.], dtype=float32)
    """
    return _numpy_of(self.detach() if force else self)


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


def as_subclass(self, cls):
    """This tensor as an instance of the Tensor subclass `cls`: the same memory, still on the autograd graph.

    >>> class Tagged(mt.Tensor):
    ...     __slots__ = ()
    >>> type(mt.ones(2).as_subclass(Tagged)).__name__
    'Tagged'
    """
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass: cls must be a subclass of minitorch.Tensor, got {cls!r}")
    view = reshape(self, self.shape)  # a recorded view: shares the memory and the history
    view.__class__ = cls
    return view


def volatile(self):
    """Removed from PyTorch long ago: always False, with PyTorch's warning."""
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def reinforce(self, reward):
    """Removed from PyTorch: raises, as PyTorch's does."""
    raise RuntimeError("reinforce() was removed (as in PyTorch): sample an action, then backpropagate "
                       "-log_prob(action) * reward instead.")


def grad_dtype(self):
    """The dtype `.grad` has: the tensor's own (None for tensors that cannot require grad).

    >>> mt.ones(1).grad_dtype, mt.ones(1, dtype=mt.int64).grad_dtype
    (minitorch.float32, None)
    """
    return self.dtype if self._data.dtype.kind == "f" else None


def nelement(self):
    """The number of elements (same as `numel`).

    >>> mt.zeros(2, 3).nelement()
    6
    """
    return self.numel()


def ndimension(self):
    """The number of dimensions (same as `dim`).

    >>> mt.zeros(2, 3).ndimension()
    2
    """
    return self.ndim


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


def retains_grad(self):
    """True when `retain_grad()` was called on this non-leaf tensor.

    >>> x = mt.ones(1, requires_grad=True); y = x * 2; y.retain_grad()
    >>> y.retains_grad, x.retains_grad
    (True, False)
    """
    ref = hooks.retaining.get(self._id)
    return ref is not None and ref() is self


# ----- the Python number protocol, beyond tensor.py's float/int/index/bool -----

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
