"""DistributedDataParallel: one model replica per process, gradients averaged across them.

Each rank runs the same model on its own share of the batch; after
backward() every rank holds the gradient averaged over all ranks, which is
the gradient of the mean loss over the whole (global) batch, so the
optimizers of all ranks take the same step and the replicas stay equal.
With B samples per rank and N ranks, training matches one process with
batch N*B (same weights up to float rounding), except for what depends on
each rank's batch alone: BatchNorm (see below) and Dropout's random masks.

The PyTorch door: `loss.backward()` averages the gradients while it runs
(reducer.py). The TensorFlow door: `tape.gradient` does not touch `.grad`,
so pass its gradients to `ddp.reduce_gradients(grads)`, which returns them
averaged:

    with mt.GradientTape() as tape:
        loss = F.cross_entropy(ddp(x), y)
    params = list(ddp.parameters())
    grads = ddp.reduce_gradients(tape.gradient(loss, params))
    for p, g in zip(params, grads):
        p.grad = g
    optimizer.step()

BatchNorm: each rank normalizes with the statistics of its own batch (B
samples, not N*B), and the running statistics are rank 0's, broadcast to
the others at every forward (`broadcast_buffers=True`, as in PyTorch). To
normalize with the statistics of the global batch, convert the model with
`nn.SyncBatchNorm.convert_sync_batchnorm(model)`.
"""
import contextlib

import numpy as np

from ... import distributed as dist
from ...engine.state import is_grad_enabled
from ...creation import from_numpy, tensor
from ...distributed.collectives import DTYPE_CODES, DTYPES, start_broadcast_unchecked
from ...distributed.process_group import default_group
from ..module import Module
from .reducer import FIRST_BUCKET_BYTES, Reducer

_DIMS = 8


