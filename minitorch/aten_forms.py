"""PyTorch's top-level forms of nn functions (`torch.dropout`, `torch.layer_norm`, `torch.kl_div`, ...).

PyTorch exposes its ATen kernels at the top level with their own signatures:
flags are positional (`torch.dropout(x, p, train)`), the embedding table comes
first (`torch.embedding(weight, indices)`), norms take a trailing
`cudnn_enabled`, and losses take `reduction` as an integer (0 none, 1 mean,
2 sum; see torch/nn/_reduction.py). Left out, that integer is 0: PyTorch's
Python binding of these forms returns the unreduced loss by default (measured
on torch 2.13), unlike nn.functional's "mean". Each form here translates its arguments
and calls the nn.functional function, so there is one implementation of each
computation. The forms whose signatures equal nn.functional's (conv2d, prelu,
pixel_shuffle, ...) are re-exported as they are in minitorch/__init__.py.
"""
import numpy as np

from .creation import from_numpy
from .nn import functional as F
from .nn._reduction import reduction_of_code
from .nn.functional.embedding import embedding_renorm_  # noqa: F401  (torch.embedding_renorm_)
from .ops.in_place_ops import twin

# ----- dropout: p and train are required and positional -----

def dropout(input, p, train):
    """F.dropout(input, p, training=train).

    >>> mt.dropout(mt.ones(3), 0.5, False)
    tensor([1., 1., 1.])
    """
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    """F.alpha_dropout(input, p, training=train)."""
    return F.alpha_dropout(input, p, train)


def feature_dropout(input, p, train):
    """Dropout of whole channels (dimension 1) of an (N, C, ...) input: F.dropout2d's rule for any rank."""
    return F.dropout2d(input, p, train) if input.ndim == 4 else F.dropout1d(input, p, train)


def feature_alpha_dropout(input, p, train):
    """F.feature_alpha_dropout(input, p, training=train)."""
    return F.feature_alpha_dropout(input, p, train)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """F.rrelu with a generator where F.rrelu has inplace (`mt.rrelu_` is F.rrelu_, which takes one too).

    >>> mt.rrelu(mt.tensor([-4.0, 2.0]), 0.25, 0.75)
    tensor([-2.,  2.])
    """
    return F.rrelu(input, lower, upper, training, generator=generator)


# the in-place forms
dropout_ = twin(dropout, "dropout_")
alpha_dropout_ = twin(alpha_dropout, "alpha_dropout_")
feature_dropout_ = twin(feature_dropout, "feature_dropout_")
feature_alpha_dropout_ = twin(feature_alpha_dropout, "feature_alpha_dropout_")


# ----- embedding and normalization: ATen's argument order -----

def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of `weight` picked by `indices` (the table comes first); padding_idx=-1 means none.

    >>> mt.embedding(mt.tensor([[0.0, 1.0], [2.0, 3.0]]), mt.tensor([1, 1, 0]))
    tensor([[2., 3.],
            [2., 3.],
            [0., 1.]])
    """
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """F.batch_norm with ATen's argument order (cudnn_enabled is ignored: there is no cuDNN)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """F.instance_norm with ATen's argument order (cudnn_enabled is ignored)."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """F.layer_norm (cudnn_enable is ignored)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """F.group_norm (cudnn_enabled is ignored)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The convolution of F.conv1d/conv2d, or F.conv_transpose1d/2d when `transposed`, chosen by the rank of weight."""
    if weight.ndim not in (3, 4):
        raise NotImplementedError(f"convolution: only 1-d and 2-d convolutions exist, got a weight of shape "
                                  f"{tuple(weight.shape)}")
    if transposed:
        conv = F.conv_transpose1d if weight.ndim == 3 else F.conv_transpose2d
        return conv(input, weight, bias, stride, padding, output_padding, groups, dilation)
    conv = F.conv1d if weight.ndim == 3 else F.conv2d
    return conv(input, weight, bias, stride, padding, dilation, groups)


def constant_pad_nd(input, pad, value=0):
    """F.pad(input, pad, "constant", value)."""
    return F.pad(input, pad, "constant", value)


# ----- pooling that returns its indices -----

