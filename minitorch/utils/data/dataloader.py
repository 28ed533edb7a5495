"""The DataLoader: a data set's samples in batches of minitorch Tensors (PyTorch's torch/utils/data/dataloader.py).

Same semantics as PyTorch's DataLoader: each epoch visits every sample once,
the last short batch is kept unless ``drop_last``, ``shuffle`` draws a new
order every epoch (a RandomSampler), a ``sampler`` or ``batch_sampler``
chooses the order instead, ``batch_size=None`` turns batching off, and an
``IterableDataset`` streams its items. ``num_workers=N`` loads in N worker
processes (worker.py) and gives the same batches, in the same order, as the
main process would.

Generators: ``generator`` may be an ``mt.Generator``, a numpy Generator or an
int seed (``seed=`` is a shorthand for the last); without one, shuffling
draws from minitorch's global generator, which ``mt.manual_seed`` seeds. As
in PyTorch, every epoch first draws a base seed for the workers' generators
from that generator, with or without workers, so that the order of a seeded
run does not depend on ``num_workers``.

Fast path: a map-style data set that can hand over all its samples as whole
arrays (the ``arrays()`` protocol, dataset.py) is batched with one fancy
index per field per batch, never touching ``__getitem__``. Every other data
set, or one with a per-sample ``transform``, or a loader given its own
``collate_fn``, goes sample by sample through ``collate_fn``.

Where the work happens: dataset.py (the data set types), sampler.py and
distributed.py (orders), collate.py (samples to batches), fetch.py (indices to
a batch), worker.py (worker processes); this module holds the DataLoader.
"""
from __future__ import annotations

import itertools
import math
import multiprocessing
import numbers
import warnings
from typing import Any, Callable, Iterator

from .collate import default_collate, default_convert
from .dataset import IterableDataset, supports_array_batching
from .fetch import LoadingPlan, make_fetcher
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, drawing_generator, numpy_generator
from .worker import MultiProcessIterator, WorkerPool, get_worker_info

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]  # PyTorch's dataloader module's

