"""Weight normalisation and spectral normalisation by forward pre-hooks (torch.nn.utils.weight_norm and
spectral_norm, PyTorch's older API): the parameter `weight` is replaced by others it is computed from before
every forward.

    weight_norm     weight = g v / ||v||     (weight_g, weight_v; the norm over every dimension but `dim`)
    spectral_norm   weight = W / sigma(W)    (weight_orig; sigma by power iteration on the buffers
                                              weight_u, weight_v, one step per forward while training)
"""
import warnings

from ...creation import empty
from ...engine.state import no_grad
from ...ops import comparison_ops, product_ops
from ...ops.norm_ops import vector_norm
from ..parameter import Parameter


def _norm_except_dim(v, dim):
    """||v|| over every dimension but `dim`, kept as size-1 dimensions (dim -1: over all, a 0-d tensor)."""
    if dim == -1:
        return vector_norm(v.reshape(-1), 2, 0)
    others = tuple(d for d in range(v.ndim) if d != dim)
    return vector_norm(v, 2, others, keepdim=True)


def _find_hook(module, kind, name):
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None, None


class WeightNorm:
    """The forward pre-hook of weight_norm: sets module.<name> = g v / ||v||."""

    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        v = getattr(module, self.name + "_v")
        return v * (getattr(module, self.name + "_g") / _norm_except_dim(v, self.dim))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replaces module.<name> by <name>_g (magnitude) and <name>_v (direction); deprecated, as in PyTorch.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     layer = mt.nn.utils.weight_norm(mt.nn.Linear(3, 2))
    >>> list(layer.state_dict()), tuple(layer.weight_g.shape)
    (['bias', 'weight_g', 'weight_v'], (2, 1))
    """
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`.",
                  FutureWarning, stacklevel=2)
    if _find_hook(module, WeightNorm, name)[1] is not None:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    hook = WeightNorm(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, hook.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, hook.compute_weight(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module, name="weight"):
    """Undoes weight_norm: module.<name> is a Parameter again, with the current g v / ||v||.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     layer = mt.nn.utils.remove_weight_norm(mt.nn.utils.weight_norm(mt.nn.Linear(3, 2)))
    >>> list(layer.state_dict())
    ['bias', 'weight']
    """
    key, hook = _find_hook(module, WeightNorm, name)
    if hook is None:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    weight = hook.compute_weight(module)
    delattr(module, name)
    del module._parameters[name + "_g"], module._parameters[name + "_v"]
    setattr(module, name, Parameter(weight.detach()))
    del module._forward_pre_hooks[key]
    module._hooks_changed()
    return module


def _normalize(x, eps):
    return x / comparison_ops.clamp(vector_norm(x, 2, 0), min=eps)


class SpectralNorm:
    """The forward pre-hook of spectral_norm: sets module.<name> = W / sigma(W)."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalize(product_ops.matmul(matrix.t(), u), self.eps))
                    u.copy_(_normalize(product_ops.matmul(matrix, v), self.eps))
            u, v = u.clone(), v.clone()
        sigma = (u * product_ops.matmul(matrix, v)).sum()
        return weight / sigma

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.<name> by its largest singular value, estimated by power iteration (weight_orig, weight_u,
    weight_v); dim defaults to 1 for transposed convolutions, else 0.

    >>> layer = mt.nn.utils.spectral_norm(mt.nn.Linear(4, 3))
    >>> list(layer.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
    """
    if dim is None:
        dim = 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") else 0
    if _find_hook(module, SpectralNorm, name)[1] is not None:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = module._parameters.get(name)
    if weight is None:
        raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
    with no_grad():
        height, width = hook.reshape_weight_to_matrix(weight).shape
        u = _normalize(empty(height, dtype=weight.dtype).normal_(0, 1), eps)
        v = _normalize(empty(width, dtype=weight.dtype).normal_(0, 1), eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undoes spectral_norm: module.<name> is a Parameter again, with the current W / sigma.

    >>> layer = mt.nn.utils.remove_spectral_norm(mt.nn.utils.spectral_norm(mt.nn.Linear(4, 3)))
    >>> list(layer.state_dict())
    ['bias', 'weight']
    """
    key, hook = _find_hook(module, SpectralNorm, name)
    if hook is None:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    with no_grad():
        weight = hook.compute_weight(module, do_power_iteration=False)
    for suffix in ("", "_u", "_v", "_orig"):
        delattr(module, name + suffix)
    module.register_parameter(name, Parameter(weight.detach()))
    del module._forward_pre_hooks[key]
    module._hooks_changed()
    return module
