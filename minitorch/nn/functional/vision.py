"""Vision functions, as torch.nn.functional groups them: resampling (interpolate, and the old upsample
names), pixel and channel shuffles, padding (F.pad, from ops/pad_ops.py), and the sampling grids of
spatial transformer networks (affine_grid, grid_sample).

Every interpolation mode is separable: along each spatial dimension, an
output element is a weighted sum of a few input elements. Each dimension is
one "Resample" op (ops/resample_ops.py) with a sparse (out, in) matrix whose
rows hold PyTorch's source indices and weights, computed the way ATen does
(aten/src/ATen/native/UpSample.h: area_pixel_compute_scale,
area_pixel_compute_source_index, guard_index_and_lambda; the antialiased
weights of aten/src/ATen/native/cpu/UpSampleKernel.cpp), in the input's
precision (float32 for float32) so that the indices round as PyTorch's do.
The shuffles are reshapes and permutations.

affine_grid and grid_sample (in 2-D) are composed from ops, with PyTorch's arithmetic
(aten/src/ATen/native/GridSampler.h: grid_sampler_unnormalize, clip_coordinates, reflect_coordinates,
the bilinear corner weights, Keys' bicubic with A = -0.75): the sampling positions are
differentiable functions of the grid, the integer taps are found with numpy,
and the input values at the taps are gathered ("GatherNd", whose gradient
scatters back). So the input and the grid both get gradients, to any order.
Taps outside the input read zero (a constant mask), as PyTorch's.
"""
import math
import numbers
import warnings

import numpy as np

from ...creation import from_numpy
from ...errors import ShapeError
from ...ops import array_ops, comparison_ops, product_ops
from ...ops.pad_ops import pad  # noqa: F401  (F.pad: one op for every mode, ops/pad_ops.py)
from ...ops.resample_ops import resample, taps_matrix

