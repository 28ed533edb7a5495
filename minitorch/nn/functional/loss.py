"""Loss functions, as torch.nn.functional computes them (aten/src/ATen/native/Loss.cpp and friends):
regression (mse, l1, smooth_l1, huber), classification (binary_cross_entropy[_with_logits], nll_loss,
cross_entropy, multi_margin, multilabel_margin, multilabel_soft_margin), likelihoods (kl_div,
poisson_nll, gaussian_nll, ctc), margins and embeddings (margin_ranking, hinge_embedding, soft_margin,
cosine_embedding, triplet_margin[_with_distance]) and linear_cross_entropy. How a loss is reduced
(`reduction`, and the legacy `size_average` and `reduce`) is nn/_reduction.py.

Cross-entropy runs on the fused softmax cross-entropy ops (loss_ops), as
TensorFlow's `sparse_softmax_cross_entropy_with_logits`, for stability and
speed; class weights, ignore_index and label smoothing are applied around it
with PyTorch's exact mean: the sum of the per-element losses divided by the
sum of the weights of the targets that are not ignored. The other losses are
compositions of existing ops, so their gradients of every order come from
theirs. Hinges are relu(z) or clamp(z, min=0) exactly where PyTorch uses
`z > 0` or `clamp_min`, so the derivative at the hinge is PyTorch's.
"""
import math
import warnings

import numpy as np

from ...creation import from_numpy
from ...errors import ShapeError
from ...ops import (
    activation_ops, coercion, comparison_ops, exponential_ops, loss_ops, product_ops, reduction_ops, special_ops,
)
from ...ops.ctc_ops import ctc_loss_per_sample
from ...ops.loss_ops import EPSILON  # PyTorch's Loss.cpp's, a float32
from ...tensor import Tensor
from .._reduction import checked_reduction, check_reduction, legacy_reduction, reduce_loss, reduce_weighted_loss
from .activation import logsigmoid
from .distance import _clamped_min, pairwise_distance


def _as_float_target(input, target, name, same_shape=False):
    """The target as a floating tensor of input's dtype; warns (or raises) on shape mismatch as PyTorch."""
    if not isinstance(target, Tensor):
        raise TypeError(f"{name}: target must be a Tensor, got {type(target).__name__}")
    if target.dtype.category == 1:  # integer
        raise TypeError(f"{name}: expected a floating point target like the input ({input.dtype}), got {target.dtype}")
    if tuple(target.shape) != tuple(input.shape):
        if same_shape:
            raise ValueError(f"{name}: target size {tuple(target.shape)} must be the same as input size {tuple(input.shape)}")
        try:
            np.broadcast_shapes(input.shape, target.shape)
        except ValueError:
            raise ShapeError(f"{name}: target of shape {tuple(target.shape)} cannot broadcast to input of shape {tuple(input.shape)}") from None
        warnings.warn(
            f"{name}: using a target size {tuple(target.shape)} that is different to the input size {tuple(input.shape)}. "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )
    return coercion.cast(target, input.dtype)


# ----- regression losses -----

def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)^2, reduced.

    >>> mt.nn.functional.mse_loss(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 4.0])).item()
    2.0
    """
    reduction = checked_reduction(size_average, reduce, reduction, "mse_loss")
    diff = input - _as_float_target(input, target, "mse_loss")
    return reduce_weighted_loss(diff * diff, reduction, weight, input, "mse_loss")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target|, reduced.

    >>> mt.nn.functional.l1_loss(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 4.0]), reduction="sum").item()
    2.0
    """
    reduction = checked_reduction(size_average, reduce, reduction, "l1_loss")
    return reduce_weighted_loss((input - _as_float_target(input, target, "l1_loss")).abs(), reduction, weight, input,
                            "l1_loss")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target), then the reduction.

    >>> F.smooth_l1_loss(mt.tensor([0.5, 3.0]), mt.zeros(2), reduction="none")
    tensor([0.1250, 2.5000])
    """
    reduction = checked_reduction(size_average, reduce, reduction, "smooth_l1_loss")
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    target = _as_float_target(input, target, "smooth_l1_loss")
    if beta == 0:
        return reduce_loss((input - target).abs(), reduction)
    return reduce_loss(loss_ops.smooth_l1_loss(input, target, beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (d = input - target), then the reduction.

    >>> F.huber_loss(mt.tensor([0.5, 3.0]), mt.zeros(2), delta=2.0, reduction="none")
    tensor([0.1250, 4.0000])
    """
    check_reduction(reduction, "huber_loss")
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    target = _as_float_target(input, target, "huber_loss")
    return reduce_weighted_loss(loss_ops.huber_loss(input, target, delta), reduction, weight, input, "huber_loss",
                            mean_over_weight=False)


