"""minitorch.utils.data: data sets, samplers and the DataLoader, as torch.utils.data.

The modules follow PyTorch's layout, so that `from torch.utils.data.dataloader
import DataLoader` and friends work with only the import changed: dataloader.py
(the DataLoader), dataset.py (the data set types), sampler.py (orders),
distributed.py (DistributedSampler); collate.py, fetch.py and worker.py are
the DataLoader's machinery (PyTorch's torch/utils/data/_utils/).

>>> from minitorch.utils.data.dataloader import DataLoader
>>> [batch.tolist() for batch in DataLoader(mt.arange(5), batch_size=2)]
[[0, 1], [2, 3], [4]]
"""
from .collate import default_collate, default_convert
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split, supports_array_batching)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from .distributed import DistributedSampler
from .worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
    "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
    "BatchSampler", "DistributedSampler", "DataLoader", "default_collate", "default_convert", "get_worker_info",
    "WorkerInfo", "supports_array_batching",
]
