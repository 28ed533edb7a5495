"""Datasets and the DataLoader that turns them into batches of minitorch Tensors.

Same semantics as ``torch.utils.data``: each epoch visits every sample once,
the last short batch is kept unless ``drop_last``, ``shuffle`` draws a new
order every epoch, and a seed or ``numpy.random.Generator`` makes the order
reproducible.

Fast path: a dataset that can hand over all its samples as whole arrays (the
``arrays()`` protocol below) is batched with one fancy index per field per
batch, never touching ``__getitem__``. Every other dataset, or one with a
per-sample ``transform``, goes sample by sample through ``collate_fn``.

The array-batching protocol: ``dataset.arrays()`` returns a tuple of numpy
arrays with equal first dimension N == len(dataset), such that sample ``i`` is
``tuple(field[i] for field in dataset.arrays())`` (as Tensors). A batch is then
a list with one Tensor per field, exactly what ``default_collate`` would build.
"""

from __future__ import annotations

import collections.abc
import math
import numbers
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .. import random
from ..creation import from_numpy
from ..tensor import Tensor
from .. import distributed as dist

__all__ = [
    "Dataset",
    "TensorDataset",
    "Subset",
    "random_split",
    "Sampler",
    "DistributedSampler",
    "DataLoader",
    "default_collate",
    "supports_array_batching",
]


def _to_tensor(array: np.ndarray):
    """The one place where numpy data becomes a minitorch Tensor."""
    return from_numpy(np.ascontiguousarray(array))


def _is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def _as_numpy(obj: Any) -> np.ndarray:
    """A Tensor's data (or any array-like) as a numpy array, without copying when possible.

    ``np.asarray`` (via ``Tensor.__array__``) also works for tensors that require
    grad, where ``.numpy()`` refuses; batches never carry the graph anyway.
    """
    return np.asarray(obj)


def _make_rng(generator: np.random.Generator | int | None, seed: int | None) -> np.random.Generator | None:
    """The loader's own generator, or None to draw from minitorch's global one (``mt.manual_seed``)."""
    if generator is not None and seed is not None:
        raise ValueError("DataLoader: pass either generator or seed, not both")
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, random.Generator):
        return generator.numpy
    if generator is not None:
        if isinstance(generator, bool) or not isinstance(generator, numbers.Integral):
            raise TypeError(
                f"DataLoader: generator must be a minitorch.Generator, a numpy.random.Generator or an int seed, "
                f"got {type(generator).__name__}"
            )
        return np.random.default_rng(int(generator))
    if seed is not None:
        return np.random.default_rng(seed)
    return None


def _global_rng() -> np.random.Generator:
    # Like PyTorch's samplers without a generator: follow the global RNG, so
    # mt.manual_seed(...) makes shuffling reproducible.
    return random.generator()


