"""Samplers: the order in which a DataLoader visits a data set (PyTorch's torch/utils/data/sampler.py).

A sampler yields indices (a BatchSampler yields lists of them). The random
ones draw from a numpy Generator: the one given as `generator` (a numpy
Generator, an `mt.Generator`, whose numpy generator is used, or an int seed),
or else minitorch's global generator at the time they draw, so that
`mt.manual_seed` makes them repeat. The numbers are not PyTorch's (its
generator is a different algorithm); a seeded run repeats exactly.

Besides iteration, minitorch's samplers hand over a whole epoch as one int64
array (`index_array()`), which the DataLoader slices into batches without a
Python loop over the samples.
"""
from __future__ import annotations

import itertools
import math
import numbers
from typing import Iterator, Sequence

import numpy as np

from .. import distributed as dist
from .. import random

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "DistributedSampler", "numpy_generator"]


def numpy_generator(generator, owner: str = "generator"):
    """The numpy Generator behind `generator`, or None (draw from the global one) when it is None.

    Accepts a numpy Generator (used as it is), a minitorch Generator (its numpy
    generator, found in its ``numpy`` attribute) or an int seed (a new generator).

    >>> int(numpy_generator(3).integers(10)) == int(np.random.default_rng(3).integers(10))
    True
    >>> numpy_generator("3")
    Traceback (most recent call last):
        ...
    TypeError: generator must be a minitorch.Generator, a numpy.random.Generator or an int seed, got str
    """
    if generator is None or isinstance(generator, np.random.Generator):
        return generator
    if isinstance(getattr(generator, "numpy", None), np.random.Generator):
        return generator.numpy
    if isinstance(generator, bool) or not isinstance(generator, numbers.Integral):
        raise TypeError(f"{owner} must be a minitorch.Generator, a numpy.random.Generator or an int seed, "
                        f"got {type(generator).__name__}")
    return np.random.default_rng(int(generator))


def drawing_generator(rng):
    """`rng`, or minitorch's global generator as it is now (so that `mt.manual_seed` applies) when `rng` is None.

    >>> _ = mt.manual_seed(0)
    >>> drawing_generator(None) is mt.random.generator()
    True
    """
    return rng if rng is not None else random.generator()


