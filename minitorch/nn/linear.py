"""Linear, Bilinear and Identity layers, as torch.nn.Linear / Bilinear / Identity.

Linear keeps PyTorch's weight layout (out_features, in_features) and its
default initialisation, so state_dicts map one to one onto a PyTorch twin.
"""
import math

from . import functional as F, init
from .module import Module
from .parameter import register_weight_and_bias


class Identity(Module):
    """Returns its input; accepts and ignores any constructor arguments.

    >>> mt.nn.Identity(54, unused="ignored")(mt.ones(2)).tolist()
    [1.0, 1.0]
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b.

    >>> layer = mt.nn.Linear(784, 256)
    >>> layer
    Linear(in_features=784, out_features=256, bias=True)
    >>> layer.weight.shape
    minitorch.Size([256, 784])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        register_weight_and_bias(self, (out_features, in_features), (out_features,), bias=bias, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: W ~ kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)), b likewise."""
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """y = x1^T A x2 + b, with weight A of shape (out_features, in1_features, in2_features), as torch.nn.Bilinear.

    >>> layer = mt.nn.Bilinear(2, 3, 4)
    >>> layer
    Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    >>> layer(mt.ones(5, 2), mt.ones(5, 3)).shape
    minitorch.Size([5, 4])
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        register_weight_and_bias(self, (out_features, in1_features, in2_features), (out_features,), bias=bias,
                                 dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default: weight and bias ~ U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
