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
usually unused and may arrive as None. The saved statistics keep their
link to the op on a tape that records the backward pass, even once the
user drops them (tape.py). A plain first-order backward runs the single
"FusedBatchNormGrad" kernel; a recorded one, the composed formula.
"""
import numpy as np

from ..creation import full
from ..engine.backprop import vjp_of
from ..engine.execute import execute
from ..engine.state import is_recording
from ..errors import ShapeError
from ..tensor import Tensor
from .coercion import cast
from .conv_ops import is_channels_last
from .rows import TRANSPOSE, op


def _channel_axes(ndim):
    return (0, *range(2, ndim))


def _per_channel(ndim, channels):
    """Shape that broadcasts a (C,) vector against (N, C, *)."""
    return (1, channels) + (1,) * (ndim - 2)


class _ChannelLayout:
    """x (N, C, *) as a 2-D or 3-D array whose per-channel sums and broadcasts are fast, in x's memory layout.

    Channels-last (N, C, H, W) -- what the convolutions write -- is seen as (N H, W C) rows:
    a per-channel vector repeats W times along a row, and the row sums are one GEMV.
    Anything else is seen as (N, C, L) planes, each channel's values of a sample one contiguous run.
    Long rows keep numpy's inner loops long; a (N H W, C) view would broadcast over runs of C.
    """

    def __init__(self, x):
        self.shape, self.channels = x.shape, x.shape[1]
        self.count = x.size // x.shape[1]
        self.channels_last = is_channels_last(x)

    def view(self, a):
        """`a` (shaped like x) in this layout: a view when it has x's memory layout, else a copy."""
        if self.channels_last:
            n, c, h, w = self.shape
            return np.ascontiguousarray(a.transpose(0, 2, 3, 1)).reshape(n * h, w * c)
        return a.reshape(self.shape[0], self.channels, -1)

    def restore(self, a):
        """The inverse of view: back to x's shape."""
        if self.channels_last:
            n, c, h, w = self.shape
            return a.reshape(n, h, w, c).transpose(0, 3, 1, 2)
        return a.reshape(self.shape)

    def broadcast(self, vector):
        """A (C,) vector shaped to broadcast against viewed arrays."""
        if self.channels_last:
            return np.tile(vector, self.shape[3])
        return vector.reshape(1, self.channels, 1)

    def sum(self, a):
        """Per-channel sum of a viewed array, in one pass."""
        if self.channels_last:
            return (np.ones(a.shape[0], dtype=a.dtype) @ a).reshape(-1, self.channels).sum(axis=0)
        return np.einsum("ncl->c", a)

    def dot(self, a, b):
        """Per-channel sum of a * b over viewed arrays, without the product array."""
        if self.channels_last:
            return np.einsum("mk,mk->k", a, b).reshape(-1, self.channels).sum(axis=0)
        return np.einsum("ncl,ncl->nc", a, b).sum(axis=0)


