"""Pooling functions, as torch.nn.functional: max, average, adaptive, fractional, LP pooling and max
unpooling, 1-D and 2-D.

max_pool2d, avg_pool2d and adaptive_avg_pool2d are the "MaxPool" and "AvgPool" ops' functions
(ops/pool_ops.py). The others add no kernel. The 1-D poolings are the 2-D ops (MaxPool, AvgPool) over a
height of 1. The poolings whose windows differ in size or position from one
output to the next (adaptive max, fractional max) find each window's
argmax with numpy, then take the values with "MaxPoolGradGrad", the gather at
an argmax that max pooling's second-order gradient already runs: its gradient
is "MaxPoolGrad", the scatter back to the argmax, so dx goes to the maximum
as in PyTorch. Max unpooling is that scatter itself ("MaxPoolGrad"). LP
pooling is PyTorch's own composition of avg_pool and powers.
"""
import math

import numpy as np

from ... import creation, dtypes
from ...engine.execute import execute
from ...errors import ShapeError
from ...ops import activation_ops, pool_ops, rounding_ops
from ...ops.dims import int_tuple
from ...ops.pool_ops import adaptive_avg_pool2d, avg_pool2d, max_pool2d  # noqa: F401


def _two(value, name, op_name):
    """Two values (not only ints: an output_ratio, an output_size with None) from one or a sequence of one or two."""
    value = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(value) == 1:
        value = value * 2
    if len(value) != 2:
        raise ValueError(f"{op_name}: {name} must be an int or a pair, got {value!r}")
    return value


def _over_height_1(value, name, op_name):
    """A 1-D pooling setting as the 2-D one over a height of 1: (1, k) for sizes, (0, p) for padding; None stays."""
    if value is None or (isinstance(value, (tuple, list)) and not value):
        return None
    return (0 if name == "padding" else 1, int_tuple(value, 1, name, op_name)[0])


def _as_3d(input, op_name):
    """(N, C, L) or unbatched (C, L) as (N, C, L), and whether it was unbatched."""
    if input.ndim not in (2, 3):
        raise ShapeError(f"{op_name}: expected 2D (unbatched) or 3D (batched) input, got input of shape {tuple(input.shape)}")
    return (input.unsqueeze(0), True) if input.ndim == 2 else (input, False)


def _as_4d(input, op_name):
    if input.ndim not in (3, 4):
        raise ShapeError(f"{op_name}: expected 3D (unbatched) or 4D (batched) input, got input of shape {tuple(input.shape)}")
    return (input.unsqueeze(0), True) if input.ndim == 3 else (input, False)


def _unbatch(values, unbatched):
    if not unbatched:
        return values
    return tuple(v.squeeze(0) for v in values) if isinstance(values, tuple) else values.squeeze(0)


# ----- 1-D pooling over the 2-D ops -----

def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over each window of (N, C, L), as torch.nn.functional.max_pool1d. Runs "MaxPool" over a height of 1.

    >>> F.max_pool1d(mt.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0]]]), 2)
    tensor([[[3., 5.]]])
    """
    batched, unbatched = _as_3d(input, "max_pool1d")
    kernel_size, padding, dilation = (_over_height_1(v, name, "max_pool1d") for v, name in
                                      ((kernel_size, "kernel_size"), (padding, "padding"), (dilation, "dilation")))
    out = pool_ops.max_pool2d(batched.unsqueeze(2), kernel_size, _over_height_1(stride, "stride", "max_pool1d"), padding,
                              dilation, ceil_mode, return_indices)
    out = tuple(t.squeeze(2) for t in out) if return_indices else out.squeeze(2)
    return _unbatch(out, unbatched)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool1d returning (values, indices) whatever return_indices says, as torch's.

    >>> F.max_pool1d_with_indices(mt.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2)[1]
    tensor([[[1, 3]]])
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d returning (values, indices: flat positions in each H x W plane), as torch's.

    >>> F.max_pool2d_with_indices(mt.arange(16.0).reshape(1, 1, 4, 4), 2)[1]
    tensor([[[[ 5,  7],
              [13, 15]]]])
    """
    return pool_ops.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window of (N, C, L), as torch.nn.functional.avg_pool1d. Runs "AvgPool" over a height of 1.

    >>> F.avg_pool1d(mt.tensor([[[1.0, 3.0, 2.0, 6.0]]]), 2)
    tensor([[[2., 4.]]])
    """
    batched, unbatched = _as_3d(input, "avg_pool1d")
    out = pool_ops.avg_pool2d(batched.unsqueeze(2), _over_height_1(kernel_size, "kernel_size", "avg_pool1d"),
                              _over_height_1(stride, "stride", "avg_pool1d"), _over_height_1(padding, "padding", "avg_pool1d"),
                              ceil_mode, count_include_pad).squeeze(2)
    return _unbatch(out, unbatched)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) to a fixed length, whatever L, as torch's.

    >>> F.adaptive_avg_pool1d(mt.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]]), 2)   # bins [1, 2, 3] and [3, 4, 5]
    tensor([[[2., 4.]]])
    """
    batched, unbatched = _as_3d(input, "adaptive_avg_pool1d")
    out = pool_ops.adaptive_avg_pool2d(batched.unsqueeze(2), (1, int_tuple(output_size, 1, "output_size", "adaptive_avg_pool1d")[0]))
    return _unbatch(out.squeeze(2), unbatched)


