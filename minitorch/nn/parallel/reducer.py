"""The Reducer: averages gradients across ranks in buckets, during the backward pass.

PyTorch's reducer (torch/csrc/distributed/c10d/reducer.cpp) in a page:
  - the parameters are grouped into buckets of about `bucket_cap_mb` (one
    dtype each; with the default cap, the first bucket holds only 1 MB, so
    communication starts early), in reverse order, the order in which
    backward() finishes their gradients;
  - each parameter's post-accumulate-grad hook copies its gradient, divided
    by the world size, into its bucket's flat buffer; a bucket whose
    gradients are all there starts a non-blocking MPI all-reduce (sum) at
    once, while backward() goes on with earlier layers. Buckets start in
    index order on every rank, as MPI requires collectives to be issued in
    the same order everywhere;
  - at the end of the pass (hooks.queue_callback) it waits for every bucket
    and sets each `.grad` to its averaged slice of the bucket: a view, which
    the next averaging overwrites (PyTorch's gradient_as_bucket_view=True;
    the buckets are allocated once, as fresh memory for every pass would
    cost more than the all-reduce itself).
With `find_unused_parameters`, parameters that got no gradient in this pass
count as zeros, and a parameter no rank used keeps its `.grad` untouched.
"""
import weakref

import numpy as np

from ...engine import hooks
from ...creation import from_numpy
from ...distributed.collectives import start_sum_unchecked, wait_all

FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES


def assign_buckets(params, bucket_bytes, first_bucket_bytes):
    """Lists of parameter indices, in reverse order, one dtype per bucket, each closed once it reaches its cap.

    >>> params = [mt.zeros(1000), mt.zeros(10), mt.zeros(1000, dtype=mt.float64), mt.zeros(500)]
    >>> assign_buckets(params, bucket_bytes=4000, first_bucket_bytes=2000)
    [[3], [2], [1, 0]]
    >>> assign_buckets(params, bucket_bytes=10**6, first_bucket_bytes=10**6)
    [[3, 1, 0], [2]]
    """
    open_buckets = {}  # dtype -> (indices, bytes so far)
    done = []
    for index in reversed(range(len(params))):
        array = np.asarray(params[index])
        indices, size = open_buckets.get(array.dtype, ([], 0))
        indices.append(index)
        size += array.nbytes
        cap = first_bucket_bytes if not done else bucket_bytes
        if size >= cap:
            done.append(indices)
            open_buckets.pop(array.dtype, None)
        else:
            open_buckets[array.dtype] = (indices, size)
    done.extend(indices for indices, _ in open_buckets.values())
    return done


class Bucket:
    """Parameters whose gradients travel in one all-reduce, as one flat buffer."""

    def __init__(self, params, indices):
        self.indices = indices
        arrays = [np.asarray(params[i]) for i in indices]
        self.dtype = arrays[0].dtype
        self.shapes = [a.shape for a in arrays]
        self.offsets = np.concatenate([[0], np.cumsum([a.size for a in arrays])]).tolist()
        self.buffer = np.zeros(self.offsets[-1], self.dtype)
        self.ready = 0
        self.work = None

    def slot(self, position):
        """The view of the buffer that holds the gradient of the bucket's `position`-th parameter."""
        start, stop = self.offsets[position], self.offsets[position + 1]
        return self.buffer[start:stop].reshape(self.shapes[position])


def _on_gradient_ready(reducer_ref, index, param):
    # The hook holds the reducer weakly: a dropped DistributedDataParallel
    # must not be kept alive by its parameters' hooks.
    reducer = reducer_ref()
    if reducer is not None:
        reducer.gradient_ready(index, param)


def _remove_hooks(handles):
    for handle in handles:
        handle.remove()


