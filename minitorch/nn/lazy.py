"""Lazy modules, as torch.nn: layers that learn their input size from the first batch they see.

A lazy layer starts with UninitializedParameter (and UninitializedBuffer)
placeholders. A forward pre-hook reads the first input, gives each
placeholder its shape in place (so an optimizer built before the first call
holds the real parameters), initialises them as the plain layer would, and
turns the module into that plain layer (LazyLinear becomes Linear), as
PyTorch's LazyModuleMixin does. Loading a state_dict into a lazy layer
gives the placeholders the shapes of the loaded tensors.
"""
import inspect

from .. import creation, dtypes
from ..engine.state import no_grad
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter, is_lazy


class LazyModuleMixin:
    """Infers the shapes of a module's parameters from its first input, then becomes `cls_to_become`."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        """True while a parameter or buffer is still a placeholder.

        >>> mt.nn.LazyLinear(3).has_uninitialized_params()
        True
        """
        return any(is_lazy(t) for t in list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Placeholders go into the state_dict as themselves (they have no values to detach)."""
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for registry in (self._parameters, self._buffers):
            for name, tensor in registry.items():
                if is_lazy(tensor) and name not in self._non_persistent_buffers_set:
                    destination[prefix + name] = tensor

    def _load_from_state_dict(self, state_dict, prefix, strict, missing_keys, unexpected_keys, error_msgs,
                              assign=False):
        """Placeholders take the shapes of the tensors being loaded, then load as usual; a placeholder
        meeting a placeholder stays one."""
        with no_grad():
            for registry in (self._parameters, self._buffers):
                for name, tensor in registry.items():
                    key = prefix + name
                    if is_lazy(tensor) and key in state_dict and not is_lazy(state_dict[key]):
                        tensor.materialize(tuple(state_dict[key].shape))
        still_lazy = {prefix + name for name, t in list(self._parameters.items()) + list(self._buffers.items()) if is_lazy(t)}
        loadable = {key: value for key, value in state_dict.items() if key not in still_lazy}
        missing = len(missing_keys)
        super()._load_from_state_dict(loadable, prefix, strict, missing_keys, unexpected_keys, error_msgs, assign)
        missing_keys[missing:] = [key for key in missing_keys[missing:] if not (key in still_lazy and key in state_dict)]


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear layer whose in_features is the last dimension of its first input, as torch.nn.LazyLinear.

    >>> layer = mt.nn.LazyLinear(4)
    >>> layer
    LazyLinear(in_features=0, out_features=4, bias=True)
    >>> layer(mt.ones(2, 7)).shape, layer
    (minitorch.Size([2, 4]), Linear(in_features=7, out_features=4, bias=True))
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device, dtype)
        self.out_features = out_features
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Gives the weight (out_features, input's last dimension) and initialises as Linear."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # loaded from a state_dict
            self.in_features = self.weight.shape[-1]


class _LazyConvMixin(LazyModuleMixin):
    def __init__(self, out_channels, kernel_size, *args, **kwargs):
        """The plain layer's arguments without in_channels: it is built with in_channels=0 (so nothing is
        drawn from the generator), then its weight and bias become placeholders."""
        settings = inspect.signature(self.cls_to_become).bind(0, out_channels, kernel_size, *args, **kwargs)
        settings.apply_defaults()
        bias, dtype = settings.arguments["bias"], settings.arguments["dtype"]
        settings.arguments["bias"] = False
        super().__init__(*settings.args, **settings.kwargs)
        self.weight = UninitializedParameter(dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """Takes in_channels from the input (dimension 1, or 0 unbatched) and gives the weight its shape."""
        if self.has_uninitialized_params():
            n = self.spatial_dims
            if input.ndim not in (n + 1, n + 2):
                raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {type(self).__name__}, "
                                   f"but got input of size: {tuple(input.shape)}")
            self.in_channels = input.shape[1] if input.ndim == n + 2 else input.shape[0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
                else:
                    self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


class LazyConv1d(_LazyConvMixin, Conv1d):
    """A Conv1d whose in_channels is read from its first input, as torch.nn.LazyConv1d.

    >>> layer = mt.nn.LazyConv1d(4, 3)
    >>> layer(mt.ones(2, 5, 8)).shape, layer.weight.shape, type(layer).__name__
    (minitorch.Size([2, 4, 6]), minitorch.Size([4, 5, 3]), 'Conv1d')
    """

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvMixin, Conv2d):
    """A Conv2d whose in_channels is read from its first input, as torch.nn.LazyConv2d.

    >>> layer = mt.nn.LazyConv2d(4, 3, padding=1)
    >>> layer(mt.ones(2, 5, 8, 8)).shape, type(layer).__name__
    (minitorch.Size([2, 4, 8, 8]), 'Conv2d')
    """

    cls_to_become = Conv2d


class LazyConvTranspose1d(_LazyConvMixin, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is read from its first input, as torch.nn.LazyConvTranspose1d.

    >>> layer = mt.nn.LazyConvTranspose1d(4, 3, stride=2)
    >>> layer(mt.ones(2, 5, 8)).shape, layer.weight.shape
    (minitorch.Size([2, 4, 17]), minitorch.Size([5, 4, 3]))
    """

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvMixin, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is read from its first input, as torch.nn.LazyConvTranspose2d.

    >>> layer = mt.nn.LazyConvTranspose2d(4, 2, stride=2)
    >>> layer(mt.ones(2, 5, 8, 8)).shape, type(layer).__name__
    (minitorch.Size([2, 4, 16, 16]), 'ConvTranspose2d')
    """

    cls_to_become = ConvTranspose2d


class _LazyNormMixin(LazyModuleMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=dtypes.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Takes num_features from the input's channels and gives every placeholder that length."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[self._channel_dim(input)]
            with no_grad():
                for tensor in (self.weight, self.bias, self.running_mean, self.running_var):
                    if tensor is not None:
                        tensor.materialize((self.num_features,))
                self.reset_parameters()

    def _channel_dim(self, input):
        return 1


class _LazyInstanceNormMixin(_LazyNormMixin):
    def _channel_dim(self, input):
        return 0 if input.ndim == self._unbatched_rank else 1


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """A BatchNorm1d whose num_features is read from its first input, as torch.nn.LazyBatchNorm1d.

    >>> norm = mt.nn.LazyBatchNorm1d()
    >>> norm(mt.randn(4, 3)).shape, norm.running_mean.shape, type(norm).__name__
    (minitorch.Size([4, 3]), minitorch.Size([3]), 'BatchNorm1d')
    """

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """A BatchNorm2d whose num_features is read from its first input, as torch.nn.LazyBatchNorm2d.

    >>> norm = mt.nn.LazyBatchNorm2d()
    >>> norm(mt.randn(4, 3, 2, 2)).shape, type(norm).__name__
    (minitorch.Size([4, 3, 2, 2]), 'BatchNorm2d')
    """

    cls_to_become = BatchNorm2d


class LazyInstanceNorm1d(_LazyInstanceNormMixin, InstanceNorm1d):
    """An InstanceNorm1d whose num_features is read from its first input, as torch.nn.LazyInstanceNorm1d.

    >>> norm = mt.nn.LazyInstanceNorm1d()
    >>> norm(mt.randn(3, 5)).shape, norm.weight.shape, type(norm).__name__
    (minitorch.Size([3, 5]), minitorch.Size([3]), 'InstanceNorm1d')
    """

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyInstanceNormMixin, InstanceNorm2d):
    """An InstanceNorm2d whose num_features is read from its first input, as torch.nn.LazyInstanceNorm2d.

    >>> norm = mt.nn.LazyInstanceNorm2d()
    >>> norm(mt.randn(2, 3, 4, 4)).shape, type(norm).__name__
    (minitorch.Size([2, 3, 4, 4]), 'InstanceNorm2d')
    """

    cls_to_become = InstanceNorm2d
