"""Collectives on tensors: all_reduce, broadcast, all_gather, reduce, gather, scatter, barrier.

Each one is a non-blocking MPI call on the tensor's own memory, in its own
dtype (mpi4py's buffer interface: no pickling, no conversion), finished by
Work.wait(); `async_op=False` (the default) waits at once. A tensor that is
not contiguous in memory is staged through a contiguous copy and written back.
A tensor a collective writes counts one more in-place write when it finishes
(its version counter), so a gradient that saved it refuses to run, as after
any in-place op.

Before any data moves, the ranks exchange one 16-integer description of their
call (which collective, dtype, shape, op, root) and every rank checks that all
agree. Mismatched calls, which would make MPI hang or mix up data, raise the
same RuntimeError on every rank instead, and the group stays usable. That
costs one tiny all-gather per call.

The examples show rank 0 of a job of two processes (`mpiexec -n 2`) after
`init_process_group("mpi")`; the test suite runs them so.
"""
import enum
import os
import time

import numpy as np

from ..engine.versions import bump
from ..tensor import Tensor
from .process_group import DistBackendError, check_group, default_group, departed_ranks, timeout_seconds


class ReduceOp(enum.IntEnum):
    """How all_reduce and reduce combine the ranks' tensors, elementwise (torch.distributed.ReduceOp).

    AVG needs a floating point tensor; BAND, BOR and BXOR need integer or bool ones.

    >>> t = mt.tensor([1.0, 5.0]) if mt.distributed.get_rank() == 0 else mt.tensor([3.0, 2.0])
    >>> mt.distributed.all_reduce(t, op=mt.distributed.ReduceOp.MAX)
    >>> t
    tensor([3., 5.])
    """
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


class Work:
    """The handle an `async_op=True` collective returns; `wait()` blocks until it has finished.

    Until then the tensors involved must be neither read nor written.

    >>> t = mt.ones(3)
    >>> work = mt.distributed.all_reduce(t, async_op=True)
    >>> work.wait()
    True
    >>> work.is_completed(), t
    (True, tensor([2., 2., 2.]))
    """

    def __init__(self, group, requests, name, finish=None, buffers=(), written=()):
        self._group = group
        self._requests = requests
        self._name = name
        self._finish = finish  # runs once the data has arrived: copy back, divide for AVG, ...
        self._buffers = buffers  # MPI reads and writes these until the end: keep them alive
        self._written = written  # the tensors it writes into: their versions move when it finishes
        self._done = False

    def is_completed(self):
        """True once the collective has finished (checks without blocking)."""
        if not self._done and self._group.mpi.Request.Testall(self._requests):
            self._complete()
        return self._done

    def wait(self, timeout=None):
        """Blocks until the collective has finished; DistBackendError after `timeout` (a timedelta; default: the group's)."""
        if not self._done:
            seconds = self._group.timeout if timeout is None else timeout_seconds(timeout)
            wait_all(self._group, self._requests, self._name, seconds)
            self._complete()
        return True

    def is_success(self):
        """True once the collective has finished without error."""
        return self._done

    def _complete(self):
        self._done = True
        if self._finish is not None:
            self._finish()
            self._finish = None
        for tensor in self._written:
            bump(tensor)
        self._buffers = self._written = ()


_POLLS_BEFORE_YIELD = 1000  # MPICH's own default (MPIR_CVAR_POLLS_BEFORE_YIELD); yielding more often measured slower
# A rank that finished this very collective (a broadcast from it, say) may leave while its data is still on
# the way here (its leaving message travels on another communicator, with no order between the two): a wait
# goes on this long after it learns of a departure before it gives up.
DEPARTURE_GRACE_SECONDS = 1.0


def wait_all(group, requests, name, timeout):
    """Drives MPI requests to completion, raising DistBackendError if they take longer than `timeout` seconds,
    or as soon as a rank they wait for has left the job (process_group.departed_ranks).

    MPI's own wait cannot time out, so this polls (MPI progresses the
    communication inside each test, as it would inside a blocking wait),
    giving the core to other processes every so often, as MPICH's wait does.

    >>> group = default_group()
    >>> wait_all(group, [group.comm.Ibarrier()], "barrier", timeout=60.0)
    """
    test_all = group.mpi.Request.Testall
    if test_all(requests):
        return
    deadline = time.monotonic() + timeout
    gone_deadline = None
    polls = 0
    while not test_all(requests):
        polls += 1
        if polls % _POLLS_BEFORE_YIELD == 0:
            now = time.monotonic()
            if now > deadline:
                raise DistBackendError(
                    f"{name}: rank {group.rank} of {group.size} waited {timeout:g} s and the collective has not "
                    "finished: some rank never joined it (stuck, dead, or calling a different collective). Timeout"
                )
            if gone_deadline is None and departed_ranks():
                gone_deadline = now + DEPARTURE_GRACE_SECONDS
            if gone_deadline is not None and now > gone_deadline:
                gone = ", ".join(map(str, sorted(departed_ranks())))
                raise DistBackendError(
                    f"{name}: rank {gone} left the job (its process exited: sys.exit, the end of its script, ...) "
                    f"while rank {group.rank} of {group.size} waits for it: the collective can never finish"
                )
            os.sched_yield()


