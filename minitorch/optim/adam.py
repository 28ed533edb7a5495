"""Adam and AdamW (decoupled weight decay), with PyTorch's exact update order.

PyTorch's single-tensor path (torch.optim.adam._single_tensor_adam), g = grad
(negated if maximize), t = step count:
    Adam:  g = g + weight_decay * p          AdamW:  p = p * (1 - lr * weight_decay)
    m = m + (1 - beta1) * (g - m)            (torch's lerp)
    v = beta2 * v + (1 - beta2) * g * g
    v_max = max(v_max, v)                    (amsgrad; the denominator then uses v_max)
    denom = sqrt(v) / sqrt(1 - beta2**t) + eps
    p = p - lr / (1 - beta1**t) * (m / denom)
"""
import numpy as np

from .optimizer import Optimizer, average_square_, check_non_negative, lerp_


class Adam(Optimizer):
    """Adam (Kingma and Ba, 2014) with PyTorch's defaults and update rule; optional amsgrad and L2 weight decay.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, -2.0]))
    >>> optimizer = mt.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> optimizer.step()
    >>> [round(v, 4) for v in w.tolist()]  # the first step moves each weight by lr against its gradient's sign
    [0.9, -1.9]
    """
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_adam_options(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, (beta1, beta2), eps = float(group["lr"]), group["betas"], group["eps"]
        for p, state, _, step, exp_avg, exp_avg_sq, scratch in adam_steps(self, group):
            bias_correction1 = 1 - beta1 ** step
            bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
            if group["amsgrad"]:
                max_exp_avg_sq = state["max_exp_avg_sq"]._data
                np.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
                second_moment = max_exp_avg_sq
            else:
                second_moment = exp_avg_sq
            denom = np.sqrt(second_moment, out=scratch)
            denom /= bias_correction2_sqrt
            denom += eps
            update = np.divide(exp_avg, denom, out=scratch)
            update *= lr / bias_correction1
            p._data -= update


class AdamW(Adam):
    """Adam with decoupled weight decay: p shrinks by lr * weight_decay before the Adam step.

    >>> w = mt.nn.Parameter(mt.tensor([1.0]))
    >>> optimizer = mt.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> w.grad = mt.tensor([0.0])
    >>> optimizer.step()
    >>> round(w.item(), 4)  # only the decay: 1 - 0.1 * 0.5
    0.95
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                         foreach=foreach, maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)


def adam_steps(optimizer, group):
    """Each parameter of `group` with a gradient, at the start of its Adam, NAdam or RAdam step: yields
    (p, state, gradient, step count, exp_avg, exp_avg_sq, a scratch array), the moments as arrays.

    Makes the state on the first step (step, exp_avg, exp_avg_sq, and
    max_exp_avg_sq with amsgrad), counts the step, applies the weight decay
    (L2 in the gradient, or decoupled: p shrinks by lr * weight_decay), and
    updates both moments in PyTorch's order: m by torch.lerp, v = beta2 v + (1 - beta2) g g.

    >>> w = mt.nn.Parameter(mt.tensor([1.0]))
    >>> optimizer = mt.optim.Adam([w], betas=(0.5, 0.75))
    >>> w.grad = mt.tensor([2.0])
    >>> [(step, exp_avg.item(), exp_avg_sq.item()) for _, _, _, step, exp_avg, exp_avg_sq, _ in adam_steps(
    ...     optimizer, optimizer.param_groups[0])]
    [(1.0, 1.0, 1.0)]
    """
    (beta1, beta2), weight_decay = group["betas"], group["weight_decay"]
    decoupled = group.get("decoupled_weight_decay", False)
    buffers = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group.get("amsgrad") else ())
    for p in optimizer._params_with_grad(group):
        grad = optimizer._gradient(p, group["maximize"], 0 if decoupled else weight_decay)
        state = optimizer._counted_state(p, *buffers)
        if decoupled and weight_decay != 0:
            p._data *= 1 - float(group["lr"]) * weight_decay
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        scratch = lerp_(exp_avg, grad, 1 - beta1)
        average_square_(exp_avg_sq, grad, beta2, scratch)
        yield p, state, grad, float(state["step"]._data), exp_avg, exp_avg_sq, scratch


def _check_adam_options(lr, betas, eps, weight_decay):
    check_non_negative(lr=lr, eps=eps)
    if len(betas) != 2:
        raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    check_non_negative(weight_decay=weight_decay)
