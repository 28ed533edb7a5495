"""The activation functions of nn.functional (F.elu, F.silu, F.hardtanh, ...) and their in-place twins.

Each is composed from existing ops (Exp, Log1p, Sigmoid, Tanh, SelectV2, ...),
so gradients of every order come from those ops. Piecewise functions pick
their pieces with `where` on PyTorch's own comparisons, so the derivative at
a kink is PyTorch's (hardtanh's is 0 at min_val and max_val, hardswish's is
0 at -3 and 1 at 3, threshold's is 0 at the threshold). A piece that may
overflow where it is not used (exp in ELU for large x) gets its input clamped
first, so no inf ever meets a zero gradient and turns into nan.

The in-place twins (`F.elu_`, `F.relu_`, ...) are made by the in-place
machinery (ops/in_place_ops.py `twin`): same object, same storage, version
bump, recorded on a stand-in when a tape watches the tensor.
"""
import math
import warnings

import numpy as np

from ... import random
from ...creation import from_numpy
from ...ops import (
    activation_ops, array_ops, coercion, comparison_ops, exponential_ops, reduction_ops, special_ops,
    trigonometric_ops,
)
from ...ops.activation_ops import hardshrink, prelu, sigmoid  # noqa: F401  (F.prelu is mt.prelu; Tensor methods too)
from ...ops.coercion import require_floating
from ...ops.in_place_ops import twin
from ...ops.in_place_twins import relu_  # F.relu_ is mt.relu_
from ...ops.trigonometric_ops import tanh  # noqa: F401  (F.tanh, as mt.tanh)
from ...ops.writes import accepts_out

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _in_place(fn, name, example):
    """The in-place twin `name` of `fn` (PyTorch's F.<name>), with its own example."""
    in_place = twin(fn, name)
    in_place.__doc__ = f"In-place version of `{fn.__name__}`: writes the result into `input` and returns it.\n\n{example}"
    return in_place


# ----- rectifiers -----

