"""Weight initialisers, as torch.nn.init: in place, under no_grad, returning the tensor.

Gains and fans follow PyTorch exactly, so a layer's default initialisation
has the same distribution as its PyTorch twin's. Random draws come from the
global generator (mt.manual_seed), or from `generator=` where given.
"""
import math
import warnings

import numpy as np
from scipy import special

from .. import random
from ..engine.state import no_grad


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table).

    >>> mt.nn.init.calculate_gain("relu")
    1.4142135623730951
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """fan_in = in_channels * receptive field, fan_out = out_channels * receptive field."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for n in tensor.shape[2:]:
        receptive_field *= n
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills `tensor` in place with U(a, b) samples from `generator` (default: the global one); returns it.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.uniform_(mt.empty(3, 4), -0.1, 0.1)
    >>> w.shape, bool((w.abs() <= 0.1).all())
    (minitorch.Size([3, 4]), True)
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills `tensor` in place with N(mean, std^2) samples from `generator` (default: the global one); returns it.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.normal_(mt.empty(1000), mean=1.0, std=0.1)
    >>> round(w.mean().item(), 1)
    1.0
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    """Fills `tensor` with `val`, in place; returns it.

    >>> mt.nn.init.constant_(mt.empty(2), 0.5).tolist()
    [0.5, 0.5]
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills `tensor` with ones, in place; returns it.

    >>> mt.nn.init.ones_(mt.empty(2)).tolist()
    [1.0, 1.0]
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills `tensor` with zeros, in place; returns it.

    >>> mt.nn.init.zeros_(mt.ones(2)).tolist()
    [0.0, 0.0]
    """
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010), in place.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.xavier_uniform_(mt.empty(3, 5))       # a = sqrt(6 / 8)
    >>> bool((w.abs() <= 0.75 ** 0.5).all())
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)), in place.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.xavier_normal_(mt.empty(200, 300))    # std = sqrt(2 / 500)
    >>> round(w.std().item(), 2)
    0.06
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015).

    >>> w = mt.nn.init.kaiming_uniform_(mt.empty(64, 100), nonlinearity="relu")
    >>> bool(w.abs().max().item() <= (6 / 100) ** 0.5)
    True
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan) (He et al., 2015), in place.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.kaiming_normal_(mt.empty(100, 200), nonlinearity="relu")   # std = sqrt(2 / 200)
    >>> round(w.std().item(), 2)
    0.1
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def default_weight_and_bias_(weight, bias=None):
    """Linear's and Conv2d's default initialisation in PyTorch: W ~ kaiming_uniform(a=sqrt(5)),
    which is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and the bias from the same range.

    >>> w, b = mt.empty(3, 4), mt.empty(3)
    >>> _ = mt.nn.init.default_weight_and_bias_(w, b)
    >>> bool((w.abs() <= 0.5).all()) and bool((b.abs() <= 0.5).all())
    True
    """
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
    return weight


def _fill_(tensor, array):
    """Copies a numpy array into `tensor` in place (under no_grad); returns the tensor."""
    with no_grad():
        return tensor.copy_(array.astype(np.asarray(tensor).dtype, copy=False))


def eye_(tensor):
    """Fills the 2-D `tensor` with the identity matrix (ones on the diagonal), in place, as torch's.

    >>> mt.nn.init.eye_(mt.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill_(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """Fills a 3-, 4- or 5-D convolution weight with the Dirac delta: each of the first in_channels outputs
    (per group) copies its input channel, as torch's (a convolution that is the identity).

    >>> w = mt.nn.init.dirac_(mt.empty(2, 2, 3))
    >>> F.conv1d(mt.tensor([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]), w, padding=1)
    tensor([[[1., 2., 3.],
             [4., 5., 6.]]])
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    delta = np.zeros(sizes)
    center = tuple(k // 2 for k in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            delta[(g * per_group + d, d) + center] = 1
    return _fill_(tensor, delta)


def orthogonal_(tensor, gain=1, generator=None):
    """Fills `tensor` (2-D or more, flattened to rows x rest) with a (semi-)orthogonal matrix times `gain`,
    from the QR decomposition of a Gaussian matrix (Saxe et al., 2013), in place, as torch's.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.orthogonal_(mt.empty(3, 5))
    >>> bool(((w @ w.T - mt.eye(3)).abs() < 1e-6).all())
    True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = random.generator(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q *= np.sign(np.diag(r))  # makes the decomposition unique, so q is uniformly distributed
    if rows < cols:
        q = q.T
    return _fill_(tensor, (q * gain).reshape(tensor.shape))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills `tensor` with N(mean, std^2) samples truncated to [a, b] (inverse-CDF sampling, as torch's), in place.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.trunc_normal_(mt.empty(1000), std=0.02, a=-0.04, b=0.04)
    >>> bool((w.abs() <= 0.04).all()), round(w.std().item(), 2)
    (True, 0.02)
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    low, high = (special.ndtr((bound - mean) / std) for bound in (a, b))
    uniform = random.generator(generator).uniform(2 * low - 1, 2 * high - 1, tensor.shape)
    return _fill_(tensor, np.clip(special.erfinv(uniform) * std * math.sqrt(2.0) + mean, a, b))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills the 2-D `tensor` with N(0, std^2) values and zeroes ceil(sparsity * rows) random rows of each column
    (Martens, 2010), in place, as torch's.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.sparse_(mt.empty(4, 3), sparsity=0.5)
    >>> (w == 0).sum(dim=0).tolist()
    [2, 2, 2]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros_per_column = int(math.ceil(sparsity * rows))
    rng = random.generator(generator)
    values = rng.normal(0.0, std, (rows, cols))
    for column in range(cols):
        values[rng.permutation(rows)[:zeros_per_column], column] = 0
    return _fill_(tensor, values)
