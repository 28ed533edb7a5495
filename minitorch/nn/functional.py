"""nn.functional: the stateless form of every layer and loss (import as F).

Each function takes PyTorch's arguments and composes minitorch ops, or calls
a fused op (conv2d, pooling, batch_norm, softmax cross-entropy) where one
exists for speed and numerical stability. Layers in this package are thin
Modules over these functions. The losses live in loss_functions.py and are
re-exported here by name.
"""
import math
import warnings

import numpy as np

from .. import dtypes
from ..creation import from_numpy
from ..errors import ShapeError
from ..engine.state import no_grad
from ..ops import array_ops, batch_norm_ops, conv_ops, math_ops, pool_ops, reduction_ops, special_ops
from ..ops.writes import accepts_out
from ..tensor import Tensor
# ----- surface: convolution, pooling, padding, resampling, normalization (new modules re-exported here) -----
from ..ops.fold_ops import fold, unfold  # noqa: F401
from ..ops.pad_ops import pad  # noqa: F401
from .functional_conv import conv1d, conv_transpose1d, conv_transpose2d  # noqa: F401
from .functional_grid import affine_grid, grid_sample  # noqa: F401
from .functional_internals import (  # noqa: F401
    assert_int_or_pair, boolean_dispatch, handle_torch_function, has_torch_function, has_torch_function_unary,
    has_torch_function_variadic,
)
from .functional_linear import bilinear  # noqa: F401
from .functional_norm import group_norm, instance_norm, local_response_norm, normalize, rms_norm  # noqa: F401
from .functional_pool import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices, avg_pool1d, fractional_max_pool2d, fractional_max_pool2d_with_indices, lp_pool1d,
    lp_pool2d, max_pool1d, max_pool1d_with_indices, max_pool2d_with_indices, max_unpool1d, max_unpool2d,
)
from .functional_resample import (  # noqa: F401
    channel_shuffle, interpolate, pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear, upsample_nearest,
)

# ----- surface: activations, losses, attention, recurrent, distances (new modules re-exported here) -----
from .functional_activation import (  # noqa: F401
    celu, celu_, elu, elu_, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish, hardtanh, hardtanh_, leaky_relu,
    leaky_relu_, logsigmoid, mish, prelu, relu, relu6, relu_, rrelu, rrelu_, selu, selu_, silu, softmin, softplus,
    softshrink, softsign, tanhshrink, threshold, threshold_,
)
from .functional_dropout import alpha_dropout, dropout, dropout1d, dropout2d, feature_alpha_dropout  # noqa: F401
from .functional_distance import cosine_similarity, pairwise_distance, pdist  # noqa: F401
from .functional_embedding import embedding, embedding_bag  # noqa: F401
from .functional_attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from .functional_losses import (  # noqa: F401
    cosine_embedding_loss, ctc_loss, gaussian_nll_loss, hinge_embedding_loss, kl_div, linear_cross_entropy,
    margin_ranking_loss, multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss, poisson_nll_loss,
    soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
)

from .loss_functions import (  # noqa: F401  (F.cross_entropy and friends, as in PyTorch)
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, huber_loss, l1_loss, mse_loss, nll_loss,
    smooth_l1_loss,
)

hardshrink = accepts_out(hardshrink)  # PyTorch's F.hardshrink is torch.hardshrink, which takes out=


# ----- linear and convolution -----

