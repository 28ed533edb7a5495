"""Fused softmax cross-entropy: SoftmaxCrossEntropyWithLogits and its sparse
twin, their gradients, and the functional wrappers.

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

from ..creation import as_operand
from ..engine.execute import execute
from ..engine.registry import TRANSPOSE, gradient, kernel
from ..errors import ShapeError
from .math_ops import cast
from .reduction_ops import log_softmax, softmax


def _shifted_and_normalizer(logits):
    """logits - rowmax, exp of that, and each row's sum of exps: log_softmax = shifted - log(total).

    Plain numpy (scipy's logsumexp costs more in argument checks than in
    arithmetic at these sizes); exp is taken once and serves the softmax too.
    """
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return shifted, exp, exp.sum(axis=1, keepdims=True)


@kernel("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy(logits, labels):
    shifted, exp, total = _shifted_and_normalizer(logits)
    log_probs = shifted - np.log(total)
    loss = -np.sum(labels * log_probs, axis=1)
    exp /= total
    exp -= labels
    return loss, exp


@gradient("SoftmaxCrossEntropyWithLogits", needs="both", accepts_none=(1,), jvp=TRANSPOSE)
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


def _logits_grad(logits, backprop, grad_loss, grad_backprop):
    grad = grad_loss * backprop
    if grad_backprop is not None:
        probs = softmax(logits, 1)
        grad = grad + (grad_backprop - (grad_backprop * probs).sum(dim=1, keepdim=True)) * probs
    return grad


@kernel("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_cross_entropy(logits, labels):
    n, classes = logits.shape
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
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


@gradient("SparseSoftmaxCrossEntropyWithLogits", needs="both", accepts_none=(1,), jvp=TRANSPOSE)
def _sparse_softmax_cross_entropy_grad(op, grad_loss, grad_backprop):
    """As the dense op; integer class indices get no gradient."""
    logits = op.inputs[0]
    backprop = op.outputs[1]  # saved by the forward pass; a recording tape links it to this op
    return _logits_grad(logits, backprop, grad_loss.unsqueeze(1), grad_backprop), None


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