def relu(input, inplace=False):
    """max(x, 0), elementwise (in place with inplace=True). Runs the "Relu" op.

    >>> F.relu(mt.tensor([-1.0, 0.5]))
    tensor([0.0000, 0.5000])
    """
    return relu_(input) if inplace else activation_ops.relu(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x. Runs the "SelectV2" op.

    >>> F.leaky_relu(mt.tensor([-2.0, 3.0]), negative_slope=0.1)
    tensor([-0.2000, 3.0000])
    """
    if inplace:
        return leaky_relu_(input, negative_slope)
    require_floating(input, "leaky_relu")
    return comparison_ops.where(input > 0, input, input * negative_slope)


leaky_relu_ = _in_place(leaky_relu, "leaky_relu_", """>>> x = mt.tensor([-2.0, 3.0])
    >>> F.leaky_relu_(x, 0.5)
    tensor([-1., 3.])
    """)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val]; the derivative is 1 strictly inside, 0 elsewhere (as PyTorch).

    >>> F.hardtanh(mt.tensor([-2.0, 0.5, 3.0]))
    tensor([-1.0000, 0.5000, 1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return hardtanh_(input, min_val, max_val)
    if not input.is_floating_point():
        return coercion.cast(comparison_ops.clamp(input, min_val, max_val), input.dtype)
    return comparison_ops.where(input <= min_val, min_val, comparison_ops.where(input >= max_val, max_val, input))


hardtanh_ = _in_place(hardtanh, "hardtanh_", """>>> x = mt.tensor([-2.0, 0.5, 3.0])
    >>> F.hardtanh_(x, -1.0, 2.0)
    tensor([-1.0000, 0.5000, 2.0000])
    """)


def relu6(input, inplace=False):
    """min(max(x, 0), 6): hardtanh(x, 0, 6), as in PyTorch (derivative 0 at 0 and 6).

    >>> F.relu6(mt.tensor([-1.0, 3.0, 8.0]))
    tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value. Runs the "SelectV2" op.

    >>> F.threshold(mt.tensor([0.5, 1.0, 2.0]), 1.0, -5.0)
    tensor([-5., -5.,  2.])
    """
    if inplace:
        return threshold_(input, threshold, value)
    return comparison_ops.where(input > threshold, input, value)


threshold_ = _in_place(threshold, "threshold_", """>>> x = mt.tensor([0.5, 2.0])
    >>> F.threshold_(x, 1.0, 0.0)
    tensor([0., 2.])
    """)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, *, generator=None):
    """Randomized leaky ReLU: while training each x <= 0 is scaled by its own slope ~ U(lower, upper);
    otherwise the slope is (lower + upper) / 2. The slopes come from `generator` (default: the global one).

    >>> F.rrelu(mt.tensor([-4.0, 2.0]), 0.25, 0.75)
    tensor([-2.,  2.])
    """
    if inplace:
        return rrelu_(input, lower, upper, training, generator)
    require_floating(input, "rrelu")
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    slopes = random.generator(generator).uniform(lower, upper, input.shape).astype(np.asarray(input).dtype)
    return comparison_ops.where(input > 0, input, input * from_numpy(slopes))


def _rrelu_with_generator(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """rrelu in the arguments of PyTorch's F.rrelu_ (torch.rrelu_): a generator where F.rrelu has inplace."""
    return rrelu(input, lower, upper, training, generator=generator)


rrelu_ = _in_place(_rrelu_with_generator, "rrelu_", """>>> x = mt.tensor([-4.0, 2.0])
    >>> F.rrelu_(x, 0.25, 0.75)
    tensor([-2.,  2.])
    """)


# ----- exponential units -----

def _exponential_unit(input, alpha, scale, input_scale, name):
    """scale * x for x > 0, else alpha * scale * (exp(input_scale * x) - 1): PyTorch's elu kernel."""
    require_floating(input, name)
    negative_part = ((comparison_ops.clamp(input, max=0.0) * input_scale).exp() - 1.0) * (alpha * scale)
    return comparison_ops.where(input > 0, input * scale if scale != 1.0 else input, negative_part)


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, else alpha * (exp(x) - 1).

    >>> F.elu(mt.tensor([-1.0, 2.0]))
    tensor([-0.6321, 2.0000])
    """
    if inplace:
        return elu_(input, alpha)
    return _exponential_unit(input, alpha, 1.0, 1.0, "elu")


elu_ = _in_place(elu, "elu_", """>>> x = mt.tensor([-1.0, 2.0])
    >>> F.elu_(x, alpha=2.0)
    tensor([-1.2642, 2.0000])
    """)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    >>> F.celu(mt.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869, 2.0000])
    """
    if alpha == 0:
        raise ValueError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if inplace:
        return celu_(input, alpha)
    return _exponential_unit(input, alpha, 1.0, 1.0 / alpha, "celu")


celu_ = _in_place(celu, "celu_", """>>> x = mt.tensor([-1.0, 2.0])
    >>> F.celu_(x)
    tensor([-0.6321, 2.0000])
    """)


def selu(input, inplace=False):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1))), alpha = 1.6733, scale = 1.0507 (self-normalizing).

    >>> F.selu(mt.tensor([-1.0, 2.0]))
    tensor([-1.1113, 2.1014])
    """
    if inplace:
        return selu_(input)
    return _exponential_unit(input, SELU_ALPHA, SELU_SCALE, 1.0, "selu")


selu_ = _in_place(selu, "selu_", """>>> x = mt.tensor([-1.0, 2.0])
    >>> F.selu_(x)
    tensor([-1.1113, 2.1014])
    """)


# ----- smooth gates -----

def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (as PyTorch, for stability).

    >>> F.softplus(mt.tensor([-1.0, 0.0, 1.0]))
    tensor([0.3133, 0.6931, 1.3133])
    >>> F.softplus(mt.tensor([30.0]))
    tensor([30.])
    """
    require_floating(input, "softplus")
    scaled = input * beta if beta != 1.0 else input
    smooth = exponential_ops.log1p(comparison_ops.clamp(scaled, max=threshold).exp())
    if beta != 1.0:
        smooth = smooth / beta
    return comparison_ops.where(scaled > threshold, input, smooth)


def logsigmoid(input):
    """log(1 / (1 + exp(-x))), computed as min(x, 0) - log1p(exp(-|x|)) (no overflow either way).

    >>> F.logsigmoid(mt.tensor([-100.0, 0.0, 2.0]))
    tensor([-100.0000,   -0.6931,   -0.1269])
    """
    require_floating(input, "log_sigmoid")
    positive = input > 0
    # min(x, 0) and -|x| with one `where` each, so the derivative at 0 is sigmoid(-0) = 1/2.
    negative_abs = comparison_ops.where(positive, -input, input)
    return comparison_ops.where(positive, 0.0, input) - exponential_ops.log1p(negative_abs.exp())


def silu(input, inplace=False):
    """x * sigmoid(x) (the swish function).

    >>> F.silu(mt.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.2689, 0.0000, 1.7616])
    """
    if inplace:
        return _silu_(input)
    require_floating(input, "silu")
    return input * activation_ops.sigmoid(input)


def mish(input, inplace=False):
    """x * tanh(softplus(x)).

    >>> F.mish(mt.tensor([-1.0, 0.0, 2.0]))
    tensor([-0.3034, 0.0000, 1.9440])
    """
    if inplace:
        return _mish_(input)
    require_floating(input, "mish")
    return input * trigonometric_ops.tanh(softplus(input))