# ----- agreeing on the call before moving data -----

DTYPES = [np.dtype(name) for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")]
DTYPE_CODES = {dtype: code for code, dtype in enumerate(DTYPES)}  # how a call's description names a dtype
_COLLECTIVES = ["barrier", "all_reduce", "broadcast", "all_gather", "reduce", "gather", "scatter"]
_MAX_DIMS = 9
_STATUS, _COLLECTIVE, _ROOT, _OP, _DTYPE, _NDIM, _SHAPE_HASH, _DIMS = 0, 1, 2, 3, 4, 5, 6, 7
DESCRIPTION_SIZE = _DIMS + _MAX_DIMS


def _describe_call(name, array, root, op, failed):
    description = np.zeros(DESCRIPTION_SIZE, np.int64)
    description[[_STATUS, _COLLECTIVE, _ROOT, _OP]] = [int(failed), _COLLECTIVES.index(name), root, op]
    if array is not None:
        description[_DTYPE] = DTYPE_CODES.get(array.dtype, -1)
        description[_NDIM] = array.ndim
        if array.ndim <= _MAX_DIMS:
            description[_DIMS:_DIMS + array.ndim] = array.shape
        else:  # ints hash the same in every process
            description[_SHAPE_HASH] = hash(array.shape)
    return description


def _explain_call(row):
    text = _COLLECTIVES[row[_COLLECTIVE]]
    if row[_COLLECTIVE] != 0:
        ndim = int(row[_NDIM])
        shape = tuple(int(n) for n in row[_DIMS:_DIMS + ndim]) if ndim <= _MAX_DIMS else f"<{ndim} dims>"
        dtype = DTYPES[row[_DTYPE]] if 0 <= row[_DTYPE] < len(DTYPES) else "?"
        text += f" of a {dtype} tensor of shape {shape}"
    if row[_OP] >= 0:
        text += f", op {ReduceOp(int(row[_OP])).name}"
    if row[_ROOT] >= 0:
        text += f", root {int(row[_ROOT])}"
    return text


def agree(group, name, array=None, root=-1, op=-1, local_error=None):
    """Checks that every rank makes the same call (collective, dtype, shape, op, root) before data moves.

    Every rank learns the same thing, so all of them raise together: the rank
    whose own arguments were wrong raises `local_error`, the others a
    RuntimeError naming it; a disagreement raises a RuntimeError listing each
    rank's call. Nothing has been exchanged yet, so the group stays usable.

    >>> agree(default_group(), "all_reduce", np.ones(3, np.float32), op=0)  # the same call everywhere: silence
    >>> agree(default_group(), "all_reduce", np.ones(3 + mt.distributed.get_rank(), np.float32), op=0)
    Traceback (most recent call last):
    RuntimeError: all_reduce: the ranks' calls do not match, so no data was exchanged: rank 0: all_reduce of a float32 tensor of shape (3,), op SUM; rank 1: all_reduce of a float32 tensor of shape (4,), op SUM
    """
    mine = _describe_call(name, array, root, op, local_error is not None)
    if group.size == 1:
        if local_error is not None:
            raise local_error
        return
    everyone = np.empty((group.size, DESCRIPTION_SIZE), np.int64)
    wait_all(group, [group.comm.Iallgather(mine, everyone)], f"{name} (agreeing on the call)", group.timeout)
    if local_error is not None:
        raise local_error
    failed = [rank for rank in range(group.size) if everyone[rank, _STATUS]]
    if failed:
        raise RuntimeError(f"{name}: rank {', '.join(map(str, failed))} called it with invalid arguments "
                           "(the error on that rank says why); no data was exchanged")
    if not (everyone == everyone[0]).all():
        shown = range(min(group.size, 8))
        calls = "; ".join(f"rank {rank}: {_explain_call(everyone[rank])}" for rank in shown)
        more = " ..." if group.size > 8 else ""
        raise RuntimeError(f"{name}: the ranks' calls do not match, so no data was exchanged: {calls}{more}")


# ----- tensors as MPI buffers -----

def _checked_array(name, tensor, what="tensor"):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}: {what} must be a minitorch Tensor, got {type(tensor).__name__}")
    return np.asarray(tensor)  # the tensor's own memory, no copy


