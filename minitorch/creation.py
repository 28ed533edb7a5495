"""Functions that make new tensors: tensor(), zeros(), arange(), randn(), ...

They take PyTorch's arguments and defaults (float32 for floating values,
int64 for integers). No op runs here, so nothing is recorded. (The Python
numbers and arrays handed to an op become tensors in ops/coercion.py.)
"""
import builtins
import math
import warnings

import numpy as np

from . import devices, dtypes, layouts, random
from .tensor import Tensor


def check_placement(device=None, layout=None, pin_memory=False):
    """PyTorch's placement arguments, checked before any work: the CPU, strided, unpinned."""
    devices.cpu_device(device)
    layouts.check_layout(layout)
    if pin_memory:
        raise devices.DeviceError("pin_memory=True needs an accelerator to pin memory for; minitorch has none")


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data`.

    >>> mt.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    check_placement(device, None, pin_memory)
    return Tensor._from_data(data, dtype=dtype, requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor: a tensor passes through unchanged (without a dtype), anything else is copied.

    >>> x = mt.tensor([1.0])
    >>> mt.as_tensor(x) is x
    True
    >>> mt.as_tensor([1, 2], dtype=mt.float64)
    tensor([1., 2.], dtype=minitorch.float64)
    """
    devices.cpu_device(device)
    if isinstance(data, Tensor) and dtype is None:
        return data
    return Tensor._from_data(data, dtype=dtype)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """`obj` as a tensor, sharing memory with a tensor or numpy array when it can (torch.asarray).

    `copy=True` always copies; `copy=False` raises when a copy is needed.

    >>> a = np.array([1.0, 2.0])
    >>> t = mt.asarray(a)
    >>> a[0] = 5.0
    >>> t
    tensor([5., 2.], dtype=minitorch.float64)
    >>> mt.asarray([1, 2]), mt.asarray(3.5)
    (tensor([1, 2]), tensor(3.5000))
    """
    devices.cpu_device(device)
    np_dtype = None if dtype is None else dtypes.to_numpy_dtype(dtype)
    if isinstance(obj, Tensor) or isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
        array = np.asarray(obj)
        if np_dtype is not None and array.dtype != np_dtype or copy:
            if copy is False:
                raise ValueError(f"asarray: copy=False, but a {array.dtype} array cannot alias a {np_dtype} tensor")
            array = array.astype(np_dtype or array.dtype, copy=True)
        if isinstance(obj, Tensor) and array is np.asarray(obj):
            result = obj
        else:
            dtypes.from_numpy_dtype(array.dtype)
            result = Tensor._make(array)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        result = Tensor._from_data(obj, dtype=dtype)
    return result.requires_grad_(True) if requires_grad else result


def from_numpy(array):
    """A tensor sharing memory with the numpy array (same dtype).

    >>> a = np.array([1.0, 2.0])
    >>> t = mt.from_numpy(a)
    >>> a[0] = 5.0
    >>> t
    tensor([5., 2.], dtype=minitorch.float64)
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expected a numpy.ndarray, got {type(array).__name__}")
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def _new_shape(sizes, size=None, name="zeros"):
    """The shape given as several ints, one sequence, or `size=` (PyTorch's three spellings); never negative."""
    if size is not None:
        if sizes:
            raise TypeError(f"{name}(): the size was given twice, by position and as size=")
        sizes = (size,)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    shape = tuple(int(n) for n in sizes)
    if builtins.any(n < 0 for n in shape):
        raise RuntimeError(f"{name}: Trying to create tensor with negative dimension "
                           f"{builtins.min(shape)}: {list(shape)}")
    return shape


def _new_leaf(array, requires_grad):
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _float_dtype(dtype, name=None):
    np_dtype = dtypes.default_float.numpy if dtype is None else dtypes.to_numpy_dtype(dtype)
    if name is not None and np_dtype.kind != "f":
        raise RuntimeError(f"{name}: not implemented for {dtypes.from_numpy_dtype(np_dtype)} (needs a floating dtype)")
    return np_dtype


def zeros(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    """A tensor of zeros of the given size (float32 by default); `mt.empty` is the same function.

    >>> mt.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    >>> mt.zeros((2,), dtype=mt.int64, device="cpu")
    tensor([0, 0])
    """
    check_placement(device, layout, pin_memory)
    return _new_leaf(np.zeros(_new_shape(sizes, size, "zeros"), _float_dtype(dtype)), requires_grad)


def ones(*sizes, size=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of ones of the given size (float32 by default).

    >>> mt.ones(2, 2)
    tensor([[1., 1.],
            [1., 1.]])
    """
    check_placement(device, layout, pin_memory)
    return _new_leaf(np.ones(_new_shape(sizes, size, "ones"), _float_dtype(dtype)), requires_grad)


empty = zeros


def _fill_dtype(fill_value):
    """PyTorch's dtype for a tensor filled with a Python value: bool, int64 or the default float."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return (np.bool_ if isinstance(fill_value, (bool, np.bool_))
            else np.int64 if isinstance(fill_value, (int, np.integer))
            else dtypes.default_float.numpy)


def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of the given size filled with `fill_value` (its dtype follows the value, as PyTorch).

    >>> mt.full((2, 2), 7)
    tensor([[7, 7],
            [7, 7]])
    >>> mt.full(3, 0.5)
    tensor([0.5000, 0.5000, 0.5000])
    """
    check_placement(device, layout, pin_memory)
    dtype = _fill_dtype(fill_value) if dtype is None else dtypes.to_numpy_dtype(dtype)
    shape = _new_shape((size,), None, "full")
    return _new_leaf(np.full(shape, fill_value, dtype), requires_grad)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-d tensor holding the number `s`, of the default float dtype unless `dtype` says otherwise.

    >>> mt.scalar_tensor(3), mt.scalar_tensor(3, dtype=mt.int64)
    (tensor(3.), tensor(3))
    """
    check_placement(device, layout, pin_memory)
    return _new_leaf(np.array(s, _float_dtype(dtype)), requires_grad)


def _like_dtype(t, dtype):
    return t._data.dtype if dtype is None else dtypes.to_numpy_dtype(dtype)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None, pin_memory=False):
    """Zeros with the shape and dtype of `input`; `mt.empty_like` is the same function.

    >>> mt.zeros_like(mt.tensor([[1, 2]]))
    tensor([[0, 0]])
    """
    check_placement(device, layout, pin_memory)
    return _new_leaf(np.zeros(input.shape, _like_dtype(input, dtype)), requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None, pin_memory=False):
    """Ones with the shape and dtype of `input`.

    >>> mt.ones_like(mt.tensor([1.0, 2.0, 3.0]))
    tensor([1., 1., 1.])
    """
    check_placement(device, layout, pin_memory)
    return _new_leaf(np.ones(input.shape, _like_dtype(input, dtype)), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              pin_memory=False):
    """`fill_value` everywhere, with the shape and dtype of `input`.

    >>> mt.full_like(mt.zeros(2), 3.5)
    tensor([3.5000, 3.5000])
    """
    check_placement(device, layout, pin_memory)
    return _new_leaf(np.full(input.shape, fill_value, _like_dtype(input, dtype)), requires_grad)


empty_like = zeros_like


def fill(input, value):
    """A new tensor of `input`'s shape and dtype holding `value` everywhere (torch.fill; `fill_` writes in place).

    >>> mt.fill(mt.zeros(2), 3)
    tensor([3., 3.])
    """
    return full_like(input, value.item() if isinstance(value, Tensor) else value)


def arange(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """Values from start (default 0) up to, not including, end, spaced by step (int64 for integer arguments).

    >>> mt.arange(4), mt.arange(end=4)
    (tensor([0, 1, 2, 3]), tensor([0, 1, 2, 3]))
    >>> mt.arange(0, 1, 0.25)
    tensor([0.0000, 0.2500, 0.5000, 0.7500])
    """
    check_placement(device, layout, pin_memory)
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    # PyTorch's checks and messages (numpy would divide by a zero step, or make an empty range)
    if not (step > 0 or step < 0):
        raise RuntimeError(f"arange: step must be nonzero, got {step}")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"arange: unsupported range: {start} -> {end}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError(f"arange: upper bound and lower bound inconsistent with step sign (start {start}, end {end}, step {step})")
    if dtype is None:
        integral = builtins.all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if integral else dtypes.default_float.numpy
    return _new_leaf(np.arange(start, end, step, dtype=dtypes.to_numpy_dtype(dtype)), requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """Deprecated in PyTorch (warns): values from start to end INCLUDED, spaced by step, of the default float dtype.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     mt.range(1, 4)
    tensor([1., 2., 3., 4.])
    """
    warnings.warn("minitorch.range is deprecated, as torch.range is, because its behavior is inconsistent with "
                  "Python's range builtin. Instead, use minitorch.arange, which produces values in [start, end).",
                  UserWarning, stacklevel=2)
    check_placement(device, layout, pin_memory)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError(f"range: step must be nonzero, got {step}")
    count = builtins.max(int(math.floor((end - start) / step)) + 1, 0)
    values = start + step * np.arange(count, dtype=np.float64)
    return _new_leaf(values.astype(_float_dtype(dtype)), requires_grad)


def linspace(start, end, steps=None, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """`steps` evenly spaced values from start to end, both included.

    >>> mt.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    check_placement(device, layout, pin_memory)
    _require_steps(steps, "linspace")
    return _new_leaf(np.linspace(start, end, int(steps), dtype=_float_dtype(dtype)), requires_grad)


def logspace(start, end, steps=None, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """`steps` values from base**start to base**end, evenly spaced in the exponent.

    >>> mt.logspace(0, 2, 3), mt.logspace(0, 2, 3, base=2)
    (tensor([  1.,  10., 100.]), tensor([1., 2., 4.]))
    """
    check_placement(device, layout, pin_memory)
    _require_steps(steps, "logspace")
    values = np.logspace(start, end, int(steps), base=base, dtype=np.float64)
    np_dtype = _float_dtype(dtype)
    return _new_leaf((np.round(values) if np_dtype.kind in "iu" else values).astype(np_dtype), requires_grad)


def _require_steps(steps, name):
    if steps is None:  # PyTorch's form without steps is gone (it raises too)
        raise TypeError(f"{name}() missing required argument 'steps' (pos 3)")


def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 2-D tensor with ones on the diagonal (n x n, or n x m).

    >>> mt.eye(2)
    tensor([[1., 0.],
            [0., 1.]])
    """
    check_placement(device, layout, pin_memory)
    return _new_leaf(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


# ----- random tensors: each takes a `generator=` (default: mt.default_generator) -----

def _draw_float(draw, shape, np_dtype):
    """Floats from a numpy drawing method: float32 and float64 drawn directly, float16 drawn as float32."""
    return draw(shape, dtype=np_dtype if np_dtype in (np.float32, np.float64) else np.float32).astype(np_dtype, copy=False)


def rand(*sizes, size=None, generator=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """Uniform random numbers in [0, 1) of the given size, from `generator` (default: the one `mt.manual_seed` seeds).

    >>> _ = mt.manual_seed(0)
    >>> x = mt.rand(2, 3)
    >>> x.shape, bool(((x >= 0) & (x < 1)).all())
    (minitorch.Size([2, 3]), True)
    """
    check_placement(device, layout, pin_memory)
    np_dtype = _float_dtype(dtype, "rand")
    return _new_leaf(_draw_float(random.generator(generator).random, _new_shape(sizes, size, "rand"), np_dtype), requires_grad)


def randn(*sizes, size=None, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    """Standard normal random numbers of the given size, from `generator` (default: the one `mt.manual_seed` seeds).

    >>> g = mt.Generator().manual_seed(1)
    >>> a = mt.randn(2, generator=g)
    >>> _ = g.manual_seed(1); bool((a == mt.randn(2, generator=g)).all())  # the same seed, the same numbers
    True
    """
    check_placement(device, layout, pin_memory)
    np_dtype = _float_dtype(dtype, "randn")
    return _new_leaf(_draw_float(random.generator(generator).standard_normal, _new_shape(sizes, size, "randn"), np_dtype),
                requires_grad)


def _integers(generator, low, high, shape, np_dtype):
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return random.generator(generator).integers(low, high, size=shape, dtype=np.int64).astype(np_dtype, copy=False)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
    """Random integers in [low, high) of the given size (int64); `randint(high, size)` starts at 0.

    >>> _ = mt.manual_seed(0)
    >>> x = mt.randint(0, 10, (2, 2))
    >>> x.shape, x.dtype, bool(((x >= 0) & (x < 10)).all()), mt.randint(3, (4,)).shape
    (minitorch.Size([2, 2]), minitorch.int64, True, minitorch.Size([4]))
    """
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    check_placement(device, layout, pin_memory)
    np_dtype = np.dtype(np.int64) if dtype is None else dtypes.to_numpy_dtype(dtype)
    return _new_leaf(_integers(generator, int(low), int(high), tuple(size), np_dtype), requires_grad)


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              pin_memory=False):
    """Uniform random numbers in [0, 1) with the shape and dtype of `input`.

    >>> mt.rand_like(mt.zeros(2, 2, dtype=mt.float64)).dtype
    minitorch.float64
    """
    return rand(*input.shape, generator=generator, dtype=_like_dtype(input, dtype), layout=layout, device=device,
                requires_grad=requires_grad, pin_memory=pin_memory)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               pin_memory=False):
    """Standard normal random numbers with the shape and dtype of `input`.

    >>> mt.randn_like(mt.zeros(4, 1)).shape
    minitorch.Size([4, 1])
    """
    return randn(*input.shape, generator=generator, dtype=_like_dtype(input, dtype), layout=layout, device=device,
                 requires_grad=requires_grad, pin_memory=pin_memory)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None, pin_memory=False):
    """Random integers in [low, high) with the shape and dtype of `input`; `randint_like(x, high)` starts at 0.

    >>> x = mt.randint_like(mt.zeros(3), 5)
    >>> x.dtype, bool(((x >= 0) & (x < 5)).all())
    (minitorch.float32, True)
    """
    if high is None:
        low, high = 0, low
    check_placement(device, layout, pin_memory)
    return _new_leaf(_integers(generator, int(low), int(high), input.shape, _like_dtype(input, dtype)), requires_grad)


def randperm(n, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A random permutation of 0..n-1 (int64), from `generator` (default: the one `mt.manual_seed` seeds).

    >>> _ = mt.manual_seed(0)
    >>> sorted(mt.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    check_placement(device, layout, pin_memory)
    np_dtype = np.int64 if dtype is None else dtypes.to_numpy_dtype(dtype)
    return _new_leaf(random.generator(generator).permutation(int(n)).astype(np_dtype), requires_grad)


# ----- new tensors like a given one (Tensor.new_zeros and friends: their dtype by default) -----

def new_tensor(self, data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data`, of this tensor's dtype unless `dtype` is given.

    >>> mt.zeros(2, dtype=mt.int32).new_tensor([1.5, 2.0])
    tensor([1, 2], dtype=minitorch.int32)
    """
    return tensor(data, dtype=self.dtype if dtype is None else dtype, device=device,
                           requires_grad=requires_grad, pin_memory=pin_memory)


def new_zeros(self, *sizes, size=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """Zeros of the given size, of this tensor's dtype unless `dtype` is given.

    >>> mt.zeros(1, dtype=mt.float64).new_zeros(2, 3).dtype
    minitorch.float64
    """
    return zeros(*sizes, size=size, dtype=dtype or self.dtype, layout=layout, device=device,
                          pin_memory=pin_memory, requires_grad=requires_grad)


def new_ones(self, *sizes, size=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """Ones of the given size, of this tensor's dtype unless `dtype` is given.

    >>> mt.tensor([1, 2]).new_ones((2, 2))
    tensor([[1, 1],
            [1, 1]])
    """
    return ones(*sizes, size=size, dtype=dtype or self.dtype, layout=layout, device=device,
                         pin_memory=pin_memory, requires_grad=requires_grad)


def new_empty(self, *sizes, size=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """A tensor of the given size, of this tensor's dtype (its values are zeros in minitorch).

    >>> mt.zeros(1).new_empty(3).shape
    minitorch.Size([3])
    """
    return empty(*sizes, size=size, dtype=dtype or self.dtype, layout=layout, device=device,
                          pin_memory=pin_memory, requires_grad=requires_grad)


def new_full(self, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """`fill_value` everywhere in the given size, of this tensor's dtype unless `dtype` is given.

    >>> mt.zeros(1).new_full((2,), 3)
    tensor([3., 3.])
    """
    return full(size, fill_value, dtype=dtype or self.dtype, layout=layout, device=device,
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
