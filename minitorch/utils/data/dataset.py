"""The data set types of ``minitorch.utils.data`` (PyTorch's torch/utils/data/dataset.py).

Map-style data sets (``Dataset``) are indexed, ``dataset[i]``; iterable-style
ones (``IterableDataset``) are iterated, for streams whose items come one by
one. The loaders of real data (MNIST and friends) are in ``minitorch.datasets``.

The array-batching protocol: ``dataset.arrays()`` returns a tuple of numpy
arrays with equal first dimension N == len(dataset), such that sample ``i`` is
``tuple(field[i] for field in dataset.arrays())`` (as Tensors). The DataLoader
then batches with one fancy index per field per batch, never calling
``__getitem__``; a batch is a list with one Tensor per field, exactly what
``default_collate`` would build.
"""
from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Sequence

import numpy as np

from ... import random
from .collate import _as_numpy
from .sampler import drawing_generator, numpy_generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split", "supports_array_batching"]


class Dataset:
    """An indexable collection of samples: subclasses define ``__getitem__`` and ``__len__``; ``a + b`` concatenates.

    >>> class Squares(mt.utils.data.Dataset):
    ...     def __getitem__(self, index):
    ...         return index * index
    ...     def __len__(self):
    ...         return 4
    >>> [x.tolist() for x in mt.utils.data.DataLoader(Squares(), batch_size=2)]
    [[0, 1], [4, 9]]
    >>> len(Squares() + Squares())
    8
    """

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses define ``__iter__``; ``a + b`` chains two streams.

    With ``num_workers > 0`` each worker process iterates its own copy, so a
    stream that should not be repeated splits itself by ``get_worker_info()``:

    >>> class Range(mt.utils.data.IterableDataset):
    ...     def __init__(self, start, end):
    ...         self.start, self.end = start, end
    ...     def __iter__(self):
    ...         info = mt.utils.data.get_worker_info()
    ...         if info is None:  # loading in the main process: the whole range
    ...             return iter(range(self.start, self.end))
    ...         return iter(range(self.start + info.id, self.end, info.num_workers))  # every n-th item
    >>> [batch.tolist() for batch in mt.utils.data.DataLoader(Range(3, 10), batch_size=3)]
    [[3, 4, 5], [6, 7, 8], [9]]
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __getitem__(self, index):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate it, it has no __getitem__")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are slices along the first dimension of the given tensors (or arrays).

    >>> ds = mt.utils.data.TensorDataset(mt.arange(6.0).reshape(3, 2), mt.tensor([0, 1, 0]))
    >>> len(ds), ds[1][0].tolist(), ds[1][1].item()
    (3, [2.0, 3.0], 1)
    """

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        shapes = [tuple(_as_numpy(t).shape) for t in tensors]
        if any(len(shape) == 0 for shape in shapes):
            raise ValueError("TensorDataset: every tensor needs a first dimension (got a 0-d tensor)")
        if len({shape[0] for shape in shapes}) != 1:
            shapes = ", ".join(str(shape) for shape in shapes)
            raise ValueError(f"TensorDataset: size mismatch between tensors along dimension 0: {shapes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return len(_as_numpy(self.tensors[0]))

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The underlying numpy arrays, one per tensor (what the DataLoader fancy-indexes to batch).

        >>> ds = mt.utils.data.TensorDataset(mt.zeros(5, 2), mt.arange(5))
        >>> [a.shape for a in ds.arrays()]
        [(5, 2), (5,)]
        """
        return tuple(_as_numpy(t) for t in self.tensors)


