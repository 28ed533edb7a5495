"""Dropout and its variants (F.dropout, dropout1d/2d, alpha_dropout, feature_alpha_dropout), as PyTorch's
`_dropout_impl` (aten/src/ATen/native/Dropout.cpp).

A mask of kept elements (or, for the feature variants, of kept channels: noise
of shape (N, C, 1, ...)) is drawn from the global generator with probability
1 - p. Plain dropout scales what it keeps by 1 / (1 - p). Alpha dropout, made
for SELU networks, sets what it drops to SELU's negative saturation and then
applies an affine map a * x + b that keeps zero mean and unit variance.
The output is input * noise (+ b), so the gradient is noise * grad, from the
Mul op. With inplace=True the result is written into the input (the in-place
machinery of ops/in_place_ops.py).
"""
import math
import warnings

import numpy as np

from ... import random
from ...creation import from_numpy
from ...errors import ShapeError
from ...ops.in_place_ops import twin

# -SELU_ALPHA * SELU_SCALE: where SELU saturates for large negative inputs.
_ALPHA = 1.7580993408473766


def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, p, training, feature=False, alpha=False):
    """PyTorch's _dropout_impl<feature_dropout, alpha_dropout>, out of place."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input * 0.0
    if feature:
        if input.ndim < 2:
            raise ShapeError(f"Feature dropout requires at least 2 dimensions in the input, got shape {tuple(input.shape)}")
        noise_shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    else:
        noise_shape = tuple(input.shape)
    dtype = np.asarray(input).dtype
    keep = (random.generator().random(noise_shape) >= p).astype(dtype)
    if not alpha:
        return input * from_numpy((keep / (1.0 - p)).astype(dtype))
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    shift = ((keep - 1.0) * (_ALPHA * a) + _ALPHA * a * p).astype(dtype)
    return input * from_numpy((keep * a).astype(dtype)) + from_numpy(shift)


def _apply(function, input, p, training, inplace):
    _check_p(p)
    if not inplace:
        return function(input, p, training)
    if p == 0 or not training:
        return input
    return _IN_PLACE[function](input, p, training)


def _elementwise(input, p, training):
    return _dropout(input, p, training)


def _alpha(input, p, training):
    return _dropout(input, p, training, alpha=True)


def _feature_alpha(input, p, training):
    return _dropout(input, p, training, feature=True, alpha=True)


def _channels_1d(input, p, training):
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d exists to "
            "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional "
            "batch dimension (i.e. 2D or 3D inputs)."
        )
    if input.ndim == 2:
        return _dropout(input.unsqueeze(0), p, training, feature=True).squeeze(0)
    return _dropout(input, p, training, feature=True)


def _channels_2d(input, p, training):
    return _dropout(input, p, training, feature=True)


_IN_PLACE = {fn: twin(fn, name) for fn, name in (
    (_elementwise, "dropout_"), (_alpha, "alpha_dropout_"), (_feature_alpha, "feature_alpha_dropout_"),
    (_channels_1d, "dropout1d_"), (_channels_2d, "dropout2d_"),
)}


def dropout(input, p=0.5, training=True, inplace=False):
    """Inverted dropout: zeroes each element with probability p and scales the rest by 1/(1-p).

    The mask comes from the global generator (mt.manual_seed); inplace=True writes into `input`.

    >>> x = mt.ones(4)
    >>> F.dropout(x, p=0.5, training=False).tolist()  # identity outside training
    [1.0, 1.0, 1.0, 1.0]
    >>> sorted(set(F.dropout(x, p=0.5).tolist())) in ([0.0], [2.0], [0.0, 2.0])
    True
    """
    return _apply(_elementwise, input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout (for SELU networks): dropped elements become SELU's saturation value, then an
    affine map keeps the mean at 0 and the variance at 1. Note PyTorch's default training=False.

    >>> _ = mt.manual_seed(0)
    >>> y = F.alpha_dropout(mt.randn(10000), p=0.2, training=True)
    >>> round(float(y.mean()), 1), round(float(y.std()), 1)
    (0.0, 1.0)
    """
    return _apply(_alpha, input, p, training, inplace)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (dimension 1) of an (N, C, ...) input.

    >>> y = F.feature_alpha_dropout(mt.ones(2, 3, 4), p=0.5, training=True)
    >>> bool((y == y[:, :, :1]).all())  # one value per channel
    True
    """
    return _apply(_feature_alpha, input, p, training, inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs with probability p, scaling the rest by 1/(1-p).

    >>> y = F.dropout1d(mt.ones(4, 3, 5), p=0.5)
    >>> bool((y == y[:, :, :1]).all())  # each channel kept or dropped as a whole
    True
    """
    return _apply(_channels_1d, input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) inputs with probability p, scaling the rest by 1/(1-p).

    As in PyTorch, a 3-D input is taken as (N, C, L) (with a warning), not as an unbatched (C, H, W).

    >>> y = F.dropout2d(mt.ones(2, 3, 4, 4), p=0.5)
    >>> bool((y == y[:, :, :1, :1]).all())
    True
    """
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result in an error "
            "in a future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            "that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial dimensions, a channel "
            "dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired "
            "- input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a "
            "future release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
            "the 1D channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _apply(_channels_2d, input, p, training, inplace)
