"""Padding layers, as torch.nn: zero, constant, reflection, replication and circular padding in 1-D and 2-D.

Each is F.pad with a fixed padding tuple (left, right[, top, bottom]) and mode;
an int pads every side by that much.
"""
from . import functional as F
from .module import Module


class _PadNd(Module):
    mode = "constant"
    sides = 2  # 2 for 1-D layers (left, right), 4 for 2-D ones (left, right, top, bottom)

    def __init__(self, padding):
        super().__init__()
        padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * self.sides
        if len(padding) != self.sides:
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple of {self.sides} ints, got {padding!r}")
        self.padding = padding

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with `value`, as torch.nn.ConstantPad1d.

    >>> mt.nn.ConstantPad1d((1, 2), 9.0)(mt.tensor([[1.0, 2.0]]))
    tensor([[9., 1., 2., 9., 9.]])
    """


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with `value`, as torch.nn.ConstantPad2d.

    >>> mt.nn.ConstantPad2d(1, 0.5)(mt.ones(1, 1, 1)).tolist()
    [[[0.5, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 0.5]]]
    """

    sides = 4


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros, as torch.nn.ZeroPad1d.

    >>> mt.nn.ZeroPad1d(1)
    ZeroPad1d((1, 1))
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros, as torch.nn.ZeroPad2d.

    >>> mt.nn.ZeroPad2d((1, 0, 0, 1))(mt.ones(1, 1, 1)).tolist()
    [[[0.0, 1.0], [0.0, 0.0]]]
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    mode = "reflect"


class _ReplicationPadNd(_PadNd):
    mode = "replicate"


class _CircularPadNd(_PadNd):
    mode = "circular"


class ReflectionPad1d(_ReflectionPadNd):
    """Pads the last dimension with its mirror image (the edge not repeated), as torch.nn.ReflectionPad1d.

    >>> mt.nn.ReflectionPad1d(2)(mt.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """


class ReflectionPad2d(_ReflectionPadNd):
    """Pads the last two dimensions with their mirror image, as torch.nn.ReflectionPad2d.

    >>> mt.nn.ReflectionPad2d(1)(mt.tensor([[[1.0, 2.0], [3.0, 4.0]]]))[0, 0].tolist()
    [4.0, 3.0, 4.0, 3.0]
    """

    sides = 4


class ReplicationPad1d(_ReplicationPadNd):
    """Pads the last dimension by repeating its edge values, as torch.nn.ReplicationPad1d.

    >>> mt.nn.ReplicationPad1d((2, 1))(mt.tensor([[1.0, 2.0]]))
    tensor([[1., 1., 1., 2., 2.]])
    """


class ReplicationPad2d(_ReplicationPadNd):
    """Pads the last two dimensions by repeating their edges, as torch.nn.ReplicationPad2d.

    >>> mt.nn.ReplicationPad2d(1)(mt.tensor([[[1.0, 2.0]]])).shape
    minitorch.Size([1, 3, 4])
    """

    sides = 4


class CircularPad1d(_CircularPadNd):
    """Pads the last dimension by wrapping around, as torch.nn.CircularPad1d.

    >>> mt.nn.CircularPad1d(1)(mt.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 1., 2., 3., 1.]])
    """


class CircularPad2d(_CircularPadNd):
    """Pads the last two dimensions by wrapping around, as torch.nn.CircularPad2d.

    >>> mt.nn.CircularPad2d(1)(mt.tensor([[[1.0, 2.0]]]))[0].tolist()
    [[2.0, 1.0, 2.0, 1.0], [2.0, 1.0, 2.0, 1.0], [2.0, 1.0, 2.0, 1.0]]
    """

    sides = 4