def _fused_batch_norm(x, scale, offset, eps, statistics=None):
    layout = _ChannelLayout(x)
    count = layout.count
    data = layout.view(x)
    mean = layout.sum(data) / count
    y = data - layout.broadcast(mean)  # centered, then scaled and shifted in place
    var = layout.dot(y, y) / count
    inv_std = (1 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
    y *= layout.broadcast(inv_std * scale)
    y += layout.broadcast(offset)
    return layout.restore(y), mean, var * (count / (count - 1)), mean.copy(), inv_std


def _fused_batch_norm_grad(op, grad_y, grad_mean, grad_var, grad_saved_mean, grad_inv_std):
    """With x_hat = (x - mean) inv_std and m values per channel:
    doffset = sum(dy), dscale = sum(dy x_hat),
    dx = scale inv_std / m (m dy - doffset - x_hat dscale)
         + (dmean + dsaved_mean) / m + dvar 2 (x - mean) / (m - 1) - dinv_std inv_std^3 (x - mean) / m.

    The usual case (only dy, nothing recording the backward pass) runs the fused
    FusedBatchNormGrad kernel on the saved statistics; otherwise the formula is
    written with minitorch ops so that it is differentiable again.

    The gradient does not keep y: the batch statistics it needs ride in the op's attrs (see
    fused_batch_norm), so an in-place activation on y (BatchNorm then ReLU(inplace=True), as in ResNet
    and DCGAN) leaves the gradient valid, as PyTorch's, whose batch norm backward keeps x and the
    statistics, not y."""
    x, scale, _ = op.inputs
    need_x, need_scale, need_offset = op.needs_input_grad
    statistics_grads = (grad_mean, grad_var, grad_saved_mean, grad_inv_std)
    statistics = op.attrs.get("statistics")  # set once the forward returned (a forward-mode pass comes before)
    if statistics is not None and not is_recording() and all(g is None for g in statistics_grads):
        mean, inv_std = (Tensor._make(value) for value in statistics)
        d_x, d_scale, d_offset = execute("FusedBatchNormGrad", (grad_y, x, scale, mean, inv_std))
        return (d_x if need_x else None), (d_scale if need_scale else None), (d_offset if need_offset else None)
    axes, shape = _channel_axes(x.ndim), _per_channel(x.ndim, x.shape[1])
    count = x.numel() // x.shape[1]
    mean, inv_std = _statistics(x, op.attrs["eps"])  # recomputed with ops: second order sees through them
    d_x, d_scale, d_offset = _batch_norm_backward(grad_y, x, scale, mean, inv_std)
    if need_x:
        centered = x - mean.reshape(shape)
        mean_grads = [g for g in (grad_mean, grad_saved_mean) if g is not None]
        if mean_grads:
            d_x = d_x + (mean_grads[0] if len(mean_grads) == 1 else mean_grads[0] + mean_grads[1]).reshape(shape) / count
        if grad_var is not None:
            d_x = d_x + grad_var.reshape(shape) * centered * (2 / (count - 1))
        if grad_inv_std is not None:
            d_x = d_x - (grad_inv_std * inv_std * inv_std * inv_std).reshape(shape) * centered / count
    return (d_x if need_x else None), (d_scale if need_scale else None), (d_offset if need_offset else None)


op("FusedBatchNorm", _fused_batch_norm, _fused_batch_norm_grad, needs="inputs", accepts_none=(1, 2, 3, 4), jvp=TRANSPOSE)


def _statistics(x, eps):
    """(mean, inv_std) per channel of x, with minitorch ops (differentiable), as the kernel computes them."""
    axes = _channel_axes(x.ndim)
    mean = x.mean(dim=axes)
    centered = x - mean.reshape(_per_channel(x.ndim, x.shape[1]))
    return mean, 1 / ((centered * centered).mean(dim=axes) + eps).sqrt()


def _batch_norm_backward(grad_y, x, scale, mean, inv_std):
    """(dx, dscale, doffset) of y = (x - mean) inv_std scale + offset through the batch
    statistics, with minitorch ops: FusedBatchNormGrad's formula, differentiable."""
    axes, shape = _channel_axes(x.ndim), _per_channel(x.ndim, x.shape[1])
    count = x.numel() // x.shape[1]
    x_hat = (x - mean.reshape(shape)) * inv_std.reshape(shape)
    d_offset = grad_y.sum(dim=axes)
    d_scale = (grad_y * x_hat).sum(dim=axes)
    d_x = (scale * inv_std).reshape(shape) * (
        grad_y - d_offset.reshape(shape) / count - x_hat * d_scale.reshape(shape) / count
    )
    return d_x, d_scale, d_offset


# ----- FusedBatchNormGrad: the fused first-order backward -----


def _fused_batch_norm_grad_kernel(grad_y, x, scale, mean, inv_std):
    """dx = k (dy - doffset / m - x_hat dscale / m), k = scale inv_std, in a few in-place passes."""
    layout = _ChannelLayout(x)
    count = layout.count
    dy = layout.view(grad_y)
    centered = layout.view(x) - layout.broadcast(mean)
    d_offset = layout.sum(dy)
    d_scale = layout.dot(dy, centered) * inv_std
    k = scale * inv_std
    centered *= layout.broadcast(k * inv_std * d_scale / count)  # now x_hat dscale k / m
    centered += layout.broadcast(k * d_offset / count)
    d_x = dy * layout.broadcast(k)
    d_x -= centered
    return layout.restore(d_x), d_scale.astype(x.dtype, copy=False), d_offset.astype(x.dtype, copy=False)


def _fused_batch_norm_grad_grad(op, grad_d_x, grad_d_scale, grad_d_offset):
    """The vector-Jacobian product of the composed formula (_batch_norm_backward),
    recorded for the tapes outside when they record this backward pass."""
    output_grads = [
        g if g is not None else full(tuple(shape), 0.0, dtype=op.inputs[1].dtype)
        for g, shape in zip((grad_d_x, grad_d_scale, grad_d_offset), (op.inputs[1].shape, op.inputs[2].shape, op.inputs[2].shape))
    ]
    return tuple(vjp_of(_batch_norm_backward, op.inputs, output_grads))


op("FusedBatchNormGrad", _fused_batch_norm_grad_kernel, _fused_batch_norm_grad_grad, needs="inputs", jvp=TRANSPOSE)


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
    attrs = {"eps": float(eps)}
    outputs = execute(op_name, (x, scale, offset), attrs)
    # The statistics the gradient reads, kept with the op (a copy: a user may write into these outputs)
    attrs["statistics"] = (outputs[3]._data.copy(), outputs[4]._data.copy())
    return outputs

