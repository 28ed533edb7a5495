"""Parameter: a Tensor that a Module registers as one of its learnable weights.

It is an ordinary leaf tensor that requires grad, so the PyTorch door's tape
(and any GradientTape with watch_accessed_variables=True) watches it when an
op reads it, the way TensorFlow tapes watch trainable Variables. Assigning
one to a Module attribute registers it (module.py).
"""
import numpy as np

from ..tensor import Tensor, _next_id


class Parameter(Tensor):
    """A learnable tensor. Shares memory with `data` when `data` is a Tensor.

    >>> w = mt.nn.Parameter(mt.zeros(2))
    >>> w
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            array = np.empty(0, dtype=np.float32)
        elif isinstance(data, Tensor):
            array = data._data
        else:
            array = Tensor(data)._data
        self._data = array
        self._id = _next_id()
        self._requires_grad = False
        self.grad = None
        self._on_tape = False
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # A copy needs its own id: two tensors with one id would confuse the tapes.
        result = Parameter(Tensor._from_array(self._data.copy()), self._requires_grad)
        memo[id(self)] = result
        return result
