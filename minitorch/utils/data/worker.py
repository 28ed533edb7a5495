"""Worker processes for ``DataLoader(num_workers=N)`` (PyTorch's torch/utils/data/_utils/worker.py and the
multiprocessing iterator of dataloader.py).

The main process draws the order (the sampler runs there, exactly as with
num_workers=0) and hands batch ``k`` to worker ``k mod N``, keeping
``prefetch_factor`` batches per worker in flight. Each worker fetches and
collates with the same code as the main process (fetch.py) and sends the
batch back; the main process yields the batches in order. So a map-style data
set gives exactly the batches of num_workers=0. What can differ, as in
PyTorch: random transforms inside the data set, which draw from the
worker's generator (seeded ``base_seed + worker_id``, see get_worker_info),
and an IterableDataset, which every worker iterates in full unless it
splits itself by ``get_worker_info()``.

Transport: messages both ways are minitorch checkpoints in memory (mt.save
to bytes, the safetensors format): numpy arrays and a JSON tree, never
pickle, so the main process never unpickles anything from a worker. A batch
may hold Tensors, numpy arrays, numbers, strings, None, and lists, tuples,
namedtuples and dicts (str or int keys) of them; anything else is reported
as an error naming the batch. (With the "spawn" or "forkserver" start
methods, Python itself pickles the data set *to* each worker at start-up, as
for any multiprocessing target; with "fork", the default on Linux before
Python 3.14, the workers inherit it.)

A worker whose parent has died exits within a second; one that dies is
reported as ``RuntimeError: DataLoader worker (pid ...) exited unexpectedly``;
``timeout`` bounds each wait for a batch. Workers stop when the epoch ends,
or stay for the next one with ``persistent_workers=True``.
"""
from __future__ import annotations

import builtins
import collections
import dataclasses
import io
import itertools
import multiprocessing
import multiprocessing.connection
import os
import random as py_random
import sys
import traceback
import weakref

import numpy as np

from ... import random
from ...serialization import load, save
from .fetch import make_fetcher

__all__ = ["WorkerInfo", "get_worker_info"]

_STOP_WAITING = 5.0  # seconds a stopping worker gets before it is terminated
_PARENT_CHECK = 1.0  # seconds between a waiting worker's checks that its parent is alive
_NAMEDTUPLE = "__minitorch_namedtuple__"


@dataclasses.dataclass(frozen=True)
class WorkerInfo:
    """What `get_worker_info()` tells code running in a worker: its id, the number of workers, its seed, its data set."""

    id: int
    num_workers: int
    seed: int
    dataset: object


_worker_info = None


def get_worker_info():
    """In a DataLoader worker process: its WorkerInfo (id, num_workers, seed, dataset); in the main process: None.

    An IterableDataset uses it to split its stream between the workers, and a
    `worker_init_fn` to configure each worker's copy of the data set.

    >>> mt.utils.data.get_worker_info() is None
    True
    """
    return _worker_info


# ----- messages: minitorch checkpoints in memory -----

def encode(obj) -> bytes:
    """`obj` as bytes in the checkpoint format (safetensors arrays + a JSON tree); namedtuples keep their type.

    >>> decode(encode({"x": mt.arange(3), "names": ("a", None)}))
    {'x': tensor([0, 1, 2]), 'names': ('a', None)}
    """
    buffer = io.BytesIO()
    save(_tag_namedtuples(obj), buffer)
    return buffer.getvalue()


def decode(data: bytes):
    """The object `encode` turned into `data` (parsing JSON and raw arrays only)."""
    return _untag_namedtuples(load(io.BytesIO(data)))


def _tag_namedtuples(obj):
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        kind = type(obj)
        return {_NAMEDTUPLE: [kind.__module__, kind.__qualname__, list(obj._fields)],
                "values": [_tag_namedtuples(v) for v in obj]}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_tag_namedtuples(v) for v in obj)
    if isinstance(obj, dict):
        return {key: _tag_namedtuples(value) for key, value in obj.items()}
    return obj


def _untag_namedtuples(obj):
    if isinstance(obj, dict) and _NAMEDTUPLE in obj:
        module, qualname, fields = obj[_NAMEDTUPLE]
        return _namedtuple_type(module, qualname, tuple(fields))(*(_untag_namedtuples(v) for v in obj["values"]))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_untag_namedtuples(v) for v in obj)
    if isinstance(obj, dict):
        return {key: _untag_namedtuples(value) for key, value in obj.items()}
    return obj


_made_namedtuples = {}


