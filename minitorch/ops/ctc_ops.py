"""Connectionist temporal classification: the "CTCLoss" op, a dynamic program in numpy.

As TensorFlow's CTCLoss op (tensorflow/python/ops/ctc_ops.py, _CTCLossGrad),
one forward pass returns both the per-sample negative log-likelihood (N,) and
its gradient with respect to the log-probabilities (T, N, C); the op's
gradient is grad_loss * that saved gradient. The dynamic program is Graves et
al.'s forward-backward over the target with blanks between and around its
labels (length 2 S + 1), in log space, vectorised over the batch and the
extended target, one time step at a time (PyTorch's
aten/src/ATen/native/LossCTC.cpp does the same per sample).

The gradient is PyTorch's: exp(lp) - exp(log(sum of alpha * beta over the
positions of class c) + nll - lp). It is the derivative with respect to the
logits of a log_softmax feeding the loss, so it differs from the plain
derivative by exp(lp), a term that log_softmax's gradient removes: through
`log_probs = logits.log_softmax(-1)`, the usual use, every gradient is exact.
Time steps past a sample's input length get zero gradient; zero_infinity
zeroes the losses that are infinite (no alignment possible) and their
gradients. The second derivative and forward mode raise, as in PyTorch.
"""
import numpy as np

from ..engine.execute import execute
from .rows import op


def _extended_targets(targets, target_lengths, blank):
    """Targets with a blank before, between and after the labels: (N, 2 S + 1), and where a skip is allowed."""
    n, longest = targets.shape
    extended = np.full((n, 2 * longest + 1), blank, dtype=np.int64)
    extended[:, 1::2] = targets
    positions = np.arange(2 * longest + 1)
    inside = positions[None, :] < 2 * target_lengths[:, None] + 1
    # alpha[s] may come from alpha[s - 2] when s is a label different from the label two places back.
    skip = np.zeros_like(inside)
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    return extended, inside, skip


def _shift(values, by):
    """values moved `by` places along the last axis (positive: towards higher indices), -inf filled."""
    out = np.full_like(values, -np.inf)
    if by > 0:
        out[..., by:] = values[..., :-by]
    else:
        out[..., :by] = values[..., -by:]
    return out


def _forward_backward(log_probs, targets, input_lengths, target_lengths, blank):
    """log alpha and log beta, (T, N, 2 S + 1) each, and the negative log-likelihoods (N,)."""
    steps, n, _ = log_probs.shape
    extended, inside, skip = _extended_targets(targets, target_lengths, blank)
    emitted = np.take_along_axis(log_probs, np.broadcast_to(extended, (steps,) + extended.shape), axis=2)
    emitted = np.where(inside, emitted, -np.inf)
    rows = np.arange(n)
    alpha = np.full(emitted.shape, -np.inf, dtype=log_probs.dtype)
    alpha[0, :, 0] = emitted[0, :, 0]
    alpha[0, :, 1] = np.where(target_lengths > 0, emitted[0, :, 1], -np.inf)
    for t in range(1, steps):
        previous = alpha[t - 1]
        total = np.logaddexp(previous, _shift(previous, 1))
        total = np.where(skip, np.logaddexp(total, _shift(previous, 2)), total)
        alpha[t] = np.where((t < input_lengths)[:, None], total + emitted[t], -np.inf)
    beta = np.full(emitted.shape, -np.inf, dtype=log_probs.dtype)
    last_blank, last_label = 2 * target_lengths, 2 * target_lengths - 1
    for t in range(steps - 1, -1, -1):
        start = np.full(emitted.shape[1:], -np.inf, dtype=log_probs.dtype)
        start[rows, last_blank] = emitted[t, rows, last_blank]
        has_label = target_lengths > 0
        start[rows[has_label], last_label[has_label]] = emitted[t, rows[has_label], last_label[has_label]]
        if t + 1 < steps:
            following = beta[t + 1]
            total = np.logaddexp(following, _shift(following, -1))
            total = np.where(_shift(skip.astype(float), -2) > 0, np.logaddexp(total, _shift(following, -2)), total)
            recurrence = total + emitted[t]
        else:
            recurrence = start
        beta[t] = np.where((t == input_lengths - 1)[:, None], start,
                           np.where((t < input_lengths - 1)[:, None], recurrence, -np.inf))
    final = alpha[np.maximum(input_lengths - 1, 0), rows]
    end = np.logaddexp(final[rows, last_blank], np.where(target_lengths > 0, final[rows, np.maximum(last_label, 0)], -np.inf))
    nll = -np.where(input_lengths > 0, end, np.where(target_lengths == 0, 0.0, -np.inf))
    return alpha, beta, extended, nll.astype(log_probs.dtype)


