"""Cases for the neural-network ops: convolution, pooling, fused softmax
cross-entropy and batch norm, and every gradient op they register."""
import numpy as np

import minitorch as mt
from minitorch.engine.execute import execute
from minitorch.ops.batch_norm_ops import fused_batch_norm
from minitorch.ops.conv_ops import conv2d
from minitorch.ops.loss_ops import (
    binary_cross_entropy, huber_loss, smooth_l1_loss, softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from minitorch.ops.pool_ops import adaptive_avg_pool2d, avg_pool2d, max_pool2d

from . import OpCase


def normal(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


def distinct(shape):
    """Values pairwise far apart, so each max-pool window has one clear winner."""
    def make(rng):
        n = int(np.prod(shape))
        return [((rng.permutation(n) - n / 2) * 0.1).reshape(shape)]
    return make


def conv_attrs(stride=(1, 1), padding=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    return {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}


STRIDED = conv_attrs(stride=(2, 1), padding=((1, 1), (0, 0)), dilation=(1, 2))
GROUPED = conv_attrs(padding=((1, 1), (1, 1)), groups=2)
MAX_ATTRS = {"kernel_size": (2, 2), "stride": (2, 2), "padding": (1, 0), "dilation": (1, 1), "ceil_mode": True}
AVG_ATTRS = {"kernel_size": (3, 2), "stride": (2, 2), "padding": (1, 1), "ceil_mode": True,
             "count_include_pad": False, "divisor_override": None}


def max_pool_argmax(shape=(2, 2, 4, 5)):
    """The argmax output of MaxPool on distinct values: the integer input of the gradient ops."""
    x = distinct(shape)(np.random.default_rng(1))[0]
    return execute("MaxPool", (mt.tensor(x),), MAX_ATTRS)[1]


def channels_last(x):
    """x with the memory layout the convolutions write, (N, H, W, C), under its (N, C, H, W) shape."""
    return x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)


def sparse_targets(rng):
    return [rng.standard_normal((3, 4)), rng.integers(0, 4, size=3)]


def probabilities(rng):
    labels = rng.uniform(0.1, 1.0, (3, 4))
    return [rng.standard_normal((3, 4)), labels / labels.sum(axis=1, keepdims=True)]


def probabilities_and_labels(rng):
    """Probabilities inside (0, 1), where the binary cross-entropy is smooth, and soft labels."""
    return [rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0.0, 1.0, (3, 4))]


def loss_and_backprop_squared(pair):
    """Both outputs enter the checked function, so the second-order term of backprop is exercised."""
    loss, backprop = pair
    return loss, backprop * backprop


CASES = [
    # Conv2D and its gradient ops
    OpCase("Conv2D", lambda x, w: conv2d(x, w), normal((2, 2, 4, 4), (3, 2, 3, 3))),
    OpCase("Conv2D", lambda x, w, b: conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)),
           normal((2, 2, 5, 5), (2, 2, 2, 2), (2,)), name="stride-padding-dilation-bias"),
    OpCase("Conv2D", lambda x, w: conv2d(x, w, padding=1, groups=2), normal((2, 4, 4, 4), (4, 2, 3, 3)), name="groups"),
    OpCase("Conv2D", lambda x, w: conv2d(x, w, padding="same"), normal((1, 2, 4, 4), (2, 2, 2, 2)), name="same-even-kernel"),
    OpCase("Conv2D", lambda x, w, b: conv2d(x, w, b, stride=2, padding=(2, 1), dilation=2, groups=3),
           normal((2, 6, 7, 6), (3, 2, 2, 3), (3,)), name="groups-stride-padding-dilation-bias"),
    OpCase("Conv2D", lambda x, w, b: conv2d(x, w, b, stride=(1, 3), padding=(0, 2)),
           normal((1, 9, 4, 7), (2, 9, 3, 1), (2,)), name="channel-rows-layout"),
    OpCase("BiasAddGrad", lambda dy: execute("BiasAddGrad", (dy,)) ** 2, normal((2, 3, 2, 4))),
    OpCase("Conv2DBackpropInput",
           lambda w, dy: execute("Conv2DBackpropInput", (w, dy), {**STRIDED, "input_shape": (2, 2, 5, 5)}),
           normal((2, 2, 2, 2), (2, 2, 3, 3))),
    OpCase("Conv2DBackpropInput",
           lambda w, dy: execute("Conv2DBackpropInput", (w, dy), {**GROUPED, "input_shape": (1, 4, 4, 4)}),
           normal((4, 2, 3, 3), (1, 4, 4, 4)), name="groups"),
    OpCase("Conv2DBackpropFilter",
           lambda x, dy: execute("Conv2DBackpropFilter", (x, dy), {**STRIDED, "filter_shape": (2, 2, 2, 2)}),
           normal((2, 2, 5, 5), (2, 2, 3, 3))),
    OpCase("Conv2DBackpropFilter",
           lambda x, dy: execute("Conv2DBackpropFilter", (x, dy), {**GROUPED, "filter_shape": (4, 2, 3, 3)}),
           normal((1, 4, 4, 4), (1, 4, 4, 4)), name="groups"),
    # pooling
    OpCase("MaxPool", lambda x: max_pool2d(x, 2), distinct((2, 2, 4, 4))),
    OpCase("MaxPool", lambda x: max_pool2d(channels_last(x), 2), distinct((2, 3, 4, 6)), name="channels-last"),
    OpCase("MaxPool", lambda x: max_pool2d(channels_last(x), 3, stride=2, padding=1), distinct((2, 3, 5, 5)),
           name="channels-last-overlapping"),
    OpCase("MaxPool", lambda x: max_pool2d(x, 3, stride=2, padding=1, dilation=(1, 2)), distinct((2, 2, 5, 5)),
           name="padding-dilation"),
    OpCase("MaxPool", lambda x: max_pool2d(x, 2, padding=(1, 0), ceil_mode=True), distinct((2, 2, 4, 5)), name="ceil-mode"),
    OpCase("MaxPoolGrad",
           lambda g: execute("MaxPoolGrad", (max_pool_argmax(), g), {"input_shape": (2, 2, 4, 5)}),
           normal((2, 2, 3, 3))),
    OpCase("MaxPoolGradGrad",
           lambda g: execute("MaxPoolGradGrad", (max_pool_argmax(), g), {"input_shape": (2, 2, 4, 5)}),
           normal((2, 2, 4, 5))),
    OpCase("AvgPool", lambda x: avg_pool2d(x, 2), normal((2, 2, 4, 4))),
    OpCase("AvgPool", lambda x: avg_pool2d(x, (3, 2), stride=2, padding=1, ceil_mode=True, count_include_pad=False),
           normal((2, 2, 5, 4)), name="ceil-mode-exclude-pad"),
    OpCase("AvgPool", lambda x: avg_pool2d(x, 3, stride=1, padding=1, divisor_override=4), normal((1, 2, 4, 4)),
           name="divisor-override"),
    OpCase("AvgPool", lambda x: adaptive_avg_pool2d(x, 2), normal((2, 2, 4, 4)), name="adaptive-divisible"),
    OpCase("MatMul", lambda x: adaptive_avg_pool2d(x, (3, 2)), normal((2, 2, 5, 5)), name="adaptive-overlapping"),
    OpCase("AvgPoolGrad",
           lambda g: execute("AvgPoolGrad", (g,), {**AVG_ATTRS, "input_shape": (2, 2, 5, 4)}),
           normal((2, 2, 3, 3))),
    # fused losses
    OpCase("SoftmaxCrossEntropyWithLogits", lambda logits, labels: softmax_cross_entropy_with_logits(logits, labels)[0],
           probabilities),
    OpCase("SoftmaxCrossEntropyWithLogits",
           lambda logits, labels: loss_and_backprop_squared(softmax_cross_entropy_with_logits(logits, labels)),
           probabilities, name="both-outputs"),
    OpCase("SparseSoftmaxCrossEntropyWithLogits",
           lambda logits, targets: sparse_softmax_cross_entropy_with_logits(logits, mt.tensor(targets))[0],
           sparse_targets),
    OpCase("SparseSoftmaxCrossEntropyWithLogits",
           lambda logits, targets: loss_and_backprop_squared(sparse_softmax_cross_entropy_with_logits(logits, mt.tensor(targets))),
           sparse_targets, name="both-outputs"),
    OpCase("BinaryCrossEntropy", binary_cross_entropy, probabilities_and_labels),
    OpCase("HuberLoss", lambda x, y: huber_loss(x, y, 0.7), normal((3, 4), (3, 4))),
    OpCase("SmoothL1Loss", lambda x, y: smooth_l1_loss(x, y, 0.7), normal((3, 4), (3, 4))),
    # batch norm
    OpCase("FusedBatchNorm", lambda x, scale, offset: fused_batch_norm(x, scale, offset)[0],
           normal((4, 3), (3,), (3,)), name="2d"),
    OpCase("FusedBatchNorm", lambda x, scale, offset: fused_batch_norm(x, scale, offset)[0] ** 2,
           normal((2, 2, 3, 3), (2,), (2,)), name="4d"),
    OpCase("FusedBatchNorm", lambda x, scale, offset: fused_batch_norm(x, scale, offset, eps=0.1),
           normal((3, 2, 2), (2,), (2,)), name="all-outputs"),
    OpCase("FusedBatchNorm", lambda x, scale, offset: fused_batch_norm(channels_last(x), scale, offset),
           normal((2, 3, 2, 3), (3,), (3,)), name="channels-last"),
]