class Dataset:
    """An indexable collection of samples: subclasses define ``__getitem__`` and ``__len__``.

    >>> class Squares(mt.utils.data.Dataset):
    ...     def __getitem__(self, index):
    ...         return index * index
    ...     def __len__(self):
    ...         return 4
    >>> [x.tolist() for x in mt.utils.data.DataLoader(Squares(), batch_size=2)]
    [[0, 1], [4, 9]]
    """

    def __getitem__(self, index: int):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


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


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> ds = mt.utils.data.TensorDataset(mt.arange(5.0))
    >>> [s[0].item() for s in mt.utils.data.Subset(ds, [4, 0])]
    [4.0, 0.0]
    """

    def __init__(self, dataset, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = np.asarray(indices, dtype=np.int64)

    def __getitem__(self, index):
        if isinstance(index, (list, np.ndarray)):
            return [self.dataset[int(i)] for i in self.indices[index]]
        return self.dataset[int(self.indices[index])]

    def __len__(self) -> int:
        return len(self.indices)

    def arrays(self) -> tuple[np.ndarray, ...]:
        if not supports_array_batching(self.dataset):
            raise TypeError(f"Subset of {type(self.dataset).__name__}, which does not support array batching")
        return tuple(field[self.indices] for field in self.dataset.arrays())


def random_split(dataset, lengths: Sequence[int | float], generator: np.random.Generator | int | None = None):
    """Split ``dataset`` into non-overlapping random Subsets of the given lengths (or fractions).

    >>> train, test = mt.utils.data.random_split(mt.utils.data.TensorDataset(mt.arange(10.0)), [0.8, 0.2])
    >>> len(train), len(test)
    (8, 2)
    """
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1.0):
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):  # spread the remainder round-robin, as PyTorch does
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(f"random_split: lengths {lengths} sum to {sum(lengths)}, dataset has {n} samples")
    rng = _make_rng(generator, None)
    order = (rng if rng is not None else _global_rng()).permutation(n)
    splits, start = [], 0
    for length in lengths:
        splits.append(Subset(dataset, order[start : start + length]))
        start += length
    return splits


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


def default_collate(batch: list):
    """Merge a list of samples into a batch, like ``torch.utils.data.default_collate``.

    Tensors and numpy arrays are stacked, Python ints become int64 and floats
    float64 tensors, strings stay a list, and tuples, lists, namedtuples and
    dicts are collated field by field.

    >>> from minitorch.utils.data import default_collate
    >>> default_collate([(mt.tensor([1.0, 2.0]), 0), (mt.tensor([3.0, 4.0]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    >>> default_collate([{"x": 1.5, "name": "a"}, {"x": 2.5, "name": "b"}])
    {'x': tensor([1.5000, 2.5000], dtype=minitorch.float64), 'name': ['a', 'b']}
    """
    if len(batch) == 0:
        raise ValueError("default_collate: empty batch")
    elem = batch[0]
    if _is_tensor(elem):
        return _to_tensor(np.stack([_as_numpy(t) for t in batch]))
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "USO":
            raise TypeError(f"default_collate: cannot batch numpy arrays of dtype {elem.dtype}")
        return _to_tensor(np.stack(batch))
    if isinstance(elem, np.generic):
        return _to_tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return _to_tensor(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return _to_tensor(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, numbers.Real):
        # PyTorch's default_collate turns Python floats into float64.
        return _to_tensor(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("default_collate: each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate: cannot batch samples of type {type(elem).__name__}")


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

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


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

    def indices(self) -> np.ndarray:
        """This rank's indices for the current epoch, as an int64 array.

        >>> mt.utils.data.DistributedSampler(range(7), num_replicas=3, rank=2, shuffle=False).indices()
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
        return iter(self.indices().tolist())

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


class DataLoader:
    """Iterate over ``dataset`` in batches of minitorch Tensors.

    ``generator`` may be a ``numpy.random.Generator`` or an int seed; ``seed``
    is a shorthand for the latter. With either, the sequence of epoch orders is
    reproducible; each new epoch (each ``iter(loader)``) draws a new order.
    With neither, shuffling draws from minitorch's global generator, which
    ``minitorch.manual_seed`` seeds (as PyTorch's does). A ``sampler`` (a
    DistributedSampler, say) gives the order instead of ``shuffle``.

    >>> ds = mt.utils.data.TensorDataset(mt.arange(10.0).reshape(5, 2), mt.arange(5))
    >>> [(tuple(x.shape), y.tolist()) for x, y in mt.utils.data.DataLoader(ds, batch_size=2)]
    [((2, 2), [0, 1]), ((2, 2), [2, 3]), ((1, 2), [4])]
    """

    def __init__(
        self,
        dataset,
        batch_size: int = 1,
        shuffle: bool = False,
        drop_last: bool = False,
        generator: np.random.Generator | int | None = None,
        seed: int | None = None,
        collate_fn: Callable[[list], Any] | None = None,
        sampler: Sampler | None = None,
    ):
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise ValueError(f"DataLoader: batch_size should be a positive integer, got {batch_size!r}")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        self.dataset = dataset
        self.sampler = sampler
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.collate_fn = collate_fn
        self._rng = _make_rng(generator, seed)

    @property
    def uses_array_batching(self) -> bool:
        """True when batches come from one fancy index per field (no ``__getitem__`` calls)."""
        return self.collate_fn is None and supports_array_batching(self.dataset)

    def __len__(self) -> int:
        n = len(self.dataset) if self.sampler is None else len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def _epoch_batches(self) -> list[np.ndarray]:
        """This epoch's batches of indices; shuffling draws from the loader's generator."""
        n = len(self.dataset)
        if self.sampler is not None:
            order = np.fromiter(iter(self.sampler), dtype=np.int64)
        elif self.shuffle:
            order = (self._rng if self._rng is not None else _global_rng()).permutation(n)
        else:
            order = np.arange(n)
        return [order[start : start + self.batch_size] for start in range(0, len(self) * self.batch_size, self.batch_size)]

    def __iter__(self) -> Iterator:
        # The order is drawn here, when the epoch starts, so each iter() is one new epoch.
        batches = self._epoch_batches()
        if self.uses_array_batching:
            return self._iter_arrays(batches)
        return self._iter_samples(batches)

    def _iter_arrays(self, batches: list[np.ndarray]) -> Iterator[list]:
        fields = tuple(np.asanyarray(field) for field in self.dataset.arrays())
        n = len(self.dataset)
        for field in fields:
            if field.ndim == 0 or len(field) != n:
                raise ValueError(
                    f"{type(self.dataset).__name__}.arrays() returned a field of shape {field.shape}; "
                    f"every field needs first dimension {n} (len(dataset))"
                )
        for indices in batches:
            yield [_to_tensor(field[indices]) for field in fields]

    def _iter_samples(self, batches: list[np.ndarray]) -> Iterator:
        collate = self.collate_fn or default_collate
        for indices in batches:
            yield collate([self.dataset[int(i)] for i in indices])

    def __repr__(self) -> str:
        return (
            f"DataLoader(dataset={type(self.dataset).__name__}, batch_size={self.batch_size}, "
            f"shuffle={self.shuffle}, drop_last={self.drop_last})"
        )
