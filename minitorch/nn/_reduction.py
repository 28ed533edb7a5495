"""How a loss is reduced (PyTorch's torch/nn/_reduction.py): the names "none", "mean" and "sum", the
legacy arguments `size_average` and `reduce` that stood for them, and ATen's integer codes for them (the
top-level forms, `torch.kl_div(..., reduction=1)`).
"""
import warnings

_NAMES = ("none", "mean", "sum")  # ATen's codes 0, 1 and 2


def legacy_reduction(size_average, reduce, reduction, stacklevel=3):
    """PyTorch's deprecated size_average/reduce arguments, mapped to `reduction` (which they override)."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction instead.",
                  stacklevel=stacklevel)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else ("mean" if size_average else "sum")


def check_reduction(reduction, name):
    if reduction not in _NAMES:
        raise ValueError(f"{name}: {reduction!r} is not a valid value for reduction (use 'mean', 'sum' or 'none')")


def checked_reduction(size_average, reduce, reduction, name):
    """The reduction a loss's arguments ask for, legacy ones included; an unknown one raises."""
    reduction = legacy_reduction(size_average, reduce, reduction, stacklevel=4)
    check_reduction(reduction, name)
    return reduction


def reduction_of_code(reduction, name):
    """The name of an ATen reduction code (0 none, 1 mean, 2 sum; a name passes through)."""
    if reduction in _NAMES:
        return reduction
    if reduction not in (0, 1, 2):
        raise ValueError(f"{name}(): reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction!r}")
    return _NAMES[int(reduction)]


def reduce_loss(loss, reduction):
    """The per-element `loss` reduced: its mean, its sum, or itself ("none")."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def reduce_weighted_loss(loss, reduction, weight, input, name, mean_over_weight=True):
    """A loss with PyTorch's per-element `weight=` (mse_loss, l1_loss, huber_loss): weight * loss, then the
    reduction; the mean is sum(weight * loss) / sum(weight), or for huber_loss the plain mean, as PyTorch."""
    if weight is None:
        return reduce_loss(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{name}: Weights and input must have the same size (weight {tuple(weight.shape)}, "
                         f"input {tuple(input.shape)}).")
    weighted = loss * weight
    if reduction == "mean" and mean_over_weight:
        return weighted.sum() / weight.sum()
    return reduce_loss(weighted, reduction)
