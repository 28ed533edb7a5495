"""Functions that make new tensors: tensor(), zeros(), arange(), randn(), ...

They take PyTorch's arguments and defaults (float32 for floating values,
int64 for integers). No op runs here, so nothing is recorded.
"""
import builtins

import numpy as np

from . import dtypes, random
from .tensor import Tensor


def tensor(data, dtype=None, requires_grad=False):
    """A new tensor holding a copy of `data`.

    >>> mt.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    return Tensor(data, dtype=dtype, requires_grad=requires_grad)


def as_tensor(data, dtype=None):
    if isinstance(data, Tensor) and dtype is None:
        return data
    return Tensor(data, dtype=dtype)


def from_numpy(array):
    """A tensor sharing memory with the numpy array (same dtype)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expected a numpy.ndarray, got {type(array).__name__}")
    dtypes.from_numpy_dtype(array.dtype)
    return Tensor._from_array(array)


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(n) for n in size)


def _make(array, requires_grad):
    t = Tensor._from_array(array)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _float_dtype(dtype):
    return dtypes.default_float.numpy if dtype is None else dtypes.to_numpy_dtype(dtype)


def zeros(*size, dtype=None, requires_grad=False):
    return _make(np.zeros(_shape(size), _float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    return _make(np.ones(_shape(size), _float_dtype(dtype)), requires_grad)


empty = zeros


def full(size, fill_value, dtype=None, requires_grad=False):
    if dtype is None:
        dtype = (
            np.bool_ if isinstance(fill_value, bool)
            else np.int64 if isinstance(fill_value, (int, np.integer))
            else dtypes.default_float.numpy
        )
    shape = (size,) if isinstance(size, int) else tuple(size)
    return _make(np.full(shape, fill_value, dtypes.to_numpy_dtype(dtype)), requires_grad)


def _like_dtype(t, dtype):
    return t._data.dtype if dtype is None else dtypes.to_numpy_dtype(dtype)


def zeros_like(t, dtype=None, requires_grad=False):
    return _make(np.zeros(t.shape, _like_dtype(t, dtype)), requires_grad)


def ones_like(t, dtype=None, requires_grad=False):
    return _make(np.ones(t.shape, _like_dtype(t, dtype)), requires_grad)


def full_like(t, fill_value, dtype=None, requires_grad=False):
    return _make(np.full(t.shape, fill_value, _like_dtype(t, dtype)), requires_grad)


empty_like = zeros_like


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    if dtype is None:
        integral = builtins.all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if integral else dtypes.default_float.numpy
    return _make(np.arange(start, end, step, dtype=dtypes.to_numpy_dtype(dtype)), requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    return _make(np.linspace(start, end, int(steps), dtype=_float_dtype(dtype)), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False):
    return _make(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    return _make(random.generator().random(_shape(size)).astype(_float_dtype(dtype)), requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    return _make(random.generator().standard_normal(_shape(size)).astype(_float_dtype(dtype)), requires_grad)


def randint(low, high=None, size=None, dtype=None):
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    dtype = np.int64 if dtype is None else dtypes.to_numpy_dtype(dtype)
    return Tensor._from_array(random.generator().integers(low, high, size=tuple(size)).astype(dtype))


def rand_like(t, dtype=None, requires_grad=False):
    return rand(*t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def randn_like(t, dtype=None, requires_grad=False):
    return randn(*t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def randperm(n, dtype=None):
    return Tensor._from_array(random.generator().permutation(n).astype(np.int64 if dtype is None else dtypes.to_numpy_dtype(dtype)))