def _writable(name, array, what="tensor"):
    if not array.flags.writeable:
        raise ValueError(f"{name}: the {what}'s memory is read-only (an expanded or broadcast view?); pass tensor.clone()")


def _mpi_op(mpi, name, op, dtype):
    """The MPI operation for `op` on `dtype`, or a ValueError naming the combination."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{name}: op must be a ReduceOp (e.g. ReduceOp.SUM), got {op!r}")
    if dtype.kind == "b":
        table = {ReduceOp.SUM: mpi.LOR, ReduceOp.MAX: mpi.LOR, ReduceOp.BOR: mpi.LOR, ReduceOp.PRODUCT: mpi.LAND,
                 ReduceOp.MIN: mpi.LAND, ReduceOp.BAND: mpi.LAND, ReduceOp.BXOR: mpi.LXOR}
    else:
        table = {ReduceOp.SUM: mpi.SUM, ReduceOp.AVG: mpi.SUM, ReduceOp.PRODUCT: mpi.PROD, ReduceOp.MIN: mpi.MIN,
                 ReduceOp.MAX: mpi.MAX}
        if dtype.kind in "iu":
            del table[ReduceOp.AVG]
            table.update({ReduceOp.BAND: mpi.BAND, ReduceOp.BOR: mpi.BOR, ReduceOp.BXOR: mpi.BXOR})
    if op not in table:
        raise ValueError(f"{name}: ReduceOp.{op.name} is not defined for {dtype} tensors")
    return table[op]


class _Staged:
    """A tensor's memory as a contiguous 1-d MPI buffer; a non-contiguous tensor goes through a copy, written back."""

    def __init__(self, array):
        self.array = array
        self.contiguous = array.flags.c_contiguous
        self.buffer = (array if self.contiguous else np.ascontiguousarray(array)).reshape(-1)

    def write_back(self):
        if not self.contiguous:
            self.array[...] = self.buffer.reshape(self.array.shape)


def _check_root(name, root, group, what):
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < group.size:
        raise ValueError(f"{name}: {what} must be a rank in 0..{group.size - 1}, got {root!r}")


def _check_list(name, tensors, like, size, what):
    """The arrays of a list of `size` tensors shaped like `like`, or a ValueError."""
    if not isinstance(tensors, (list, tuple)) or len(tensors) != size:
        got = f"{len(tensors)} tensors" if isinstance(tensors, (list, tuple)) else type(tensors).__name__
        raise ValueError(f"{name}: {what} must be a list of {size} tensors (the world size), got {got}")
    arrays = [_checked_array(name, t, f"{what}[{i}]") for i, t in enumerate(tensors)]
    for i, a in enumerate(arrays):
        if a.shape != like.shape or a.dtype != like.dtype:
            raise ValueError(f"{name}: {what}[{i}] is a {a.dtype} tensor of shape {a.shape}, "
                             f"but the tensor is {like.dtype} of shape {like.shape}")
    return arrays


def _given(tensors):
    return tensors is not None and not (isinstance(tensors, (list, tuple)) and len(tensors) == 0)


def _launch(group, name, requests, finish, async_op, buffers=(), written=()):
    work = Work(group, requests, name, finish, buffers, written)
    if async_op:
        return work
    work.wait()
    return None


