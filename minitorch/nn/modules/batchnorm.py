"""torch.nn.modules.batchnorm: PyTorch's path to these classes, for `from torch.nn.modules.batchnorm import ...`.

They live in nn/lazy.py, nn/normalization.py, nn/parallel/sync_batchnorm.py.
"""
from ..lazy import LazyBatchNorm1d, LazyBatchNorm2d
from ..normalization import BatchNorm1d, BatchNorm2d, _BatchNorm
from ..parallel.sync_batchnorm import SyncBatchNorm