def _ctc_gradient(log_probs, alpha, beta, extended, nll, input_lengths, zero_infinity):
    """PyTorch's ctc_loss_backward: exp(lp) - exp(lcab + nll - lp), zero past each input length."""
    steps, n, classes = log_probs.shape
    both = alpha + beta
    peak = both.max(axis=2, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    sums = np.zeros(log_probs.shape, dtype=np.float64)
    t_index, n_index = np.meshgrid(np.arange(steps), np.arange(n), indexing="ij")
    np.add.at(sums, (t_index[..., None], n_index[..., None], np.broadcast_to(extended, both.shape)), np.exp(both - peak))
    with np.errstate(divide="ignore", invalid="ignore"):  # log 0 = -inf, and -inf + inf where the loss is inf
        log_sums = np.log(sums) + peak
        grad = np.exp(log_probs) - np.exp(log_sums + nll[None, :, None] - log_probs)
    grad[np.arange(steps)[:, None] >= input_lengths[None, :]] = 0.0
    if zero_infinity:
        grad[:, np.isinf(nll)] = 0.0
    return grad.astype(log_probs.dtype)


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    alpha, beta, extended, nll = _forward_backward(log_probs, targets, input_lengths, target_lengths, blank)
    grad = _ctc_gradient(log_probs, alpha, beta, extended, nll, input_lengths, zero_infinity)
    if zero_infinity:
        nll = np.where(np.isinf(nll), 0.0, nll).astype(log_probs.dtype)
    return nll, grad


def _ctc_loss_grad(op, grad_loss, grad_of_gradient):
    """d nll_n = sum_{t,c} G[t, n, c] d lp[t, n, c], G the gradient the forward pass saved (PyTorch's formula)."""
    if grad_of_gradient is not None:
        raise RuntimeError("ctc_loss: the second derivative is not implemented (PyTorch and TensorFlow do not have it either)")
    return grad_loss.reshape(1, -1, 1) * op.outputs[1], None, None, None


def _ctc_loss_jvp(inputs, outputs, attrs, tangents):
    """None: the tangent of the saved gradient would need the second derivative, so forward mode raises."""
    raise RuntimeError("ctc_loss: forward-mode derivatives are not implemented (PyTorch does not have them either); "
                       "use reverse mode (backward, autograd.grad, GradientTape)")


op("CTCLoss", _ctc_loss, _ctc_loss_grad, needs="outputs", accepts_none=(1,), jvp=_ctc_loss_jvp)


def ctc_loss_per_sample(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    """The per-sample CTC negative log-likelihoods (N,) of log_probs (T, N, C) against padded targets (N, S).

    The lengths are int64 tensors of shape (N,). nn.functional.ctc_loss checks and reduces.

    >>> from minitorch.ops.ctc_ops import ctc_loss_per_sample
    >>> lp = mt.full((2, 1, 2), 0.5).log()   # two steps, classes {blank, a}, each 1/2
    >>> ctc_loss_per_sample(lp, mt.tensor([[1]]), mt.tensor([2]), mt.tensor([1]))  # paths a_, _a, aa: 3/4
    tensor([0.2877])
    """
    loss, _ = execute("CTCLoss", (log_probs, targets, input_lengths, target_lengths),
                      {"blank": blank, "zero_infinity": zero_infinity})
    return loss