def _validated(name, group_arg, check):
    """Runs `check()` (local validation), keeping its error for agree() instead of raising it alone."""
    group = default_group()
    check_group(group_arg)
    try:
        return group, check(), None
    except (TypeError, ValueError) as error:
        return group, None, error


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Combines `tensor` across all ranks with `op`, in place: afterwards every rank holds the result.

    >>> t = mt.tensor([1.0, 2.0]) * (mt.distributed.get_rank() + 1)  # [1, 2] on rank 0, [2, 4] on rank 1
    >>> mt.distributed.all_reduce(t)
    >>> t
    tensor([3., 6.])
    >>> mt.distributed.all_reduce(t, op=mt.distributed.ReduceOp.AVG)
    >>> t
    tensor([3., 6.])
    """
    def check():
        array = _checked_array("all_reduce", tensor)
        _writable("all_reduce", array)
        return array, _mpi_op(default_group().mpi, "all_reduce", op, array.dtype)

    group, checked, error = _validated("all_reduce", group, check)
    agree(group, "all_reduce", None if checked is None else checked[0], op=int(op) if error is None else -1,
          local_error=error)
    array, mpi_op = checked
    staged = _Staged(array)
    request = group.comm.Iallreduce(group.mpi.IN_PLACE, staged.buffer, mpi_op)

    def finish():
        if op == ReduceOp.AVG:
            staged.buffer /= group.size
        staged.write_back()

    return _launch(group, "all_reduce", [request], finish, async_op, (staged.buffer,), (tensor,))


def broadcast(tensor, src=0, group=None, async_op=False):
    """Copies rank `src`'s tensor into `tensor` on every other rank, in place.

    >>> t = mt.tensor([7.0, 8.0]) if mt.distributed.get_rank() == 1 else mt.zeros(2)
    >>> mt.distributed.broadcast(t, src=1)
    >>> t
    tensor([7., 8.])
    """
    def check():
        array = _checked_array("broadcast", tensor)
        _check_root("broadcast", src, default_group(), "src")
        _writable("broadcast", array)
        return array

    group, array, error = _validated("broadcast", group, check)
    agree(group, "broadcast", array, root=src if error is None else -1, local_error=error)
    staged = _Staged(array)
    request = group.comm.Ibcast(staged.buffer, root=src)
    written = (tensor,) if group.rank != src else ()
    return _launch(group, "broadcast", [request], staged.write_back, async_op, (staged.buffer,), written)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills `tensor_list[r]` with rank r's `tensor`, on every rank.

    >>> mine = mt.tensor([mt.distributed.get_rank() * 10])
    >>> everyone = [mt.zeros(1, dtype=mt.int64) for _ in range(mt.distributed.get_world_size())]
    >>> mt.distributed.all_gather(everyone, mine)
    >>> everyone
    [tensor([0]), tensor([10])]
    """
    def check():
        array = _checked_array("all_gather", tensor)
        outputs = _check_list("all_gather", tensor_list, array, default_group().size, "tensor_list")
        for i, output in enumerate(outputs):
            _writable("all_gather", output, f"tensor_list[{i}]")
        return array, outputs

    group, checked, error = _validated("all_gather", group, check)
    agree(group, "all_gather", None if checked is None else checked[0], local_error=error)
    array, outputs = checked
    send = np.ascontiguousarray(array).reshape(-1)
    received = np.empty((group.size,) + array.shape, array.dtype)
    request = group.comm.Iallgather(send, received.reshape(-1))

    def finish():
        for output, part in zip(outputs, received):
            output[...] = part

    return _launch(group, "all_gather", [request], finish, async_op, (send, received), tuple(tensor_list))


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, async_op=False):
    """Combines `tensor` across ranks with `op` into rank `dst`'s tensor (the others' are left as they were).

    >>> rank = mt.distributed.get_rank()
    >>> t = mt.tensor([1, 2]) * (rank + 1)  # [1, 2] on rank 0, [2, 4] on rank 1
    >>> mt.distributed.reduce(t, dst=0)
    >>> t.tolist() == ([3, 6] if rank == 0 else [2, 4])
    True
    """
    def check():
        array = _checked_array("reduce", tensor)
        _check_root("reduce", dst, default_group(), "dst")
        _writable("reduce", array)
        return array, _mpi_op(default_group().mpi, "reduce", op, array.dtype)

    group, checked, error = _validated("reduce", group, check)
    valid = error is None
    agree(group, "reduce", checked[0] if valid else None, root=dst if valid else -1, op=int(op) if valid else -1,
          local_error=error)
    array, mpi_op = checked
    staged = _Staged(array)
    if group.rank == dst:
        request = group.comm.Ireduce(group.mpi.IN_PLACE, staged.buffer, mpi_op, root=dst)
    else:
        request = group.comm.Ireduce(staged.buffer, None, mpi_op, root=dst)

    def finish():
        if group.rank == dst:
            if op == ReduceOp.AVG:
                staged.buffer /= group.size
            staged.write_back()

    written = (tensor,) if group.rank == dst else ()
    return _launch(group, "reduce", [request], finish, async_op, (staged.buffer,), written)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Rank `dst` receives every rank's `tensor` into `gather_list` (None on the other ranks).

    >>> rank = mt.distributed.get_rank()
    >>> inbox = [mt.zeros(2), mt.zeros(2)] if rank == 0 else None
    >>> mt.distributed.gather(mt.full((2,), float(rank)), inbox, dst=0)
    >>> inbox is None or [t.tolist() for t in inbox] == [[0.0, 0.0], [1.0, 1.0]]  # only rank 0 has an inbox
    True
    """
    def check():
        current = default_group()
        array = _checked_array("gather", tensor)
        _check_root("gather", dst, current, "dst")
        if current.rank != dst:
            if _given(gather_list):
                raise ValueError("gather: gather_list must not be given on ranks other than dst")
            return array, None
        outputs = _check_list("gather", gather_list, array, current.size, "gather_list")
        for i, output in enumerate(outputs):
            _writable("gather", output, f"gather_list[{i}]")
        return array, outputs

    group, checked, error = _validated("gather", group, check)
    agree(group, "gather", None if checked is None else checked[0], root=dst if error is None else -1, local_error=error)
    array, outputs = checked
    send = np.ascontiguousarray(array).reshape(-1)
    received = np.empty((group.size,) + array.shape, array.dtype) if outputs is not None else None
    request = group.comm.Igather(send, None if received is None else received.reshape(-1), root=dst)

    def finish():
        if outputs is not None:
            for output, part in zip(outputs, received):
                output[...] = part

    written = tuple(gather_list) if outputs is not None else ()
    return _launch(group, "gather", [request], finish, async_op, (send, received), written)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Rank r receives `scatter_list[r]` from rank `src` into `tensor` (scatter_list is given on `src` only).

    >>> rank = mt.distributed.get_rank()
    >>> parts = [mt.tensor([1.0, 1.0]), mt.tensor([2.0, 2.0])] if rank == 0 else None
    >>> mine = mt.zeros(2)
    >>> mt.distributed.scatter(mine, parts, src=0)
    >>> mine.tolist() == ([1.0, 1.0] if rank == 0 else [2.0, 2.0])
    True
    """
    def check():
        current = default_group()
        array = _checked_array("scatter", tensor)
        _check_root("scatter", src, current, "src")
        _writable("scatter", array)
        if current.rank != src:
            if _given(scatter_list):
                raise ValueError("scatter: scatter_list must not be given on ranks other than src")
            return array, None
        return array, _check_list("scatter", scatter_list, array, current.size, "scatter_list")

    group, checked, error = _validated("scatter", group, check)
    agree(group, "scatter", None if checked is None else checked[0], root=src if error is None else -1,
          local_error=error)
    array, inputs = checked
    send = np.stack(inputs).reshape(-1) if inputs is not None else None
    staged = _Staged(array)
    request = group.comm.Iscatter(send, staged.buffer, root=src)
    return _launch(group, "scatter", [request], staged.write_back, async_op, (send, staged.buffer), (tensor,))


