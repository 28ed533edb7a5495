"""Adadelta: steps scaled by the ratio of two running root-mean-squares (Zeiler, 2012).

PyTorch's single-tensor path (torch/optim/adadelta.py), g = grad (negated if maximize):
    g = g + weight_decay * p
    v = rho * v + (1 - rho) * g * g                    (square_avg)
    delta = sqrt(u + eps) / sqrt(v + eps) * g          (u: acc_delta)
    u = rho * u + (1 - rho) * delta * delta
    p = p - lr * delta
"""
import numpy as np

from .optimizer import Optimizer, average_square_, check_non_negative


class Adadelta(Optimizer):
    """Adadelta with PyTorch's defaults (lr=1.0 scales the Adadelta step) and update rule.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.Adadelta([w])
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> sorted(optimizer.state[w]), [round(v, 6) for v in w.tolist()]  # a first step of sqrt(eps / (0.1 g^2 + eps)) * g
    (['acc_delta', 'square_avg', 'step'], [0.996838, -1.996838])
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_non_negative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_non_negative(eps=eps, weight_decay=weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, rho, eps = float(group["lr"]), group["rho"], group["eps"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"], group["weight_decay"])
            state = self._counted_state(p, "square_avg", "acc_delta")
            square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data

            scratch = average_square_(square_avg, grad, rho)
            std = np.add(square_avg, eps, out=scratch)
            np.sqrt(std, out=std)
            delta = np.add(acc_delta, eps)
            np.sqrt(delta, out=delta)
            delta /= std
            delta *= grad
            average_square_(acc_delta, delta, rho, scratch)
            delta *= lr
            p._data -= delta
