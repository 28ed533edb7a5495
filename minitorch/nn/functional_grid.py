"""affine_grid and grid_sample, as torch.nn.functional (spatial transformer networks), in 2-D.

Composed from ops, with PyTorch's arithmetic (aten/src/ATen/native/GridSampler.h:
grid_sampler_unnormalize, clip_coordinates, reflect_coordinates, the bilinear
corner weights, Keys' bicubic with A = -0.75): the sampling positions are
differentiable functions of the grid, the integer taps are found with numpy,
and the input values at the taps are gathered ("GatherNd", whose gradient
scatters back). So the input and the grid both get gradients, to any order.
Taps outside the input read zero (a constant mask), as PyTorch's.
"""
import warnings

import numpy as np

from ..creation import from_numpy
from ..errors import ShapeError
from ..ops import math_ops

MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")


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
    return math_ops.matmul(from_numpy(base), theta.transpose(1, 2)).reshape(n, h, w, 2)


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
    return math_ops.where(from_numpy(flips % 2 == 0), extra + low, (extra * -1) + (span + low))


def _padded(coordinate, size, padding_mode, align_corners):
    """compute_coordinates: 'border' clips into the input, 'reflection' reflects then clips, 'zeros' leaves as is."""
    if padding_mode == "border":
        return math_ops.clamp(coordinate, 0, size - 1)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        return math_ops.clamp(_reflect(coordinate, *twice), 0, size - 1)
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
    if mode not in MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: {mode!r}")
    if padding_mode not in PADDING_MODES:
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