def adaptive_max_pool1d(input, output_size):
    """(values, indices) of F.adaptive_max_pool1d, as the top-level form returns both."""
    return F.adaptive_max_pool1d_with_indices(input, output_size)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """F.max_pool1d; an empty stride means the kernel size."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """F.max_pool2d; an empty stride means the kernel size."""
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """F.embedding_bag with the table first and `mode` 0 (sum), 1 (mean) or 2 (max), returning PyTorch's four
    tensors: the bags, offset2bag (each index's bag; for sum only with padding_idx), bag_size (zeros for sum) and max_indices
    (each bag's row picked per column for max; bag_size for mean; zeros for sum). `indices` is 1-D, cut into
    bags at `offsets` (PyTorch's form mixes up a 2-D input's bags in mean mode; F.embedding_bag takes one).

    >>> weight = mt.arange(12.0).reshape(4, 3)
    >>> output, offset2bag, bag_size, max_indices = mt.embedding_bag(weight, mt.tensor([0, 2, 1, 3, 3]),
    ...                                                             mt.tensor([0, 2]), False, 2)
    >>> output.tolist(), offset2bag.tolist(), bag_size.tolist(), max_indices.tolist()
    ([[6.0, 7.0, 8.0], [9.0, 10.0, 11.0]], [0, 0, 1, 1, 1], [2, 3], [[2, 2, 2], [3, 3, 3]])
    """
    if mode not in _BAG_MODES:
        raise RuntimeError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode!r}")
    if indices.ndim != 1:
        raise RuntimeError(f"embedding_bag: expected 1-D indices cut into bags at offsets, got shape "
                           f"{tuple(indices.shape)} (F.embedding_bag takes a 2-D input, one bag per row)")
    output = F.embedding_bag(indices, weight, offsets,
                             scale_grad_by_freq=scale_grad_by_freq, mode=_BAG_MODES[mode], sparse=sparse,
                             per_sample_weights=per_sample_weights, include_last_offset=include_last_offset,
                             padding_idx=padding_idx)
    ids = np.asarray(indices)
    starts = np.asarray(offsets)[:-1] if include_last_offset else np.asarray(offsets)
    bag_of = np.searchsorted(starts, np.arange(ids.size), side="right") - 1
    bags = output.shape[0]
    counted = ids != padding_idx if padding_idx is not None else np.ones(ids.size, bool)
    bag_size = np.bincount(bag_of[counted], minlength=bags).astype(np.int64)
    if mode == 0:  # PyTorch's sum keeps no sizes (zeros, one per offset), and offset2bag only with padding_idx
        slots = len(np.asarray(offsets))
        offset2bag = bag_of if padding_idx is not None else np.zeros(0, np.int64)
        return output, from_numpy(offset2bag.astype(np.int64)), from_numpy(np.zeros(slots, np.int64)), \
            from_numpy(np.zeros(slots, np.int64))
    if mode == 1:
        return output, from_numpy(bag_of.astype(np.int64)), from_numpy(bag_size), from_numpy(bag_size.copy())
    table = np.asarray(weight.detach())
    picked = np.zeros((bags, table.shape[1]), np.int64)
    for bag in range(bags):
        rows = ids[(bag_of == bag) & counted]
        if rows.size:
            picked[bag] = rows[np.argmax(table[rows], axis=0)]
    return output, from_numpy(bag_of.astype(np.int64)), from_numpy(bag_size), from_numpy(picked)


# ----- losses: reduction is an integer -----

def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """F.binary_cross_entropy_with_logits with reduction 0, 1 or 2."""
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=reduction_of_code(reduction, "binary_cross_"
                                              "entropy_with_logits"), pos_weight=pos_weight)


def kl_div(input, target, reduction=0, *, log_target=False):
    """F.kl_div with reduction 0 (the default here), 1 or 2."""
    return F.kl_div(input, target, reduction=reduction_of_code(reduction, "kl_div"), log_target=log_target)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.cosine_embedding_loss with reduction 0, 1 or 2."""
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=reduction_of_code(reduction, "cosine_embedding_loss"))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """F.hinge_embedding_loss with reduction 0, 1 or 2."""
    return F.hinge_embedding_loss(input, target, margin, reduction=reduction_of_code(reduction, "hinge_embedding_loss"))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """F.margin_ranking_loss with reduction 0, 1 or 2."""
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=reduction_of_code(reduction, "margin_ranking_loss"))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """F.poisson_nll_loss with every argument positional and reduction 0, 1 or 2."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=reduction_of_code(reduction, "poisson_nll_loss"))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=0):
    """F.triplet_margin_loss with reduction 0, 1 or 2."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=reduction_of_code(reduction, "triplet_margin_loss"))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """F.ctc_loss with reduction 0, 1 or 2."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      reduction_of_code(reduction, "ctc_loss"), zero_infinity)