class Reducer:
    """Owns the buckets and the hooks of one DistributedDataParallel.

    >>> ddp = mt.nn.parallel.DistributedDataParallel(mt.nn.Linear(3, 2), bucket_cap_mb=5e-6)  # 5 bytes
    >>> [bucket.indices for bucket in ddp.reducer.buckets]  # bias (index 1) first: its gradient is ready first
    [[1], [0]]
    """

    def __init__(self, group, params, names, bucket_bytes, first_bucket_bytes, find_unused_parameters):
        self.group = group
        self.params = params
        self.names = names
        self.find_unused_parameters = find_unused_parameters
        assignment = assign_buckets(params, bucket_bytes, first_bucket_bytes)
        self.buckets = [Bucket(params, indices) for indices in assignment]
        self.location = {}  # parameter index -> (bucket, position in it)
        for bucket in self.buckets:
            for position, index in enumerate(bucket.indices):
                self.location[index] = (bucket, position)
        self.expect_sync = False  # set by each forward: whether the backward pass after it averages
        self.in_pass = False
        self.marked = np.zeros(len(params), bool)
        self.next_bucket = 0
        reducer = weakref.ref(self)
        handles = [param.register_post_accumulate_grad_hook(lambda p, index=index: _on_gradient_ready(reducer, index, p))
                   for index, param in enumerate(params)]
        # The hooks go with the reducer: wrapping the same model again and again leaves none behind.
        weakref.finalize(self, _remove_hooks, handles)

    def prepare_for_forward(self, sync):
        """Called by each forward: whether the next backward averages; clears what a failed backward left.

        A backward pass that raised never reached its end: the buckets it
        started are waited for (the other ranks started them too, if they
        failed alike) before the next pass starts afresh.
        """
        if self.in_pass:
            self._wait(self.buckets[:self.next_bucket])
            self.in_pass = False
        self.expect_sync = sync

    # ----- during backward -----

    def gradient_ready(self, index, param):
        """A parameter's gradient is complete: into its bucket; a full bucket starts its all-reduce."""
        if not self.expect_sync:
            return  # no_sync(), or no forward through DistributedDataParallel: gradients stay local
        if not self.in_pass:
            self._start_pass()
        if self.marked[index]:
            raise RuntimeError(f"DistributedDataParallel: parameter {self.names[index]!r} got its gradient twice "
                               "in one backward pass")
        self.marked[index] = True
        bucket, position = self.location[index]
        np.divide(np.asarray(param.grad), self.group.size, out=bucket.slot(position))
        bucket.ready += 1
        if bucket.ready == len(bucket.indices):
            self._launch_ready_buckets()
        else:
            self._progress()

    def _start_pass(self):
        self.in_pass = True
        self.marked[:] = False
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.ready = 0
            bucket.work = None
        hooks.queue_callback(self._finish_pass)

    def _launch_ready_buckets(self):
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].ready == len(
                self.buckets[self.next_bucket].indices):
            self._launch(self.buckets[self.next_bucket])
        self._progress()

    def _launch(self, bucket):
        bucket.work = start_sum_unchecked(self.group, bucket.buffer, "DistributedDataParallel gradient all-reduce")
        self.next_bucket += 1

    def _progress(self):
        # MPI moves a non-blocking collective forward only inside MPI calls:
        # testing the buckets in flight is what lets them progress during backward.
        for bucket in self.buckets[:self.next_bucket]:
            if bucket.work is not None:
                bucket.work.is_completed()

    # ----- at the end of backward -----

    def _finish_pass(self):
        self.in_pass = False
        self.expect_sync = False  # until the next forward through DistributedDataParallel, as in PyTorch
        missing = np.flatnonzero(~self.marked)
        used_anywhere = None
        if len(missing):
            if not self.find_unused_parameters:
                self._wait(self.buckets[:self.next_bucket])
                names = [self.names[i] for i in missing]
                raise RuntimeError(
                    f"DistributedDataParallel: on rank {self.group.rank}, parameters {names} got no gradient in this "
                    "backward pass, so their buckets were never all-reduced. Pass find_unused_parameters=True if "
                    "some parameters are not used in computing the loss (or not on every step)."
                )
            for index in missing:  # unused here: contributes zeros
                bucket, position = self.location[index]
                bucket.slot(position)[...] = 0
        if self.find_unused_parameters:
            used_anywhere = self.marked.astype(np.int32)
            for bucket in self.buckets:
                bucket.ready = len(bucket.indices)
            self._launch_ready_buckets()
            used_work = start_sum_unchecked(self.group, used_anywhere, "DistributedDataParallel unused-parameter map")
            self._wait(self.buckets + [used_work])
        else:
            self._wait(self.buckets)
        for bucket in self.buckets:
            for position, index in enumerate(bucket.indices):
                if used_anywhere is None or used_anywhere[index]:
                    self.params[index].grad = from_numpy(bucket.slot(position))

    def _wait(self, items):
        works = [getattr(item, "work", item) for item in items]
        requests = [request for work in works if work is not None for request in work._requests]
        wait_all(self.group, requests, "DistributedDataParallel gradient all-reduce", self.group.timeout)
        for work in works:
            if work is not None:
                work.wait()

    # ----- the GradientTape door -----

    def average(self, grads, local_error=None):
        """`grads` (one per parameter, None where a rank has none) averaged, as views of the buckets.

        First the ranks sum a map of which gradients exist (and whether some
        rank's call was invalid), so that every rank raises the same error.
        """
        size, count = self.group.size, len(self.params)
        status = np.zeros(count + 1, np.int32)
        if local_error is None:
            status[:count] = [g is not None for g in grads]
        else:
            status[count] = 1
        self._wait([start_sum_unchecked(self.group, status, "DistributedDataParallel.reduce_gradients")])
        if local_error is not None:
            raise local_error
        if status[count]:
            raise RuntimeError("DistributedDataParallel.reduce_gradients: another rank called it with invalid "
                               "arguments (the error on that rank says why)")
        if not self.find_unused_parameters and (status[:count] < size).any():
            names = [self.names[i] for i in np.flatnonzero(status[:count] < size)]
            raise RuntimeError(f"DistributedDataParallel.reduce_gradients: parameters {names} have no gradient on "
                               "some rank. Pass find_unused_parameters=True if some parameters are not used in "
                               "computing the loss (or not on every step).")
        for bucket in self.buckets:
            for position, index in enumerate(bucket.indices):
                if grads[index] is None:
                    bucket.slot(position)[...] = 0
                else:
                    np.divide(np.asarray(grads[index]), size, out=bucket.slot(position))
            bucket.work = start_sum_unchecked(self.group, bucket.buffer, "DistributedDataParallel.reduce_gradients")
        self._wait(self.buckets)
        averaged = [None] * count
        for bucket in self.buckets:
            for position, index in enumerate(bucket.indices):
                if status[index]:
                    averaged[index] = from_numpy(bucket.slot(position))
        return averaged
