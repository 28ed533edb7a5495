"""minitorch's intra-op threads: one big op's independent parts run on several threads at once
(PyTorch's counterpart: at::parallel_for, aten/src/ATen/Parallel.h).

`split(op_name, part, n_items, work_bytes)` runs `part(start, stop)` over the
items 0..n_items, either once on the calling thread -- `part(0, n_items)`,
the serial loop -- or as one contiguous range per thread: the caller takes
the first range, a lazily started pool of get_num_threads() - 1 worker
threads the others. It returns the parts' results in order and raises what
a part raised, like the serial loop would. The parts must be independent
(each writes its own rows of the output, or returns a partial sum the
caller adds).

This pays because numpy releases the GIL in its copies, ufunc loops and
BLAS calls, and the convolution's im2col copies and col2im adds run on one
thread otherwise: only the GEMMs would use the second core, and small GEMMs
hand off to BLAS threads poorly. While the parts run, every OpenBLAS pool is
held at 1 thread (threads.blas_threads), so the threads are ours, not
oversubscribed BLAS ones.

It splits only when all of these hold, else runs the serial loop:
- get_num_threads() >= 2, and MINITORCH_INTRAOP is not "0" in the
  environment when minitorch is imported (the switch for before/after
  measurements);
- at least 2 items and `work_bytes` >= MIN_SPLIT_BYTES (smaller work pays
  more in hand-off than it gains);
- no split is running already: a part that calls a split op (from a worker
  or the caller), and a second user thread running a split op while the
  first one does, run that op serially. One split at a time also means the
  BLAS pool sizes are saved and restored by one owner.

os.fork waits for a running split to end, and the child starts with no
pool: the parent's worker threads do not exist in it, and work handed to
them would never run.
"""
import concurrent.futures
import os
import threading

from . import threads

ENABLED = os.environ.get("MINITORCH_INTRAOP", "1") != "0"
# Below this much work (bytes an op's parts stream, e.g. its im2col columns) a split costs about
# what it saves: a split of empty parts takes about 60 us (waking a worker, switching the BLAS
# pools). Measured on 2 cores with the CNN's convolutions at small batches: under 1 MiB of
# columns, mixed (32 -> 64 channels, 14x14, 2 samples: forward 0.53 -> 0.43 ms, filter gradient
# 0.29 -> 0.40 ms); from 1.7 MiB up, the split won for both.
MIN_SPLIT_BYTES = 1 << 20

_busy = threading.Lock()  # held by the one split running; others run serially
_pool = None
_pool_size = 0


def split_threads(n_items, work_bytes):
    """How many threads an op with `n_items` independent items and `work_bytes` of work would split over now.

    >>> mt.parallel.split_threads(1, 1 << 30)  # one item cannot be split
    1
    """
    if not ENABLED or n_items < 2 or work_bytes < MIN_SPLIT_BYTES or _busy.locked():
        return 1
    return max(1, min(threads.get_num_threads(), n_items))


def ranges(n_items, parts):
    """Contiguous (start, stop) ranges covering 0..n_items, `parts` of them, sizes differing by at most 1.

    >>> mt.parallel.ranges(7, 2)
    [(0, 3), (3, 7)]
    """
    bounds = [n_items * i // parts for i in range(parts + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def split(op_name, part, n_items, work_bytes):
    """[part(start, stop) for each thread's range of 0..n_items], or [part(0, n_items)] run serially.

    >>> mt.parallel.split("Example", lambda start, stop: stop - start, 10, 0)  # too little work: serial
    [10]
    """
    count = split_threads(n_items, work_bytes)
    if count == 1 or not _busy.acquire(blocking=False):
        return [part(0, n_items)]
    try:
        with threads.blas_threads(1):
            return _run_on_pool(op_name, part, ranges(n_items, count))
    finally:
        _busy.release()


def _workers(count):
    """The pool with at least `count` worker threads (made again, larger, when the thread count grows)."""
    global _pool, _pool_size
    if _pool is None or _pool_size < count:
        if _pool is not None:
            _pool.shutdown(wait=False)
        _pool = concurrent.futures.ThreadPoolExecutor(count, thread_name_prefix="minitorch-intraop")
        _pool_size = count
    return _pool


def _before_fork():
    _busy.acquire()


def _after_fork_in_parent():
    _busy.release()


def _after_fork_in_child():
    global _busy, _pool, _pool_size
    _busy, _pool, _pool_size = threading.Lock(), None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child)


def _run_on_pool(op_name, part, item_ranges):
    futures = [_workers(len(item_ranges) - 1).submit(part, *bounds) for bounds in item_ranges[1:]]
    try:
        first = part(*item_ranges[0])
    finally:
        # Every part has finished before the caller goes on: they write into arrays it owns.
        concurrent.futures.wait(futures)
    results = [first]
    for future in futures:
        error = future.exception()
        if error is not None:
            error.add_note(f"(raised in {op_name} on one of minitorch's intra-op threads)")
            raise error
        results.append(future.result())
    return results
