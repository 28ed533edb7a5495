"""BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm, LocalResponseNorm and RMSNorm, as in torch.nn.

BatchNorm keeps PyTorch's state: weight and bias (affine), and the buffers
running_mean, running_var and num_batches_tracked (int64), so its
state_dict has PyTorch's keys. Training normalizes with the batch statistics
and updates the running ones in place; eval mode uses the running ones.
"""
import numbers

from .. import creation, dtypes
from ..errors import ShapeError
from ..engine.state import no_grad
from . import functional as F, init
from .module import Module
from .parameter import register_weight_and_bias


def reset_affine(module):
    """PyTorch's initial affine of a normalization layer: weight ones, bias zeros (where they exist).

    >>> norm = mt.nn.LayerNorm(2); _ = norm.weight.data.fill_(3.0); reset_affine(norm); norm.weight.tolist()
    [1.0, 1.0]
    """
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class _BatchNorm(Module):
    _expected_dims = ()  # allowed input ranks, set by the subclasses

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        register_weight_and_bias(self, (num_features,), (num_features,), affine, affine and bias, dtype)  # PyTorch 2.x's keyword-only `bias`
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        reset_affine(self)

    def _check_input_dim(self, input):
        if input.ndim not in self._expected_dims:
            wanted = " or ".join(f"{d}D" for d in self._expected_dims)
            raise ValueError(f"{type(self).__name__}: expected {wanted} input (got {input.ndim}D input of shape {tuple(input.shape)})")
        if input.shape[1] != self.num_features:
            raise ShapeError(
                f"{type(self).__name__}: expected {self.num_features} channels in dimension 1 of the input, "
                f"got input of shape {tuple(input.shape)}"
            )

    def forward(self, input):
        self._check_input_dim(input)
        # PyTorch's rule: momentum=None means a cumulative moving average (factor 1/num_batches).
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs over N (and L).

    >>> bn = mt.nn.BatchNorm1d(2)
    >>> y = bn(mt.tensor([[1.0, 10.0], [3.0, 30.0]]))
    >>> [[round(v, 3) for v in row] for row in y.tolist()]
    [[-1.0, -1.0], [1.0, 1.0]]
    >>> [round(v, 2) for v in bn.running_mean.tolist()]  # momentum 0.1 towards the batch mean
    [0.2, 2.0]
    """

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) inputs over N, H and W, per channel.

    In training mode it normalizes with the batch statistics and updates
    `running_mean`/`running_var`; in eval mode it uses those running statistics.

    >>> bn = mt.nn.BatchNorm2d(3)
    >>> y = bn(mt.randn(4, 3, 2, 2))
    >>> y.shape, [round(v, 4) + 0.0 for v in y.mean(dim=(0, 2, 3)).tolist()]
    (minitorch.Size([4, 3, 2, 2]), [0.0, 0.0, 0.0])
    >>> bn.eval()(mt.zeros(1, 3, 2, 2)).shape
    minitorch.Size([1, 3, 2, 2])
    """

    _expected_dims = (4,)


class LayerNorm(Module):
    """Normalizes over the last dimensions given by normalized_shape, with optional elementwise affine.

    >>> norm = mt.nn.LayerNorm(3)
    >>> [round(v, 3) for v in norm(mt.tensor([[1.0, 2.0, 3.0]]))[0].tolist()]
    [-1.225, 0.0, 1.225]
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        register_weight_and_bias(self, self.normalized_shape, self.normalized_shape, elementwise_affine,
                                 elementwise_affine and bias, dtype)
        self.reset_parameters()

    reset_parameters = reset_affine

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"


class GroupNorm(Module):
    """Normalizes each group of num_channels / num_groups channels per sample, then a per-channel affine, as torch.nn.GroupNorm.

    >>> norm = mt.nn.GroupNorm(2, 4)
    >>> norm
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    >>> norm(mt.tensor([[[1.0], [3.0], [10.0], [30.0]]])).flatten()
    tensor([-1.0000, 1.0000, -1.0000, 1.0000], grad_fn=<ReshapeBackward0>)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        register_weight_and_bias(self, (num_channels,), (num_channels,), affine, affine and bias, dtype)
        self.reset_parameters()

    reset_parameters = reset_affine

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


class LocalResponseNorm(Module):
    """Each value divided by (k + alpha * mean of squares over `size` neighbouring channels)^beta, as torch.nn.LocalResponseNorm.

    >>> mt.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) over the last dimensions, times a learned weight, as torch.nn.RMSNorm.

    >>> norm = mt.nn.RMSNorm(2)
    >>> norm
    RMSNorm((2,), eps=None, elementwise_affine=True)
    >>> norm(mt.tensor([[3.0, 4.0]]))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        register_weight_and_bias(self, self.normalized_shape, self.normalized_shape, elementwise_affine, False, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
