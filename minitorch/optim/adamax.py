"""Adamax: Adam with the infinity norm in place of the second moment (Kingma and Ba, 2014, section 7.1).

PyTorch's single-tensor path (torch/optim/adamax.py), g = grad (negated if maximize), t = step count:
    g = g + weight_decay * p
    m = m + (1 - beta1) * (g - m)                      (torch's lerp)
    u = max(beta2 * u, |g| + eps)                      (exp_inf)
    p = p - lr / (1 - beta1**t) * m / u
"""
import numpy as np

from .adam import _check_adam_options
from .optimizer import Optimizer, lerp_


class Adamax(Optimizer):
    """Adamax with PyTorch's defaults and update rule.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.Adamax([w], lr=0.1)
    >>> w.grad = mt.tensor([2.0, -4.0])
    >>> optimizer.step()
    >>> optimizer.state[w]["exp_inf"], [round(v, 4) for v in w.tolist()]  # u: the largest |g| so far; steps of lr
    (tensor([2., 4.]), [0.9, -1.9])
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_options(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, (beta1, beta2), eps = float(group["lr"]), group["betas"], group["eps"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"], group["weight_decay"])
            state = self._counted_state(p, "exp_avg", "exp_inf")
            step = float(state["step"]._data)
            exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data

            scratch = lerp_(exp_avg, grad, 1 - beta1)
            exp_inf *= beta2
            np.abs(grad, out=scratch)
            scratch += eps
            np.maximum(exp_inf, scratch, out=exp_inf)
            update = np.divide(exp_avg, exp_inf, out=scratch)
            update *= lr / (1 - beta1 ** step)
            p._data -= update
