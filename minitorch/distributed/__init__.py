"""minitorch.distributed: data parallelism over MPI, with torch.distributed's API.

    mpiexec -n 2 python train.py        # two processes on this machine
    mpiexec -f hostfile -n 8 python train.py

where train.py calls `mt.distributed.init_process_group("mpi")`, wraps its
model in `mt.nn.parallel.DistributedDataParallel` and reads its share of the
data through `mt.utils.data.DistributedSampler`. The MPI backend needs
`pip install mpi4py mpich` (the `distributed` extra). process_group.py holds
the group (ranks, timeout, aborting a failed job), collectives.py the
collectives on tensors.
"""
from .collectives import ReduceOp, Work, all_gather, all_reduce, barrier, broadcast, gather, reduce, scatter
from .process_group import (
    DistBackendError, destroy_process_group, get_backend, get_rank, get_world_size, init_process_group, is_available,
    is_initialized, is_mpi_available,
)

__all__ = [
    "DistBackendError", "ReduceOp", "Work", "all_gather", "all_reduce", "barrier", "broadcast", "destroy_process_group",
    "gather", "get_backend", "get_rank", "get_world_size", "init_process_group", "is_available", "is_initialized",
    "is_mpi_available", "reduce", "scatter",
]
