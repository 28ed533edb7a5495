"""Activation layers, as in torch.nn: thin modules over the functions of nn.functional.

A module built with inplace=True writes its result into its input (F.relu_,
F.elu_, ...), as PyTorch's does.
"""
import warnings

from .. import creation
from . import functional as F, init
from .module import Module
from .parameter import Parameter


class ReLU(Module):
    """Applies max(x, 0) elementwise.

    >>> mt.nn.ReLU()(mt.tensor([-2.0, 3.0])).tolist()
    [0.0, 3.0]
    """
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """x where x > 0, else negative_slope * x, as a module.

    >>> mt.nn.LeakyReLU(0.1)(mt.tensor([-2.0, 3.0]))
    tensor([-0.2000, 3.0000])
    """
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """x * Phi(x), as a module; approximate='tanh' uses PyTorch's tanh formula.

    >>> mt.nn.GELU()(mt.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587, 0.0000, 0.8413])
    """

    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    """The logistic sigmoid, as a module. Runs the "Sigmoid" op.

    >>> mt.nn.Sigmoid()(mt.tensor([0.0]))
    tensor([0.5000])
    """
    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    """The hyperbolic tangent, as a module. Runs the "Tanh" op.

    >>> mt.nn.Tanh()(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """
    def forward(self, input):
        return F.tanh(input)


class Softmax(Module):
    """Applies softmax along `dim`.

    >>> mt.nn.Softmax(dim=1)(mt.zeros(1, 4)).tolist()
    [[0.25, 0.25, 0.25, 0.25]]
    """
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """log(softmax(x)) along `dim`, as a module. Runs the "LogSoftmax" op.

    >>> mt.nn.LogSoftmax(dim=1)(mt.zeros(1, 2))
    tensor([[-0.6931, -0.6931]])
    """
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


def _inplace_repr(inplace, first=False):
    if not inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class _InPlaceActivation(Module):
    """An activation with only the `inplace` setting: forward is `function(input, inplace)`."""

    function = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self).function(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, first=True)


class _Stateless(Module):
    """An activation without settings: forward is `function(input)`."""

    function = None

    def forward(self, input):
        return type(self).function(input)


class Threshold(Module):
    """x where x > threshold, else value.

    >>> mt.nn.Threshold(0.1, 20.0)(mt.tensor([0.0, 0.5]))
    tensor([20.0000, 0.5000])
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + _inplace_repr(self.inplace)


class RReLU(Module):
    """Randomized leaky ReLU: a random slope ~ U(lower, upper) per negative element while training,
    (lower + upper) / 2 in eval mode.

    >>> mt.nn.RReLU(0.1, 0.3).eval()(mt.tensor([-1.0, 1.0]))
    tensor([-0.2000, 1.0000])
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + _inplace_repr(self.inplace)


class Hardtanh(Module):
    """x clamped to [min_val, max_val].

    >>> mt.nn.Hardtanh(-2, 2)(mt.tensor([-3.0, 1.0, 3.0]))
    tensor([-2.,  1.,  2.])
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and renamed to `min_val`", FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and renamed to `max_val`", FutureWarning, stacklevel=2)
            max_val = max_value
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + _inplace_repr(self.inplace)


class ReLU6(Hardtanh):
    """min(max(x, 0), 6).

    >>> mt.nn.ReLU6()(mt.tensor([-1.0, 3.0, 8.0]))
    tensor([0., 3., 6.])
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, first=True)


class Hardsigmoid(_InPlaceActivation):
    """0 for x <= -3, 1 for x >= 3, else x / 6 + 1 / 2.

    >>> mt.nn.Hardsigmoid()(mt.tensor([-4.0, 0.0, 4.0]))
    tensor([0.0000, 0.5000, 1.0000])
    """

    function = F.hardsigmoid

    def extra_repr(self):
        return ""  # PyTorch's repr does not show inplace here


