"""Functions that make new tensors: tensor(), zeros(), arange(), randn(), ...

They take PyTorch's arguments and defaults (float32 for floating values,
int64 for integers). No op runs here, so nothing is recorded. `as_operand`
is the ops' own door: it turns the Python numbers and arrays handed to an
op into tensors.
"""
import builtins
import math

import numpy as np

from . import dtypes, random
from .engine.execute import execute
from .tensor import Tensor


def tensor(data, dtype=None, requires_grad=False):
    """A new tensor holding a copy of `data`.

    >>> mt.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    return Tensor(data, dtype=dtype, requires_grad=requires_grad)


def as_tensor(data, dtype=None):
    """`data` as a tensor: a tensor passes through unchanged (without a dtype), anything else is copied.

    >>> x = mt.tensor([1.0])
    >>> mt.as_tensor(x) is x
    True
    >>> mt.as_tensor([1, 2], dtype=mt.float64)
    tensor([1., 2.], dtype=minitorch.float64)
    """
    if isinstance(data, Tensor) and dtype is None:
        return data
    return Tensor(data, dtype=dtype)


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


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(n) for n in size)


def _new(array, requires_grad):
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _float_dtype(dtype):
    return dtypes.default_float.numpy if dtype is None else dtypes.to_numpy_dtype(dtype)


def zeros(*size, dtype=None, requires_grad=False):
    """A tensor of zeros of the given size (float32 by default); `mt.empty` is the same function.

    >>> mt.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
    >>> mt.zeros((2,), dtype=mt.int64)
    tensor([0, 0])
    """
    return _new(np.zeros(_shape(size), _float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    """A tensor of ones of the given size (float32 by default).

    >>> mt.ones(2, 2)
    tensor([[1., 1.],
            [1., 1.]])
    """
    return _new(np.ones(_shape(size), _float_dtype(dtype)), requires_grad)


empty = zeros


def full(size, fill_value, dtype=None, requires_grad=False):
    """A tensor of the given size filled with `fill_value` (its dtype follows the value, as PyTorch).

    >>> mt.full((2, 2), 7)
    tensor([[7, 7],
            [7, 7]])
    >>> mt.full(3, 0.5)
    tensor([0.5000, 0.5000, 0.5000])
    """
    if dtype is None:
        dtype = (
            np.bool_ if isinstance(fill_value, bool)
            else np.int64 if isinstance(fill_value, (int, np.integer))
            else dtypes.default_float.numpy
        )
    shape = (size,) if isinstance(size, int) else tuple(size)
    return _new(np.full(shape, fill_value, dtypes.to_numpy_dtype(dtype)), requires_grad)


def _like_dtype(t, dtype):
    return t._data.dtype if dtype is None else dtypes.to_numpy_dtype(dtype)


def zeros_like(t, dtype=None, requires_grad=False):
    """Zeros with the shape and dtype of `t`; `mt.empty_like` is the same function.

    >>> mt.zeros_like(mt.tensor([[1, 2]]))
    tensor([[0, 0]])
    """
    return _new(np.zeros(t.shape, _like_dtype(t, dtype)), requires_grad)


def ones_like(t, dtype=None, requires_grad=False):
    """Ones with the shape and dtype of `t`.

    >>> mt.ones_like(mt.tensor([1.0, 2.0, 3.0]))
    tensor([1., 1., 1.])
    """
    return _new(np.ones(t.shape, _like_dtype(t, dtype)), requires_grad)


def full_like(t, fill_value, dtype=None, requires_grad=False):
    """`fill_value` everywhere, with the shape and dtype of `t`.

    >>> mt.full_like(mt.zeros(2), 3.5)
    tensor([3.5000, 3.5000])
    """
    return _new(np.full(t.shape, fill_value, _like_dtype(t, dtype)), requires_grad)


empty_like = zeros_like


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    """Values from start (default 0) up to, not including, end, spaced by step (int64 for integer arguments).

    >>> mt.arange(4)
    tensor([0, 1, 2, 3])
    >>> mt.arange(0, 1, 0.25)
    tensor([0.0000, 0.2500, 0.5000, 0.7500])
    """
    if end is None:
        start, end = 0, start
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
    return _new(np.arange(start, end, step, dtype=dtypes.to_numpy_dtype(dtype)), requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    """`steps` evenly spaced values from start to end, both included.

    >>> mt.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    return _new(np.linspace(start, end, int(steps), dtype=_float_dtype(dtype)), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False):
    """A 2-D tensor with ones on the diagonal (n x n, or n x m).

    >>> mt.eye(2)
    tensor([[1., 0.],
            [0., 1.]])
    """
    return _new(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    """Uniform random numbers in [0, 1) of the given size, from the global generator (`mt.manual_seed`).

    >>> _ = mt.manual_seed(0)
    >>> x = mt.rand(2, 3)
    >>> x.shape, bool(((x >= 0) & (x < 1)).all())
    ((2, 3), True)
    """
    return _new(random.generator().random(_shape(size)).astype(_float_dtype(dtype)), requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    """Standard normal random numbers of the given size, from the global generator (`mt.manual_seed`).

    >>> _ = mt.manual_seed(0)
    >>> mt.randn(3).shape
    (3,)
    >>> _ = mt.manual_seed(1); a = mt.randn(2)
    >>> _ = mt.manual_seed(1); bool((a == mt.randn(2)).all())  # the same seed, the same numbers
    True
    """
    return _new(random.generator().standard_normal(_shape(size)).astype(_float_dtype(dtype)), requires_grad)


def randint(low, high=None, size=None, dtype=None):
    """Random integers in [low, high) of the given size (int64), from the global generator.

    >>> _ = mt.manual_seed(0)
    >>> x = mt.randint(0, 10, (2, 2))
    >>> x.shape, x.dtype, bool(((x >= 0) & (x < 10)).all())
    ((2, 2), minitorch.int64, True)
    """
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    dtype = np.int64 if dtype is None else dtypes.to_numpy_dtype(dtype)
    return Tensor._make(random.generator().integers(low, high, size=tuple(size)).astype(dtype))


def rand_like(t, dtype=None, requires_grad=False):
    """Uniform random numbers in [0, 1) with the shape and dtype of `t`.

    >>> mt.rand_like(mt.zeros(2, 2, dtype=mt.float64)).dtype
    minitorch.float64
    """
    return rand(*t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def randn_like(t, dtype=None, requires_grad=False):
    """Standard normal random numbers with the shape and dtype of `t`.

    >>> mt.randn_like(mt.zeros(4, 1)).shape
    (4, 1)
    """
    return randn(*t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def randperm(n, dtype=None):
    """A random permutation of 0..n-1 (int64), from the global generator.

    >>> _ = mt.manual_seed(0)
    >>> sorted(mt.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    return Tensor._make(random.generator().permutation(n).astype(np.int64 if dtype is None else dtypes.to_numpy_dtype(dtype)))


_scalar_cache = {}


def as_operand(value, like=None, dtype=None):
    """`value` as a Tensor an op can take. A Python number next to a tensor
    `like` takes that tensor's dtype when it is of the same or a lower
    category (PyTorch's 'wrapped numbers': `x * 2` stays float32); numpy
    arrays are wrapped without a copy; tensors pass through (cast to `dtype`)."""
    if isinstance(value, Tensor):
        if dtype is None or value._data.dtype == dtypes.to_numpy_dtype(dtype):
            return value
        return execute("Cast", (value,), {"dtype": dtypes.to_numpy_dtype(dtype)})
    if dtype is None and like is not None and isinstance(value, (int, float, bool)):
        ref = like._data.dtype
        kind = 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2
        np_dtype = ref if kind <= dtypes.category(ref) else (np.dtype(np.int64) if kind == 1 else dtypes.default_float.numpy)
        key = (type(value), value, np_dtype)
        t = _scalar_cache.get(key)
        if t is None:
            if len(_scalar_cache) > 4096:
                _scalar_cache.clear()
            t = _scalar_cache[key] = Tensor._make(np.array(value, dtype=np_dtype))
        return t
    if isinstance(value, np.ndarray) and dtype is None:
        return Tensor._make(value)
    return Tensor(value, dtype=dtype)