def hardsigmoid(input, inplace=False):
    """0 for x <= -3, 1 for x >= 3, else (x + 3) / 6 (derivative 1/6 strictly between, as PyTorch).

    >>> F.hardsigmoid(mt.tensor([-4.0, 0.0, 1.5, 4.0]))
    tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    if inplace:
        return _hardsigmoid_(input)
    require_floating(input, "hardsigmoid")
    return comparison_ops.where(input <= -3.0, 0.0, comparison_ops.where(input >= 3.0, 1.0, (input + 3.0) / 6.0))


def hardswish(input, inplace=False):
    """0 for x <= -3, x for x >= 3, else x (x + 3) / 6 (MobileNetV3's h-swish; derivative 0 at -3, 1 at 3).

    >>> F.hardswish(mt.tensor([-4.0, 0.0, 1.5, 4.0]))
    tensor([0.0000, 0.0000, 1.1250, 4.0000])
    """
    if inplace:
        return _hardswish_(input)
    require_floating(input, "hardswish")
    return comparison_ops.where(input <= -3.0, 0.0, comparison_ops.where(input < 3.0, input * (input + 3.0) / 6.0, input))


hardshrink = accepts_out(hardshrink)  # PyTorch's F.hardshrink is torch.hardshrink, which takes out=

# The modules' inplace=True for these four: PyTorch has them only as torch._C._nn.<name>_, not in F.
_silu_ = twin(silu, "silu_")
_mish_ = twin(mish, "mish_")
_hardsigmoid_ = twin(hardsigmoid, "hardsigmoid_")
_hardswish_ = twin(hardswish, "hardswish_")


def glu(input, dim=-1):
    """The gated linear unit a * sigmoid(b), where a and b are the two halves of `input` along `dim`.

    >>> F.glu(mt.tensor([[1.0, 2.0, 0.0, 100.0]]))
    tensor([[0.5000, 2.0000]])
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    require_floating(input, "glu")
    axis = dim % input.ndim if -input.ndim <= dim < input.ndim else None
    if axis is None:
        raise IndexError(f"glu: dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but got {dim})")
    size = input.shape[axis]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {size}")
    before = (slice(None),) * axis
    first, second = input[before + (slice(0, size // 2),)], input[before + (slice(size // 2, size),)]
    return first * activation_ops.sigmoid(second)


# ----- shrinkage -----

def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0.

    >>> F.softshrink(mt.tensor([-1.0, 0.3, 0.75]))
    tensor([-0.5000, 0.0000, 0.2500])
    """
    require_floating(input, "softshrink")
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be greater or equal to 0, but found to be {lambd}.")
    return comparison_ops.where(input > lambd, input - lambd, comparison_ops.where(input < -lambd, input + lambd, 0.0))


def softsign(input):
    """x / (1 + |x|).

    >>> F.softsign(mt.tensor([-3.0, 1.0]))
    tensor([-0.7500, 0.5000])
    """
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x).

    >>> F.tanhshrink(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
    """
    return input - trigonometric_ops.tanh(input)


# ----- softmax relatives -----

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(input, approximate="none"):
    """x * Phi(x): exactly with erf, or with PyTorch's tanh approximation (approximate='tanh'). Runs "Erf" (or "Tanh") and elementwise ops.

    >>> F.gelu(mt.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587, 0.0000, 0.8413])
    >>> F.gelu(mt.tensor([1.0]), approximate="tanh")
    tensor([0.8412])
    """
    if approximate == "none":
        return input * 0.5 * (1.0 + special_ops.erf(input * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (input + 0.044715 * input * input * input)
        return 0.5 * input * (1.0 + inner.tanh())
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


def _softmax_dim(name, ndim, stacklevel=3):
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`.

    >>> mt.nn.functional.softmax(mt.tensor([0.0, 0.0]), dim=0).tolist()
    [0.5, 0.5]
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim, _stacklevel)
    return reduction_ops.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along `dim`, computed stably.

    >>> round(mt.nn.functional.log_softmax(mt.tensor([0.0, 0.0]), dim=0)[0].item(), 4)
    -0.6931
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim, _stacklevel)
    return reduction_ops.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along `dim`.

    >>> F.softmin(mt.tensor([0.0, 1.0]), dim=0)
    tensor([0.7311, 0.2689])
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel)
    return reduction_ops.softmax(-input, dim, dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution: softmax((logits + g) / tau), g ~ Gumbel(0, 1).

    With hard=True the value is the one-hot of the sample's argmax and the
    gradient is the soft sample's (straight-through). The noise comes from
    the global generator.

    >>> sample = F.gumbel_softmax(mt.zeros(2, 5), tau=0.5, hard=True)
    >>> sample.sum(dim=-1)
    tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    dtype = np.asarray(logits).dtype
    gumbels = -np.log(random.generator().exponential(1.0, logits.shape)).astype(dtype)
    y_soft = reduction_ops.softmax((logits + from_numpy(gumbels)) / tau, dim)
    if not hard:
        return y_soft
    soft = np.asarray(y_soft)
    axis = dim % soft.ndim
    y_hard = np.zeros_like(soft)
    np.put_along_axis(y_hard, np.expand_dims(soft.argmax(axis=axis), axis), 1.0, axis=axis)
    return from_numpy(y_hard) - array_ops.stop_gradient(y_soft) + y_soft