class DistributedDataParallel(Module):
    """Wraps `module` so that backward() averages its gradients across all ranks (torch.nn.parallel.DistributedDataParallel).

    At construction, every rank gets rank 0's parameters and buffers. Gradients
    are all-reduced in buckets of `bucket_cap_mb` megabytes, each started as
    soon as its gradients are ready during backward(). `find_unused_parameters`
    allows parameters that get no gradient in some steps (or on some ranks);
    `no_sync()` accumulates gradients locally; `reduce_gradients(grads)` is the
    door for GradientTape users. After an averaging backward, each `.grad` is
    a view into DDP's buckets, which the next averaging overwrites (as with
    PyTorch's gradient_as_bucket_view=True): clone a gradient to keep it.
    `ddp.module` is the wrapped model; the state_dict keys start with
    "module." as in PyTorch. `gradient_as_bucket_view`, `static_graph` and
    `check_reduction` are accepted for PyTorch's sake and change nothing;
    `device_ids` and `output_device` must be None (the CPU).

    >>> _ = mt.manual_seed(mt.distributed.get_rank())   # different weights on each rank...
    >>> model = mt.nn.Linear(3, 1)
    >>> ddp = mt.nn.parallel.DistributedDataParallel(model)
    >>> mine = model.weight.detach().clone()
    >>> mt.distributed.all_reduce(mine, op=mt.distributed.ReduceOp.MAX)  # ...now equal everywhere
    >>> bool((mine == model.weight).all())
    True
    >>> x = mt.ones(2, 3) * (mt.distributed.get_rank() + 1)   # each rank's own batch
    >>> ddp(x).sum().backward()
    >>> model.weight.grad      # the average of [2, 2, 2] and [4, 4, 4]
    tensor([[3., 3., 3.]])
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be a minitorch.nn.Module, got {type(module).__name__}")
        if device_ids not in (None, []) or output_device is not None:
            raise ValueError("DistributedDataParallel: minitorch runs on the CPU; device_ids and output_device must be None")
        group = default_group()
        if process_group is not None and process_group is not group:
            raise ValueError("DistributedDataParallel: only the default process group is supported (process_group=None)")
        default_cap = bucket_cap_mb is None
        bucket_cap_mb = 25 if default_cap else bucket_cap_mb
        if isinstance(bucket_cap_mb, bool) or not isinstance(bucket_cap_mb, (int, float)) or not bucket_cap_mb > 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be a positive number, got {bucket_cap_mb!r}")
        self.module = module
        self.broadcast_buffers = bool(broadcast_buffers)
        self.find_unused_parameters = bool(find_unused_parameters)
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        named = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        _check_same_model(group, module)
        if init_sync:
            _broadcast_from_rank_0(list(module.parameters()) + [b for b in module.buffers() if b is not None])
        first_bucket_bytes = min(FIRST_BUCKET_BYTES, self.bucket_bytes_cap) if default_cap else self.bucket_bytes_cap
        self.reducer = Reducer(group, [p for _, p in named], [name for name, _ in named], self.bucket_bytes_cap,
                               first_bucket_bytes, self.find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers:
            buffers = [b for b in self.module.buffers() if b is not None]
            if buffers and dist.get_world_size() > 1:
                _broadcast_from_rank_0(buffers, checked=False)  # their shapes were checked at construction
        # As in PyTorch, the backward pass after this forward averages (unless in no_sync()); others do not.
        self.reducer.prepare_for_forward(is_grad_enabled() and self.require_backward_grad_sync)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Inside this block, backward() accumulates gradients locally; the first backward after it averages them all.

        >>> ddp = mt.nn.parallel.DistributedDataParallel(mt.nn.Linear(1, 1, bias=False))
        >>> with ddp.no_sync():
        ...     ddp(mt.ones(1, 1) * (mt.distributed.get_rank() + 1)).sum().backward()  # local: 1 or 2
        >>> ddp(mt.ones(1, 1)).sum().backward()                                          # local: 2 or 3, then averaged
        >>> ddp.module.weight.grad
        tensor([[2.5000]])
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def reduce_gradients(self, grads):
        """The GradientTape door: `grads` (one per `ddp.parameters()`, as `tape.gradient` returns them) averaged across ranks.

        Returns a new list (None where no rank has a gradient, which needs
        `find_unused_parameters=True`) of views into DDP's buckets, which the
        next averaging overwrites; gradients of parameters that do not
        require grad are passed through unchanged.

        >>> ddp = mt.nn.parallel.DistributedDataParallel(mt.nn.Linear(2, 1))
        >>> x = mt.ones(1, 2) * (mt.distributed.get_rank() + 1)
        >>> with mt.GradientTape() as tape:
        ...     loss = ddp(x).sum()
        >>> params = list(ddp.parameters())
        >>> weight_grad, bias_grad = ddp.reduce_gradients(tape.gradient(loss, params))
        >>> weight_grad, bias_grad
        (tensor([[1.5000, 1.5000]]), tensor([1.]))
        """
        params = list(self.parameters())
        grads = list(grads)
        synced = [i for i, p in enumerate(params) if p.requires_grad]
        error = None
        if len(grads) != len(params):
            error = ValueError(f"DistributedDataParallel.reduce_gradients: got {len(grads)} gradients for "
                               f"{len(params)} parameters (pass one per ddp.parameters(), in that order)")
        else:
            for i in synced:
                if grads[i] is not None and tuple(grads[i].shape) != tuple(params[i].shape):
                    error = ValueError(f"DistributedDataParallel.reduce_gradients: gradient {i} has shape "
                                       f"{tuple(grads[i].shape)}, its parameter {tuple(params[i].shape)}")
                    break
        averaged = self.reducer.average([grads[i] for i in synced] if error is None else None, error)
        result = list(grads)
        for i, grad in zip(synced, averaged):
            result[i] = grad
        return result

    def extra_repr(self):
        return f"bucket_cap_mb={self.bucket_bytes_cap / 2**20:g}, find_unused_parameters={self.find_unused_parameters}"


def _describe_model(module):
    """One row per parameter and buffer: dtype code, number of dims, the dims (a hash beyond 8)."""
    tensors = list(module.parameters()) + [b for b in module.buffers() if b is not None]
    rows = np.zeros((len(tensors), 2 + _DIMS), np.int64)
    for row, t in zip(rows, tensors):
        array = np.asarray(t)
        row[0], row[1] = DTYPE_CODES.get(array.dtype, -1), array.ndim
        if array.ndim <= _DIMS:
            row[2:2 + array.ndim] = array.shape
        else:  # ints hash the same in every process
            row[2] = hash(array.shape)
    return rows


def _check_same_model(group, module):
    """Raises the same error on every rank unless all ranks hold models of the same parameter and buffer shapes."""
    rows = _describe_model(module)
    counts = [tensor([0]) for _ in range(group.size)]
    dist.all_gather(counts, tensor([len(rows)]))
    counts = [int(c.item()) for c in counts]
    if len(set(counts)) > 1:
        raise RuntimeError("DistributedDataParallel: the model differs across ranks: "
                           + ", ".join(f"rank {r} has {n} parameters and buffers" for r, n in enumerate(counts)))
    everyone = [from_numpy(np.zeros_like(rows)) for _ in range(group.size)]
    dist.all_gather(everyone, from_numpy(rows))
    names = [name for name, _ in module.named_parameters()] + [name for name, b in module.named_buffers() if b is not None]
    for rank, theirs in enumerate(everyone):
        different = np.flatnonzero((np.asarray(theirs) != rows).any(axis=1))
        if len(different):
            i = different[0]
            raise RuntimeError(
                f"DistributedDataParallel: the model differs across ranks: {names[i]!r} is "
                f"{_metadata_text(rows[i])} on rank {group.rank} but {_metadata_text(np.asarray(theirs)[i])} on rank {rank}"
            )


def _metadata_text(row):
    dtype = DTYPES[row[0]] if 0 <= row[0] < len(DTYPES) else "?"
    shape = tuple(int(n) for n in row[2:2 + row[1]]) if row[1] <= _DIMS else f"<{row[1]} dims>"
    return f"{dtype} of shape {shape}"


def _broadcast_from_rank_0(tensors, checked=True):
    """Copies rank 0's values into `tensors` on every rank: one broadcast per dtype, through a flat buffer."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(np.asarray(t).dtype, []).append(t)
    group = default_group()
    for dtype in sorted(by_dtype, key=str):
        same_dtype = by_dtype[dtype]
        flat = np.concatenate([np.asarray(t).reshape(-1) for t in same_dtype])
        if checked:
            dist.broadcast(from_numpy(flat), src=0)
        else:
            start_broadcast_unchecked(group, flat, 0, "DistributedDataParallel buffer broadcast").wait()
        if group.rank != 0:
            start = 0
            for t in same_dtype:
                array = np.asarray(t)  # written in place: parameters keep their identity (optimizers hold them)
                array[...] = flat[start:start + array.size].reshape(array.shape)
                start += array.size
