"""Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_): in place on .grad."""
import math

import numpy as np

from ..creation import from_numpy
from ..tensor import Tensor


def _with_grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales all gradients together so their joint norm is at most max_norm; returns the norm before clipping.

    >>> p = mt.nn.Parameter(mt.zeros(2))
    >>> p.grad = mt.tensor([3.0, 4.0])
    >>> mt.nn.utils.clip_grad_norm_([p], max_norm=1.0).item()
    5.0
    >>> [round(g, 3) for g in p.grad.tolist()]
    [0.6, 0.8]
    """
    params = _with_grads(parameters)
    norm_type = float(norm_type)
    if not params:
        return from_numpy(np.array(0.0, dtype=np.float32))
    grads = [np.asarray(p.grad) for p in params]
    if math.isinf(norm_type):
        total = max(float(np.max(np.abs(g))) if g.size else 0.0 for g in grads)
    else:
        total = float(sum(np.sum(np.abs(g.astype(np.float64)) ** norm_type) for g in grads) ** (1.0 / norm_type))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be clipped. "
            "To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coefficient = min(max_norm / (total + 1e-6), 1.0)
    for p, grad in zip(params, grads):
        p.grad = from_numpy((grad * coefficient).astype(grad.dtype))
    return from_numpy(np.array(total, dtype=grads[0].dtype))


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element into [-clip_value, clip_value].

    >>> p = mt.nn.Parameter(mt.zeros(2))
    >>> p.grad = mt.tensor([-3.0, 0.5])
    >>> mt.nn.utils.clip_grad_value_([p], clip_value=1.0)
    >>> p.grad.tolist()
    [-1.0, 0.5]
    """
    for p in _with_grads(parameters):
        p.grad = from_numpy(np.clip(np.asarray(p.grad), -clip_value, clip_value))
