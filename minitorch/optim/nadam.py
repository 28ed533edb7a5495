"""NAdam: Adam with Nesterov momentum (Dozat, 2016), with PyTorch's momentum-decay schedule.

PyTorch's single-tensor path (torch/optim/nadam.py), g = grad (negated if maximize), t = step count:
    g = g + weight_decay * p                 NAdamW (decoupled_weight_decay):  p = p * (1 - lr * weight_decay)
    mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))     (and mu_{t+1} likewise)
    mu_product = mu_product * mu_t           (kept as a float32 scalar, as PyTorch does)
    m = m + (1 - beta1) * (g - m);   v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2**t)) + eps
    p = p - lr * (1 - mu_t) / (1 - mu_product) * g / denom
          - lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / denom
"""
import numpy as np

from ..tensor import Tensor
from .adam import _check_adam_options, adam_steps
from .optimizer import Optimizer, check_non_negative


class NAdam(Optimizer):
    """NAdam with PyTorch's defaults and update rule; `decoupled_weight_decay=True` gives NAdamW.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]
    [0.8944, -1.8944]
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_adam_options(lr, betas, eps, weight_decay)
        check_non_negative(momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, (beta1, beta2), eps = float(group["lr"]), group["betas"], group["eps"]
        momentum_decay = group["momentum_decay"]
        for p, state, grad, step, exp_avg, exp_avg_sq, scratch in adam_steps(self, group):
            if "mu_product" not in state:
                state["mu_product"] = Tensor._make(np.ones((), dtype=np.float32))
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product_array = state["mu_product"]._data
            mu_product_array *= mu  # in the state's own precision (float32), as PyTorch's in-place multiply
            mu_product = float(mu_product_array)
            mu_product_next = mu_product * mu_next

            denom = np.divide(exp_avg_sq, 1 - beta2 ** step)
            np.sqrt(denom, out=denom)
            denom += eps

            np.divide(grad, denom, out=scratch)
            scratch *= -lr * (1.0 - mu) / (1.0 - mu_product)
            p._data += scratch
            np.divide(exp_avg, denom, out=scratch)
            scratch *= (-lr * mu_next) / (1.0 - mu_product_next)
            p._data += scratch
