"""DataLoader(num_workers=N): worker processes give the batches of num_workers=0, in order; errors, deaths,
timeouts, persistent workers, seeds, iterable data sets split by get_worker_info, and the in-process fallback.

The data sets are defined at module level so that the "spawn" start method can pickle them to the workers.
"""
import collections
import multiprocessing
import multiprocessing.reduction
import os
import time
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils.data import (BatchSampler, DataLoader, Dataset, IterableDataset, SequentialSampler,
                                  SubsetRandomSampler, TensorDataset, get_worker_info)

Pair = collections.namedtuple("Pair", "image meta")


class Records(Dataset):
    """Per-sample data of every kind a batch may hold: arrays, numbers, strings, dicts, namedtuples."""

    def __len__(self):
        return 23

    def __getitem__(self, i):
        return Pair(np.full((2, 2), i, np.float32), {"label": i % 3, "name": f"s{i}", "weight": i / 4})


class Stream(IterableDataset):
    """0..n-1; split between the workers by get_worker_info() when `split`, else repeated by every worker."""

    def __init__(self, n, split=True):
        self.n, self.split = n, split

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.split:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


class WhoAmI(Dataset):
    """Each sample says which worker made it, with that worker's seed and its first random draws."""

    def __init__(self):
        self.initialised_by = None

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"worker": -1 if info is None else info.id, "seed": -1 if info is None else info.seed,
                "init": -1 if self.initialised_by is None else self.initialised_by,
                "same_dataset": info is not None and info.dataset is self,
                "mt": float(mt.rand(1)), "np": float(np.random.rand())}


def _mark_worker(worker_id):
    get_worker_info().dataset.initialised_by = worker_id


class Failing(Dataset):
    def __init__(self, error):
        self.error = error

    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 7:
            raise self.error
        return i


class Dying(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 5:
            os._exit(3)
        return i


class Slow(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        time.sleep(3 if i == 4 else 0)
        return i


class Unsendable(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return object()


def _as_lists(batch):
    """A batch as plain Python values, to compare batches of any structure."""
    if isinstance(batch, mt.Tensor):
        return ("tensor", str(batch.dtype), batch.tolist())
    if isinstance(batch, dict):
        return {k: _as_lists(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_as_lists(v) for v in batch])
    return batch


def _epochs(loader, epochs=2):
    return [[_as_lists(batch) for batch in loader] for _ in range(epochs)]


ARRAYS = TensorDataset(np.random.default_rng(0).normal(size=(50, 3)).astype(np.float32), np.arange(50))

SAME_BATCH_CASES = {
    "array fast path, shuffled": lambda **kw: DataLoader(ARRAYS, batch_size=8, shuffle=True, generator=3, **kw),
    "array fast path, drop_last": lambda **kw: DataLoader(ARRAYS, batch_size=7, drop_last=True, **kw),
    "per sample, namedtuples and dicts": lambda **kw: DataLoader(Records(), batch_size=5, shuffle=True, seed=1, **kw),
    "subset sampler": lambda **kw: DataLoader(Records(), batch_size=4, sampler=SubsetRandomSampler(range(3, 20),
                                                                                                    generator=2), **kw),
    "batch sampler": lambda **kw: DataLoader(ARRAYS, batch_sampler=BatchSampler(SequentialSampler(ARRAYS), 9, False),
                                             **kw),
    "no batching": lambda **kw: DataLoader(Records(), batch_size=None, **kw),
    "own collate_fn": lambda **kw: DataLoader(ARRAYS, batch_size=6, collate_fn=lambda s: [x[1] for x in s], **kw),
}


@pytest.mark.parametrize("make", SAME_BATCH_CASES.values(), ids=SAME_BATCH_CASES.keys())
def test_workers_give_the_batches_of_the_main_process_in_the_same_order(make):
    expected = _epochs(make())
    assert _epochs(make(num_workers=3)) == expected
    assert _epochs(make(num_workers=1, prefetch_factor=1)) == expected
    out_of_order = [_as_lists(b) for b in make(num_workers=2, in_order=False)]
    assert sorted(map(repr, out_of_order)) == sorted(map(repr, expected[0]))


def test_the_global_seed_gives_the_same_order_with_or_without_workers():
    orders = []
    for workers in (0, 2):
        mt.manual_seed(11)
        orders.append(_epochs(DataLoader(ARRAYS, batch_size=10, shuffle=True, num_workers=workers)))
        orders.append(float(mt.rand(1)))  # and the global stream continues alike
    assert orders[0] == orders[2] and orders[1] == orders[3]


def test_an_iterable_dataset_split_by_worker_info_and_one_that_is_not():
    main = [b.tolist() for b in DataLoader(Stream(11), batch_size=3)]
    assert main == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10]]
    split = [b.tolist() for b in DataLoader(Stream(11), batch_size=3, num_workers=2)]
    assert split == [[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9]]  # batches alternate between the two workers
    repeated = [b.tolist() for b in DataLoader(Stream(5, split=False), batch_size=2, num_workers=2, drop_last=True)]
    assert repeated == [[0, 1], [0, 1], [2, 3], [2, 3]]  # as in PyTorch: each worker streams it all
    single = list(DataLoader(Stream(4), batch_size=None, num_workers=3))  # default_convert keeps ints
    assert sorted(single) == [0, 1, 2, 3]
    assert len(DataLoader(Stream(11), batch_size=3, num_workers=2)) == 4


def test_worker_info_seeds_and_worker_init_fn():
    assert get_worker_info() is None
    rows = [row for batch in DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=_mark_worker,
                                         generator=np.random.default_rng(5))
            for row in [dict(zip(batch, values)) for values in zip(*[v.tolist() for v in batch.values()])]]
    assert [r["worker"] for r in rows] == [0, 0, 1, 1, 0, 0, 1, 1]
    assert all(r["init"] == r["worker"] and r["same_dataset"] for r in rows)
    seeds = {r["worker"]: r["seed"] for r in rows}
    base_seed = int(np.random.default_rng(5).integers(2 ** 63))  # the loader's first draw of the epoch
    assert seeds == {0: base_seed, 1: base_seed + 1}
    first_draws = [(r["mt"], r["np"]) for r in rows if r["worker"] == 0][:1] + \
                  [(r["mt"], r["np"]) for r in rows if r["worker"] == 1][:1]
    assert first_draws[0] != first_draws[1]  # each worker's generators are seeded differently
    mt.manual_seed(base_seed)
    assert first_draws[0][0] == pytest.approx(float(mt.rand(1)))  # worker 0's minitorch generator: base_seed