class Hardswish(_InPlaceActivation):
    """x * hardsigmoid(x) (MobileNetV3's h-swish).

    >>> mt.nn.Hardswish()(mt.tensor([-4.0, 1.5, 4.0]))
    tensor([0.0000, 1.1250, 4.0000])
    """

    function = F.hardswish

    def extra_repr(self):
        return ""  # PyTorch's repr does not show inplace here


class SiLU(_InPlaceActivation):
    """x * sigmoid(x).

    >>> mt.nn.SiLU()(mt.tensor([0.0, 2.0]))
    tensor([0.0000, 1.7616])
    """

    function = F.silu


class Mish(_InPlaceActivation):
    """x * tanh(softplus(x)).

    >>> mt.nn.Mish()(mt.tensor([0.0, 2.0]))
    tensor([0.0000, 1.9440])
    """

    function = F.mish


class SELU(_InPlaceActivation):
    """The scaled ELU, scale * elu(x, alpha) with alpha = 1.6733, scale = 1.0507.

    >>> mt.nn.SELU()(mt.tensor([-1.0, 2.0]))
    tensor([-1.1113, 2.1014])
    """

    function = F.selu


class ELU(Module):
    """x for x > 0, else alpha * (exp(x) - 1).

    >>> mt.nn.ELU(alpha=0.5)(mt.tensor([-1.0, 2.0]))
    tensor([-0.3161, 2.0000])
    """

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + _inplace_repr(self.inplace)


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> mt.nn.CELU(alpha=2.0)(mt.tensor([-1.0, 2.0]))
    tensor([-0.7869, 2.0000])
    """

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GLU(Module):
    """a * sigmoid(b), a and b the halves of the input along `dim`.

    >>> mt.nn.GLU()(mt.tensor([[1.0, 2.0, 0.0, 100.0]]))
    tensor([[0.5000, 2.0000]])
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Hardshrink(Module):
    """x where |x| > lambd, else 0.

    >>> mt.nn.Hardshrink()(mt.tensor([-1.0, 0.3]))
    tensor([-1.,  0.])
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """x - lambd above lambd, x + lambd below -lambd, else 0.

    >>> mt.nn.Softshrink(0.25)(mt.tensor([-1.0, 0.1, 1.0]))
    tensor([-0.7500, 0.0000, 0.7500])
    """

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class LogSigmoid(_Stateless):
    """log(sigmoid(x)), computed stably.

    >>> mt.nn.LogSigmoid()(mt.tensor([0.0]))
    tensor([-0.6931])
    """

    function = F.logsigmoid


class Softsign(_Stateless):
    """x / (1 + |x|).

    >>> mt.nn.Softsign()(mt.tensor([1.0]))
    tensor([0.5000])
    """

    function = F.softsign


class Tanhshrink(_Stateless):
    """x - tanh(x).

    >>> mt.nn.Tanhshrink()(mt.tensor([1.0]))
    tensor([0.2384])
    """

    function = F.tanhshrink


class Softplus(Module):
    """log(1 + exp(beta x)) / beta, linear above the threshold.

    >>> mt.nn.Softplus(beta=2.0)(mt.tensor([0.0]))
    tensor([0.3466])
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """x for x > 0, else a * x with a learned slope `a`: one for all channels, or one per channel (dimension 1).

    >>> prelu = mt.nn.PReLU(num_parameters=2)
    >>> prelu(mt.tensor([[-4.0, -4.0]]))
    tensor([[-1., -1.]], grad_fn=<SelectV2Backward0>)
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(creation.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softmin(Module):
    """softmax(-x) along `dim`.

    >>> mt.nn.Softmin(dim=0)(mt.tensor([0.0, 1.0]))
    tensor([0.7311, 0.2689])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels (dimension -3) of (N, C, H, W) or (C, H, W) inputs.

    >>> mt.nn.Softmax2d()(mt.zeros(1, 2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)
