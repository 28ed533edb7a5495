"""Rprop: each coordinate's step grows while its gradient keeps its sign, and shrinks when it flips.

PyTorch's single-tensor path (torch/optim/rprop.py), g = grad (negated if maximize):
    s = sign(g * prev):  factor = etaplus where s > 0, etaminus where s < 0, 1 where s == 0
    step_size = clamp(step_size * factor, step_size_min, step_size_max)
    g = 0 where the sign flipped (the step is skipped, and the next one counts as fresh)
    p = p - sign(g) * step_size;   prev = g
The step sizes start at lr. Only the gradient's sign matters: Rprop is for full-batch training.
"""
import numpy as np

from .optimizer import Optimizer, check_non_negative


class Rprop(Optimizer):
    """Resilient backpropagation with PyTorch's defaults and update rule.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]  # each weight moves by lr against its gradient's sign
    [0.9, -1.9]
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_non_negative(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group):
        (etaminus, etaplus), (step_size_min, step_size_max) = group["etas"], group["step_sizes"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"])
            state = self.state[p]
            if not state:
                state["step"] = self._step_counter()
                state["prev"] = self._zeros_state(p)
                state["step_size"] = self._zeros_state(p, float(group["lr"]))
            state["step"]._data += 1
            prev, step_size = state["prev"]._data, state["step_size"]._data

            factor = np.sign(np.multiply(grad, prev))  # NaN stays NaN, as in PyTorch
            factor[factor > 0] = etaplus
            factor[factor < 0] = etaminus
            factor[factor == 0] = 1
            flipped = factor == factor.dtype.type(etaminus)
            step_size *= factor
            np.clip(step_size, step_size_min, step_size_max, out=step_size)
            np.copyto(prev, grad)
            prev[flipped] = 0
            direction = np.sign(prev)
            direction *= step_size
            p._data -= direction
