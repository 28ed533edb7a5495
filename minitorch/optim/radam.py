"""RAdam: Adam whose adaptive step is switched on only once its variance is tractable (Liu et al., 2019).

PyTorch's single-tensor path (torch/optim/radam.py), g = grad (negated if maximize), t = step count:
    g = g + weight_decay * p                 RAdamW (decoupled_weight_decay):  p = p * (1 - lr * weight_decay)
    m = m + (1 - beta1) * (g - m);   v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1**t)
    rho_inf = 2 / (1 - beta2) - 1;   rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
    rho_t > 5:  r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                p = p - m_hat * lr * sqrt(1 - beta2**t) / (sqrt(v) + eps) * r
    otherwise:  p = p - m_hat * lr                (plain momentum SGD for the first steps)
"""
import numpy as np

from .adam import _check_adam_options, adam_steps
from .optimizer import Optimizer


class RAdam(Optimizer):
    """RAdam with PyTorch's defaults and update rule; `decoupled_weight_decay=True` gives RAdamW.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]  # rho_1 = 1 <= 5: the first steps are momentum SGD, w - lr * g
    [0.8, -1.6]
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_adam_options(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, (beta1, beta2), eps = float(group["lr"]), group["betas"], group["eps"]
        for p, _, _, step, exp_avg, exp_avg_sq, scratch in adam_steps(self, group):
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            update = np.divide(exp_avg, bias_correction1, out=scratch)
            update *= lr
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                adaptive = np.sqrt(exp_avg_sq)
                adaptive += eps
                np.divide(bias_correction2 ** 0.5, adaptive, out=adaptive)
                update *= adaptive
                update *= ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            p._data -= update
