"""2-D convolution: the Conv2D kernel, its two gradient ops, and `conv2d`.

TensorFlow's op names (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter,
as in tf.nn / nn_grad.py) on PyTorch's layout: inputs (N, C, H, W), weights
(out_channels, in_channels / groups, kH, kW). Each gradient op is an ordinary
registered op whose gradient is again Conv2D or the other gradient op, so a
gradient penalty through a CNN (double backward) works.

The kernels never loop over batch, channels or pixels: windows are a strided
view of the padded input, copied once into im2col columns, and each call is
one GEMM over the whole batch (groups are a batch dimension of it).
Conv2DBackpropInput is col2im: one GEMM, then one add per kernel offset
(kH * kW adds); with stride 1 each add runs over whole flattened planes.

Attrs: stride (sh, sw), padding ((top, bottom), (left, right)) of zeros --
pairs so that padding="same" with an even kernel can pad one more on the
bottom/right, as PyTorch does -- dilation (dh, dw), groups.
"""
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..engine.execute import execute
from ..engine.registry import TRANSPOSE, gradient, kernel
from ..errors import ShapeError

# ----- shared window helpers (pool_ops.py uses them too) -----


def windows(padded, kernel_size, stride, dilation, out_size):
    """A read-only strided view (N, C, Ho, Wo, kH, kW) of every window of `padded` (N, C, Hp, Wp)."""
    n, c = padded.shape[:2]
    s_n, s_c, s_h, s_w = padded.strides
    return as_strided(
        padded,
        shape=(n, c, *out_size, *kernel_size),
        strides=(s_n, s_c, s_h * stride[0], s_w * stride[1], s_h * dilation[0], s_w * dilation[1]),
        writeable=False,
    )


def conv_output_size(in_size, kernel_size, stride, padding, dilation):
    """(Ho, Wo) of a convolution; padding is ((top, bottom), (left, right))."""
    return tuple(
        (n + lo + hi - d * (k - 1) - 1) // s + 1
        for n, k, s, (lo, hi), d in zip(in_size, kernel_size, stride, padding, dilation)
    )


def _pad(x, padding):
    if not any(lo or hi for lo, hi in padding):
        return x
    (top, bottom), (left, right) = padding
    n, c, h, w = x.shape
    padded = np.zeros((n, c, h + top + bottom, w + left + right), dtype=x.dtype)  # cheaper than np.pad
    padded[:, :, top:top + h, left:left + w] = x
    return padded


# ----- Conv2D -----
#
# Every kernel makes ONE BLAS call (per group): the matrices put the batch
# next to the pixels, (C kH kW, N Ho Wo), so the whole batch is one GEMM.
# A matmul batched over samples would make N small calls, and multi-threaded
# OpenBLAS pays a thread hand-off per call -- on a busy machine, 100 times
# the arithmetic. The im2col copy moves whole image rows; the channel-major
# result (O, N, Ho, Wo) is transposed back to NCHW in one copy.


def _columns(x, kernel_size, stride, padding, dilation, out_size):
    """im2col: the windows of padded x as a contiguous (C, kH, kW, N, Ho, Wo) array."""
    view = windows(_pad(x, padding), kernel_size, stride, dilation, out_size)
    return np.ascontiguousarray(view.transpose(1, 4, 5, 0, 2, 3))


