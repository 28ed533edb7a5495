"""The functional losses (F.cross_entropy, F.mse_loss, ...), with PyTorch's semantics.

Cross-entropy runs on the fused softmax cross-entropy ops (loss_ops), as
TensorFlow's `sparse_softmax_cross_entropy_with_logits`, for stability and
speed; class weights, ignore_index and label smoothing are applied around it
with PyTorch's exact mean: the sum of the per-element losses divided by the
sum of the weights of the targets that are not ignored.
"""
import warnings

import numpy as np

from ..errors import ShapeError
from ..ops import loss_ops, math_ops, reduction_ops, special_ops
from ..creation import from_numpy
from ..tensor import Tensor
from .functional_activation import logsigmoid


def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's deprecated size_average/reduce arguments, mapped to `reduction`."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction instead.", stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else ("mean" if size_average else "sum")


def _check_reduction(reduction, name):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{name}: {reduction!r} is not a valid value for reduction (use 'mean', 'sum' or 'none')")


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _reduce_weighted(loss, reduction, weight, input, name, mean_over_weight=True):
    """A loss with PyTorch's per-element `weight=` (mse_loss, l1_loss, huber_loss): weight * loss, then the
    reduction; the mean is sum(weight * loss) / sum(weight), or for huber_loss the plain mean, as PyTorch."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{name}: Weights and input must have the same size (weight {tuple(weight.shape)}, "
                         f"input {tuple(input.shape)}).")
    weighted = loss * weight
    if reduction == "mean" and mean_over_weight:
        return weighted.sum() / weight.sum()
    return _reduce(weighted, reduction)


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
    return math_ops.cast(target, input.dtype)


# ----- regression losses -----

def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)^2, reduced.

    >>> mt.nn.functional.mse_loss(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 4.0])).item()
    2.0
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "mse_loss")
    diff = input - _as_float_target(input, target, "mse_loss")
    return _reduce_weighted(diff * diff, reduction, weight, input, "mse_loss")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target|, reduced.

    >>> mt.nn.functional.l1_loss(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 4.0]), reduction="sum").item()
    2.0
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "l1_loss")
    return _reduce_weighted((input - _as_float_target(input, target, "l1_loss")).abs(), reduction, weight, input,
                            "l1_loss")


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target), then the reduction.

    >>> F.smooth_l1_loss(mt.tensor([0.5, 3.0]), mt.zeros(2), reduction="none")
    tensor([0.1250, 2.5000])
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "smooth_l1_loss")
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be non-negative, got {beta}")
    target = _as_float_target(input, target, "smooth_l1_loss")
    if beta == 0:
        return _reduce((input - target).abs(), reduction)
    return _reduce(loss_ops.smooth_l1_loss(input, target, beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (d = input - target), then the reduction.

    >>> F.huber_loss(mt.tensor([0.5, 3.0]), mt.zeros(2), delta=2.0, reduction="none")
    tensor([0.1250, 4.0000])
    """
    _check_reduction(reduction, "huber_loss")
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    target = _as_float_target(input, target, "huber_loss")
    return _reduce_weighted(loss_ops.huber_loss(input, target, delta), reduction, weight, input, "huber_loss",
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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    target = _as_float_target(input, target, "binary_cross_entropy_with_logits", same_shape=True)
    log_sigmoid = logsigmoid(input)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - log_sigmoid
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-[y log(x) + (1 - y) log(1 - x)] on probabilities x, each log clamped at -100 as PyTorch does.

    The gradient is PyTorch's, (x - y) / max(x (1 - x), 1e-12): finite at x = 0 and 1 (the
    "BinaryCrossEntropy" op in ops/loss_ops.py).

    >>> F.binary_cross_entropy(mt.tensor([0.8, 0.4]), mt.tensor([1.0, 0.0]), reduction="none")
    tensor([0.2231, 0.5108])
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "binary_cross_entropy")
    target = _as_float_target(input, target, "binary_cross_entropy", same_shape=True)
    values = np.asarray(input)
    if values.size and (np.any(values < 0) or np.any(values > 1) or np.any(np.isnan(values))):
        raise RuntimeError("binary_cross_entropy: all elements of input should be between 0 and 1")
    loss = loss_ops.binary_cross_entropy(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


# ----- multi-class classification -----

def _class_last_2d(t):
    """(N, C, d1, ...) -> (N * d1 * ..., C): the class dimension moved last, the rest flattened."""
    if t.ndim == 2:
        return t
    perm = (0,) + tuple(range(2, t.ndim)) + (1,)
    return t.permute(*perm).reshape(-1, t.shape[1])


def _class_targets(input, target, ignore_index, name):
    """Checks integer class targets against input (N, C, d1, ...); returns (flat int64 targets, ignored mask),
    the mask None when no target is ignored."""
    expected = tuple(input.shape[:1]) + tuple(input.shape[2:])
    if tuple(target.shape) != expected:
        raise ShapeError(
            f"{name}: expected target of shape {expected} for input of shape {tuple(input.shape)}, got target of shape {tuple(target.shape)}"
        )
    flat = np.asarray(target).reshape(-1).astype(np.int64, copy=False)
    classes = input.shape[1]
    if flat.size and 0 <= flat.min() and flat.max() < classes and not 0 <= ignore_index < classes:
        return flat, None  # the common case, every target a class and none ignored: two passes, not six
    ignored = flat == ignore_index
    bad = flat[~ignored & ((flat < 0) | (flat >= classes))]
    if bad.size:
        raise IndexError(f"{name}: Target {bad[0]} is out of bounds (input has {classes} classes, shape {tuple(input.shape)})")
    return np.where(ignored, 0, flat), ignored


def _weighted_mean_or_sum(per_element, weight_of_target, ignored, reduction, target_shape):
    """Zeroes ignored elements; 'mean' divides by the total weight of the targets kept (PyTorch's rule).

    `where`, not a product with a 0/1 mask: an ignored element's gradient is exactly 0 even when
    the mean's is not finite (every target ignored: 1 / 0), as in PyTorch's nll_loss_backward,
    which never writes the rows it ignores.
    """
    if ignored is not None and ignored.any():
        per_element = math_ops.where(from_numpy(ignored), 0.0, per_element)
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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "nll_loss")
    _check_class_input(input, weight, "nll_loss")
    if input.ndim == 1:
        # A single sample of C log-probabilities with a 0-d target.
        return nll_loss(input.unsqueeze(0), target.reshape(1), weight, None, ignore_index, None, reduction).reshape(())
    if target.dtype.category != 1:
        raise RuntimeError(f"nll_loss: expected target of integer dtype (class indices), got {target.dtype}")
    targets, ignored = _class_targets(input, target, ignore_index, "nll_loss")
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
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "cross_entropy")
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
    targets, ignored = _class_targets(input, target, ignore_index, "cross_entropy")
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
    labels = _class_last_2d(math_ops.cast(target, input.dtype))
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
