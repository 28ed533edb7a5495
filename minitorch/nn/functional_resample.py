"""Resampling, as torch.nn.functional: interpolate (and the old upsample names), pixel and channel shuffles.

Every interpolation mode is separable: along each spatial dimension, an
output element is a weighted sum of a few input elements. Each dimension is
one "Resample" op (ops/resample_ops.py) with a sparse (out, in) matrix whose
rows hold PyTorch's source indices and weights, computed the way ATen does
(aten/src/ATen/native/UpSample.h: area_pixel_compute_scale,
area_pixel_compute_source_index, guard_index_and_lambda; the antialiased
weights of aten/src/ATen/native/cpu/UpSampleKernel.cpp), in the input's
precision (float32 for float32) so that the indices round as PyTorch's do.
The shuffles are reshapes and permutations.
"""
import math
import numbers
import warnings

import numpy as np

from ..errors import ShapeError
from ..ops import array_ops
from ..ops.resample_ops import resample, taps_matrix

MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area", "nearest-exact")
_RANK_OF_MODE = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "lanczos": 4}  # the input rank a mode needs
_FILTER_TAPS = {"bilinear": 1, "bicubic": 2, "lanczos": 3}  # taps on each side of an antialiasing filter
_CUBIC_A = -0.75  # Keys' cubic convolution constant, as PyTorch's bicubic; antialiasing uses PIL's -0.5


# ----- the weights: one (out, in) sparse matrix per spatial dimension -----

def _scale(in_size, out_size, align_corners, scale_factor, dtype):
    """area_pixel_compute_scale: input pixels per output pixel."""
    if align_corners:
        return dtype((in_size - 1) / (out_size - 1)) if out_size > 1 else dtype(0)
    if scale_factor is not None and scale_factor > 0:
        return dtype(1.0 / scale_factor)
    return dtype(in_size) / dtype(out_size)


def _source_positions(scale, out_size, align_corners, clamp_at_zero, dtype):
    """area_pixel_compute_source_index for every output index: where it lies in the input."""
    out_index = np.arange(out_size, dtype=dtype)
    if align_corners:
        return scale * out_index
    position = scale * (out_index + dtype(0.5)) - dtype(0.5)
    return np.maximum(position, dtype(0)) if clamp_at_zero else position


def _nearest(in_size, out_size, scale_factor, exact, dtype):
    scale = _scale(in_size, out_size, False, scale_factor, dtype)
    if exact:
        position = _source_positions(scale, out_size, False, True, dtype) + dtype(0.5)
    else:
        position = scale * np.arange(out_size, dtype=dtype)
    rows = np.minimum(np.floor(position).astype(np.int64), in_size - 1)
    return taps_matrix(rows[:, None], np.ones((out_size, 1), dtype), in_size)


def _linear(in_size, out_size, align_corners, scale_factor, dtype):
    if in_size == out_size:  # PyTorch copies (compute_source_index_and_lambda)
        return taps_matrix(np.arange(out_size)[:, None], np.ones((out_size, 1), dtype), in_size)
    scale = _scale(in_size, out_size, align_corners, scale_factor, dtype)
    position = _source_positions(scale, out_size, align_corners, True, dtype)
    first = np.minimum(np.floor(position).astype(np.int64), in_size - 1)
    weight = np.clip(position - first.astype(dtype), 0, 1).astype(dtype)
    second = first + (first < in_size - 1)
    return taps_matrix(np.stack([first, second], 1), np.stack([1 - weight, weight], 1), in_size)


def _keys_cubic(x, a):
    """Keys' cubic convolution kernel at distance x: the weight of a tap that far from the point."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def _cubic(in_size, out_size, align_corners, scale_factor, dtype):
    scale = _scale(in_size, out_size, align_corners, scale_factor, dtype)
    position = _source_positions(scale, out_size, align_corners, False, dtype)
    first = np.minimum(np.floor(position).astype(np.int64), in_size - 1)
    t = np.clip(position - first.astype(dtype), 0, 1).astype(dtype)
    taps = np.clip(first[:, None] + np.arange(-1, 3), 0, in_size - 1)  # edges repeat (upsample_get_value_bounded)
    one = dtype(1)
    distances = np.stack([t + one, t, one - t, 2 * one - t], 1)
    return taps_matrix(taps, _keys_cubic(distances, dtype(_CUBIC_A)).astype(dtype), in_size)


def _lanczos(x):
    """Lanczos-3: sinc(x) sinc(x / 3) inside |x| < 3."""
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)


def _antialiased(in_size, out_size, align_corners, scale_factor, mode, dtype):
    """PIL's filter, widened by the scale when shrinking (UpSampleKernel.cpp: _compute_indices_min_size_weights_aa)."""
    scale = float(_scale(in_size, out_size, align_corners, scale_factor, dtype))
    taps_per_side = float(_FILTER_TAPS[mode])
    support = taps_per_side * scale if scale >= 1.0 else taps_per_side
    inverse = 1.0 / scale if scale >= 1.0 else 1.0
    width = int(math.ceil(support)) * 2 + 1
    center = scale * (np.arange(out_size) + 0.5)
    start = np.maximum((center - support + 0.5).astype(np.int64), 0)
    count = np.clip(np.minimum((center + support + 0.5).astype(np.int64), in_size) - start, 0, width)
    offsets = np.arange(width)
    x = (start[:, None] + offsets - center[:, None] + 0.5) * inverse
    weights = {"bilinear": lambda: np.maximum(1.0 - np.abs(x), 0.0), "bicubic": lambda: _keys_cubic(x, -0.5),
               "lanczos": lambda: _lanczos(x)}[mode]()
    weights = np.where(offsets < count[:, None], weights, 0.0)
    total = weights.sum(axis=1, keepdims=True)
    weights = np.divide(weights, total, out=np.zeros_like(weights), where=total != 0)
    taps = np.minimum(start[:, None] + offsets, in_size - 1)
    return taps_matrix(taps, weights.astype(dtype), in_size)


