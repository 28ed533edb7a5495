"""Fused softmax cross-entropy: SoftmaxCrossEntropyWithLogits and its sparse
twin, their gradients, and the functional wrappers; binary cross-entropy on
probabilities and the Huber and smooth L1 losses, with PyTorch's gradients
(finite at p = 0 and 1, and at an infinite difference).

TensorFlow's ops (nn_grad.py _SoftmaxCrossEntropyWithLogitsGrad): one
forward pass returns (loss (N,), backprop (N, C) = softmax(logits) - labels),
stable through log-softmax with a logsumexp shift. The gradient reuses the
saved `backprop` output instead of recomputing softmax, and accepts None for
the gradient of `backprop` (the usual case). When `backprop` itself is used
(second order, or a loss on it), its term is added from softmax(logits),
exactly as TensorFlow does, so the ops are differentiable twice. The saved
`backprop` keeps its link to the op on any tape that records the backward
pass, even after the user drops it (tape.py), so second derivatives see it.
"""
import numpy as np

from ..engine.execute import execute
from ..errors import ShapeError
from .activation_ops import logit
from .coercion import as_operand, cast
from .comparison_ops import clamp, maximum
from .reduction_ops import log_softmax, softmax
from .rows import TRANSPOSE, op


def _shifted_and_normalizer(logits):
    """logits - rowmax, exp of that, and each row's sum of exps: log_softmax = shifted - log(total).

    Plain numpy (scipy's logsumexp costs more in argument checks than in
    arithmetic at these sizes); exp is taken once and serves the softmax too.
    """
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return shifted, exp, exp.sum(axis=1, keepdims=True)


def _softmax_cross_entropy(logits, labels):
    shifted, exp, total = _shifted_and_normalizer(logits)
    log_probs = shifted - np.log(total)
    loss = -np.sum(labels * log_probs, axis=1)
    exp /= total
    exp -= labels
    return loss, exp


def _softmax_cross_entropy_grad(op, grad_loss, grad_backprop):
    """dlogits = g_loss * backprop [+ (g_bp - sum(g_bp p)) p];  dlabels = -g_loss log_softmax(logits) [- g_bp]."""
    logits = op.inputs[0]
    need_logits, need_labels = op.needs_input_grad
    grad_loss = grad_loss.unsqueeze(1)
    d_logits = None
    if need_logits:
        backprop = op.outputs[1]  # saved by the forward pass; a recording tape links it to this op
        d_logits = _logits_grad(logits, backprop, grad_loss, grad_backprop)
    d_labels = None
    if need_labels:
        d_labels = grad_loss * -log_softmax(logits, 1)
        if grad_backprop is not None:
            d_labels = d_labels - grad_backprop  # backprop = softmax(logits) - labels
    return d_logits, d_labels


op("SoftmaxCrossEntropyWithLogits", _softmax_cross_entropy, _softmax_cross_entropy_grad, needs="both", accepts_none=(1,), jvp=TRANSPOSE)


def _logits_grad(logits, backprop, grad_loss, grad_backprop):
    grad = grad_loss * backprop
    if grad_backprop is not None:
        probs = softmax(logits, 1)
        grad = grad + (grad_backprop - (grad_backprop * probs).sum(dim=1, keepdim=True)) * probs
    return grad


def _sparse_softmax_cross_entropy(logits, labels):
    n, classes = logits.shape
    if labels.size and (labels.min() < 0 or labels.max() >= classes):  # two reductions: the common case is quick
        bad = (labels < 0) | (labels >= classes)
        raise IndexError(
            f"SparseSoftmaxCrossEntropyWithLogits: target index {int(labels[bad][0])} is out of bounds "
            f"for {classes} classes (logits shape {logits.shape})"
        )
    shifted, backprop, total = _shifted_and_normalizer(logits)
    rows = np.arange(n)
    loss = np.log(total[:, 0]) - shifted[rows, labels]
    backprop /= total
    backprop[rows, labels] -= 1
    return loss, backprop


def _sparse_softmax_cross_entropy_grad(op, grad_loss, grad_backprop):
    """As the dense op; integer class indices get no gradient."""
    logits = op.inputs[0]
    backprop = op.outputs[1]  # saved by the forward pass; a recording tape links it to this op
    return _logits_grad(logits, backprop, grad_loss.unsqueeze(1), grad_backprop), None


op("SparseSoftmaxCrossEntropyWithLogits", _sparse_softmax_cross_entropy, _sparse_softmax_cross_entropy_grad, needs="both", accepts_none=(1,), jvp=TRANSPOSE)


# PyTorch's Loss.cpp: the largest log-loss of one element (log clamped at -100) and the floor of
# p (1 - p) in the gradient, so that p = 0 or 1 gives +-1e12, not nan. Loss.cpp declares it
# `constexpr float EPSILON = 1e-12`: the float32 nearest 1e-12, in float64 too.
_LOG_FLOOR = -100.0
EPSILON = float(np.float32(1e-12))


def _binary_cross_entropy(probs, labels):
    # scipy's xlogy is no use here: PyTorch clamps each log before the product (0 * -100, not 0 * -inf).
    log_p = np.maximum(np.log(probs), _LOG_FLOOR)
    log_1mp = np.maximum(np.log1p(-probs), _LOG_FLOOR)
    return (labels - 1) * log_1mp - labels * log_p