def _namedtuple_type(module, qualname, fields):
    """The namedtuple class named so, found among the loaded modules (nothing is imported), or an equivalent one."""
    found = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if isinstance(found, type) and issubclass(found, tuple) and getattr(found, "_fields", None) == fields:
        return found
    key = (qualname.rpartition(".")[2], fields)  # a class defined inside a function: same name and fields
    if key not in _made_namedtuples:
        _made_namedtuples[key] = collections.namedtuple(*key)
    return _made_namedtuples[key]


# ----- the worker process -----

def worker_loop(plan, worker_id, num_workers, base_seed, tasks, results, parent_pid):
    """A worker's life: seed, run `worker_init_fn`, then answer tasks until told to stop (or orphaned)."""
    global _worker_info
    try:
        seed = base_seed + worker_id
        py_random.seed(seed)
        random.manual_seed(seed)
        np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=plan.dataset)
        fetcher, init_error = None, None
        try:
            if plan.worker_init_fn is not None:
                plan.worker_init_fn(worker_id)
            fetcher = make_fetcher(plan)
        except Exception as error:  # reported with the first batch asked for, as PyTorch does
            init_error = _error_report(error, worker_id)
        while True:
            message = _next_message(tasks, parent_pid)
            if message is None or "stop" in message:
                break
            if "reset" in message:  # a new epoch with persistent workers: an iterable data set starts again
                if init_error is None and plan.iterable:
                    fetcher = make_fetcher(plan)
                continue
            results.send_bytes(_answer(message["task"], message["index"], fetcher, init_error, worker_id))
    except KeyboardInterrupt:
        pass  # the main process has it too, and raises it
    except (BrokenPipeError, EOFError):
        pass  # the main process is gone
    finally:
        tasks.close()
        results.close()


def _next_message(tasks, parent_pid):
    """The next task, or None once the main process is gone (a worker must not outlive it)."""
    try:
        while not tasks.poll(_PARENT_CHECK):
            if os.getppid() != parent_pid:
                return None
        return decode(tasks.recv_bytes())
    except (EOFError, OSError):
        return None


def _answer(task, index, fetcher, init_error, worker_id) -> bytes:
    if init_error is not None:
        return encode({"task": task, **init_error})
    try:
        data = fetcher.fetch(index)
    except StopIteration:
        return encode({"task": task, "end": True})
    except Exception as error:
        return encode({"task": task, **_error_report(error, worker_id)})
    try:
        return encode({"task": task, "data": data})
    except (TypeError, ValueError) as error:
        return encode({"task": task, "error": "TypeError",
                       "message": f"DataLoader worker process {worker_id}: this batch cannot be sent to the main "
                                  f"process ({error}). Batches cross between processes as Tensors, numpy arrays, "
                                  f"numbers, strings, None and lists, tuples, namedtuples or dicts of them, never "
                                  f"pickled; use num_workers=0 for other objects."})


def _error_report(error, worker_id):
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return {"error": type(error).__name__,
            "message": f"Caught {type(error).__name__} in DataLoader worker process {worker_id}.\n"
                       f"Original {text}"}


class _KeyErrorMessage(str):
    """A KeyError prints its argument's repr; this keeps the traceback readable (PyTorch's KeyErrorMessage)."""

    def __repr__(self):
        return self


def _raise_reported(message):
    """Raises the worker's error in the main process: a built-in exception type keeps its type, others are RuntimeError."""
    kind = getattr(builtins, message["error"], None)
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        kind = RuntimeError
    text = message["message"]
    try:
        error = kind(_KeyErrorMessage(text) if kind is KeyError else text)
    except Exception:  # an exception type whose constructor wants other arguments
        error = RuntimeError(text)
    raise error


# ----- the main process's side -----

