"""DistributedSampler: each process of a process group visits its own share of a data set
(PyTorch's torch/utils/data/distributed.py)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ... import distributed as dist
from .sampler import _ArraySampler

__all__ = ["DistributedSampler"]


class DistributedSampler(_ArraySampler):
    """Each of ``num_replicas`` processes visits its own share of the data set (torch.utils.data.DistributedSampler).

    Rank r takes every ``num_replicas``-th index of the epoch's order starting
    at r, so the shares are disjoint and together cover the data set. When
    the size does not divide evenly, the order is padded by repeating its
    first indices (or, with ``drop_last``, cut) so that every rank gets the
    same number of samples, as in PyTorch. ``shuffle`` draws the order from
    ``seed + epoch``, the same on every rank: call ``set_epoch(epoch)`` before
    each epoch for a new order. ``num_replicas`` and ``rank`` default to the
    process group's (``minitorch.distributed``). With ``drop_last=False``,
    up to ``num_replicas - 1`` samples are seen twice per epoch, which shifts
    an evaluation metric slightly.

    >>> ds = mt.utils.data.TensorDataset(mt.arange(5))
    >>> [list(mt.utils.data.DistributedSampler(ds, num_replicas=2, rank=r, shuffle=False)) for r in (0, 1)]
    [[0, 2, 4], [1, 3, 0]]
    >>> [list(mt.utils.data.DistributedSampler(ds, num_replicas=2, rank=r, shuffle=False, drop_last=True)) for r in (0, 1)]
    [[0, 2], [1, 3]]
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False):
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if isinstance(num_replicas, bool) or not isinstance(num_replicas, numbers.Integral) or num_replicas < 1:
            raise ValueError(f"DistributedSampler: num_replicas should be a positive integer, got {num_replicas!r}")
        if isinstance(rank, bool) or not isinstance(rank, numbers.Integral) or not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = int(num_replicas)
        self.rank = int(rank)
        self.epoch = 0
        self.drop_last = bool(drop_last)
        n = len(dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = bool(shuffle)
        self.seed = int(seed)

    def index_array(self) -> np.ndarray:
        """This rank's indices for the current epoch, as an int64 array.

        >>> mt.utils.data.DistributedSampler(range(7), num_replicas=3, rank=2, shuffle=False).index_array()
        array([2, 5, 1])
        """
        n = len(self.dataset)
        order = np.random.default_rng(self.seed + self.epoch).permutation(n) if self.shuffle else np.arange(n)
        if self.drop_last:
            order = order[: self.total_size]
        elif self.total_size > n:  # pad by repeating the order from its start (PyTorch's rule)
            order = np.resize(order, self.total_size)
        return order[self.rank : self.total_size : self.num_replicas]

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which (with ``seed``) picks the order when shuffling; call it before each epoch.

        >>> sampler = mt.utils.data.DistributedSampler(range(8), num_replicas=2, rank=0, seed=1)
        >>> list(sampler)
        [5, 1, 2, 3]
        >>> sampler.set_epoch(1)
        >>> list(sampler)
        [6, 7, 3, 0]
        """
        self.epoch = int(epoch)