def _binary_cross_entropy_grad(op, grad):
    """dp = g (p - y) / max(p (1 - p), 1e-12);  dy = -g logit(p)  (PyTorch's binary_cross_entropy_backward
    and _target_backward: finite in p at p = 0 and 1, where the clamped loss's own derivative is 0 * inf)."""
    probs, labels = op.inputs
    need_probs, need_labels = op.needs_input_grad
    d_probs = grad * (probs - labels) / maximum(probs * (1 - probs), EPSILON) if need_probs else None
    return d_probs, (-grad * logit(probs) if need_labels else None)


op("BinaryCrossEntropy", _binary_cross_entropy, _binary_cross_entropy_grad, needs="inputs", jvp=TRANSPOSE)


def binary_cross_entropy(probs, labels):
    """Elementwise -[y log p + (1 - y) log(1 - p)], each log clamped at -100 as PyTorch does.

    probs and labels have the same shape and floating dtype; probs lie in [0, 1].

    >>> binary_cross_entropy(mt.tensor([0.0, 0.5]), mt.tensor([1.0, 1.0]))
    tensor([100.0000,   0.6931])
    """
    return execute("BinaryCrossEntropy", (probs, labels))


def _plus_minus(op, slope):
    """The gradients (slope, -slope) of a loss of input - target, each only where asked for."""
    need_input, need_target = op.needs_input_grad
    return (slope if need_input else None), (-slope if need_target else None)


def _huber_loss(input, target, delta):
    distance = np.abs(input - target)
    return np.where(distance < delta, 0.5 * distance * distance, delta * (distance - 0.5 * delta))


def _huber_loss_grad(op, grad):
    """d huber = clamp(x - y, -delta, delta) (dx - dy): PyTorch's huber_loss_backward, finite where
    x - y is infinite (a composed where(|d| < delta, d^2 / 2, ...) gives 0 * inf there)."""
    slope = grad * clamp(op.inputs[0] - op.inputs[1], -op.attrs["delta"], op.attrs["delta"])
    return _plus_minus(op, slope)


op("HuberLoss", _huber_loss, _huber_loss_grad, needs="inputs", jvp=TRANSPOSE)


def huber_loss(input, target, delta):
    """Elementwise 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target.

    >>> huber_loss(mt.tensor([0.5, 3.0]), mt.zeros(2), 2.0)
    tensor([0.1250, 4.0000])
    """
    return execute("HuberLoss", (input, target), {"delta": delta})


def _smooth_l1_loss(input, target, beta):
    distance = np.abs(input - target)
    return np.where(distance < beta, 0.5 * distance * distance / beta, distance - 0.5 * beta)


def _smooth_l1_loss_grad(op, grad):
    """d smooth_l1 = clamp((x - y) / beta, -1, 1) (dx - dy): PyTorch's smooth_l1_loss_backward (beta > 0)."""
    slope = grad * clamp((op.inputs[0] - op.inputs[1]) / op.attrs["beta"], -1.0, 1.0)
    return _plus_minus(op, slope)


op("SmoothL1Loss", _smooth_l1_loss, _smooth_l1_loss_grad, needs="inputs", jvp=TRANSPOSE)


def smooth_l1_loss(input, target, beta):
    """Elementwise 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, d = input - target (beta > 0).

    >>> smooth_l1_loss(mt.tensor([0.5, 3.0]), mt.zeros(2), 1.0)
    tensor([0.1250, 2.5000])
    """
    return execute("SmoothL1Loss", (input, target), {"beta": beta})


# ----- the functional API -----


def _check_logits(logits, op_name):
    if logits.ndim != 2:
        raise ShapeError(f"{op_name}: logits must be 2-D (batch, classes), got shape {tuple(logits.shape)}")
    if not logits.is_floating_point():
        raise TypeError(f"{op_name}: logits must be floating point, got {logits.dtype}")


def softmax_cross_entropy_with_logits(logits, labels):
    """Per-row cross-entropy of softmax(logits) against label probabilities.

    Returns (loss (N,), backprop (N, C) = softmax(logits) - labels).

    >>> loss, backprop = softmax_cross_entropy_with_logits(mt.zeros(2, 4), mt.full((2, 4), 0.25))
    >>> loss                      # log(4) each
    tensor([1.3863, 1.3863])
    """
    op_name = "SoftmaxCrossEntropyWithLogits"
    _check_logits(logits, op_name)
    labels = as_operand(labels, dtype=logits.dtype)
    if tuple(labels.shape) != tuple(logits.shape):
        raise ShapeError(f"{op_name}: labels of shape {tuple(labels.shape)} must match logits of shape {tuple(logits.shape)}")
    if labels._data.dtype != logits._data.dtype:
        labels = cast(labels, logits._data.dtype)
    return execute(op_name, (logits, labels))


def sparse_softmax_cross_entropy_with_logits(logits, targets):
    """Per-row cross-entropy of softmax(logits) against integer class indices.

    Returns (loss (N,), backprop (N, C) = softmax(logits) - one_hot(targets)).

    >>> loss, _ = sparse_softmax_cross_entropy_with_logits(mt.zeros(2, 4), mt.tensor([0, 3]))
    """
    op_name = "SparseSoftmaxCrossEntropyWithLogits"
    _check_logits(logits, op_name)
    targets = as_operand(targets)
    if targets._data.dtype.kind not in "iu":
        raise TypeError(f"{op_name}: targets must be integer class indices, got {targets.dtype}")
    if tuple(targets.shape) != tuple(logits.shape[:1]):
        raise ShapeError(f"{op_name}: targets of shape {tuple(targets.shape)} must be ({logits.shape[0]},) for logits of shape {tuple(logits.shape)}")
    if targets._data.dtype != np.int64:
        targets = cast(targets, np.int64)
    return execute(op_name, (logits, targets))