# ----- max at argmax positions found in numpy -----

def _window_argmax(x, rows, cols):
    """Flat argmax (row * W + col) of each window of x (N, C, H, W).

    rows (N, C, Ho, kH) and cols (N, C, Wo, kW) list each window's input rows and
    columns (shorter windows repeat their last one). The first maximum wins; a
    window with NaN takes its last NaN, as PyTorch's CPU kernels.
    """
    n, c, _, width = x.shape
    batch, channel = np.arange(n)[:, None, None, None, None, None], np.arange(c)[None, :, None, None, None, None]
    picked = x[batch, channel, rows[:, :, :, :, None, None], cols[:, :, None, None, :, :]]  # (N, C, Ho, kH, Wo, kW)
    out_h, k_h, out_w, k_w = picked.shape[2:]
    windows = picked.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, out_h, out_w, k_h * k_w)
    position = np.argmax(windows, axis=-1)
    is_nan = np.isnan(windows)
    last_nan = k_h * k_w - 1 - np.argmax(is_nan[..., ::-1], axis=-1)
    position = np.where(is_nan.any(axis=-1), last_nan, position)
    row = np.take_along_axis(rows[:, :, :, None, :], (position // k_w)[..., None], -1)[..., 0]  # (N, C, Ho, Wo)
    col = np.take_along_axis(cols[:, :, None, :, :], (position % k_w)[..., None], -1)[..., 0]
    return row * width + col


def _gather_at(x, argmax):
    """x's values at the flat argmax of each plane, differentiably: the "MaxPoolGradGrad" gather."""
    attrs = {"input_shape": tuple(x.shape), "disjoint": False, "channels_last": False}
    return execute("MaxPoolGradGrad", (creation.from_numpy(argmax.astype(np.int64)), x), attrs)


def _adaptive_bins(in_size, out_size):
    """PyTorch's adaptive bins [floor(i n / o), ceil((i + 1) n / o)) as (out, widest) indices."""
    i = np.arange(out_size)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    width = int((end - start).max()) if out_size else 1
    return np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)


def _adaptive_size(output_size, input, op_name):
    sizes = _two(output_size, "output_size", op_name)
    sizes = tuple(n if s is None else int(s) for n, s in zip(input.shape[-2:], sizes))
    if min(sizes) < 0:
        raise ValueError(f"{op_name}: output_size must not be negative, got {output_size!r}")
    return sizes


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of (N, C, H, W) to a fixed (H_out, W_out) over PyTorch's adaptive bins.

    >>> x = mt.tensor([[[[1.0, 5.0, 2.0], [4.0, 3.0, 9.0]]]])
    >>> F.adaptive_max_pool2d(x, (1, 2))
    tensor([[[[5., 9.]]]])
    """
    batched, unbatched = _as_4d(input, "adaptive_max_pool2d")
    if not input.is_floating_point():
        raise TypeError(f"adaptive_max_pool2d: expected a floating-point input, got {input.dtype}")
    out_h, out_w = _adaptive_size(output_size, batched, "adaptive_max_pool2d")
    n, c, h, w = batched.shape
    if 0 in (n, c, out_h, out_w):
        empty = creation.zeros(n, c, out_h, out_w, dtype=input.dtype)
        values, indices = empty, creation.zeros(n, c, out_h, out_w, dtype=dtypes.int64)
    else:
        if h == 0 or w == 0:
            raise ShapeError(f"adaptive_max_pool2d: input of shape {tuple(input.shape)} has an empty spatial dimension")
        row_bins, col_bins = _adaptive_bins(h, out_h), _adaptive_bins(w, out_w)
        rows = np.broadcast_to(row_bins, (n, c, *row_bins.shape))
        cols = np.broadcast_to(col_bins, (n, c, *col_bins.shape))
        argmax = _window_argmax(np.asarray(batched), rows, cols)
        values, indices = _gather_at(batched, argmax), creation.from_numpy(argmax)
    out = _unbatch((values, indices), unbatched)
    return out if return_indices else out[0]


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d returning (values, indices), as torch's.

    >>> F.adaptive_max_pool2d_with_indices(mt.tensor([[[[1.0, 5.0, 2.0], [4.0, 3.0, 9.0]]]]), (1, 2))[1]
    tensor([[[[1, 5]]]])
    """
    return adaptive_max_pool2d(input, output_size, return_indices=True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of (N, C, L) to a fixed length over PyTorch's adaptive bins.

    >>> F.adaptive_max_pool1d(mt.tensor([[[1.0, 5.0, 2.0, 4.0, 3.0]]]), 2)
    tensor([[[5., 4.]]])
    """
    batched, unbatched = _as_3d(input, "adaptive_max_pool1d")
    out = adaptive_max_pool2d(batched.unsqueeze(2), (1, int_tuple(output_size, 1, "output_size", "adaptive_max_pool1d")[0]), True)
    out = _unbatch(tuple(t.squeeze(2) for t in out), unbatched)
    return out if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d returning (values, indices), as torch's.

    >>> F.adaptive_max_pool1d_with_indices(mt.tensor([[[1.0, 5.0, 2.0, 4.0, 3.0]]]), 2)[1]
    tensor([[[1, 3]]])
    """
    return adaptive_max_pool1d(input, output_size, return_indices=True)


def _fractional_starts(sample, in_size, out_size, pool_size):
    """FractionalMaxPool2d.cpp generate_intervals: pseudo-random window starts, one row per plane."""
    starts = np.empty(sample.shape + (out_size,), np.int64)
    if out_size > 1:
        alpha = sample.dtype.type(in_size - pool_size) / sample.dtype.type(out_size - 1)
        i = np.arange(out_size - 1, dtype=sample.dtype)
        starts[..., :-1] = ((i + sample[..., None]) * alpha).astype(np.int64) - (sample[..., None] * alpha).astype(np.int64)
    if out_size > 0:
        starts[..., -1] = in_size - pool_size
    return starts


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
    """Max pooling over pseudo-randomly placed windows (Graham, 2014), as torch's fractional_max_pool2d.

    `_random_samples` (N, C, 2) in [0, 1) places the windows (W first, then H);
    by default they come from the global generator.

    >>> x = mt.arange(25.0).reshape(1, 1, 5, 5)
    >>> F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=mt.tensor([[[0.5, 0.5]]]))
    tensor([[[[ 6.,  9.],
              [21., 24.]]]])
    """
    batched, unbatched = _as_4d(input, "fractional_max_pool2d")
    if not input.is_floating_point():
        raise TypeError(f"fractional_max_pool2d: expected a floating-point input, got {input.dtype}")
    k_h, k_w = (int(k) for k in _two(kernel_size, "kernel_size", "fractional_max_pool2d"))
    n, c, h, w = batched.shape
    if output_size is None:
        if output_ratio is None:
            raise ValueError("fractional_max_pool2d requires specifying either an output_size or an output_ratio")
        ratio_h, ratio_w = _two(output_ratio, "output_ratio", "fractional_max_pool2d")
        output_size = (int(h * ratio_h), int(w * ratio_w))
    out_h, out_w = (int(s) for s in _two(output_size, "output_size", "fractional_max_pool2d"))
    for name, out, k, size in (("height", out_h, k_h, h), ("width", out_w, k_w, w)):
        if out + k - 1 > size:
            raise ValueError(f"fractional_max_pool2d(): pool {name} {k} too large relative to input {name} {size} "
                             f"(output {name} {out})")
    if _random_samples is None:
        samples = np.asarray(creation.rand(n, c, 2, dtype=input.dtype))
    else:
        samples = np.asarray(_random_samples)
        if samples.shape != (n, c, 2):
            raise ShapeError(f"fractional_max_pool2d: _random_samples must have shape {(n, c, 2)}, got {samples.shape}")
    rows = _fractional_starts(samples[..., 1], h, out_h, k_h)[..., None] + np.arange(k_h)
    cols = _fractional_starts(samples[..., 0], w, out_w, k_w)[..., None] + np.arange(k_w)
    argmax = _window_argmax(np.asarray(batched), rows, cols)
    out = _unbatch((_gather_at(batched, argmax), creation.from_numpy(argmax)), unbatched)
    return out if return_indices else out[0]


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """fractional_max_pool2d returning (values, indices), as torch's.

    >>> x = mt.arange(25.0).reshape(1, 1, 5, 5)
    >>> F.fractional_max_pool2d_with_indices(x, 2, output_size=2, _random_samples=mt.tensor([[[0.5, 0.5]]]))[1]
    tensor([[[[ 6,  9],
              [21, 24]]]])
    """
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


# ----- unpooling: the scatter at the argmax -----

def _unpool_size(input, kernel_size, stride, padding, output_size, op_name):
    """PyTorch's _unpool_output_size: (in - 1) stride + kernel - 2 padding, or a given size within one stride of it."""
    spatial = len(kernel_size)
    default = [(n - 1) * s + k - 2 * p for n, k, s, p in zip(input.shape[-spatial:], kernel_size, stride, padding)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == spatial + 2:
        output_size = output_size[2:]
    if len(output_size) != spatial:
        raise ValueError(f"{op_name}: output_size should be a sequence containing {spatial} or {spatial + 2} elements, "
                         f"but it has a length of {len(output_size)}")
    for d, (size, s) in enumerate(zip(output_size, stride)):
        if not default[d] - s < size < default[d] + s:
            raise ValueError(f"{op_name}: invalid output_size {tuple(output_size)} (dim {d} must be between "
                             f"{default[d] - s} and {default[d] + s})")
    return [int(v) for v in output_size]


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d: each value goes back to its index, zeros elsewhere, as torch's.

    >>> values, indices = F.max_pool2d(mt.tensor([[[[1.0, 2.0], [4.0, 3.0]]]]), 2, return_indices=True)
    >>> F.max_unpool2d(values, indices, 2)
    tensor([[[[0., 0.],
              [4., 0.]]]])
    """
    kernel_size = tuple(int(k) for k in _two(kernel_size, "kernel_size", "max_unpool2d"))
    stride = kernel_size if stride is None else tuple(int(s) for s in _two(stride, "stride", "max_unpool2d"))
    padding = tuple(int(p) for p in _two(padding, "padding", "max_unpool2d"))
    out_h, out_w = _unpool_size(input, kernel_size, stride, padding, output_size, "max_unpool2d")
    return _unpool(input, indices, (out_h, out_w), "max_unpool2d")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: each value goes back to its index, zeros elsewhere, as torch's.

    >>> values, indices = F.max_pool1d(mt.tensor([[[1.0, 3.0, 4.0, 2.0]]]), 2, return_indices=True)
    >>> F.max_unpool1d(values, indices, 2)
    tensor([[[0., 3., 4., 0.]]])
    """
    kernel_size = (int_tuple(kernel_size, 1, "kernel_size", "max_unpool1d")[0],)
    stride = kernel_size if stride is None else (int_tuple(stride, 1, "stride", "max_unpool1d")[0],)
    padding = (int_tuple(padding, 1, "padding", "max_unpool1d")[0],)
    (length,) = _unpool_size(input, kernel_size, stride, padding, output_size, "max_unpool1d")
    return _unpool(input.unsqueeze(-1), indices.unsqueeze(-1), (length, 1), "max_unpool1d").squeeze(-1)


def _unpool(input, indices, out_size, op_name):
    if np.asarray(indices).dtype != np.int64:
        raise TypeError(f"{op_name}: elements in indices should be type int64 but got {indices.dtype}")
    if tuple(indices.shape) != tuple(input.shape):
        raise ShapeError(f"{op_name}: expected shape of indices to be same as that of the input tensor "
                         f"{tuple(input.shape)} but got indices tensor with shape {tuple(indices.shape)}")
    batched, unbatched = _as_4d(input, op_name)
    positions = np.asarray(indices).reshape(batched.shape)
    plane = math.prod(out_size)
    if positions.size and (positions.min() < 0 or positions.max() >= plane):
        bad = positions[(positions < 0) | (positions >= plane)].flat[0]
        raise IndexError(f"{op_name}: found an invalid max index: {bad} (output volumes are of size {out_size[0]}x{out_size[1]})")
    attrs = {"input_shape": (*batched.shape[:2], *out_size), "disjoint": True, "channels_last": False}
    out = execute("MaxPoolGrad", (creation.from_numpy(positions), batched), attrs)
    return _unbatch(out, unbatched)


# ----- power-average pooling -----

def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x^p over each window)^(1/p), as torch.nn.functional.lp_pool2d (PyTorch's composition of avg_pool2d).

    >>> F.lp_pool2d(mt.tensor([[[[3.0, 4.0]]]]), 2, (1, 2))
    tensor([[[[5.]]]])
    """
    k_h, k_w = _two(kernel_size, "kernel_size", "lp_pool2d")
    out = pool_ops.avg_pool2d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return (rounding_ops.sign(out) * activation_ops.relu(out.abs())).mul(k_h * k_w) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x^p over each window)^(1/p) along the length, as torch.nn.functional.lp_pool1d.

    >>> F.lp_pool1d(mt.tensor([[[3.0, 4.0, 0.0, 1.0]]]), 2, 2)
    tensor([[[5., 1.]]])
    """
    out = avg_pool1d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return (rounding_ops.sign(out) * activation_ops.relu(out.abs())).mul(int_tuple(kernel_size, 1, "kernel_size", "lp_pool1d")[0]) ** (1.0 / norm_type)
