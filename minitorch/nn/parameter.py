"""Parameter: a Tensor that a Module registers as one of its learnable weights.

It is an ordinary leaf tensor that requires grad, so the PyTorch door's tape
(and any GradientTape with watch_accessed_variables=True) watches it when an
op reads it, the way TensorFlow tapes watch trainable Variables. Assigning
one to a Module attribute registers it (module.py). The placeholders of lazy
modules (UninitializedParameter, UninitializedBuffer) and Buffer, the marker
that makes an attribute a buffer, live here too, as in PyTorch's
torch/nn/parameter.py.
"""
import numpy as np

from .. import creation
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


class Buffer(Tensor):
    """A tensor that becomes a buffer of the Module it is assigned to (torch.nn.Buffer); shares `data`'s memory.

    `persistent=False` keeps it out of the state_dict, as `register_buffer(..., persistent=False)` does.

    >>> class Running(mt.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.mean = mt.nn.Buffer(mt.zeros(2))
    ...         self.scratch = mt.nn.Buffer(mt.ones(1), persistent=False)
    >>> [name for name, _ in Running().named_buffers()], list(Running().state_dict())
    (['mean', 'scratch'], ['mean'])
    """

    __slots__ = ("persistent",)

    def __new__(cls, data=None, *, persistent=True):
        array = np.empty(0, dtype=np.float32) if data is None else np.asarray(
            data if isinstance(data, Tensor) else Tensor._from_data(data))
        buffer = cls._make(array)
        buffer.persistent = persistent
        if isinstance(data, Tensor) and data.requires_grad:
            buffer.requires_grad_()
        return buffer


class UninitializedTensorMixin:
    """(PyTorch's name) What the placeholders share: no shape until `materialize` gives one, then the real class."""

    __slots__ = ()
    cls_to_become = None

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes."
        )

    def materialize(self, shape, device=None, dtype=None):
        """Gives the placeholder `shape` (uninitialised values) and makes it a plain Parameter or Tensor, in place."""
        self.data = creation.empty(*shape, dtype=dtype if dtype is not None else self.dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __deepcopy__(self, memo):
        copy = type(self)(self.requires_grad, dtype=self.dtype)
        memo[id(self)] = copy
        return copy


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (lazy modules), as torch.nn.UninitializedParameter.

    >>> w = mt.nn.UninitializedParameter()
    >>> w
    <UninitializedParameter>
    >>> w.materialize((2, 3)); type(w).__name__, w.shape
    ('Parameter', minitorch.Size([2, 3]))
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, creation.empty(0, dtype=dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy modules), as torch.nn.UninitializedBuffer.

    >>> b = mt.nn.UninitializedBuffer()
    >>> b.materialize((3,)); b.shape
    minitorch.Size([3])
    """

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return Tensor.__new__(cls, creation.empty(0, dtype=dtype), requires_grad=requires_grad)


def is_lazy(tensor):
    """True for an UninitializedParameter or UninitializedBuffer.

    >>> is_lazy(mt.nn.UninitializedParameter()), is_lazy(mt.zeros(1))
    (True, False)
    """
    return isinstance(tensor, UninitializedTensorMixin)


def register_weight_and_bias(module, weight_shape, bias_shape, weight=True, bias=True, dtype=None):
    """Registers a layer's `weight` and `bias` Parameters, uninitialised (its reset_parameters fills them),
    or None for those it has not, under PyTorch's names.

    >>> norm = mt.nn.Module(); register_weight_and_bias(norm, (3,), (3,), bias=False)
    >>> norm.weight.shape, norm.bias
    (minitorch.Size([3]), None)
    """
    for name, shape, wanted in (("weight", weight_shape, weight), ("bias", bias_shape, bias)):
        if wanted:
            setattr(module, name, Parameter(creation.empty(*shape, dtype=dtype)))
        else:
            module.register_parameter(name, None)