def _area(in_size, out_size, dtype):
    """Adaptive average pooling's bins [floor(i in / out), ceil((i + 1) in / out)), each averaged."""
    i = np.arange(out_size)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    width = int((end - start).max()) if out_size else 1
    taps = np.minimum(start[:, None] + np.arange(width), in_size - 1)
    weights = np.where(np.arange(width) < (end - start)[:, None], 1.0 / (end - start)[:, None], 0.0)
    return taps_matrix(taps, weights.astype(dtype), in_size)


def resampling_matrix(mode, in_size, out_size, align_corners=False, scale_factor=None, antialias=False, dtype=np.float32):
    """The sparse (out_size, in_size) matrix that `interpolate` applies along one dimension in `mode`.

    >>> resampling_matrix("linear", 2, 4).toarray()
    array([[1.  , 0.  ],
           [0.75, 0.25],
           [0.25, 0.75],
           [0.  , 1.  ]], dtype=float32)
    """
    dtype = np.dtype(dtype).type
    if mode in ("nearest", "nearest-exact"):
        return _nearest(in_size, out_size, scale_factor, mode == "nearest-exact", dtype)
    if mode == "area":
        return _area(in_size, out_size, dtype)
    if antialias:
        return _antialiased(in_size, out_size, align_corners, scale_factor, mode, dtype)
    if mode == "bicubic":
        return _cubic(in_size, out_size, align_corners, scale_factor, dtype)
    return _linear(in_size, out_size, align_corners, scale_factor, dtype)


# ----- interpolate -----

def _spatial(values, name, input, check):
    """`values` (one value or one per spatial dimension) as a list of one per spatial dimension."""
    dims = input.ndim - 2
    if not isinstance(values, (list, tuple)):
        return [values] * dims
    if len(values) != dims:
        raise ValueError(
            f"interpolate: input and {name} must have the same number of spatial dimensions, but got input with "
            f"spatial dimensions of {list(input.shape[2:])} and {name} {tuple(values)}; give the input as "
            f"(N, C, d1, ..., dK) and {name} as K values"
        )
    if not all(check(v) for v in values):
        raise TypeError(f"interpolate: {name} must hold {'integers' if name == 'size' else 'numbers'}, got {tuple(values)}")
    return list(values)


