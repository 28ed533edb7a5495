"""Normalization functions, as torch.nn.functional: batch_norm, layer_norm, group_norm, instance_norm,
rms_norm, normalize and local_response_norm.

batch_norm runs the fused batch-norm op ("FusedBatchNormV3", ops/batch_norm_ops.py) while training,
and elementwise ops on the running statistics otherwise; layer_norm is a composition of reductions.

group_norm and instance_norm are batch normalization of a reshaped input,
as PyTorch first wrote them: (N, C, *) seen as (1, N G, C / G *) (a group
per channel) or (1, N C, *) (an instance per channel), normalized by the
fused "FusedBatchNorm" op with its fused gradient; the per-channel affine
follows. rms_norm, normalize and local_response_norm are compositions of
elementwise ops and reductions (local_response_norm PyTorch's own:
squares averaged over neighbouring channels by avg_pool2d).
"""
import numpy as np

from ...engine.state import no_grad
from ...errors import ShapeError
from ...ops import batch_norm_ops, comparison_ops, pool_ops
from ...ops.norm_ops import vector_norm
from ...ops.pad_ops import zero_pad
from ...ops.writes import write_out


def _affine(output, weight, bias):
    """Per-channel scale and shift of (N, C, *)."""
    shape = (1, output.shape[1]) + (1,) * (output.ndim - 2)
    if weight is not None:
        output = output * weight.reshape(shape)
    if bias is not None:
        output = output + bias.reshape(shape)
    return output


def _check_channels(op_name, input, **per_channel):
    for name, t in per_channel.items():
        if t is not None and tuple(t.shape) != (input.shape[1],):
            raise ShapeError(f"{op_name}: {name} should have {input.shape[1]} elements (one per channel of input "
                             f"{tuple(input.shape)}), got shape {tuple(t.shape)}")


def _normalize_rows(rows, eps):
    """(1, R, L) rows each normalized to mean 0 and variance 1 (biased); returns (y, means, unbiased variances)."""
    if rows.shape[2] > 1:
        y, mean, var, _, _ = batch_norm_ops.fused_batch_norm(rows, None, None, eps)
        return y, mean, var
    return rows - rows, rows.reshape(-1), None  # one value per row: it is its own mean


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


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalizes each group of C / num_groups channels of each sample over its channels and positions, as torch's.

    >>> x = mt.tensor([[[1.0], [3.0], [10.0], [30.0]]])   # (N=1, C=4, L=1), two groups of two channels
    >>> F.group_norm(x, 2)
    tensor([[[-1.0000],
             [ 1.0000],
             [-1.0000],
             [ 1.0000]]])
    """
    if input.ndim < 2:
        raise ShapeError(f"group_norm: expected an input of shape (N, C, *), got {tuple(input.shape)}")
    n, c = input.shape[:2]
    if num_groups <= 0 or c % num_groups:
        raise ShapeError(f"group_norm: expected number of channels in input to be divisible by num_groups, "
                         f"but got input of shape {list(input.shape)} and num_groups={num_groups}")
    _check_channels("group_norm", input, weight=weight, bias=bias)
    if input.numel() // num_groups == 1:  # PyTorch's _verify_batch_size on the (N C / G, G, *) view
        raise ValueError(f"group_norm: expected more than 1 value per channel when training, got input size {list(input.shape)}")
    rows = input.reshape(1, n * num_groups, -1)
    y, _, _ = _normalize_rows(rows, eps)
    return _affine(y.reshape(input.shape), weight, bias)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1,
                  eps=1e-5):
    """Normalizes each channel of each sample over its positions, as torch.nn.functional.instance_norm.

    With running statistics and use_input_stats, they move towards the batch's
    (averaged over samples, the variance unbiased) by `momentum`, in place.

    >>> F.instance_norm(mt.tensor([[[1.0, 3.0], [10.0, 30.0]]]))
    tensor([[[-1.0000, 1.0000],
             [-1.0000, 1.0000]]])
    """
    if input.ndim < 3:
        raise ShapeError(f"instance_norm: expected an input of shape (N, C, L, ...), got {tuple(input.shape)}")
    _check_channels("instance_norm", input, running_mean=running_mean, running_var=running_var, weight=weight, bias=bias)
    n, c = input.shape[:2]
    shape = (1, c) + (1,) * (input.ndim - 2)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: expected running_mean and running_var to be defined when use_input_stats is false")
        return _affine((input - running_mean.reshape(shape)) / (running_var.reshape(shape) + eps).sqrt(), weight, bias)
    if input.numel() // max(n * c, 1) <= 1:
        raise ValueError(f"instance_norm: expected more than 1 spatial element when training, got input size {tuple(input.shape)}")
    y, mean, var = _normalize_rows(input.reshape(1, n * c, -1), eps)
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.reshape(n, c).mean(dim=0), alpha=momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var.reshape(n, c).mean(dim=0), alpha=momentum)
    return _affine(y.reshape(input.shape), weight, bias)


def _normalized_dims(op_name, input, normalized_shape):
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise ShapeError(f"{op_name}: given normalized_shape={list(normalized_shape)}, expected input with shape "
                         f"[*, {', '.join(map(str, normalized_shape))}], but got input of size {list(input.shape)}")
    return tuple(range(input.ndim - k, input.ndim))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) over the last dimensions, then scaled by weight, as torch's.

    eps defaults to the machine epsilon of the input's dtype.

    >>> F.rms_norm(mt.tensor([[3.0, 4.0]]), (2,))
    tensor([[0.8485, 1.1314]])
    """
    dims = _normalized_dims("rms_norm", input, normalized_shape)
    if eps is None:
        eps = float(np.finfo(np.asarray(input).dtype).eps)
    output = input / ((input * input).mean(dim=dims, keepdim=True) + eps).sqrt()
    return output if weight is None else output * weight


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """x / max(||x||_p, eps) along `dim`, as torch.nn.functional.normalize (the norm is the "VectorNorm" op:
    its gradient is 0 where it is 0, as PyTorch's).

    >>> F.normalize(mt.tensor([[3.0, 4.0], [0.0, 0.0]]))
    tensor([[0.6000, 0.8000],
            [0.0000, 0.0000]])
    """
    if not input.is_floating_point():
        raise TypeError(f"normalize: expected a floating-point input, got {input.dtype}")
    result = input / comparison_ops.clamp(vector_norm(input, p, dim, keepdim=True), min=eps)
    return result if out is None else write_out("normalize", result, out)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta, as torch's.

    >>> F.local_response_norm(mt.tensor([[[1.0], [2.0]]]), size=2, alpha=1.0, beta=1.0, k=1.0)
    tensor([[[0.6667],
             [0.5714]]])
    """
    if input.ndim < 3:
        raise ValueError(f"local_response_norm: expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    squares = (input * input).reshape(n, 1, c, -1)  # channels as a height the window slides over
    squares = zero_pad(squares, [(0, 0), (0, 0), (size // 2, (size - 1) // 2), (0, 0)])
    mean = pool_ops.avg_pool2d(squares, (size, 1), stride=1).reshape(input.shape)
    return input / (mean * alpha + k) ** beta
