"""Parameter: a Tensor that a Module registers as one of its learnable weights.

It is an ordinary leaf tensor that requires grad, so the PyTorch door's tape
(and any GradientTape with watch_accessed_variables=True) watches it when an
op reads it, the way TensorFlow tapes watch trainable Variables. Assigning
one to a Module attribute registers it (module.py).
"""
import numpy as np

from ..tensor import Tensor


class Parameter(Tensor):
    """A learnable tensor. Shares memory with `data` when `data` is a Tensor.

    >>> w = mt.nn.Parameter(mt.zeros(2))
    >>> w
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            array = np.empty(0, dtype=np.float32)
        else:
            array = np.asarray(data if isinstance(data, Tensor) else Tensor._from_data(data))
        param = cls._make(array)
        if requires_grad:
            param.requires_grad_(True)
        return param

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # A copy needs its own id: two tensors with one id would confuse the tapes.
        result = Parameter(self.detach().clone(), self._requires_grad)
        memo[id(self)] = result
        return result