def _channels_first(a, groups):
    """(N, C, H, W) -> contiguous (G, C / G, N H W): the batch joins the pixels."""
    n, c = a.shape[:2]
    return np.ascontiguousarray(a.transpose(1, 0, 2, 3)).reshape(groups, c // groups, -1)


def _to_nchw(channel_major):
    """(C, N, H, W) -> contiguous (N, C, H, W)."""
    return np.ascontiguousarray(channel_major.transpose(1, 0, 2, 3))


@kernel("Conv2D")
def _conv2d(x, w, stride, padding, dilation, groups):
    n, o = x.shape[0], w.shape[0]
    out_size = conv_output_size(x.shape[2:], w.shape[2:], stride, padding, dilation)
    cols = _columns(x, w.shape[2:], stride, padding, dilation, out_size).reshape(groups, math.prod(w.shape[1:]), n * math.prod(out_size))
    out = np.matmul(w.reshape(groups, o // groups, -1), cols)  # (G, Og, N Ho Wo)
    return _to_nchw(out.reshape(o, n, *out_size))


@gradient("Conv2D", needs="inputs", jvp=TRANSPOSE)
def _conv2d_grad(op, grad):
    """dx = Conv2DBackpropInput(w, dy), dw = Conv2DBackpropFilter(x, dy)."""
    x, w = op.inputs
    need_x, need_w = op.needs_input_grad
    dx = execute("Conv2DBackpropInput", (w, grad), {**op.attrs, "input_shape": x.shape}) if need_x else None
    dw = execute("Conv2DBackpropFilter", (x, grad), {**op.attrs, "filter_shape": w.shape}) if need_w else None
    return dx, dw


# ----- Conv2DBackpropInput: the adjoint of Conv2D in x -----


@kernel("Conv2DBackpropInput")
def _conv2d_backprop_input(w, dy, input_shape, stride, padding, dilation, groups):
    dy = np.ascontiguousarray(dy)  # may be a stride-0 broadcast (the gradient of a sum): BLAS needs real strides
    n, c, h, wd = input_shape
    o, _, k_h, k_w = w.shape
    (top, bottom), (left, right) = padding
    padded_shape = (c, n, h + top + bottom, wd + left + right)  # channel-major, like the columns
    w_t = w.reshape(groups, o // groups, -1).transpose(0, 2, 1)  # (G, Cg kH kW, Og)
    if stride == (1, 1):
        padded = _col2im_unit_stride(w_t, dy, padded_shape, (k_h, k_w), dilation, groups)
    else:
        padded = _col2im_strided(w_t, dy, padded_shape, (k_h, k_w), stride, dilation, groups)
    return _to_nchw(padded[:, :, top:top + h, left:left + wd])


def _col2im_unit_stride(w_t, dy, padded_shape, kernel_size, dilation, groups):
    """col2im for stride 1 in long runs: dy's rows are widened with zeros to the padded width,
    so each kernel offset adds one contiguous run per (c, n) plane, shifted by its flat offset
    (the zero columns make the wrap into the next row harmless)."""
    c, n, padded_h, padded_w = padded_shape
    (k_h, k_w), (d_h, d_w) = kernel_size, dilation
    o, out_h, out_w = dy.shape[1:]
    wide = np.zeros((o, n, out_h, padded_w), dtype=dy.dtype)  # also the transpose to channel-major
    wide[..., :out_w] = dy.transpose(1, 0, 2, 3)
    run = out_h * padded_w
    cols = np.matmul(w_t, wide.reshape(groups, o // groups, n * run)).reshape(c, k_h, k_w, n, run)
    flat = np.zeros((c, n, padded_h * padded_w + (k_w - 1) * d_w), dtype=cols.dtype)
    for i in range(k_h):
        for j in range(k_w):
            start = i * d_h * padded_w + j * d_w
            flat[:, :, start:start + run] += cols[:, i, j]
    return flat[:, :, :padded_h * padded_w].reshape(padded_shape)


def _col2im_strided(w_t, dy, padded_shape, kernel_size, stride, dilation, groups):
    """col2im: one matmul, then every kernel offset adds its column block at once (a strided add)."""
    c = padded_shape[0]
    (k_h, k_w), (s_h, s_w), (d_h, d_w) = kernel_size, stride, dilation
    n, o, out_h, out_w = dy.shape
    cols = np.matmul(w_t, _channels_first(dy, groups)).reshape(c, k_h, k_w, n, out_h, out_w)
    padded = np.zeros(padded_shape, dtype=cols.dtype)
    for i in range(k_h):
        for j in range(k_w):
            padded[:, :, i * d_h:i * d_h + s_h * (out_h - 1) + 1:s_h, j * d_w:j * d_w + s_w * (out_w - 1) + 1:s_w] += cols[:, i, j]
    return padded


@gradient("Conv2DBackpropInput", needs="inputs", jvp=TRANSPOSE)
def _conv2d_backprop_input_grad(op, grad):
    """dx = B(w, dy) is bilinear; <B(w, dy), g> = <dy, Conv2D(g, w)>:
    d/dw = Conv2DBackpropFilter(g, dy), d/ddy = Conv2D(g, w)."""
    w, dy = op.inputs
    attrs = _conv_attrs(op.attrs)
    need_w, need_dy = op.needs_input_grad
    dw = execute("Conv2DBackpropFilter", (grad, dy), {**attrs, "filter_shape": w.shape}) if need_w else None
    ddy = execute("Conv2D", (grad, w), attrs) if need_dy else None
    return dw, ddy


# ----- Conv2DBackpropFilter: the adjoint of Conv2D in w -----


@kernel("Conv2DBackpropFilter")
def _conv2d_backprop_filter(x, dy, filter_shape, stride, padding, dilation, groups):
    dy = np.ascontiguousarray(dy)  # may be a stride-0 broadcast: BLAS needs real strides
    cols = _columns(x, filter_shape[2:], stride, padding, dilation, dy.shape[2:]).reshape(groups, math.prod(filter_shape[1:]), x.shape[0] * math.prod(dy.shape[2:]))
    return np.matmul(_channels_first(dy, groups), cols.transpose(0, 2, 1)).reshape(filter_shape)  # (G, Og, Cg kH kW)


@gradient("Conv2DBackpropFilter", needs="inputs", jvp=TRANSPOSE)
def _conv2d_backprop_filter_grad(op, grad):
    """dw = F(x, dy) is bilinear; <F(x, dy), g> = <dy, Conv2D(x, g)>:
    d/dx = Conv2DBackpropInput(g, dy), d/ddy = Conv2D(x, g)."""
    x, dy = op.inputs
    attrs = _conv_attrs(op.attrs)
    need_x, need_dy = op.needs_input_grad
    dx = execute("Conv2DBackpropInput", (grad, dy), {**attrs, "input_shape": x.shape}) if need_x else None
    ddy = execute("Conv2D", (x, grad), attrs) if need_dy else None
    return dx, ddy


def _conv_attrs(attrs):
    return {key: attrs[key] for key in ("stride", "padding", "dilation", "groups")}


# ----- the functional API -----


def _pair(value, name):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    value = tuple(value)
    if len(value) == 1:
        value = value * 2
    if len(value) != 2 or not all(isinstance(v, (int, np.integer)) for v in value):
        raise ValueError(f"Conv2D: {name} must be an int or a pair of ints, got {value!r}")
    return tuple(int(v) for v in value)


def _conv_padding(padding, kernel_size, stride, dilation):
    """((top, bottom), (left, right)) from an int, a pair, 'valid' or 'same' (PyTorch's split)."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0), (0, 0))
        if padding != "same":
            raise ValueError(f"Conv2D: invalid padding string {padding!r}, should be one of 'valid', 'same'")
        if stride != (1, 1):
            raise ValueError("Conv2D: padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel_size, dilation)]
        return tuple((total // 2, total - total // 2) for total in totals)
    ph, pw = _pair(padding, "padding")
    if ph < 0 or pw < 0:
        raise ValueError(f"Conv2D: negative padding {(ph, pw)} is not supported")
    return ((ph, ph), (pw, pw))


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) like torch.nn.functional.conv2d.

    input (N, C, H, W) or (C, H, W); weight (O, C / groups, kH, kW); bias (O,).

    >>> x = mt.randn(2, 3, 8, 8); w = mt.randn(4, 3, 3, 3)
    >>> conv2d(x, w, padding=1).shape
    (2, 4, 8, 8)
    """
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    if input.ndim != 4:
        raise ShapeError(f"Conv2D: expected a 3-D (unbatched) or 4-D (batched) input, got shape {tuple(input.shape)}")
    if weight.ndim != 4:
        raise ShapeError(f"Conv2D: expected a 4-D weight (out_channels, in_channels/groups, kH, kW), got shape {tuple(weight.shape)}")
    if not isinstance(groups, int) or groups < 1:
        raise ValueError(f"Conv2D: groups must be a positive integer, got {groups!r}")
    if input._data.dtype != weight._data.dtype:
        raise TypeError(f"Conv2D: input ({input.dtype}) and weight ({weight.dtype}) must have the same dtype")
    if not input.is_floating_point():
        raise TypeError(f"Conv2D: expected floating-point tensors, got {input.dtype}")
    out_channels, group_channels = weight.shape[:2]
    if out_channels % groups:
        raise ShapeError(f"Conv2D: out_channels ({out_channels}, weight shape {tuple(weight.shape)}) must be divisible by groups={groups}")
    if input.shape[1] != group_channels * groups:
        raise ShapeError(
            f"Conv2D: given groups={groups}, weight of shape {tuple(weight.shape)}, expected input {tuple(input.shape)} "
            f"to have {group_channels * groups} channels, but got {input.shape[1]} channels instead"
        )
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    if min(stride) < 1 or min(dilation) < 1:
        raise ValueError(f"Conv2D: stride {stride} and dilation {dilation} must be positive")
    kernel_size = tuple(weight.shape[2:])
    pads = _conv_padding(padding, kernel_size, stride, dilation)
    padded = tuple(n + lo + hi for n, (lo, hi) in zip(input.shape[2:], pads))
    reach = tuple(d * (k - 1) + 1 for k, d in zip(kernel_size, dilation))
    if any(p < r for p, r in zip(padded, reach)):
        raise ShapeError(
            f"Conv2D: input of shape {tuple(input.shape)} padded to {padded} is smaller than the "
            f"(dilated) kernel {reach} of weight shape {tuple(weight.shape)}"
        )
    attrs = {"stride": stride, "padding": pads, "dilation": dilation, "groups": groups}
    out = execute("Conv2D", (input, weight), attrs)
    if bias is not None:
        if tuple(bias.shape) != (out_channels,):
            raise ShapeError(f"Conv2D: bias of shape {tuple(bias.shape)} does not match out_channels={out_channels}")
        out = out + bias.reshape(1, out_channels, 1, 1)  # a broadcast Add: the tape sums its gradient
    return out.squeeze(0) if unbatched else out
