"""SGD: stochastic gradient descent with momentum, dampening, Nesterov and L2 weight decay.

PyTorch's update (torch.optim.SGD, single-tensor path), g = grad (negated if maximize):
    g = g + weight_decay * p
    buf = g                                        (first step)
    buf = momentum * buf + (1 - dampening) * g     (later steps)
    g = g + momentum * buf  if nesterov  else  buf
    p = p - lr * g
"""
import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, check_non_negative


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov and weight decay (PyTorch's update rule).

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]  # w - 0.1 * 2w
    [0.8, -1.6]
    """
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, momentum, dampening = float(group["lr"]), group["momentum"], group["dampening"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"], group["weight_decay"])
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = Tensor._make(np.array(grad, copy=True))
                else:
                    buf._data *= momentum
                    buf._data += grad if dampening == 0 else (1 - dampening) * grad
                if group["nesterov"]:
                    grad = grad + momentum * buf._data
                else:
                    grad = buf._data
            p._data -= lr * grad
