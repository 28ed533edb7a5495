"""Weight initialisers, as torch.nn.init: in place, under no_grad, returning the tensor.

Gains and fans follow PyTorch exactly, so a layer's default initialisation
has the same distribution as its PyTorch twin's. Random draws come from the
global generator (mt.manual_seed).
"""
import math
import warnings

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


def uniform_(tensor, a=0.0, b=1.0):
    """Fills `tensor` in place with U(a, b) samples from the global generator; returns it.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.uniform_(mt.empty(3, 4), -0.1, 0.1)
    >>> w.shape, bool((w.abs() <= 0.1).all())
    (minitorch.Size([3, 4]), True)
    """
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    """Fills `tensor` in place with N(mean, std^2) samples from the global generator; returns it.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.normal_(mt.empty(1000), mean=1.0, std=0.1)
    >>> round(w.mean().item(), 1)
    1.0
    """
    with no_grad():
        return tensor.normal_(mean, std)


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


def xavier_uniform_(tensor, gain=1.0):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010), in place.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.xavier_uniform_(mt.empty(3, 5))       # a = sqrt(6 / 8)
    >>> bool((w.abs() <= 0.75 ** 0.5).all())
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)), in place.

    >>> _ = mt.manual_seed(0)
    >>> w = mt.nn.init.xavier_normal_(mt.empty(200, 300))    # std = sqrt(2 / 500)
    >>> round(w.std().item(), 2)
    0.06
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
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
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
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
    return normal_(tensor, 0.0, std)


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