class WorkerPool:
    """`num_workers` worker processes, each with a pipe for tasks and one for results; stopped when collected."""

    def __init__(self, plan, num_workers, base_seed, context):
        self.context = multiprocessing.get_context(context) if context is None or isinstance(context, str) \
            else context
        self.workers = []  # (process, task connection, result connection)
        self.active = []
        try:
            for worker_id in range(num_workers):
                task_recv, task_send = self.context.Pipe(duplex=False)
                result_recv, result_send = self.context.Pipe(duplex=False)
                process = self.context.Process(target=worker_loop, name=f"minitorch-data-worker-{worker_id}",
                                               args=(plan, worker_id, num_workers, base_seed, task_recv, result_send,
                                                     os.getpid()), daemon=True)
                process.start()
                task_recv.close()
                result_send.close()
                self.workers.append((process, task_send, result_recv))
                self.active.append(True)
        finally:
            self._finalizer = weakref.finalize(self, _stop_workers, self.workers)
        self.outstanding = {}  # task number -> worker id
        self.plan = plan

    @property
    def alive(self) -> bool:
        return self._finalizer.alive

    def send(self, worker_id, message):
        try:
            self.workers[worker_id][1].send_bytes(encode(message))
        except OSError:  # a broken pipe: the worker is gone
            self._report_death(worker_id)

    def receive(self, timeout):
        """The answers ready within `timeout` seconds (None: wait as long as needed), as decoded messages.

        Raises RuntimeError when a worker died or when nothing came within `timeout`.
        """
        connections = {worker[2]: i for i, worker in enumerate(self.workers)}
        sentinels = {worker[0].sentinel: i for i, worker in enumerate(self.workers)}
        ready = set(multiprocessing.connection.wait(list(connections) + list(sentinels), timeout))
        if not ready:
            raise RuntimeError(f"DataLoader timed out after {timeout} seconds")
        messages = []
        for connection, worker_id in connections.items():
            if connection in ready:
                try:
                    message = decode(connection.recv_bytes())
                except (EOFError, OSError):  # its pipe closed: the worker is gone
                    self._report_death(worker_id)
                message["worker"] = worker_id
                self.outstanding.pop(message["task"], None)
                messages.append(message)
        for sentinel, worker_id in sentinels.items():
            # A worker that ended: its last messages are read first, its death is reported at the next wait.
            if sentinel in ready and self.workers[worker_id][2] not in ready:
                self._report_death(worker_id)
        return messages

    def _report_death(self, worker_id):
        process = self.workers[worker_id][0]
        process.join(_STOP_WAITING)
        self.shutdown()
        raise RuntimeError(f"DataLoader worker (pid {process.pid}) exited unexpectedly with exit code "
                           f"{process.exitcode}")

    def drain(self, timeout):
        """Waits for the answers still in flight (an epoch left before its end) and drops them."""
        while self.outstanding:
            self.receive(timeout)

    def restart_epoch(self):
        """Every worker active again; iterable data sets start a new pass (persistent workers)."""
        for worker_id in range(len(self.workers)):
            self.send(worker_id, {"reset": True})
            self.active[worker_id] = True

    def shutdown(self):
        self._finalizer()


def _stop_workers(workers):
    for _, tasks, _ in workers:
        try:
            tasks.send_bytes(encode({"stop": True}))
        except OSError:
            pass
    for process, tasks, results in workers:
        process.join(_STOP_WAITING)
        if process.is_alive():
            process.terminate()
            process.join()
        tasks.close()
        results.close()


class MultiProcessIterator:
    """One epoch over a WorkerPool: dispatch batch k to the next active worker, yield the answers (in order)."""

    def __init__(self, pool, index_batches, prefetch_factor, timeout, in_order, persistent, length):
        self.pool, self.index_batches = pool, index_batches
        self.timeout = timeout if timeout > 0 else None
        self.in_order, self.persistent, self.length = in_order, persistent, length
        self.limit = prefetch_factor * len(pool.workers)
        self.next_task = self.next_to_yield = 0
        self.ready = {}
        self.exhausted = False
        self.turn = itertools.cycle(range(len(pool.workers)))
        self._fill()

    def __iter__(self):
        return self

    def __len__(self):
        if self.length is None:
            raise TypeError("this DataLoader's IterableDataset has no length")
        return self.length

    def _fill(self):
        """Hands out batches, round robin over the active workers, until `limit` are in flight or waiting here."""
        while (not self.exhausted and any(self.pool.active)
               and len(self.pool.outstanding) + len(self.ready) < self.limit):
            worker_id = next(w for w in self.turn if self.pool.active[w])
            try:
                index = next(self.index_batches)
            except StopIteration:
                self.exhausted = True
                return
            self.pool.send(worker_id, {"task": self.next_task, "index": index})
            self.pool.outstanding[self.next_task] = worker_id
            self.next_task += 1

    def __next__(self):
        while True:
            message = self._take_ready()
            if message is not None:
                if "end" in message:  # an iterable data set's worker has run out
                    self.pool.active[message["worker"]] = False
                    continue
                if "error" in message:
                    _raise_reported(message)
                return message["data"]
            self._fill()
            if not self.pool.outstanding:
                self._finish()
                raise StopIteration
            for message in self.pool.receive(self.timeout):
                self.ready[message["task"]] = message

    def _take_ready(self):
        if self.in_order:
            if self.next_to_yield in self.ready:
                self.next_to_yield += 1
                return self.ready.pop(self.next_to_yield - 1)
            return None
        return self.ready.pop(next(iter(self.ready))) if self.ready else None

    def _finish(self):
        if not self.persistent:
            self.pool.shutdown()