@pytest.mark.parametrize("error, kind", [(ValueError("bad sample 7"), ValueError), (KeyError("label"), KeyError),
                                         (multiprocessing.ProcessError("odd"), RuntimeError)])
def test_an_error_in_a_worker_is_raised_in_the_main_process_with_its_traceback(error, kind):
    loader = DataLoader(Failing(error), batch_size=2, num_workers=2)
    with pytest.raises(kind) as caught:
        list(loader)
    message = str(caught.value)
    assert f"Caught {type(error).__name__} in DataLoader worker process 1." in message
    assert "Original Traceback (most recent call last):" in message and "__getitem__" in message


def test_a_failing_worker_init_fn_is_reported():
    with pytest.raises(ZeroDivisionError, match="in DataLoader worker process 0"):
        list(DataLoader(ARRAYS, batch_size=10, num_workers=1, worker_init_fn=lambda worker_id: 1 / 0))


@pytest.mark.slow  # waits out a worker timeout
def test_a_dead_worker_and_a_timeout_are_runtime_errors():
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid \d+\) exited unexpectedly with exit code 3"):
        list(DataLoader(Dying(), batch_size=2, num_workers=2))
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        list(DataLoader(Slow(), batch_size=2, num_workers=2, timeout=0.5))


def test_a_batch_that_cannot_cross_processes_is_a_clear_error():
    with pytest.raises(TypeError, match="cannot be sent to the main process.*never pickled; use num_workers=0"):
        list(DataLoader(Unsendable(), batch_size=2, num_workers=1, collate_fn=list))


def test_the_main_process_never_unpickles(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("something was unpickled")

    monkeypatch.setattr(multiprocessing.reduction.ForkingPickler, "loads", refuse)
    monkeypatch.setattr("pickle.loads", refuse)
    expected = _epochs(SAME_BATCH_CASES["per sample, namedtuples and dicts"](), 1)
    assert _epochs(SAME_BATCH_CASES["per sample, namedtuples and dicts"](num_workers=2), 1) == expected


def _children():
    return {p.pid for p in multiprocessing.active_children() if p.name.startswith("minitorch-data-worker")}


def test_workers_stop_after_the_epoch_unless_persistent():
    before = _children()
    list(DataLoader(ARRAYS, batch_size=10, num_workers=2))
    assert _children() == before
    loader = DataLoader(Stream(9), batch_size=2, num_workers=2, persistent_workers=True)
    pids, epochs = [], []
    for epoch in range(3):
        batches = []
        for i, batch in enumerate(loader):
            batches.append(batch.tolist())
            if epoch == 1 and i == 1:
                break  # an epoch left early: the next one still starts from the beginning
        pids.append(_children() - before)
        epochs.append(batches)
    assert len(pids[0]) == 2 and pids[0] == pids[1] == pids[2]
    assert epochs[0] == epochs[2] == [[0, 2], [1, 3], [4, 6], [5, 7], [8]] and epochs[1] == epochs[0][:2]
    del loader
    deadline = time.time() + 10
    while _children() - before and time.time() < deadline:
        time.sleep(0.05)
    assert _children() == before  # a collected loader stops its persistent workers


def test_spawned_workers_get_the_data_set_pickled_and_give_the_same_batches():
    expected = _epochs(DataLoader(Records(), batch_size=6), 1)
    spawned = DataLoader(Records(), batch_size=6, num_workers=2, multiprocessing_context="spawn")
    assert _epochs(spawned, 1) == expected


def _load_in_a_daemon(queue):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = [b[1].tolist() for b in DataLoader(ARRAYS, batch_size=20, num_workers=2)]
    queue.put((batches, [str(w.message) for w in caught]))


def test_where_processes_cannot_start_the_loader_warns_and_loads_in_the_main_process():
    queue = multiprocessing.get_context("fork").Queue()
    daemon = multiprocessing.get_context("fork").Process(target=_load_in_a_daemon, args=(queue,), daemon=True)
    daemon.start()
    batches, warned = queue.get(timeout=60)
    daemon.join(10)
    assert batches == [list(range(0, 20)), list(range(20, 40)), list(range(40, 50))]
    assert len(warned) == 1 and "cannot start worker processes (this process is a daemon" in warned[0]