def linear(input, weight, bias=None):
    """y = x W^T + b, with x of shape (*, in_features) and W of shape (out_features, in_features).

    >>> F = mt.nn.functional
    >>> F.linear(mt.ones(2, 3), mt.ones(4, 3), mt.zeros(4)).shape
    minitorch.Size([2, 4])
    """
    if input.ndim == 0 or weight.ndim != 2 or input.shape[-1] != weight.shape[1]:
        raise ShapeError(
            f"linear: input of shape {tuple(input.shape)} cannot be multiplied by weight of shape {tuple(weight.shape)}^T "
            f"(expected input of shape (*, {weight.shape[1] if weight.ndim == 2 else '?'}))"
        )
    output = math_ops.matmul(input, weight, transpose_b=True)
    return output if bias is None else output + bias


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of (N, C_in, H, W) with (C_out, C_in/groups, kH, kW).

    padding: an int, a pair, 'valid' or 'same' (stride 1), as PyTorch.

    >>> image, kernel = mt.ones(1, 1, 4, 4), mt.ones(1, 1, 3, 3)
    >>> mt.nn.functional.conv2d(image, kernel, padding=1)[0, 0].tolist()[0]
    [4.0, 6.0, 6.0, 4.0]
    """
    if weight.ndim == 4:  # PyTorch's checks of an empty weight (its other checks are conv_ops.conv2d's)
        if weight.shape[0] == 0:
            raise ShapeError(f"conv2d: expected weight to be at least 1 at dimension 0, but got weight of size {list(weight.shape)}")
        if 0 in weight.shape[2:]:
            raise ShapeError(
                f"conv2d: kernel size should be greater than zero, but got kernel_height: {weight.shape[2]} "
                f"kernel_width: {weight.shape[3]} (weight of size {list(weight.shape)})"
            )
    return conv_ops.conv2d(input, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over each kernel_size window of (N, C, H, W) inputs, as torch.nn.functional.max_pool2d.

    >>> x = mt.arange(16.0).reshape(1, 1, 4, 4)
    >>> mt.nn.functional.max_pool2d(x, 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    return pool_ops.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """The mean over each kernel_size window of (N, C, H, W) inputs, as torch.nn.functional.avg_pool2d. Runs the "AvgPool" op.

    >>> x = mt.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.avg_pool2d(x, 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """
    return pool_ops.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size (H_out, W_out), whatever the input size (as PyTorch's).

    >>> F.adaptive_avg_pool2d(mt.ones(1, 2, 5, 7), (2, 3)).shape
    minitorch.Size([1, 2, 2, 3])
    >>> F.adaptive_avg_pool2d(mt.arange(16.0).reshape(1, 1, 4, 4), 1)
    tensor([[[[7.5000]]]])
    """
    return pool_ops.adaptive_avg_pool2d(input, output_size)


# ----- normalization -----

def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalization over every dimension but 1 (the channels).

    Training uses the batch statistics (the fused batch-norm op, TensorFlow's
    "FusedBatchNormV3") and, when running statistics are given, updates them in
    place as PyTorch does: running = (1 - momentum) * running + momentum * batch
    (the variance unbiased). Otherwise the running statistics normalize.

    >>> x = mt.tensor([[1.0], [3.0]])
    >>> running_mean, running_var = mt.zeros(1), mt.ones(1)
    >>> F.batch_norm(x, running_mean, running_var, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    >>> running_mean, running_var
    (tensor([0.2000]), tensor([1.1000]))
    """
    if input.ndim < 2:
        raise ShapeError(f"batch_norm: expected an input with at least 2 dimensions (N, C, ...), got shape {tuple(input.shape)}")
    channels = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != (channels,):
            raise ShapeError(
                f"batch_norm: {name} should contain {channels} elements (one per channel of input {tuple(input.shape)}), "
                f"got shape {tuple(t.shape)}"
            )
    if training:
        values_per_channel = input.numel() // max(channels, 1)
        if values_per_channel <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {tuple(input.shape)}")
        return _batch_norm_training(input, running_mean, running_var, weight, bias, momentum, eps)
    if running_mean is None or running_var is None:
        raise ValueError("batch_norm: running_mean and running_var are needed when training=False")
    shape = (1, channels) + (1,) * (input.ndim - 2)
    output = (input - running_mean.reshape(shape)) / (running_var.reshape(shape) + eps).sqrt()
    if weight is not None:
        output = output * weight.reshape(shape)
    if bias is not None:
        output = output + bias.reshape(shape)
    return output


def _batch_norm_training(input, running_mean, running_var, weight, bias, momentum, eps):
    output, batch_mean, batch_var, _, _ = batch_norm_ops.fused_batch_norm(input, weight, bias, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(batch_mean, alpha=momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(batch_var, alpha=momentum)
    return output


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalizes over the last len(normalized_shape) dimensions (biased variance), then scales and shifts.

    >>> y = mt.nn.functional.layer_norm(mt.tensor([[1.0, 3.0]]), (2,))
    >>> [round(v, 3) for v in y[0].tolist()]
    [-1.0, 1.0]
    """
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise ShapeError(
            f"layer_norm: given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size {list(input.shape)}"
        )
    dims = tuple(range(input.ndim - k, input.ndim))
    mean = input.mean(dim=dims, keepdim=True)
    centered = input - mean
    variance = (centered * centered).mean(dim=dims, keepdim=True)
    output = centered / (variance + eps).sqrt()
    if weight is not None:
        output = output * weight
    if bias is not None:
        output = output + bias
    return output


# ----- activations -----

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


def sigmoid(input):
    """The logistic sigmoid 1 / (1 + e^-x), elementwise. Runs the "Sigmoid" op.

    >>> F.sigmoid(mt.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """
    return math_ops.sigmoid(input)


def tanh(input):
    """The hyperbolic tangent, elementwise. Runs the "Tanh" op.

    >>> F.tanh(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """
    return math_ops.tanh(input)


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


# ----- embeddings and encodings -----

def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with a new last dimension of size num_classes (max + 1 if -1).

    >>> mt.nn.functional.one_hot(mt.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    values = np.asarray(tensor)
    if values.dtype.kind not in "iu":
        raise RuntimeError(f"one_hot is only applicable to index tensor of integer dtype, got {tensor.dtype}")
    if num_classes == -1:
        num_classes = int(values.max()) + 1 if values.size else 0
    if values.size and (values.min() < 0 or values.max() >= num_classes):
        raise RuntimeError(f"one_hot: class values must be in [0, {num_classes}), got values in [{values.min()}, {values.max()}]")
    classes = from_numpy(np.arange(num_classes, dtype=values.dtype))
    return math_ops.cast(tensor.unsqueeze(-1) == classes, dtypes.int64)


def flatten(input, start_dim=0, end_dim=-1):
    """Dimensions start_dim..end_dim merged into one (as torch.flatten). Runs the "Reshape" op.

    >>> F.flatten(mt.zeros(2, 3, 4), start_dim=1).shape
    minitorch.Size([2, 12])
    """
    return array_ops.flatten(input, start_dim, end_dim)