class Sampler:
    """The order in which a DataLoader visits a data set: subclasses define ``__iter__`` (indices) and ``__len__``.

    >>> class Backwards(mt.utils.data.Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n - 1, -1, -1))
    ...     def __len__(self):
    ...         return self.n
    >>> [y.tolist() for y, in mt.utils.data.DataLoader(mt.utils.data.TensorDataset(mt.arange(4)), 2, sampler=Backwards(4))]
    [[3, 2], [1, 0]]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    # No default __len__ (PyTorch's note "Lack of Default `__len__`"): list(sampler) would call it and fail.


class _ArraySampler(Sampler):
    """A sampler whose epoch is one int64 array, `index_array()`; iterating it yields Python ints."""

    def index_array(self) -> np.ndarray:
        raise NotImplementedError

    def __iter__(self) -> Iterator[int]:
        return iter(self.index_array().tolist())


def _key_array(keys) -> np.ndarray:
    """`keys` as a 1-d array: int64 for integers, else an object array holding the keys themselves."""
    array = np.asarray(keys)
    if array.ndim == 1 and array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    objects = np.empty(len(keys), dtype=object)
    for i, key in enumerate(keys):
        objects[i] = key
    return objects


class SequentialSampler(_ArraySampler):
    """0, 1, ..., len(data_source) - 1.

    >>> list(mt.utils.data.SequentialSampler(range(3)))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def index_array(self) -> np.ndarray:
        """The epoch's indices as an int64 array.

        >>> mt.utils.data.SequentialSampler("abc").index_array()
        array([0, 1, 2])
        """
        return np.arange(len(self.data_source), dtype=np.int64)

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(_ArraySampler):
    """A random order: a new permutation every epoch, or `num_samples` draws with `replacement`.

    Without replacement and with `num_samples` larger than the data set, the
    order is whole permutations one after another, then part of one (as PyTorch).

    >>> sampler = mt.utils.data.RandomSampler(range(5), generator=np.random.default_rng(0))
    >>> sorted(sampler), len(sampler)
    ([0, 1, 2, 3, 4], 5)
    >>> drawn = list(mt.utils.data.RandomSampler(range(3), replacement=True, num_samples=8, generator=1))
    >>> len(drawn), set(drawn) <= {0, 1, 2}
    (8, True)
    """

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        self._rng = numpy_generator(generator)
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if isinstance(self.num_samples, bool) or not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        # The data set's size may change between epochs.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def index_array(self) -> np.ndarray:
        """This epoch's order, drawn now, as an int64 array.

        >>> mt.utils.data.RandomSampler(range(4), num_samples=6, generator=0).index_array().shape
        (6,)
        """
        n, count = len(self.data_source), self.num_samples
        rng = drawing_generator(self._rng)
        if self.replacement:
            return rng.integers(0, n, size=count, dtype=np.int64)
        parts = [rng.permutation(n) for _ in range(count // n)]
        parts.append(rng.permutation(n)[: count % n])
        return np.concatenate(parts).astype(np.int64, copy=False)

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(_ArraySampler):
    """The given indices in a new random order every epoch.

    >>> sorted(mt.utils.data.SubsetRandomSampler([7, 3, 5], generator=0))
    [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int], generator=None):
        self.indices = indices
        self.generator = generator
        self._rng = numpy_generator(generator)

    def index_array(self) -> np.ndarray:
        """This epoch's order of the indices, drawn now (int64, or objects for other keys).

        >>> sorted(mt.utils.data.SubsetRandomSampler([4, 2], generator=1).index_array().tolist())
        [2, 4]
        """
        return _key_array(self.indices)[drawing_generator(self._rng).permutation(len(self.indices))]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(_ArraySampler):
    """`num_samples` indices drawn with probabilities proportional to `weights` (with replacement by default).

    For unbalanced classes: weight each sample by 1 / (its class's count).

    >>> sampler = mt.utils.data.WeightedRandomSampler([0.0, 1.0, 3.0], num_samples=1000, generator=0)
    >>> counts = np.bincount(list(sampler), minlength=3)
    >>> int(counts[0]), bool(2.5 < counts[2] / counts[1] < 3.5)
    (0, True)
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None):
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = np.asarray(weights, dtype=np.float64)
        if weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator
        self._rng = numpy_generator(generator)

    def index_array(self) -> np.ndarray:
        """This epoch's draws, as an int64 array; PyTorch's errors for weights that cannot be a distribution.

        Without replacement, the categories are ranked by weight / Exponential(1)
        noise (PyTorch's method): once the positive weights are used up, zero
        weights are drawn too, as in PyTorch.

        >>> mt.utils.data.WeightedRandomSampler([1.0, -1.0], 2).index_array()
        Traceback (most recent call last):
            ...
        RuntimeError: invalid multinomial distribution (encountering probability entry < 0)
        """
        weights = self.weights
        if not np.all(weights >= 0):  # negative, or NaN
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if np.any(np.isinf(weights)):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
        total = weights.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rng = drawing_generator(self._rng)
        if self.replacement:
            return rng.choice(len(weights), size=self.num_samples, p=weights / total).astype(np.int64)
        if self.num_samples > len(weights):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        keys = weights / rng.exponential(size=len(weights))
        return np.argsort(-keys, kind="stable")[: self.num_samples].astype(np.int64)

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless `drop_last`).

    >>> list(mt.utils.data.BatchSampler(mt.utils.data.SequentialSampler(range(7)), batch_size=3, drop_last=False))
    [[0, 1, 2], [3, 4, 5], [6]]
    >>> list(mt.utils.data.BatchSampler(range(7), batch_size=3, drop_last=True))
    [[0, 1, 2], [3, 4, 5]]
    """

    def __init__(self, sampler, batch_size: int, drop_last: bool):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list]:
        for batch in self.index_batches():
            yield batch.tolist() if isinstance(batch, np.ndarray) else batch

    def index_batches(self) -> Iterator:
        """The batches: int64 arrays sliced from the epoch's `index_array()` for minitorch's samplers, else lists.

        >>> [b.tolist() for b in mt.utils.data.BatchSampler(mt.utils.data.SequentialSampler(range(5)), 2, False).index_batches()]
        [[0, 1], [2, 3], [4]]
        """
        if isinstance(self.sampler, (_ArraySampler, DistributedSampler)):
            order = self.sampler.index_array()
            stop = len(order) - len(order) % self.batch_size if self.drop_last else len(order)
            return (order[start:start + self.batch_size] for start in range(0, stop, self.batch_size))
        return self._list_batches()

    def _list_batches(self):
        sampler_iter = iter(self.sampler)
        batch = list(itertools.islice(sampler_iter, self.batch_size))
        while batch and (len(batch) == self.batch_size or not self.drop_last):
            yield batch
            batch = list(itertools.islice(sampler_iter, self.batch_size))

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class DistributedSampler(Sampler):
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

    def __iter__(self) -> Iterator[int]:
        return iter(self.index_array().tolist())

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
