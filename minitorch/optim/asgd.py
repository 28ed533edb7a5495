"""ASGD: SGD with a decaying step and a running average of the iterates (Polyak and Juditsky, 1992).

PyTorch's single-tensor path (torch/optim/asgd.py), g = grad (negated if maximize), t = step count:
    g = g + weight_decay * p
    p = p * (1 - lambd * eta);   p = p - eta * g
    ax = p                      while mu == 1 (t <= t0)
    ax = ax + mu * (p - ax)     afterwards (the average of the iterates since t0)
    eta = lr / (1 + lambd * lr * t) ** alpha;   mu = 1 / max(1, t - t0)
`eta` and `mu` are float32 scalars in the state, rounded to float32 as PyTorch rounds them.
The averaged parameters are in `optimizer.state[p]["ax"]`.
"""
import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, check_non_negative


class ASGD(Optimizer):
    """Averaged SGD with PyTorch's defaults and update rule.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]  # w * (1 - 1e-4 * 0.1) - 0.1 * 2w
    [0.8, -1.6]
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_non_negative(lr=lr, weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, lambd, alpha, t0 = float(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"], group["weight_decay"])
            state = self.state[p]
            if not state:
                state["step"] = self._step_counter()
                state["eta"] = Tensor._make(np.array(lr, dtype=np.float32))
                state["mu"] = Tensor._make(np.ones((), dtype=np.float32))
                state["ax"] = self._zeros_state(p)
            state["step"]._data += 1
            step = float(state["step"]._data)
            eta, mu, ax = float(state["eta"]._data), state["mu"]._data, state["ax"]._data

            p._data *= 1 - lambd * eta
            p._data -= eta * grad
            if float(mu) != 1:
                scratch = np.subtract(p._data, ax)
                scratch *= mu
                ax += scratch
            else:
                np.copyto(ax, p._data)
            # PyTorch makes both new values float32 tensors (torch.as_tensor of a float) before copying them in.
            state["eta"]._data[...] = np.float32(lr / ((1 + lambd * lr * step) ** alpha))
            state["mu"]._data[...] = np.float32(1 / max(1, step - t0))