# ----- binary classification -----

def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """-[pos_weight y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))], computed stably from the logits x.

    PyTorch's form (Loss.cpp): (1 - y) x - l log sigmoid(x), l = 1 + (pos_weight - 1) y, with
    log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)): no exp of a large positive number, no log of 0,
    and the same inf and nan as PyTorch at x = +-inf (and the same rounding: x = -50, y = 0 gives 0,
    not log1p(e^-50) = 1.9e-22). Its derivative, (1 - y) - l sigmoid(-x),
    is sigmoid(x) - y without pos_weight, at x = 0 too (logsigmoid's `where`s are two-sided).

    >>> loss = mt.nn.functional.binary_cross_entropy_with_logits(mt.tensor([0.0]), mt.tensor([1.0]))
    >>> round(loss.item(), 4)  # -log sigmoid(0) = log 2
    0.6931
    """
    reduction = checked_reduction(size_average, reduce, reduction, "binary_cross_entropy_with_logits")
    target = _as_float_target(input, target, "binary_cross_entropy_with_logits", same_shape=True)
    log_sigmoid = logsigmoid(input)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - log_sigmoid
    if weight is not None:
        loss = loss * weight
    return reduce_loss(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-[y log(x) + (1 - y) log(1 - x)] on probabilities x, each log clamped at -100 as PyTorch does.

    The gradient is PyTorch's, (x - y) / max(x (1 - x), 1e-12): finite at x = 0 and 1 (the
    "BinaryCrossEntropy" op in ops/loss_ops.py).

    >>> F.binary_cross_entropy(mt.tensor([0.8, 0.4]), mt.tensor([1.0, 0.0]), reduction="none")
    tensor([0.2231, 0.5108])
    """
    reduction = checked_reduction(size_average, reduce, reduction, "binary_cross_entropy")
    target = _as_float_target(input, target, "binary_cross_entropy", same_shape=True)
    values = np.asarray(input)
    if values.size and (np.any(values < 0) or np.any(values > 1) or np.any(np.isnan(values))):
        raise RuntimeError("binary_cross_entropy: all elements of input should be between 0 and 1")
    loss = loss_ops.binary_cross_entropy(input, target)
    if weight is not None:
        loss = loss * weight
    return reduce_loss(loss, reduction)


# ----- multi-class classification -----

def _class_last_2d(t):
    """(N, C, d1, ...) -> (N * d1 * ..., C): the class dimension moved last, the rest flattened."""
    if t.ndim == 2:
        return t
    perm = (0,) + tuple(range(2, t.ndim)) + (1,)
    return t.permute(*perm).reshape(-1, t.shape[1])


def _class_targets(input, target, name, ignore_index=None):
    """Integer class targets checked against input (N, C, d1, ...) (nll_loss, cross_entropy,
    multi_margin_loss): (flat int64 targets, ignored mask), the mask None when no target is ignored."""
    expected = tuple(input.shape[:1]) + tuple(input.shape[2:])
    if tuple(target.shape) != expected:
        raise ShapeError(
            f"{name}: expected target of shape {expected} for input of shape {tuple(input.shape)}, got target of shape {tuple(target.shape)}"
        )
    flat = np.asarray(target).reshape(-1).astype(np.int64, copy=False)
    classes = input.shape[1]
    ignoring = ignore_index is not None and 0 <= ignore_index < classes
    if flat.size and 0 <= flat.min() and flat.max() < classes and not ignoring:
        return flat, None  # the common case, every target a class and none ignored: two passes, not six
    ignored = flat == ignore_index if ignore_index is not None else np.zeros(flat.shape, np.bool_)
    bad = flat[~ignored & ((flat < 0) | (flat >= classes))]
    if bad.size:
        raise IndexError(f"{name}: target out of range: Target {bad[0]} is out of bounds (input has {classes} classes, "
                         f"shape {tuple(input.shape)})")
    return np.where(ignored, 0, flat), ignored


def _weighted_mean_or_sum(per_element, weight_of_target, ignored, reduction, target_shape):
    """Zeroes ignored elements; 'mean' divides by the total weight of the targets kept (PyTorch's rule).

    `where`, not a product with a 0/1 mask: an ignored element's gradient is exactly 0 even when
    the mean's is not finite (every target ignored: 1 / 0), as in PyTorch's nll_loss_backward,
    which never writes the rows it ignores.
    """
    if ignored is not None and ignored.any():
        per_element = comparison_ops.where(from_numpy(ignored), 0.0, per_element)
    if reduction == "none":
        return per_element.reshape(target_shape)
    if reduction == "sum":
        return per_element.sum()
    if weight_of_target is None:
        return per_element.mean() if ignored is None else per_element.sum() / float((~ignored).sum())
    if ignored is not None:
        weight_of_target = weight_of_target * from_numpy((~ignored).astype(np.asarray(weight_of_target).dtype))
    return per_element.sum() / weight_of_target.sum()


def _check_class_input(input, weight, name):
    if input.ndim < 1 or not input.is_floating_point():
        raise TypeError(f"{name}: expected a floating point input of shape (N, C, ...) or (C,), got {input.dtype} of shape {tuple(input.shape)}")
    classes = input.shape[1] if input.ndim >= 2 else input.shape[0]
    if weight is not None and tuple(weight.shape) != (classes,):
        raise ShapeError(f"{name}: weight should be a 1D tensor of size {classes} (the classes of input {tuple(input.shape)}), got shape {tuple(weight.shape)}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-weight[t] * input[n, t] for log-probabilities input (N, C, d1, ...) and class targets t (N, d1, ...).

    >>> log_probs = mt.tensor([[-0.5, -1.0], [-2.0, -0.1]])
    >>> round(mt.nn.functional.nll_loss(log_probs, mt.tensor([0, 1])).item(), 4)  # (0.5 + 0.1) / 2
    0.3
    """
    reduction = checked_reduction(size_average, reduce, reduction, "nll_loss")
    _check_class_input(input, weight, "nll_loss")
    if input.ndim == 1:
        # A single sample of C log-probabilities with a 0-d target.
        return nll_loss(input.unsqueeze(0), target.reshape(1), weight, None, ignore_index, None, reduction).reshape(())
    if target.dtype.category != 1:
        raise RuntimeError(f"nll_loss: expected target of integer dtype (class indices), got {target.dtype}")
    targets, ignored = _class_targets(input, target, "nll_loss", ignore_index)
    log_probs = _class_last_2d(input)
    rows = from_numpy(np.arange(targets.size))
    per_element = -log_probs[rows, from_numpy(targets)]
    weight_of_target = None
    if weight is not None:
        weight_of_target = weight[from_numpy(targets)]
        per_element = per_element * weight_of_target
    return _weighted_mean_or_sum(per_element, weight_of_target, ignored, reduction, target.shape)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Softmax cross-entropy of logits (N, C, d1, ...) with class indices (N, d1, ...) or probabilities (N, C, d1, ...).

    >>> logits = mt.tensor([[2.0, 0.5, -1.0]])
    >>> F.cross_entropy(logits, mt.tensor([0]))
    tensor(0.2413)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "cross_entropy")
    _check_class_input(input, weight, "cross_entropy")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.ndim == 1:  # a single sample of C logits
        target = target.unsqueeze(0)
        return cross_entropy(input.unsqueeze(0), target, weight, None, ignore_index, None, reduction, label_smoothing).reshape(
            target.shape[1:] if reduction == "none" else ()
        )
    if target.is_floating_point():
        return _cross_entropy_probabilities(input, target, weight, ignore_index, reduction, label_smoothing)
    if target.dtype.category != 1:
        raise RuntimeError(f"cross_entropy: expected target of integer dtype (class indices) or floating dtype (probabilities), got {target.dtype}")
    classes = input.shape[1]
    targets, ignored = _class_targets(input, target, "cross_entropy", ignore_index)
    logits = _class_last_2d(input)
    target_tensor = from_numpy(targets)
    weight_of_target = None if weight is None else weight[target_tensor]
    if label_smoothing == 0.0:
        per_element, _ = loss_ops.sparse_softmax_cross_entropy_with_logits(logits, target_tensor)
        if weight is not None:
            per_element = per_element * weight_of_target
    elif weight is None:
        # Smoothed one-hot labels still sum to 1: the fused dense op applies.
        smooth = np.full((targets.size, classes), label_smoothing / classes, dtype=np.asarray(logits).dtype)
        smooth[np.arange(targets.size), targets] += 1.0 - label_smoothing
        per_element, _ = loss_ops.softmax_cross_entropy_with_logits(logits, from_numpy(smooth))
    else:
        # PyTorch: (1 - eps) * weighted NLL + eps / C * sum_c -weight_c log p_c, each reduced on its
        # own (a mean over targets of total weight 0 is then nan + inf = nan, as in PyTorch).
        nll, _ = loss_ops.sparse_softmax_cross_entropy_with_logits(logits, target_tensor)
        spread = -(reduction_ops.log_softmax(logits, 1) * weight).sum(dim=1)
        nll = _weighted_mean_or_sum(nll * weight_of_target, weight_of_target, ignored, reduction, target.shape)
        spread = _weighted_mean_or_sum(spread, weight_of_target, ignored, reduction, target.shape)
        return (1.0 - label_smoothing) * nll + (label_smoothing / classes) * spread
    return _weighted_mean_or_sum(per_element, weight_of_target, ignored, reduction, target.shape)


