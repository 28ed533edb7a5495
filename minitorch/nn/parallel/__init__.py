"""minitorch.nn.parallel: DistributedDataParallel and SyncBatchNorm (data parallelism over minitorch.distributed)."""
from .distributed import DistributedDataParallel
from .sync_batchnorm import SyncBatchNorm

__all__ = ["DistributedDataParallel", "SyncBatchNorm"]
