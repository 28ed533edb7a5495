"""Cases for the spatial nn surface: the Resample, Im2Col and Col2Im ops, and the functions
composed from ops (transposed and 1-D convolutions, paddings, interpolation, pooling by
argmax and unpooling, the normalizations) under the op each one runs, so that every one
is checked to first and second order and in forward mode."""
import numpy as np

import minitorch as mt
from minitorch.engine.execute import execute
from minitorch.ops.resample_ops import resample, taps_matrix

from . import OpCase

F = mt.nn.functional


def normal(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


def distinct(*shapes):
    """Values pairwise far apart, so that every max has one clear winner (smooth near the point)."""
    def make(rng):
        arrays = []
        for shape in shapes:
            n = int(np.prod(shape))
            arrays.append(((rng.permutation(n) - n / 2) * 0.1).reshape(shape))
        return arrays
    return make


def positive(*shapes):
    return lambda rng: [rng.uniform(0.5, 2.0, s) for s in shapes]


def grid_inputs(image_shape, grid_shape):
    """An image and grid positions in (-0.7, 0.7): seeded random points, which lie far (compared with the
    finite-difference step) from the integer pixel coordinates where the sampling weights have kinks."""
    def make(rng):
        return [rng.standard_normal(image_shape), rng.uniform(-0.7, 0.7, grid_shape)]
    return make


BLOCKS = {"kernel_size": (2, 3), "dilation": (1, 2), "padding": (1, 0), "stride": (2, 1)}
TAPS = taps_matrix(np.array([[0, 1], [1, 3], [3, 3]]), np.array([[0.25, 0.75], [0.5, 0.5], [1.0, 0.0]]), 4)

CASES = [
    # the ops
    OpCase("Resample", lambda x: resample(x, 1, TAPS), normal((2, 4, 3))),
    OpCase("Resample", lambda x: resample(x, 2, TAPS.T.tocsr()[:, :3]) * x[..., :1], normal((2, 3, 3)), name="adjoint-times-input"),
    OpCase("Im2Col", lambda x: execute("Im2Col", (x,), BLOCKS), normal((2, 2, 5, 6))),
    OpCase("Col2Im", lambda c: execute("Col2Im", (c,), {**BLOCKS, "output_size": (5, 6)}), normal((2, 12, 6))),
    OpCase("Im2Col", lambda x: F.fold(F.unfold(x, 2, padding=1) ** 2, (4, 3), 2, padding=1), normal((1, 2, 4, 3)),
           name="fold-of-unfold-squared"),
    # convolutions built from the Conv2D ops
    OpCase("Conv2DBackpropInput", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
           normal((2, 2, 3, 3), (2, 3, 3, 3), (3,)), name="conv-transpose2d-output-padding"),
    OpCase("Conv2DBackpropInput", lambda x, w: F.conv_transpose2d(x, w, stride=(3, 2), output_padding=(2, 1), groups=2, dilation=(1, 2)),
           normal((1, 4, 2, 3), (4, 1, 2, 2)), name="conv-transpose2d-groups-extra-rows"),
    OpCase("Conv2DBackpropInput", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1),
           normal((2, 2, 4), (2, 3, 3), (3,)), name="conv-transpose1d"),
    OpCase("Conv2D", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2), normal((2, 2, 7), (3, 2, 2), (3,)),
           name="conv1d"),
    OpCase("Conv2D", lambda x, w: mt.nn.functional.conv1d(F.pad(x, (2, 1), mode="circular"), w), normal((1, 2, 5), (2, 2, 3)),
           name="conv1d-circular-padding"),
    # paddings
    OpCase("StridedSliceGrad", lambda x: F.pad(x, (1, 2, 0, 1), value=0.5) ** 2, normal((2, 3, 4)), name="pad-constant"),
    OpCase("StridedSlice", lambda x: F.pad(x, (-1, 2, 1, -1)), normal((2, 3, 4)), name="pad-constant-cropping"),
    OpCase("Resample", lambda x: F.pad(x, (2, 3, 1, 1), mode="reflect") ** 2, normal((1, 2, 3, 4)), name="pad-reflect"),
    OpCase("Resample", lambda x: F.pad(x, (3, 1), mode="replicate") ** 2, normal((2, 2, 3)), name="pad-replicate"),
    OpCase("Resample", lambda x: F.pad(x, (1, 2, -1, 2), mode="circular") ** 2, normal((1, 1, 3, 4)), name="pad-circular"),
    # interpolation
    OpCase("Resample", lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"), normal((1, 2, 3, 4)), name="bilinear"),
    OpCase("Resample", lambda x: F.interpolate(x, scale_factor=1.7, mode="bicubic", align_corners=True) ** 2,
           normal((1, 1, 3, 4)), name="bicubic-align-corners"),
    OpCase("Resample", lambda x: F.interpolate(x, size=(2, 3), mode="bicubic", antialias=True), normal((1, 2, 7, 8)),
           name="bicubic-antialias"),
    OpCase("Resample", lambda x: F.interpolate(x, size=7, mode="linear") * x.mean(), normal((2, 2, 4)), name="linear"),
    OpCase("Resample", lambda x: F.interpolate(x, scale_factor=(1.5, 0.5), mode="nearest-exact"), normal((1, 1, 2, 4)),
           name="nearest-exact"),
    OpCase("Resample", lambda x: F.interpolate(x, size=(2, 3), mode="area"), normal((1, 2, 5, 7)), name="area"),
    # pooling by argmax and unpooling
    OpCase("MaxPoolGradGrad", lambda x: F.adaptive_max_pool2d(x, (2, 3)) ** 2, distinct((2, 2, 5, 4)),
           name="adaptive-max-pool2d"),
    OpCase("MaxPoolGradGrad", lambda x: F.adaptive_max_pool1d(x, 3) ** 2, distinct((2, 2, 7)), name="adaptive-max-pool1d"),
    OpCase("MaxPoolGradGrad", lambda x: F.fractional_max_pool2d(x, 2, output_size=(3, 2), _random_samples=mt.tensor(
           [[[0.3, 0.8]], [[0.6, 0.1]]], dtype=mt.float64)) ** 2, distinct((2, 1, 5, 4)), name="fractional-max-pool2d"),
    OpCase("MaxPoolGrad", lambda v: F.max_unpool2d(v, mt.tensor([[[[0, 3], [9, 14]]]]), 2, output_size=(4, 4)) ** 2,
           normal((1, 1, 2, 2)), name="max-unpool2d"),
    OpCase("MaxPool", lambda x: F.max_pool1d(x, 3, stride=2, padding=1) ** 2, distinct((2, 2, 7)), name="max-pool1d"),
    OpCase("AvgPool", lambda x: F.lp_pool2d(x, 3.0, 2, stride=1), positive((1, 2, 3, 3)), name="lp-pool2d"),
    OpCase("AvgPool", lambda x: F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False) ** 2, normal((2, 2, 6)),
           name="avg-pool1d"),
    # normalizations
    OpCase("FusedBatchNorm", lambda x, w, b: F.group_norm(x, 2, w, b), normal((2, 4, 3), (4,), (4,)), name="group-norm"),
    OpCase("FusedBatchNorm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), normal((2, 3, 2, 3), (3,), (3,)),
           name="instance-norm"),
    OpCase("Sqrt", lambda x, w: F.rms_norm(x, (3,), w), normal((2, 3), (3,)), name="rms-norm"),
    OpCase("Pow", lambda x: F.local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.0), normal((2, 4, 3)),
           name="local-response-norm"),
    OpCase("VectorNorm", lambda x: F.normalize(x, p=3.0, dim=1), normal((3, 4)), name="normalize-p3"),
    OpCase("MatMul", lambda x1, x2, w, b: F.bilinear(x1, x2, w, b), normal((3, 2), (3, 4), (5, 2, 4), (5,)), name="bilinear"),
    OpCase("Transpose", lambda x: F.pixel_unshuffle(F.pixel_shuffle(x, 2) ** 2, 2), normal((1, 8, 2, 3)), name="pixel-shuffles"),
    # spatial transformers: the grid positions are smooth away from integer pixel coordinates
    OpCase("GatherNd", lambda x, g: F.grid_sample(x, g * 0.9, align_corners=False), grid_inputs((1, 2, 3, 4), (1, 2, 3, 2)),
           name="grid-sample-bilinear-zeros"),
    OpCase("GatherNd", lambda x, g: F.grid_sample(x, g * 1.3, mode="bicubic", padding_mode="reflection", align_corners=True),
           grid_inputs((1, 1, 3, 4), (1, 2, 2, 2)), name="grid-sample-bicubic-reflection"),
    OpCase("GatherNd", lambda x, g: F.grid_sample(x, g * 1.5, padding_mode="border", align_corners=False) ** 2,
           grid_inputs((2, 1, 3, 3), (2, 1, 3, 2)), name="grid-sample-border"),
    OpCase("MatMul", lambda theta: F.affine_grid(theta, (2, 1, 3, 4), align_corners=False), normal((2, 2, 3)), name="affine-grid"),
]