def _cross_entropy_probabilities(input, target, weight, ignore_index, reduction, label_smoothing):
    if tuple(target.shape) != tuple(input.shape):
        raise ShapeError(
            f"cross_entropy: a probability target must have the input's shape {tuple(input.shape)}, got {tuple(target.shape)}"
        )
    if ignore_index >= 0:
        raise ValueError("cross_entropy: ignore_index is not supported for floating point (probability) targets")
    classes = input.shape[1]
    logits = _class_last_2d(input)
    labels = _class_last_2d(coercion.cast(target, input.dtype))
    if label_smoothing > 0.0:
        labels = labels * (1.0 - label_smoothing) + label_smoothing / classes
    # The fused op's logits gradient, softmax - labels, holds only for rows that sum to 1 (as in
    # TensorFlow); PyTorch accepts any non-negative targets, so other rows take the composed form.
    if weight is None and np.allclose(np.asarray(labels).sum(axis=1), 1.0, rtol=0.0, atol=1e-5):
        per_element, _ = loss_ops.softmax_cross_entropy_with_logits(logits, labels)
    else:
        log_probs = reduction_ops.log_softmax(logits, 1)
        per_element = -(log_probs * labels * (weight if weight is not None else 1.0)).sum(dim=1)
    batch_shape = tuple(input.shape[:1]) + tuple(input.shape[2:])
    if reduction == "none":
        return per_element.reshape(batch_shape)
    return per_element.sum() if reduction == "sum" else per_element.mean()


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The multi-class hinge: sum over classes i != y of max(0, margin - x[y] + x[i])^p (times weight[y]) / C.

    >>> F.multi_margin_loss(mt.tensor([[0.1, 0.2, 0.4, 0.8]]), mt.tensor([3]))
    tensor(0.3250)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "multi_margin_loss")
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    if input.ndim not in (1, 2) or input.ndim == 2 and input.shape[1] == 0:
        raise ShapeError(f"multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch size, but "
                         f"got: {list(input.shape)}")
    rows = input.reshape(1, -1) if input.ndim == 1 else input
    labels = np.asarray(target)
    if labels.dtype.kind not in "iu":
        raise TypeError(f"multi_margin_loss: expected an integer (class index) target, got {target.dtype}")
    if labels.ndim > 1 or labels.size != rows.shape[0]:
        raise ShapeError(f"multi_margin_loss: inconsistent target size: {list(target.shape)} for input of size: "
                         f"{list(input.shape)}")
    targets, _ = _class_targets(rows, labels.reshape(-1), "multi_margin_loss")
    n, classes = rows.shape
    picked = rows[from_numpy(np.arange(n)), from_numpy(targets)].unsqueeze(1)
    hinge = activation_ops.relu(margin - picked + rows)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight[from_numpy(targets)].unsqueeze(1)
    others = np.ones((n, classes), dtype=np.asarray(rows).dtype)
    others[np.arange(n), targets] = 0
    loss = (hinge * from_numpy(others)).sum(dim=1) / classes
    if input.ndim == 1 and reduction == "none":
        loss = loss.reshape(())
    return reduce_loss(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge: for each listed target class j and each class i not listed,
    max(0, 1 - (x[j] - x[i])), summed and divided by C. A row of target lists class indices
    and ends at the first -1.

    >>> F.multilabel_margin_loss(mt.tensor([[0.1, 0.2, 0.4, 0.8]]), mt.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "multilabel_margin_loss")
    if input.ndim not in (0, 1, 2) or tuple(target.shape) != tuple(input.shape):
        raise ShapeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of size: "
                         f"{list(input.shape)}")
    rows = input.reshape(1, -1) if input.ndim < 2 else input
    labels = np.asarray(target).reshape(rows.shape).astype(np.int64)
    n, classes = rows.shape
    listed_counts = np.zeros((n, classes), dtype=np.asarray(rows).dtype)
    for i, row in enumerate(labels):
        ends = np.nonzero(row == -1)[0]
        listed = row[: ends[0] if ends.size else classes]
        if listed.size and (listed.min() < 0 or listed.max() >= classes):
            raise IndexError(f"multilabel_margin_loss: target index out of range (targets must lie in [0, {classes}) "
                             f"or be -1)")
        np.add.at(listed_counts[i], listed, 1)
    not_listed = (listed_counts == 0).astype(listed_counts.dtype)
    pairs = from_numpy(listed_counts[:, :, None] * not_listed[:, None, :])  # (n, target class j, other class i)
    hinge = activation_ops.relu(1 - rows.unsqueeze(2) + rows.unsqueeze(1))
    loss = (hinge * pairs).sum(dim=(1, 2)) / classes
    if input.ndim < 2 and reduction == "none":
        loss = loss.reshape(())
    return reduce_loss(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The mean over classes of the binary logistic loss -[y log sigmoid(x) + (1 - y) log sigmoid(-x)].

    >>> F.multilabel_soft_margin_loss(mt.tensor([[0.0, 2.0]]), mt.tensor([[1.0, 0.0]]))
    tensor(1.4100)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "multilabel_soft_margin_loss")
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return reduce_loss(loss, reduction)


