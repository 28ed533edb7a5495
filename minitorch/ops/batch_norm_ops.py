"""Training-mode batch normalisation: the FusedBatchNorm op, its gradient,
and `fused_batch_norm`.

TensorFlow's FusedBatchNorm (nn_grad.py _FusedBatchNormGrad) on PyTorch's
layout: x is (N, C, *), statistics are per channel C over every other axis.
One forward pass returns five outputs:
  y, batch_mean, batch_var (unbiased, what PyTorch puts in running_var),
  saved_mean, saved_inv_std = 1 / sqrt(biased_var + eps).
The gradient reuses saved_mean and saved_inv_std instead of recomputing
them, and is written with minitorch ops, so it is differentiable again
(second-order terms reach x through those saved outputs, whose gradients
this function also handles). Gradients of the four statistics outputs are
usually unused and may arrive as None.

While a tape records the backward pass (create_graph, nested tapes), the
gradient recomputes mean and inv_std from x with minitorch ops instead of
reading the saved outputs: the engine forgets how a saved output was made
once the user drops it (saved_mean/saved_inv_std usually are dropped at
once), and a copy the tapes cannot link would make second derivatives wrong.
"""
import numpy as np

from ..autograd.execute import ShapeError, execute
from ..autograd.tape_set import is_recording
from .registry import gradient, kernel


def _channel_axes(ndim):
    return (0, *range(2, ndim))


def _per_channel(ndim, channels):
    """Shape that broadcasts a (C,) vector against (N, C, *)."""
    return (1, channels) + (1,) * (ndim - 2)


@kernel("FusedBatchNorm")
def _fused_batch_norm(x, scale, offset, eps):
    axes, shape = _channel_axes(x.ndim), _per_channel(x.ndim, x.shape[1])
    count = x.size // x.shape[1]
    mean = x.mean(axis=axes)
    centered = x - mean.reshape(shape)
    var = np.square(centered).mean(axis=axes)
    inv_std = (1 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
    y = centered * (inv_std * scale).reshape(shape) + offset.reshape(shape)
    return y, mean, var * (count / (count - 1)), mean.copy(), inv_std


@gradient("FusedBatchNorm", needs="both", accepts_none=(1, 2, 3, 4))
def _fused_batch_norm_grad(op, grad_y, grad_mean, grad_var, grad_saved_mean, grad_inv_std):
    """With x_hat = (x - mean) inv_std and m values per channel:
    doffset = sum(dy), dscale = sum(dy x_hat),
    dx = scale inv_std / m (m dy - doffset - x_hat dscale)
         + (dmean + dsaved_mean) / m + dvar 2 (x - mean) / (m - 1) - dinv_std inv_std^3 (x - mean) / m."""
    x, scale, _ = op.inputs
    need_x, need_scale, need_offset = op.needs_input_grad
    axes, shape = _channel_axes(x.ndim), _per_channel(x.ndim, x.shape[1])
    count = x.numel() // x.shape[1]
    if is_recording():
        mean = x.mean(dim=axes)
        inv_std = ((x - mean.reshape(shape)).square().mean(dim=axes) + op.attrs["eps"]) ** -0.5
    else:
        mean, inv_std = op.outputs[3:]
    centered = x - mean.reshape(shape)
    x_hat = centered * inv_std.reshape(shape)
    d_offset = grad_y.sum(dim=axes)
    d_scale = (grad_y * x_hat).sum(dim=axes)
    d_x = None
    if need_x:
        d_x = (scale * inv_std).reshape(shape) * (
            grad_y - d_offset.reshape(shape) / count - x_hat * d_scale.reshape(shape) / count
        )
        mean_grads = [g for g in (grad_mean, grad_saved_mean) if g is not None]
        if mean_grads:
            d_x = d_x + (mean_grads[0] if len(mean_grads) == 1 else mean_grads[0] + mean_grads[1]).reshape(shape) / count
        if grad_var is not None:
            d_x = d_x + grad_var.reshape(shape) * centered * (2 / (count - 1))
        if grad_inv_std is not None:
            d_x = d_x - (grad_inv_std * inv_std * inv_std * inv_std).reshape(shape) * centered / count
    return d_x, (d_scale if need_scale else None), (d_offset if need_offset else None)


def fused_batch_norm(x, scale, offset, eps=1e-5):
    """Training-mode batch norm over (N, C, *) with per-channel scale and offset.

    Returns (y, batch_mean, batch_var_unbiased, saved_mean, saved_inv_std).
    scale/offset may be None (no affine transform: ones and zeros).

    >>> y, mean, var, _, _ = fused_batch_norm(mt.randn(8, 3, 4, 4), mt.ones(3), mt.zeros(3))
    """
    op_name = "FusedBatchNorm"
    if x.ndim < 2:
        raise ShapeError(f"{op_name}: expected an input of shape (N, C, *), got shape {tuple(x.shape)}")
    if not x.is_floating_point():
        raise TypeError(f"{op_name}: expected a floating-point input, got {x.dtype}")
    channels = x.shape[1]
    if x.numel() // max(channels, 1) <= 1:
        raise ValueError(f"{op_name}: expected more than 1 value per channel when training, got input of shape {tuple(x.shape)}")
    dtype = x._data.dtype
    scale = full((channels,), 1.0, dtype=x.dtype) if scale is None else scale
    offset = full((channels,), 0.0, dtype=x.dtype) if offset is None else offset
    for name, param in (("scale", scale), ("offset", offset)):
        if tuple(param.shape) != (channels,):
            raise ShapeError(f"{op_name}: {name} of shape {tuple(param.shape)} must be ({channels},) for input of shape {tuple(x.shape)}")
    scale = scale if scale._data.dtype == dtype else cast(scale, dtype)
    offset = offset if offset._data.dtype == dtype else cast(offset, dtype)
    return execute(op_name, (x, scale, offset), {"eps": float(eps)})


from ..creation import full  # noqa: E402
from .math_ops import cast  # noqa: E402