def start_sum_unchecked(group, buffer, name):
    """Starts summing a contiguous numpy `buffer` across ranks in place and returns its Work, without agree().

    For callers that have checked once that every rank's buffers match
    (DistributedDataParallel's gradient buckets), where a check per call
    would cost a round trip in the middle of the backward pass.

    >>> buffer = np.ones(2)
    >>> start_sum_unchecked(default_group(), buffer, "a sum").wait()
    True
    >>> buffer
    array([2., 2.])
    """
    request = group.comm.Iallreduce(group.mpi.IN_PLACE, buffer, group.mpi.SUM)
    return Work(group, [request], name, buffers=(buffer,))


def start_broadcast_unchecked(group, buffer, root, name):
    """Starts broadcasting rank `root`'s contiguous numpy `buffer` in place, without agree() (see start_sum_unchecked).

    >>> buffer = np.full(2, float(mt.distributed.get_rank()))
    >>> start_broadcast_unchecked(default_group(), buffer, 1, "a broadcast").wait()
    True
    >>> buffer
    array([1., 1.])
    """
    return Work(group, [group.comm.Ibcast(buffer, root=root)], name, buffers=(buffer,))


def barrier(group=None, async_op=False):
    """Returns once every rank has called barrier().

    >>> mt.distributed.barrier()
    """
    group, _, error = _validated("barrier", group, lambda: None)
    agree(group, "barrier", local_error=error)
    return _launch(group, "barrier", [group.comm.Ibarrier()], None, async_op)
