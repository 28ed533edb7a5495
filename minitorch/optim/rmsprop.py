"""RMSprop: divide by a running root-mean-square of the gradient (PyTorch's variant).

PyTorch's single-tensor path (torch.optim.rmsprop), g = grad (negated if maximize):
    g = g + weight_decay * p
    v = alpha * v + (1 - alpha) * g * g
    centered:  g_avg = g_avg + (1 - alpha) * (g - g_avg);  avg = sqrt(v - g_avg * g_avg) + eps
    else:      avg = sqrt(v) + eps
    momentum > 0:  buf = momentum * buf + g / avg;  p = p - lr * buf
    else:          p = p - lr * g / avg
"""
import numpy as np

from .optimizer import Optimizer, average_square_, check_non_negative


class RMSprop(Optimizer):
    """RMSprop: steps divided by a running root-mean-square of the gradient (as torch.optim.RMSprop).

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.RMSprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]  # the first step is lr / sqrt(1 - alpha) against the gradient's sign
    [0.0, -1.0]
    """
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_non_negative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                        centered=centered, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, alpha, eps, momentum = float(group["lr"]), group["alpha"], group["eps"], group["momentum"]
        for p in self._params_with_grad(group):
            grad = self._gradient(p, group["maximize"], group["weight_decay"])
            state = self._counted_state(p, "square_avg", *(("momentum_buffer",) if momentum > 0 else ()),
                                        *(("grad_avg",) if group["centered"] else ()))
            square_avg = state["square_avg"]._data

            scratch = average_square_(square_avg, grad, alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]._data
                np.subtract(grad, grad_avg, out=scratch)
                scratch *= 1 - alpha
                grad_avg += scratch
                np.multiply(grad_avg, grad_avg, out=scratch)
                avg = np.subtract(square_avg, scratch, out=scratch)
                np.sqrt(avg, out=avg)
            else:
                avg = np.sqrt(square_avg, out=scratch)
            avg += eps
            ratio = np.divide(grad, avg, out=scratch)
            if momentum > 0:
                buf = state["momentum_buffer"]._data
                buf *= momentum
                buf += ratio
                ratio = np.multiply(buf, lr, out=scratch)
            else:
                ratio *= lr
            p._data -= ratio