INTERPOLATION_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area", "nearest-exact")
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
    if mode not in INTERPOLATION_MODES or not 3 <= input.ndim <= 5:
        raise NotImplementedError(
            f"interpolate: only 3-D, 4-D and 5-D inputs are supported (got {input.ndim}-D) for the modes: "
            f"{' | '.join(INTERPOLATION_MODES)} (got {mode!r})"
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


# ----- sampling grids (spatial transformer networks) -----

GRID_SAMPLE_INTERPOLATION_MODES = ("bilinear", "nearest", "bicubic")  # PyTorch's F.GRID_SAMPLE_* names
GRID_SAMPLE_PADDING_MODES = ("zeros", "border", "reflection")


def _align_corners(align_corners, op_name):
    if align_corners is None:
        warnings.warn(f"Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      f"Please specify align_corners=True if the old behavior is desired ({op_name}).", stacklevel=3)
        return False
    return bool(align_corners)


def _base_coordinates(steps, align_corners, dtype):
    """PyTorch's linspace_from_neg_one: pixel centres in [-1, 1] (the corners' centres at +-1 if align_corners)."""
    if steps <= 1:
        return np.zeros(steps, dtype)
    positions = np.linspace(-1, 1, steps, dtype=dtype)
    return positions if align_corners else positions * dtype.type((steps - 1) / steps)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) of the 2-D affine maps theta (N, 2, 3) for an output of `size` (N, C, H, W).

    Each output pixel's normalized (x, y) in [-1, 1] is mapped by theta; grid_sample reads the input there.

    >>> half_turn = mt.tensor([[[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]])
    >>> F.affine_grid(half_turn, (1, 1, 2, 2), align_corners=True)[0, 0]   # the top row reads the bottom row, mirrored
    tensor([[ 1.,  1.],
            [-1.,  1.]])
    """
    align_corners = _align_corners(align_corners, "affine_grid")
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    if len(size) == 5:
        raise NotImplementedError("affine_grid: 3-D affine transforms (a 5-D size) are not supported; only 4-D sizes (N, C, H, W)")
    if len(size) != 4:
        raise NotImplementedError(f"affine_grid only supports 4D sizes (N, C, H, W) for 2D affine transforms. Got size {size}.")
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (2, 3) or theta.shape[0] != size[0]:
        raise ShapeError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {tuple(theta.shape)}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    dtype = np.asarray(theta).dtype
    n, _, h, w = size
    if align_corners and min(h, w) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
                      "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    xs, ys = np.meshgrid(_base_coordinates(w, align_corners, dtype), _base_coordinates(h, align_corners, dtype))
    base = np.stack([xs, ys, np.ones_like(xs)], axis=-1).reshape(h * w, 3)
    return product_ops.matmul(from_numpy(base), theta.transpose(1, 2)).reshape(n, h, w, 2)


# ----- grid_sample -----

def _unnormalize(coordinate, size, align_corners):
    """[-1, 1] -> pixel coordinates: -1 and 1 are the corner pixels' centres (align_corners) or their outer edges."""
    if align_corners:
        return (coordinate + 1) * ((size - 1) / 2)
    return ((coordinate + 1) * size - 1) / 2


def _reflect(coordinate, twice_low, twice_high):
    """Folds coordinates back into [low, high] by reflection at its ends (reflect_coordinates)."""
    if twice_low == twice_high:
        return coordinate * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coordinate - low).abs()
    flips = np.floor(np.asarray(distance) / span)
    extra = distance - from_numpy((flips * span).astype(np.asarray(distance).dtype))
    return comparison_ops.where(from_numpy(flips % 2 == 0), extra + low, (extra * -1) + (span + low))


def _padded(coordinate, size, padding_mode, align_corners):
    """compute_coordinates: 'border' clips into the input, 'reflection' reflects then clips, 'zeros' leaves as is."""
    if padding_mode == "border":
        return comparison_ops.clamp(coordinate, 0, size - 1)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return comparison_ops.clamp(_reflect(coordinate, *twice), 0, size - 1)
    return coordinate


def _padded_taps(taps, size, padding_mode, align_corners):
    """Integer tap positions moved by the padding mode (bicubic pads each tap), in numpy."""
    if padding_mode == "border":
        return np.clip(taps, 0, size - 1)
    if padding_mode == "reflection":
        return np.asarray(_padded(from_numpy(taps.astype(np.float64)), size, padding_mode, align_corners)).astype(np.int64)
    return taps


class _Taps:
    """Gathers input values (N, C, H, W) at integer positions (N, Ho, Wo) as (N, Ho, Wo, C); outside reads zero."""

    def __init__(self, input):
        self.pixels = input.permute(0, 2, 3, 1)  # (N, H, W, C)
        self.n, _, self.h, self.w = input.shape
        self.dtype = np.asarray(input).dtype

    def __call__(self, rows, cols):
        inside = (rows >= 0) & (rows < self.h) & (cols >= 0) & (cols < self.w)
        batch = np.arange(self.n).reshape(-1, 1, 1)
        values = self.pixels[batch, np.clip(rows, 0, self.h - 1), np.clip(cols, 0, self.w - 1)]
        if inside.all():
            return values
        return values * from_numpy(inside[..., None].astype(self.dtype))


def _keys_weights(t):
    """Keys' cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 around a point t past tap 0."""
    a = -0.75

    def near(x):
        return ((x * (a + 2) - (a + 3)) * x) * x + 1

    def far(x):
        return ((x * a - 5 * a) * x + 8 * a) * x - 4 * a

    return far(t + 1), near(t), near((t * -1) + 1), far((t * -1) + 2)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input (N, C, H, W) at the normalized positions grid (N, Ho, Wo, 2) -> (N, C, Ho, Wo), as torch's.

    grid[..., 0] is x (the width) and grid[..., 1] is y, both in [-1, 1]; modes 'bilinear',
    'nearest', 'bicubic'; outside the input: 'zeros', 'border' or 'reflection'.
    In 'nearest' mode the grid gets no gradient (None, where PyTorch gives zeros).

    >>> image = mt.tensor([[[[0.0, 10.0], [20.0, 30.0]]]])
    >>> F.grid_sample(image, mt.tensor([[[[0.0, 0.0], [1.0, -1.0]]]]), align_corners=True)
    tensor([[[[15., 10.]]]])
    """
    align_corners = _align_corners(align_corners, "grid_sample")
    if mode not in GRID_SAMPLE_INTERPOLATION_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: {mode!r}")
    if padding_mode not in GRID_SAMPLE_PADDING_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
                         f"but got: {padding_mode!r}")
    if input.ndim == 5:
        raise NotImplementedError("grid_sample: 5-D (volumetric) inputs are not supported; only 4-D inputs (N, C, H, W)")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[0] != input.shape[0] or grid.shape[-1] != 2:
        raise ShapeError(f"grid_sampler(): expected a 4-D input (N, C, H, W) and a grid (N, H_out, W_out, 2) with the same "
                         f"batch size, but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.dtype != grid.dtype or not input.is_floating_point():
        raise TypeError(f"grid_sampler(): expected input and grid of the same floating-point dtype, got {input.dtype} and {grid.dtype}")
    _, _, h, w = input.shape
    x = _unnormalize(grid[..., 0], w, align_corners)
    y = _unnormalize(grid[..., 1], h, align_corners)
    taps = _Taps(input)
    if mode == "bicubic":
        output = _bicubic(taps, x, y, padding_mode, align_corners)
    else:
        x, y = _padded(x, w, padding_mode, align_corners), _padded(y, h, padding_mode, align_corners)
        if mode == "nearest":
            output = taps(np.rint(np.asarray(y)).astype(np.int64), np.rint(np.asarray(x)).astype(np.int64))
        else:
            output = _bilinear(taps, x, y)
    return output.permute(0, 3, 1, 2)


def _bilinear(taps, x, y):
    left, top = np.floor(np.asarray(x)).astype(np.int64), np.floor(np.asarray(y)).astype(np.int64)
    right_weight = (x - from_numpy(left.astype(taps.dtype))).unsqueeze(-1)
    bottom_weight = (y - from_numpy(top.astype(taps.dtype))).unsqueeze(-1)
    left_weight, top_weight = (right_weight * -1) + 1, (bottom_weight * -1) + 1
    return (taps(top, left) * (top_weight * left_weight) + taps(top, left + 1) * (top_weight * right_weight)
            + taps(top + 1, left) * (bottom_weight * left_weight) + taps(top + 1, left + 1) * (bottom_weight * right_weight))


def _bicubic(taps, x, y, padding_mode, align_corners):
    left, top = np.floor(np.asarray(x)).astype(np.int64), np.floor(np.asarray(y)).astype(np.int64)
    column_weights = _keys_weights((x - from_numpy(left.astype(taps.dtype))).unsqueeze(-1))
    row_weights = _keys_weights((y - from_numpy(top.astype(taps.dtype))).unsqueeze(-1))
    output = None
    for i, row_weight in enumerate(row_weights):
        rows = _padded_taps(top + i - 1, taps.h, padding_mode, align_corners)
        row = None
        for j, column_weight in enumerate(column_weights):
            cols = _padded_taps(left + j - 1, taps.w, padding_mode, align_corners)
            term = taps(rows, cols) * column_weight
            row = term if row is None else row + term
        output = row * row_weight if output is None else output + row * row_weight
    return output
