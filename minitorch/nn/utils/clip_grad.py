"""Gradient clipping (torch.nn.utils.clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_):
in place on each parameter's .grad, unrecorded, as PyTorch's (torch/nn/utils/clip_grad.py)."""
import types
import warnings

from ...autograd.backward import as_tensor_list
from ...creation import tensor
from ...engine.state import no_grad
from ...ops import array_ops, comparison_ops
from ...ops.norm_ops import vector_norm


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors`: their p-norm as if they were one vector (a 0-d tensor).

    >>> mt.nn.utils.get_total_norm([mt.tensor([3.0]), mt.tensor([4.0])])
    tensor(5.)
    """
    tensors = as_tensor_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    with no_grad():
        norms = [vector_norm(t.detach().reshape(-1), norm_type, 0) for t in tensors]
        dtype = norms[0].dtype
        total = vector_norm(array_ops.stack([n.to(dtype) for n in norms]), norm_type, 0)
    if error_if_nonfinite and not bool(comparison_ops.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales every gradient in place by min(max_norm / (total_norm + 1e-6), 1).

    >>> p = mt.nn.Parameter(mt.zeros(2)); p.grad = mt.tensor([3.0, 4.0])
    >>> mt.nn.utils.clip_grads_with_norm_([p], 1.0, mt.tensor(5.0)); p.grad
    tensor([0.6000, 0.8000])
    """
    grads = [p.grad for p in as_tensor_list(parameters) if p.grad is not None]
    if not grads:
        return
    coefficient = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    with no_grad():
        for grad in grads:
            grad.mul_(coefficient.to(grad.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales all gradients together, in place, so their joint norm is at most max_norm; returns the norm before.

    >>> p = mt.nn.Parameter(mt.zeros(2))
    >>> p.grad = mt.tensor([3.0, 4.0])
    >>> mt.nn.utils.clip_grad_norm_([p], max_norm=1.0)
    tensor(5.)
    >>> [round(g, 3) for g in p.grad.tolist()]
    [0.6, 0.8]
    """
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = as_tensor_list(parameters)
    if is_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The deprecated name of clip_grad_norm_ (with PyTorch's FutureWarning).

    >>> p = mt.nn.Parameter(mt.zeros(1)); p.grad = mt.tensor([2.0])
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     mt.nn.utils.clip_grad_norm([p], 1.0)
    tensor(2.)
    """
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element into [-clip_value, clip_value], in place.

    >>> p = mt.nn.Parameter(mt.zeros(2))
    >>> p.grad = mt.tensor([-3.0, 0.5])
    >>> mt.nn.utils.clip_grad_value_([p], clip_value=1.0)
    >>> p.grad.tolist()
    [-1.0, 0.5]
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in as_tensor_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
