"""SyncBatchNorm: batch normalization with the statistics of the batch of all ranks together (torch.nn.SyncBatchNorm).

In training, each rank computes the mean and (biased) variance of its own
batch per channel, the ranks all-gather (count, mean, variance), and every
rank combines them into the global batch's statistics with the parallel
variance formula (Chan et al.; PyTorch's batch_norm_gather_stats_with_counts).
All of it is written with minitorch ops around one differentiable
all-gather, whose backward sums the gradients of every rank's copy of the
statistics: backward() then gives each rank its share of the gradient of the
global batch's loss, so DDP with SyncBatchNorm trains as one process with
the whole batch. One all-gather in the forward pass and one all-reduce in the
backward pass per layer. Without a process group (or with one process) and
in eval mode it is an ordinary BatchNorm.
"""
import numpy as np

from ... import distributed as dist
from ...autograd.custom import Function
from ...engine.state import no_grad
from ...creation import from_numpy, full, zeros
from ...ops.array_ops import cat, stack
from ..normalization import _BatchNorm


class _AllGather(Function):
    """Stacks every rank's `x` (world, *x.shape); the gradient of rank r's part is the sum of every rank's."""

    @staticmethod
    def forward(ctx, x):
        parts = [zeros(*x.shape, dtype=x.dtype) for _ in range(dist.get_world_size())]
        dist.all_gather(parts, x.detach())
        return stack(parts)

    @staticmethod
    def backward(ctx, grad):
        total = from_numpy(np.array(grad.detach().numpy(), copy=True))
        dist.all_reduce(total)
        return total[dist.get_rank()]


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over the global batch of all ranks, for (N, C, ...) inputs (torch.nn.SyncBatchNorm).

    >>> bn = mt.nn.SyncBatchNorm(1)
    >>> x = mt.tensor([[0.0], [2.0]]) + 4.0 * mt.distributed.get_rank()  # rank 0: 0, 2; rank 1: 4, 6
    >>> y = bn(x)           # normalized with the mean 3 and variance 5 of all four values
    >>> [round(v, 3) for v in y.flatten().tolist()] in ([-1.342, -0.447], [0.447, 1.342])
    True
    >>> round(bn.running_mean.item(), 4)   # 0.1 * 3
    0.3
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, process_group=None,
                 device=None, dtype=None, *, bias=True):
        if process_group is not None:
            raise ValueError("SyncBatchNorm: only the default process group is supported (process_group=None)")
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):
        if input.ndim < 2:
            raise ValueError(f"SyncBatchNorm: expected at least 2D input (got {input.ndim}D input of shape {tuple(input.shape)})")
        if input.shape[1] != self.num_features:
            raise ValueError(f"SyncBatchNorm: expected {self.num_features} channels in dimension 1 of the input, "
                             f"got input of shape {tuple(input.shape)}")

    def forward(self, input):
        if not self.training or not dist.is_initialized() or dist.get_world_size() == 1:
            return super().forward(input)
        self._check_input_dim(input)
        channels = self.num_features
        dims = (0,) + tuple(range(2, input.ndim))
        count = input.numel() // channels
        if count * dist.get_world_size() <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {tuple(input.shape)}")
        mean = input.mean(dim=dims)
        shape = (1, channels) + (1,) * (input.ndim - 2)
        centered = input - mean.reshape(shape)
        var = (centered * centered).mean(dim=dims)
        gathered = _AllGather.apply(cat([mean, var, full((1,), float(count), dtype=input.dtype)]))
        counts = gathered[:, 2 * channels:].detach()  # (world, 1): constants
        total = counts.sum()
        means, variances = gathered[:, :channels], gathered[:, channels:2 * channels]
        global_mean = (means * counts).sum(dim=0) / total
        spread = means - global_mean
        global_var = ((variances + spread * spread) * counts).sum(dim=0) / total
        output = (input - global_mean.reshape(shape)) / (global_var.reshape(shape) + self.eps).sqrt()
        if self.weight is not None:
            output = output * self.weight.reshape(shape)
        if self.bias is not None:
            output = output + self.bias.reshape(shape)
        if self.track_running_stats:
            self._update_running_stats(global_mean, global_var, float(total.item()))
        return output

    def _update_running_stats(self, mean, var, count):
        with no_grad():
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked.item()) if self.momentum is None else self.momentum
            self.running_mean.mul_(1 - factor).add_(mean.detach() * factor)
            self.running_var.mul_(1 - factor).add_(var.detach() * (factor * count / (count - 1)))

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """A copy of `module`'s structure with every BatchNorm replaced by a SyncBatchNorm sharing its parameters and buffers.

        >>> model = mt.nn.Sequential(mt.nn.Conv2d(1, 2, 3), mt.nn.BatchNorm2d(2), mt.nn.ReLU())
        >>> mt.nn.SyncBatchNorm.convert_sync_batchnorm(model)[1]
        SyncBatchNorm(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        """
        converted = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                            process_group)
            for name in ("weight", "bias"):
                setattr(converted, name, getattr(module, name))
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                setattr(converted, name, getattr(module, name))
            converted.train(module.training)
        for name, child in module.named_children():
            setattr(converted, name, cls.convert_sync_batchnorm(child, process_group))
        return converted

