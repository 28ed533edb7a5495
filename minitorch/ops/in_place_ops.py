"""In-place updates: they write into a tensor's own array instead of making a new tensor.

No op runs and nothing is recorded, so they are refused while a tape would
need to see them (on a tensor that requires grad, outside `mt.no_grad()`):
what optimizers, initialisers and `x[i] = v` need.
"""
import numpy as np

from .. import random
from ..engine.state import thread_state
from ..errors import ShapeError
from ..tensor import Tensor
from .array_ops import normalize_index


def _check_in_place(t, op_name):
    if t._requires_grad and thread_state.recording:
        what = "a leaf Variable that requires grad" if t.is_leaf else "a Tensor that requires grad"
        raise RuntimeError(f"{op_name}: {what} is being used in an in-place operation (wrap it in mt.no_grad()).")


def setitem(self, index, value):
    """`x[index] = value`: writes into the data in place; allowed only where no tape would miss it.

    >>> x = mt.zeros(3)
    >>> x[1] = 5
    >>> x
    tensor([0., 5., 0.])
    """
    _check_in_place(self, "__setitem__")
    index, _ = normalize_index(self, index)
    self._data[index] = value._data if isinstance(value, Tensor) else value


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
    return add_(self, other, alpha=-alpha)


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
    return fill_(self, 0)


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
    return copy_(self, random.generator().uniform(a, b, self.shape))


def normal_(self, mean=0.0, std=1.0):
    """Fills this tensor in place with normal random numbers (mean, std) from the global generator.

    >>> _ = mt.manual_seed(0)
    >>> mt.empty(2, 3).normal_(0.0, 0.01).shape
    (2, 3)
    """
    return copy_(self, random.generator().normal(mean, std, self.shape))
