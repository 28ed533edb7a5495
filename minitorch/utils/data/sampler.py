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
import numbers
from typing import Iterator, Sequence

import numpy as np

from ... import random

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "numpy_generator"]


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
    """A sampler whose epoch is int64 arrays: `index_chunks()` yields them (one, `index_array()`, unless the
    sampler draws lazily); iterating it yields Python ints."""

    def index_array(self) -> np.ndarray:
        raise NotImplementedError

    def index_chunks(self) -> Iterator[np.ndarray]:
        """The epoch's order as consecutive int64 arrays, the first drawn now."""
        return iter((self.index_array(),))

    def __iter__(self) -> Iterator[int]:
        for chunk in self.index_chunks():
            yield from chunk.tolist()


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


DRAW_CHUNK = 1 << 16  # RandomSampler's draws with replacement, made as they are used


class RandomSampler(_ArraySampler):
    """A random order: a new permutation every epoch, or `num_samples` draws with `replacement`.

    Without replacement and with `num_samples` larger than the data set, the
    order is whole permutations one after another, then part of one (as PyTorch).
    With replacement the draws come `DRAW_CHUNK` at a time, as they are used,
    so `num_samples=10**10` (an "infinite" loader) allocates no epoch-sized
    array (PyTorch draws lazily too, 32 at a time).

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
        return np.concatenate(list(self.index_chunks()))

    def index_chunks(self) -> Iterator[np.ndarray]:
        """The epoch's order, drawn now, or with replacement `DRAW_CHUNK` draws at a time as they are used.

        >>> chunks = mt.utils.data.RandomSampler(range(4), replacement=True, num_samples=10**10, generator=0).index_chunks()
        >>> next(chunks).shape
        (65536,)
        """
        n, count = len(self.data_source), self.num_samples
        rng = drawing_generator(self._rng)
        if self.replacement:
            first = rng.integers(0, n, size=min(count, DRAW_CHUNK), dtype=np.int64)
            return itertools.chain((first,), self._more_draws(rng, n, count - len(first)))
        parts = [rng.permutation(n) for _ in range(count // n)]
        parts.append(rng.permutation(n)[: count % n])
        return iter((np.concatenate(parts).astype(np.int64, copy=False),))

    @staticmethod
    def _more_draws(rng, n, left):
        while left > 0:
            chunk = rng.integers(0, n, size=min(left, DRAW_CHUNK), dtype=np.int64)
            left -= len(chunk)
            yield chunk

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
        """The batches: int64 arrays sliced from the epoch's `index_chunks()` for minitorch's samplers, else lists.

        >>> [b.tolist() for b in mt.utils.data.BatchSampler(mt.utils.data.SequentialSampler(range(5)), 2, False).index_batches()]
        [[0, 1], [2, 3], [4]]
        """
        if isinstance(self.sampler, _ArraySampler):
            return self._array_batches(self.sampler.index_chunks())
        return self._list_batches()

    def _array_batches(self, chunks):
        rest = np.empty(0, np.int64)
        for chunk in chunks:
            order = np.concatenate((rest, chunk)) if len(rest) else chunk
            stop = len(order) - len(order) % self.batch_size
            yield from (order[start:start + self.batch_size] for start in range(0, stop, self.batch_size))
            rest = order[stop:]
        if len(rest) and not self.drop_last:
            yield rest

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
