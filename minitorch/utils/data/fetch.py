"""Fetching one batch: indices in, a collated batch out (PyTorch's torch/utils/data/_utils/fetch.py).

The same fetchers run in the main process (num_workers=0) and in each worker
process, which is what makes the batches of both identical.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from .collate import _to_tensor

__all__ = ["LoadingPlan", "make_fetcher", "MapFetcher", "IterableFetcher", "ArrayFetcher"]


@dataclasses.dataclass
class LoadingPlan:
    """What a process needs to turn indices into batches: the data set and how the DataLoader batches it.

    >>> from minitorch.utils.data.collate import default_collate
    >>> plan = LoadingPlan(range(5), iterable=False, array_batching=False, auto_collation=True, batch_size=2,
    ...                    drop_last=False, collate_fn=default_collate)
    >>> make_fetcher(plan).fetch([4, 2])
    tensor([4, 2])
    """

    dataset: Any
    iterable: bool
    array_batching: bool
    auto_collation: bool
    batch_size: int | None
    drop_last: bool
    collate_fn: Callable
    worker_init_fn: Callable | None = None


def make_fetcher(plan: LoadingPlan):
    """The fetcher for `plan`; for an iterable data set, this starts a new pass over it (`iter(dataset)`)."""
    if plan.iterable:
        return IterableFetcher(iter(plan.dataset), plan.batch_size if plan.auto_collation else None, plan.drop_last,
                               plan.collate_fn)
    if plan.array_batching:
        return ArrayFetcher(plan.dataset)
    return MapFetcher(plan.dataset, plan.auto_collation, plan.collate_fn)


class MapFetcher:
    """Batches of a map-style data set: `fetch(indices)` collates dataset[i] for each index (or one sample).

    >>> from minitorch.utils.data.collate import default_collate
    >>> MapFetcher(range(10, 20), True, default_collate).fetch([3, 1])
    tensor([13, 11])
    """

    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        index = index.tolist() if isinstance(index, np.ndarray) else index
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.collate_fn(self.dataset.__getitems__(index))
        return self.collate_fn([self.dataset[i] for i in index])


class ArrayFetcher:
    """Batches of a data set with `arrays()`: one fancy index per field, no `__getitem__` call.

    >>> import minitorch.utils.data as data
    >>> ArrayFetcher(data.TensorDataset(mt.arange(5) * 10)).fetch(np.array([4, 0]))
    [tensor([40,  0])]
    """

    def __init__(self, dataset):
        n = len(dataset)
        self.fields = tuple(np.asanyarray(field) for field in dataset.arrays())
        for field in self.fields:
            if field.ndim == 0 or len(field) != n:
                raise ValueError(f"{type(dataset).__name__}.arrays() returned a field of shape {field.shape}; "
                                 f"every field needs first dimension {n} (len(dataset))")

    def fetch(self, index):
        return [_to_tensor(field[index]) for field in self.fields]


class IterableFetcher:
    """Batches of an iterable data set: the next `batch_size` items (or the next item); StopIteration at its end.

    >>> from minitorch.utils.data.collate import default_collate
    >>> fetcher = IterableFetcher(iter(range(5)), 2, False, default_collate)
    >>> fetcher.fetch().tolist(), fetcher.fetch().tolist(), fetcher.fetch().tolist()
    ([0, 1], [2, 3], [4])

    `fetch` takes (and ignores) an index, so that all fetchers are called alike.
    """

    def __init__(self, iterator, batch_size, drop_last, collate_fn):
        self.iterator, self.batch_size, self.drop_last, self.collate_fn = iterator, batch_size, drop_last, collate_fn
        self.ended = False

    def fetch(self, index=None):
        if self.ended:
            raise StopIteration
        if self.batch_size is None:
            return self.collate_fn(next(self.iterator))
        data = []
        for item in self.iterator:
            data.append(item)
            if len(data) == self.batch_size:
                break
        else:
            self.ended = True
        if not data or (self.drop_last and len(data) < self.batch_size):
            raise StopIteration
        return self.collate_fn(data)
