"""InstanceNorm1d and InstanceNorm2d, as in torch.nn: each channel of each sample normalized over its positions.

They keep batch norm's state (normalization._BatchNorm), with PyTorch's
other defaults (affine=False, track_running_stats=False), and take
unbatched inputs too.
"""
import warnings

from . import functional as F
from .normalization import _BatchNorm


class _InstanceNorm(_BatchNorm):
    _unbatched_rank = 0  # the rank of an unbatched input, set by the subclasses

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):
        if input.ndim not in (self._unbatched_rank, self._unbatched_rank + 1):
            raise ValueError(f"{type(self).__name__}: expected {self._unbatched_rank}D or {self._unbatched_rank + 1}D input "
                             f"(got {input.ndim}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.ndim - self._unbatched_rank
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this warning "
                          "by not passing in num_features, which is not used because affine=False", stacklevel=2)
        unbatched = input.ndim == self._unbatched_rank
        batched = input.unsqueeze(0) if unbatched else input
        output = F.instance_norm(batched, self.running_mean, self.running_var, self.weight, self.bias,
                                 self.training or not self.track_running_stats,
                                 self.momentum if self.momentum is not None else 0.0, self.eps)
        return output.squeeze(0) if unbatched else output


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) inputs, as torch.nn.InstanceNorm1d.

    >>> norm = mt.nn.InstanceNorm1d(2)
    >>> norm
    InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    >>> norm(mt.tensor([[[1.0, 3.0], [10.0, 30.0]]]))
    tensor([[[-1.0000, 1.0000],
             [-1.0000, 1.0000]]])
    """

    _unbatched_rank = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) inputs, as torch.nn.InstanceNorm2d.

    >>> mt.nn.InstanceNorm2d(3, affine=True)(mt.randn(2, 3, 4, 4)).shape
    minitorch.Size([2, 3, 4, 4])
    """

    _unbatched_rank = 3