_FIXED_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class DataLoader:
    """Iterate over ``dataset`` in batches of minitorch Tensors, with PyTorch's arguments.

    ``num_workers > 0`` starts worker processes that fetch and collate the
    batches (see worker.py: same batches, same order; ``timeout``,
    ``worker_init_fn``, ``prefetch_factor``, ``persistent_workers``,
    ``multiprocessing_context`` and ``in_order`` as in PyTorch). Where a
    process cannot start (a daemon process, a platform without fork and
    spawn, a sandbox that forbids it), the loader warns once and loads in the
    main process, which gives the same batches. ``pin_memory`` is accepted
    and changes nothing: there is no accelerator (PyTorch warns the same).

    >>> ds = mt.utils.data.TensorDataset(mt.arange(10.0).reshape(5, 2), mt.arange(5))
    >>> [(tuple(x.shape), y.tolist()) for x, y in mt.utils.data.DataLoader(ds, batch_size=2)]
    [((2, 2), [0, 1]), ((2, 2), [2, 3]), ((1, 2), [4])]
    >>> shuffled = mt.utils.data.DataLoader(ds, batch_size=2, shuffle=True, generator=0)
    >>> [y.tolist() for _, y in shuffled]
    [[2, 4], [3, 0], [1]]
    >>> in_workers = mt.utils.data.DataLoader(ds, batch_size=2, shuffle=True, generator=0, num_workers=2)
    >>> [y.tolist() for _, y in in_workers]  # the same batches, fetched by two worker processes
    [[2, 4], [3, 0], [1]]
    """

    _initialized = False

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn: Callable[[list], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None, multiprocessing_context=None, generator=None,
                 *, prefetch_factor: int | None = None, persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True, seed: int | None = None):
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                                     f"{name}={value}")
        elif sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if generator is not None and seed is not None:
            raise ValueError("DataLoader: pass either generator or seed, not both")
        rng = numpy_generator(generator if generator is not None else seed, "DataLoader: generator")

        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=rng) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler if sampler is not None else _Unbounded(), batch_size, drop_last)

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator if generator is not None else seed
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor if prefetch_factor is not None or num_workers == 0 else 2
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self.persistent_workers = persistent_workers
        self._rng = rng
        self._iterable = iterable
        self._array_batching_allowed = collate_fn is None
        self._pool = None
        self._initialized = True

    def __setattr__(self, name, value):
        if self._initialized and name in _FIXED_AFTER_INIT:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def uses_array_batching(self) -> bool:
        """True when batches come from one fancy index per field (no ``__getitem__`` calls)."""
        return (self._array_batching_allowed and not self._iterable and self.batch_sampler is not None
                and supports_array_batching(self.dataset))

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)  # a TypeError if the stream has no length, as in PyTorch
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def _plan(self) -> LoadingPlan:
        return LoadingPlan(dataset=self.dataset, iterable=self._iterable, array_batching=self.uses_array_batching,
                           auto_collation=self.batch_sampler is not None, batch_size=self.batch_size,
                           drop_last=self.drop_last, collate_fn=self.collate_fn, worker_init_fn=self.worker_init_fn)

    def _index_batches(self) -> Iterator:
        """This epoch's indices: batches (arrays or lists), single indices without batching, None for a stream."""
        if self._iterable:
            return itertools.repeat(None)
        if isinstance(self.batch_sampler, BatchSampler):
            return iter(self.batch_sampler.index_batches())
        return iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self) -> Iterator:
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=2)
        # Drawn first, with or without workers (PyTorch's order): the shuffling stream does not depend on num_workers.
        base_seed = int(drawing_generator(self._rng).integers(2 ** 63))
        if self.num_workers > 0:
            pool = self._worker_pool(base_seed)
            if pool is not None:
                return MultiProcessIterator(pool, self._index_batches(), self.prefetch_factor, self.timeout,
                                            self.in_order, self.persistent_workers, self._length_or_none())
        return _SingleProcessIterator(make_fetcher(self._plan()), self._index_batches(), self._length_or_none())

    def _length_or_none(self):
        try:
            return len(self)
        except TypeError:
            return None

    def _worker_pool(self, base_seed):
        """A running pool (this epoch's, or the persistent one), or None where processes cannot start."""
        if self._pool is not None and self._pool.alive:
            self._pool.drain(self.timeout if self.timeout > 0 else None)
            self._pool.restart_epoch()
            return self._pool
        reason = None
        if multiprocessing.current_process().daemon:
            reason = "this process is a daemon, and daemons cannot start processes"
        else:
            try:
                pool = WorkerPool(self._plan(), self.num_workers, base_seed, self.multiprocessing_context)
            except (OSError, NotImplementedError) as error:
                reason = f"{type(error).__name__}: {error}"
        if reason is not None:
            warnings.warn(f"DataLoader(num_workers={self.num_workers}): cannot start worker processes ({reason}); "
                          f"loading in the main process instead, which gives the same batches", RuntimeWarning,
                          stacklevel=3)
            return None
        if self.persistent_workers:
            self._pool = pool
        return pool

    def __repr__(self) -> str:
        return (f"DataLoader(dataset={type(self.dataset).__name__}, batch_size={self.batch_size}, "
                f"sampler={type(self.sampler).__name__}, num_workers={self.num_workers}, drop_last={self.drop_last})")


class _SingleProcessIterator:
    """One epoch in the main process: each batch of indices through the fetcher."""

    def __init__(self, fetcher, index_batches, length):
        self.fetcher, self.index_batches, self.length = fetcher, index_batches, length

    def __iter__(self):
        return self

    def __next__(self):
        return self.fetcher.fetch(next(self.index_batches))

    def __len__(self):
        if self.length is None:
            raise TypeError("this DataLoader's IterableDataset has no length")
        return self.length


class _Unbounded(Sampler):
    """The sampler of an iterable data set: None forever (the stream decides when the epoch ends)."""

    def __iter__(self):
        return itertools.repeat(None)


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context):
    if isinstance(num_workers, bool) or not isinstance(num_workers, numbers.Integral) or num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing. let num_workers > 0 to "
                         "enable multiprocessing, otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None:
        if num_workers == 0:
            raise ValueError(f"multiprocessing_context can only be used with multi-process loading (num_workers > "
                             f"0), but got num_workers={num_workers}")
        if isinstance(multiprocessing_context, str):
            methods = multiprocessing.get_all_start_methods()
            if multiprocessing_context not in methods:
                raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                 f"{methods!r}, but got multiprocessing_context={multiprocessing_context!r}")
        elif not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
            raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                            f"specifying the start method, but got multiprocessing_context={multiprocessing_context}")