def _check_mode(input, mode, align_corners, antialias):
    if mode not in MODES or not 3 <= input.ndim <= 5:
        raise NotImplementedError(
            f"interpolate: only 3-D, 4-D and 5-D inputs are supported (got {input.ndim}-D) for the modes: "
            f"{' | '.join(MODES)} (got {mode!r})"
        )
    if mode in _RANK_OF_MODE and input.ndim != _RANK_OF_MODE[mode]:
        raise NotImplementedError(f"interpolate: got {input.ndim}D input, but {mode} mode needs {_RANK_OF_MODE[mode]}D input")
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError("interpolate: align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
    if antialias and not (mode in _FILTER_TAPS and input.ndim == 4):
        raise ValueError("interpolate: anti-alias option is restricted to bilinear, bicubic and lanczos modes and requires a 4-D tensor as input")
    if mode == "lanczos" and (align_corners or not antialias):
        raise ValueError("interpolate: lanczos mode requires antialias=True and does not support align_corners=True")
    if mode != "nearest" and mode != "nearest-exact" and not input.is_floating_point():
        raise TypeError(f"interpolate: mode {mode!r} needs a floating-point input, got {input.dtype}")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resizes (N, C, *spatial) to `size` or by `scale_factor`, as torch.nn.functional.interpolate.

    Modes: 'nearest', 'nearest-exact', 'linear' (3-D), 'bilinear', 'bicubic' (4-D),
    'trilinear' (5-D), 'area' (adaptive average pooling), 'lanczos' (4-D, antialias=True);
    antialias=True widens the bilinear/bicubic filter when shrinking, as PIL does.
    Runs one "Resample" op per resized dimension.

    >>> x = mt.tensor([[[1.0, 2.0]]])
    >>> F.interpolate(x, scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    >>> F.interpolate(x, size=4, mode="linear")
    tensor([[[1.0000, 1.2500, 1.7500, 2.0000]]])
    >>> F.interpolate(x, size=3, mode="linear", align_corners=True)
    tensor([[[1.0000, 1.5000, 2.0000]]])
    """
    _check_mode(input, mode, align_corners, antialias)
    if size is not None and scale_factor is not None:
        raise ValueError("interpolate: only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("interpolate: either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("interpolate: recompute_scale_factor is not meaningful with an explicit size.")
    in_sizes = list(input.shape[2:])
    if size is not None:
        out_sizes = _spatial(size, "size", input, lambda v: isinstance(v, numbers.Integral))
        if not all(isinstance(v, numbers.Integral) for v in out_sizes):
            raise TypeError(f"interpolate: size must be an int or a tuple of ints, got {size!r}")
        scales = [None] * len(in_sizes)
    else:
        scales = [float(v) for v in _spatial(scale_factor, "scale_factor", input, lambda v: isinstance(v, numbers.Real))]
        out_sizes = [math.floor(n * s) for n, s in zip(in_sizes, scales)]
        if recompute_scale_factor or mode == "area":
            scales = [None] * len(in_sizes)
    if min(out_sizes) < 1 or min(in_sizes) < 1:
        raise ShapeError(f"interpolate: input and output sizes should be greater than 0, but got input {tuple(in_sizes)} and output {tuple(out_sizes)}")
    dtype = np.float64 if input.dtype.numpy == np.float64 else np.float32  # PyTorch's opmath type
    output = input
    for axis, (n, out, scale) in enumerate(zip(in_sizes, out_sizes, scales), start=2):
        output = resample(output, axis, resampling_matrix(mode, n, int(out), bool(align_corners), scale, antialias, dtype))
    return output


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated name of interpolate (PyTorch warns; so does this).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample(mt.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='nearest').

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample_nearest(mt.ones(1, 1, 1, 2), scale_factor=2).shape
    minitorch.Size([1, 1, 2, 4])
    """
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate(..., mode='bilinear', align_corners=True).

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample_bilinear(mt.tensor([[[[0.0, 3.0]]]]), size=(1, 4))
    tensor([[[[0., 1., 2., 3.]]]])
    """
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ----- shuffles -----

def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels tiles an r x r block, as torch's.

    >>> F.pixel_shuffle(mt.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    r = int(upscale_factor)
    if input.ndim < 3:
        raise ShapeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0 or input.shape[-3] % (r * r):
        raise ShapeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor "
            f"{r}, but input.size(-3)={input.shape[-3]} (input of shape {tuple(input.shape)})"
        )
    *batch, c, h, w = input.shape
    blocks = input.reshape(*batch, c // (r * r), r, r, h, w)
    k = len(batch)
    order = (*range(k), k, k + 3, k + 1, k + 4, k + 2)  # (*, C, H, r, W, r)
    return array_ops.permute(blocks, *order).reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle, as torch's.

    >>> F.pixel_unshuffle(mt.arange(4.0).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    r = int(downscale_factor)
    if input.ndim < 3:
        raise ShapeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)")
    if r <= 0 or input.shape[-2] % r or input.shape[-1] % r:
        raise ShapeError(
            f"pixel_unshuffle expects height and width to be divisible by downscale_factor {r}, "
            f"but got input of shape {tuple(input.shape)}"
        )
    *batch, c, h, w = input.shape
    blocks = input.reshape(*batch, c, h // r, r, w // r, r)
    k = len(batch)
    order = (*range(k), k, k + 2, k + 4, k + 1, k + 3)  # (*, C, r, r, H, W)
    return array_ops.permute(blocks, *order).reshape(*batch, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """(N, g k, *) -> (N, k g, *): channel i of group j goes to position i g + j (ShuffleNet), as torch's.

    >>> F.channel_shuffle(mt.arange(4.0).reshape(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if input.ndim < 3:
        raise ShapeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)")
    if groups <= 0 or input.shape[1] % groups:
        raise ValueError(f"channel_shuffle: number of channels ({input.shape[1]}) must be divisible by groups ({groups})")
    n, c, *spatial = input.shape
    return input.reshape(n, groups, c // groups, *spatial).transpose(1, 2).reshape(n, c, *spatial)