# ----- likelihoods -----

def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence target * (log target - input), input being log-probabilities.

    reduction='batchmean' divides the sum by the batch size (the true KL divergence); 'mean'
    divides by the number of elements and warns, as PyTorch does. target log target is
    xlogy(target, target), as in PyTorch, so target's gradient is nan where target is 0
    (its d/dy term 0 / 0), as PyTorch's is.

    >>> log_q = mt.tensor([[0.25, 0.75]]).log()
    >>> F.kl_div(log_q, mt.tensor([[0.5, 0.5]]), reduction="batchmean")
    tensor(0.1438)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    target = _as_float_target(input, target, "kl_div")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = special_ops.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim != 0 else total
    return reduce_loss(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log-likelihood: exp(input) - target * input (log_input), else input - target * log(input + eps).

    full=True adds Stirling's term target log target - target + log(2 pi target) / 2 where target > 1.
    The term is computed everywhere and masked, as in PyTorch, so target's gradient is nan at
    target = 0 (0 times log 0), as PyTorch's is.

    >>> F.poisson_nll_loss(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 2.0]))
    tensor(0.8591)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "poisson_nll_loss")
    target = _as_float_target(input, target, "poisson_nll_loss")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + comparison_ops.where(target > 1, stirling, 0.0)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood (log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2.

    `var` may be one variance per element, one per row (one dimension short, or one
    dimension of size 1), or a float. The clamp at eps does not stop var's
    gradient (PyTorch clamps in place under no_grad).

    >>> F.gaussian_nll_loss(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 1.0]), mt.tensor([1.0, 2.0]))
    tensor(0.4233)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input * 0.0 + var
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(reduction + " is not valid")
    var = _clamped_min(var, eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


# ----- margins and embeddings -----

def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), target being 1 or -1.

    >>> F.margin_ranking_loss(mt.tensor([1.0, 0.2]), mt.tensor([0.5, 0.5]), mt.tensor([1.0, 1.0]), margin=0.1)
    tensor(0.2000)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "margin_ranking_loss")
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{tuple(input1.shape)}, input2: {tuple(input2.shape)}, target: {tuple(target.shape)} "
        )
    return reduce_loss(comparison_ops.clamp(-target * (input1 - input2) + margin, min=0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where target is -1.

    >>> F.hinge_embedding_loss(mt.tensor([0.3, 0.3]), mt.tensor([1.0, -1.0]), reduction="none")
    tensor([0.3000, 0.7000])
    """
    reduction = checked_reduction(size_average, reduce, reduction, "hinge_embedding_loss")
    margin_term = comparison_ops.where(target != 1, comparison_ops.clamp(margin - input, min=0), 0.0)
    self_term = comparison_ops.where(target != -1, input, 0.0)
    return reduce_loss(margin_term + self_term, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), the two-class logistic loss (target 1 or -1).

    >>> F.soft_margin_loss(mt.tensor([0.0, 2.0]), mt.tensor([1.0, -1.0]), reduction="none")
    tensor([0.6931, 2.1269])
    """
    reduction = checked_reduction(size_average, reduce, reduction, "soft_margin_loss")
    return reduce_loss(exponential_ops.log1p((-input * target).exp()), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where target is -1.

    >>> F.cosine_embedding_loss(mt.tensor([[1.0, 0.0]]), mt.tensor([[1.0, 1.0]]), mt.tensor([1]))
    tensor(0.2929)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "cosine_embedding_loss")
    if target.ndim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = 2 if target.ndim == 1 else 1
    if input1.ndim != expected or input2.ndim != expected:
        raise RuntimeError(
            f"{target.ndim}D target tensor expects {expected}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    dim = target.ndim
    product = (input1 * input2).sum(dim=dim)
    squares1 = (input1 * input1).sum(dim=dim) + EPSILON
    squares2 = (input2 * input2).sum(dim=dim) + EPSILON
    cos = product / (squares1 * squares2).sqrt()
    loss = comparison_ops.where(target == 1, 1 - cos, 0.0) + comparison_ops.where(target == -1, comparison_ops.clamp(cos - margin, min=0), 0.0)
    return reduce_loss(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin) with d the pairwise p-norm distance (swap: d(a, n) -> min(d(a, n), d(p, n))).

    >>> a, pos, neg = mt.tensor([[0.0, 0.0]]), mt.tensor([[0.0, 1.0]]), mt.tensor([[3.0, 0.0]])
    >>> F.triplet_margin_loss(a, pos, neg, margin=2.5, eps=0.0)
    tensor(0.5000)
    """
    reduction = checked_reduction(size_average, reduce, reduction, "triplet_margin_loss")
    return triplet_margin_with_distance_loss(
        anchor, positive, negative, distance_function=lambda x, y: pairwise_distance(x, y, p, eps), margin=margin,
        swap=swap, reduction=reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin) with any distance function d (default: pairwise_distance).

    >>> a, pos, neg = mt.tensor([[0.0, 0.0]]), mt.tensor([[0.0, 1.0]]), mt.tensor([[3.0, 0.0]])
    >>> cosine_distance = lambda x, y: 1.0 - F.cosine_similarity(x + 1, y + 1)
    >>> F.triplet_margin_with_distance_loss(a, pos, neg, distance_function=cosine_distance)
    tensor(0.9088)
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
            f"anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    positive_distance = distance(anchor, positive)
    negative_distance = distance(anchor, negative)
    if swap:
        negative_distance = comparison_ops.minimum(negative_distance, distance(positive, negative))
    return reduce_loss(comparison_ops.clamp(margin + positive_distance - negative_distance, min=0), reduction)


# ----- sequences -----

def _lengths(lengths, name, batch):
    values = np.asarray(lengths.detach().numpy() if hasattr(lengths, "detach") else lengths).reshape(-1)
    if values.dtype.kind not in "iu":
        raise TypeError(f"ctc_loss: {name} must be integers, got {values.dtype}")
    if values.shape[0] != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    return values.astype(np.int64)


def _padded_targets(targets, target_lengths, batch):
    """Targets as an (N, S) int64 array, from the padded (N, S) form or the concatenated 1-D form."""
    values = np.asarray(targets.detach().numpy() if hasattr(targets, "detach") else targets)
    if values.dtype.kind not in "iu":
        raise TypeError(f"ctc_loss: targets must be integer class indices, got {values.dtype}")
    if values.ndim == 2:
        if values.shape[0] != batch:
            raise ShapeError(f"ctc_loss: targets of shape {values.shape} for a batch of {batch}")
        longest = int(target_lengths.max(initial=0))
        if values.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{values.shape[1]} for argument #2 'targets'")
        return values.astype(np.int64)
    if values.ndim != 1 or values.shape[0] != target_lengths.sum():
        raise RuntimeError(f"Expected tensor to have size {int(target_lengths.sum())} at dimension 0, but got size "
                           f"{values.shape[0] if values.ndim else 0} for argument #2 'targets'")
    padded = np.zeros((batch, int(target_lengths.max(initial=0))), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
    for row, (start, length) in enumerate(zip(starts, target_lengths)):
        padded[row, :length] = values[start:start + length]
    return padded


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The connectionist temporal classification loss of log_probs (T, N, C) (or (T, C)) against unaligned targets.

    targets: padded (N, S) or concatenated (sum(target_lengths),) class indices, never `blank`.
    reduction='mean' divides each loss by its target length, then averages over the batch.
    The gradient is PyTorch's (exact through a log_softmax, see ops/ctc_ops.py); there is no second derivative.

    >>> log_probs = mt.full((2, 1, 2), 0.5).log()   # two steps, classes {blank, a}, each 1/2
    >>> F.ctc_loss(log_probs, mt.tensor([[1]]), [2], [1])  # alignments a_, _a, aa: -log(3/4)
    tensor(0.2877)
    """
    check_reduction(reduction, "ctc_loss")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if hasattr(targets, "unsqueeze") else np.asarray(targets)[None]
    if log_probs.ndim != 3 or not log_probs.is_floating_point():
        raise ShapeError(f"ctc_loss: expected floating point log_probs of shape (T, N, C) or (T, C), got "
                         f"{log_probs.dtype} of shape {tuple(log_probs.shape)}")
    if log_probs.numel() == 0:  # PyTorch refuses an empty batch too
        raise ShapeError(f"ctc_loss: log_probs tensor must not be empty, got shape {tuple(log_probs.shape)}")
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise IndexError(f"ctc_loss: blank must be in label range [0, {classes}), got {blank}")
    input_lengths = _lengths(input_lengths, "input_lengths", batch)
    target_lengths = _lengths(target_lengths, "target_lengths", batch)
    for name, lengths, limit in (("input_lengths", input_lengths, steps), ("target_lengths", target_lengths, None)):
        if lengths.size and lengths.min() < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value {lengths.min()}")
        if limit is not None and lengths.size and lengths.max() > limit:
            raise RuntimeError(f"Expected {name} to have value at most {limit}, but got value {lengths.max()}")
    padded = _padded_targets(targets, target_lengths, batch)
    if padded.size and ((padded < 0) | (padded >= classes)).any():
        raise IndexError(f"ctc_loss: target index out of range [0, {classes})")
    losses = ctc_loss_per_sample(log_probs, from_numpy(padded), from_numpy(input_lengths), from_numpy(target_lengths),
                                 blank, zero_infinity)
    if reduction == "none":
        return losses.reshape(()) if unbatched else losses
    if reduction == "sum":
        return losses.sum()
    divisors = from_numpy(np.maximum(target_lengths, 1).astype(np.asarray(losses).dtype))
    return (losses / divisors).mean()


# ----- classification through a linear layer -----

def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...), PyTorch's reference path.

    linear_weight is (C, in_features), or (C, d_1, ..., d_K, in_features) for a K-dimensional loss.
    `options` (nn.LinearCrossEntropyOptions) is accepted, but minitorch always runs the reference
    path: the same values, with the (N, C) logits held in memory (PyTorch chunks the batch instead).

    >>> F.linear_cross_entropy(mt.tensor([[1.0, 2.0]]), mt.tensor([[1.0, 0.0], [0.0, 1.0]]), mt.tensor([1]))
    tensor(0.3133)
    """
    if input.ndim not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got {in_features} and "
                           f"{linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires "
                           f"batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    rows = int(np.prod(out_features, dtype=np.int64)) * classes
    logits = product_ops.matmul(input, linear_weight.reshape(rows, in_features), transpose_b=True)
    if linear_bias is not None:
        logits = logits + linear_bias.reshape(rows)
    return cross_entropy(logits.reshape(logits_shape), target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)
