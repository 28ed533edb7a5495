"""Adagrad: per-coordinate steps shrinking with the sum of squared gradients.

PyTorch's single-tensor path (torch.optim.adagrad), g = grad (negated if maximize), t = step count:
    g = g + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    sum = sum + g * g
    p = p - clr * g / (sqrt(sum) + eps)
Like PyTorch, the state (step 0, sum = initial_accumulator_value) exists from construction.
"""
import numpy as np

from .optimizer import Optimizer, check_non_negative


class Adagrad(Optimizer):
    """Adagrad: each coordinate's step is lr / sqrt(sum of its squared gradients) (as torch.optim.Adagrad).

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]  # the first step moves each weight by lr
    [0.9, -1.9]
    """
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_non_negative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        self._init_state(self.param_groups[-1])

    def _init_state(self, group):
        for p in group["params"]:
            state = self.state[p]
            if not state:
                state["step"] = self._step_counter()
                state["sum"] = self._zeros_state(p, group["initial_accumulator_value"])

    def _update(self, group):
        lr, lr_decay, eps = float(group["lr"]), group["lr_decay"], group["eps"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"], group["weight_decay"])
            state = self.state[p]
            state["step"]._data += 1
            step = float(state["step"]._data)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]._data

            scratch = np.multiply(grad, grad)
            state_sum += scratch
            std = np.sqrt(state_sum, out=scratch)
            std += eps
            update = np.divide(grad, std, out=scratch)
            update *= clr
            p._data -= update
