"""More functional losses, as PyTorch computes them (aten/src/ATen/native/Loss.cpp and friends):
likelihoods (kl_div, poisson_nll_loss, gaussian_nll_loss, ctc_loss), margins and embeddings
(margin_ranking, hinge_embedding, cosine_embedding, soft_margin, multi_margin,
multilabel_margin, multilabel_soft_margin, triplet_margin[_with_distance]).

Each is a composition of existing ops, so its gradients of every order come
from theirs. Hinges are relu(z) or clamp(z, min=0) exactly where PyTorch uses
`z > 0` or `clamp_min`, so the derivative at the hinge is PyTorch's.
"""
import math
import warnings

import numpy as np

from ..creation import from_numpy
from ..errors import ShapeError
from ..ops import math_ops, special_ops
from ..ops.ctc_ops import ctc_loss_per_sample
from ..ops.loss_ops import EPSILON  # PyTorch's Loss.cpp's, a float32
from .functional_activation import logsigmoid
from .functional_distance import _clamped_min, pairwise_distance
from .loss_functions import _as_float_target, _check_reduction, _legacy_reduction, _reduce, cross_entropy


def _reduction(size_average, reduce, reduction, name):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, name)
    return reduction


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
        reduction = _legacy_reduction(size_average, reduce, reduction)
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
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log-likelihood: exp(input) - target * input (log_input), else input - target * log(input + eps).

    full=True adds Stirling's term target log target - target + log(2 pi target) / 2 where target > 1.
    The term is computed everywhere and masked, as in PyTorch, so target's gradient is nan at
    target = 0 (0 times log 0), as PyTorch's is.

    >>> F.poisson_nll_loss(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 2.0]))
    tensor(0.8591)
    """
    reduction = _reduction(size_average, reduce, reduction, "poisson_nll_loss")
    target = _as_float_target(input, target, "poisson_nll_loss")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + math_ops.where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


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
    return _reduce(loss, reduction)


# ----- margins and embeddings -----

def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), target being 1 or -1.

    >>> F.margin_ranking_loss(mt.tensor([1.0, 0.2]), mt.tensor([0.5, 0.5]), mt.tensor([1.0, 1.0]), margin=0.1)
    tensor(0.2000)
    """
    reduction = _reduction(size_average, reduce, reduction, "margin_ranking_loss")
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
            f"{tuple(input1.shape)}, input2: {tuple(input2.shape)}, target: {tuple(target.shape)} "
        )
    return _reduce(math_ops.clamp(-target * (input1 - input2) + margin, min=0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where target is -1.

    >>> F.hinge_embedding_loss(mt.tensor([0.3, 0.3]), mt.tensor([1.0, -1.0]), reduction="none")
    tensor([0.3000, 0.7000])
    """
    reduction = _reduction(size_average, reduce, reduction, "hinge_embedding_loss")
    margin_term = math_ops.where(target != 1, math_ops.clamp(margin - input, min=0), 0.0)
    self_term = math_ops.where(target != -1, input, 0.0)
    return _reduce(margin_term + self_term, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), the two-class logistic loss (target 1 or -1).

    >>> F.soft_margin_loss(mt.tensor([0.0, 2.0]), mt.tensor([1.0, -1.0]), reduction="none")
    tensor([0.6931, 2.1269])
    """
    reduction = _reduction(size_average, reduce, reduction, "soft_margin_loss")
    return _reduce(special_ops.log1p((-input * target).exp()), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where target is -1.

    >>> F.cosine_embedding_loss(mt.tensor([[1.0, 0.0]]), mt.tensor([[1.0, 1.0]]), mt.tensor([1]))
    tensor(0.2929)
    """
    reduction = _reduction(size_average, reduce, reduction, "cosine_embedding_loss")
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
    loss = math_ops.where(target == 1, 1 - cos, 0.0) + math_ops.where(target == -1, math_ops.clamp(cos - margin, min=0), 0.0)
    return _reduce(loss, reduction)


def _class_targets(input, target, name):
    """(N, C) input and int64 (N,) targets from the (N, C) / (C,) forms PyTorch accepts."""
    if input.ndim not in (1, 2) or input.ndim == 2 and input.shape[1] == 0:
        raise ShapeError(f"{name}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                         f"{list(input.shape)}")
    rows = input.reshape(1, -1) if input.ndim == 1 else input
    targets = np.asarray(target).reshape(-1)
    if targets.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected an integer (class index) target, got {target.dtype}")
    if targets.shape[0] != rows.shape[0] or target.ndim > 1:
        raise ShapeError(f"{name}: inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if targets.size and (targets.min() < 0 or targets.max() >= rows.shape[1]):
        raise IndexError(f"{name}: target out of range (targets must lie in [0, {rows.shape[1]}))")
    return rows, targets.astype(np.int64)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The multi-class hinge: sum over classes i != y of max(0, margin - x[y] + x[i])^p (times weight[y]) / C.

    >>> F.multi_margin_loss(mt.tensor([[0.1, 0.2, 0.4, 0.8]]), mt.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction(size_average, reduce, reduction, "multi_margin_loss")
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    rows, targets = _class_targets(input, target, "multi_margin_loss")
    n, classes = rows.shape
    picked = rows[from_numpy(np.arange(n)), from_numpy(targets)].unsqueeze(1)
    hinge = math_ops.relu(margin - picked + rows)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight[from_numpy(targets)].unsqueeze(1)
    others = np.ones((n, classes), dtype=np.asarray(rows).dtype)
    others[np.arange(n), targets] = 0
    loss = (hinge * from_numpy(others)).sum(dim=1) / classes
    if input.ndim == 1 and reduction == "none":
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge: for each listed target class j and each class i not listed,
    max(0, 1 - (x[j] - x[i])), summed and divided by C. A row of target lists class indices
    and ends at the first -1.

    >>> F.multilabel_margin_loss(mt.tensor([[0.1, 0.2, 0.4, 0.8]]), mt.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction(size_average, reduce, reduction, "multilabel_margin_loss")
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
    hinge = math_ops.relu(1 - rows.unsqueeze(2) + rows.unsqueeze(1))
    loss = (hinge * pairs).sum(dim=(1, 2)) / classes
    if input.ndim < 2 and reduction == "none":
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The mean over classes of the binary logistic loss -[y log sigmoid(x) + (1 - y) log sigmoid(-x)].

    >>> F.multilabel_soft_margin_loss(mt.tensor([[0.0, 2.0]]), mt.tensor([[1.0, 0.0]]))
    tensor(1.4100)
    """
    reduction = _reduction(size_average, reduce, reduction, "multilabel_soft_margin_loss")
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin) with d the pairwise p-norm distance (swap: d(a, n) -> min(d(a, n), d(p, n))).

    >>> a, pos, neg = mt.tensor([[0.0, 0.0]]), mt.tensor([[0.0, 1.0]]), mt.tensor([[3.0, 0.0]])
    >>> F.triplet_margin_loss(a, pos, neg, margin=2.5, eps=0.0)
    tensor(0.5000)
    """
    reduction = _reduction(size_average, reduce, reduction, "triplet_margin_loss")
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
        negative_distance = math_ops.minimum(negative_distance, distance(positive, negative))
    return _reduce(math_ops.clamp(margin + positive_distance - negative_distance, min=0), reduction)


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
    _check_reduction(reduction, "ctc_loss")
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
    logits = math_ops.matmul(input, linear_weight.reshape(rows, in_features), transpose_b=True)
    if linear_bias is not None:
        logits = logits + linear_bias.reshape(rows)
    return cross_entropy(logits.reshape(logits_shape), target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index, label_smoothing=label_smoothing)
