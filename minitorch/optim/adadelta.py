"""Adadelta: steps scaled by the ratio of two running root-mean-squares (Zeiler, 2012).

PyTorch's single-tensor path (torch/optim/adadelta.py), g = grad (negated if maximize):
    g = g + weight_decay * p
    v = rho * v + (1 - rho) * g * g                    (square_avg)
    delta = sqrt(u + eps) / sqrt(v + eps) * g          (u: acc_delta)
    u = rho * u + (1 - rho) * delta * delta
    p = p - lr * delta
"""
import numpy as np

from .optimizer import Optimizer, average_square_


class Adadelta(Optimizer):
    """Adadelta with PyTorch's defaults (lr=1.0 scales the Adadelta step) and update rule.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.Adadelta([w], lr=1.0)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 6) for v in w.tolist()]  # the first step is sqrt(eps / (0.1 g^2 + eps)) * g: tiny
    [0.996838, -1.996838]
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, rho, eps = float(group["lr"]), group["rho"], group["eps"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"], group["weight_decay"])
            state = self.state[p]
            if not state:
                state["step"] = self._step_counter()
                state["square_avg"] = self._zeros_state(p)
                state["acc_delta"] = self._zeros_state(p)
            state["step"]._data += 1
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