class StackDataset(Dataset):
    """Data sets of equal length side by side: sample i is a tuple (positional) or dict (keywords) of their samples.

    >>> images, labels = mt.utils.data.TensorDataset(mt.zeros(3, 2)), range(10, 13)
    >>> mt.utils.data.StackDataset(images=images, label=labels)[1]["label"]
    11
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or ``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) or list(kwargs.values())
        self._length = len(parts[0])
        if any(len(dataset) != self._length for dataset in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args or kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list) -> list:
        """The samples at `indices`, asking each part for all of them at once where it can (`__getitems__`).

        >>> mt.utils.data.StackDataset(range(5), "abcde").__getitems__([4, 0])
        [(4, 'e'), (0, 'a')]
        """
        named = isinstance(self.datasets, dict)
        columns = {key: _items(dataset, indices)
                   for key, dataset in (self.datasets.items() if named else enumerate(self.datasets))}
        if named:
            return [{key: column[i] for key, column in columns.items()} for i in range(len(indices))]
        return [tuple(column[i] for column in columns.values()) for i in range(len(indices))]

    def __len__(self) -> int:
        return self._length


def _items(dataset, indices):
    if callable(getattr(dataset, "__getitems__", None)):
        items = dataset.__getitems__(indices)
        if len(items) != len(indices):
            raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}")
        return items
    return [dataset[i] for i in indices]


class ConcatDataset(Dataset):
    """Map-style data sets one after another: indices 0..len(a)-1 are a's, the next are b's, and so on.

    >>> ds = mt.utils.data.ConcatDataset([range(3), range(10, 12)])
    >>> len(ds), ds[3], ds[-1], ds.cumulative_sizes
    (5, 10, 11, [3, 5])
    """

    @staticmethod
    def cumsum(sequence):
        """The running total of the lengths.

        >>> mt.utils.data.ConcatDataset.cumsum([range(2), range(3)])
        [2, 5]
        """
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        # AssertionError, as PyTorch raises for these two.
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset (ChainDataset chains them)")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    """Iterable data sets one after another (their items chained, each stream iterated in turn).

    >>> class Count(mt.utils.data.IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n))
    ...     def __len__(self):
    ...         return self.n
    >>> chained = mt.utils.data.ChainDataset([Count(2), Count(3)])
    >>> list(chained), len(chained)
    ([0, 1, 0, 1, 2], 5)
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            _check_iterable(dataset)
            yield from dataset

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            _check_iterable(dataset)
            total += len(dataset)
        return total


def _check_iterable(dataset):
    if not isinstance(dataset, IterableDataset):
        raise AssertionError(f"ChainDataset only supports IterableDataset, got {type(dataset).__name__}")


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> ds = mt.utils.data.TensorDataset(mt.arange(5.0))
    >>> [s[0].item() for s in mt.utils.data.Subset(ds, [4, 0])]
    [4.0, 0.0]
    """

    def __init__(self, dataset, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = indices  # as given (a list stays a list, as in PyTorch)

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[int(self.indices[i]) for i in index]]
        return self.dataset[int(self.indices[index])]

    def __getitems__(self, indices: list) -> list:
        """The samples at `indices` (positions in this subset), through the parent's `__getitems__` if it has one.

        >>> mt.utils.data.Subset(range(10, 20), [5, 7]).__getitems__([1, 0])
        [17, 15]
        """
        return _items(self.dataset, [int(self.indices[i]) for i in indices])

    def __len__(self) -> int:
        return len(self.indices)

    def arrays(self) -> tuple[np.ndarray, ...]:
        if not supports_array_batching(self.dataset):
            raise TypeError(f"Subset of {type(self.dataset).__name__}, which does not support array batching")
        indices = np.asarray(self.indices, dtype=np.int64)
        return tuple(field[indices] for field in self.dataset.arrays())


def random_split(dataset, lengths: Sequence[int | float], generator=random.default_generator):
    """Split ``dataset`` into non-overlapping random Subsets of the given lengths (or fractions).

    ``generator``: a minitorch or numpy Generator, or an int seed; by default
    minitorch's global generator (``mt.manual_seed``).

    >>> train, test = mt.utils.data.random_split(mt.utils.data.TensorDataset(mt.arange(10.0)), [0.8, 0.2])
    >>> len(train), len(test)
    (8, 2)
    """
    n = len(dataset)
    lengths = list(lengths)
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(math.floor(n * fraction))
        for i in range(n - sum(counts)):  # spread the remainder round-robin, as PyTorch does
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(f"Sum of input lengths does not equal the length of the input dataset! (random_split: lengths "
                         f"{lengths} sum to {sum(lengths)}, the data set has {n} samples)")
    order = drawing_generator(numpy_generator(generator)).permutation(n).tolist()  # lists, as PyTorch's Subsets hold
    offsets = itertools.accumulate(lengths)
    return [Subset(dataset, order[end - length:end]) for end, length in zip(offsets, lengths)]


def supports_array_batching(dataset) -> bool:
    """Whether the DataLoader may batch ``dataset`` by fancy-indexing its ``arrays()``.

    Not when a per-sample transform is set: the arrays hold untransformed data.

    >>> from minitorch.utils.data import supports_array_batching, TensorDataset
    >>> supports_array_batching(TensorDataset(mt.zeros(4, 2))), supports_array_batching([1, 2, 3])
    (True, False)
    """
    if isinstance(dataset, Subset):
        # A Subset always has arrays(), but it only works when its parent's does.
        return supports_array_batching(dataset.dataset)
    if not callable(getattr(dataset, "arrays", None)):
        return False
    return getattr(dataset, "transform", None) is None and getattr(dataset, "target_transform", None) is None
