"""The default process group: this process's rank, the world size, and MPI underneath.

`mpiexec -n N python script.py` starts N copies of a script; each calls
`init_process_group()`, which starts MPI (through mpi4py) and takes the rank
and the world size from it. Run without mpiexec, the same script is a world
of one process. The group talks on its own duplicate of MPI_COMM_WORLD, so a
program's own mpi4py messages never mix with minitorch's.

A distributed job must not hang when something goes wrong, so:
  - an uncaught exception on any rank aborts the whole job (MPI_Abort), where
    the other ranks would otherwise wait forever in their next collective;
  - every wait for a collective gives up after the group's `timeout` and
    raises DistBackendError (which, uncaught, aborts the job);
  - a process that dies, or leaves by os._exit (in an atexit handler too),
    without MPI_Finalize is noticed by mpiexec, which ends the others;
  - a rank whose Python exits (sys.exit(n), raise SystemExit, the end of its
    script) goes through MPI_Finalize (mpi4py calls it after every atexit
    handler), after which MPICH's mpiexec ends nothing, whatever the exit
    status: so, first, an atexit handler tells every other rank that this one
    is leaving, on a communicator of its own. A rank waiting for it in a
    collective, or starting one later, raises DistBackendError within a
    second and the job ends, as torchrun ends a job whose worker exits.
    Python's atexit does not see the exit status, so a rank leaving with
    status 0 is announced the same way: a collective it never joins cannot
    finish either, and ranks that end cleanly call no collective afterwards.

The examples show a job of two processes (`mpiexec -n 2`) after
`init_process_group("mpi")`; the test suite runs them so, on both ranks.
"""
import atexit
import datetime
import importlib
import importlib.util
import os
import sys
import time

INSTALL_HINT = 'pip install mpi4py mpich   (or: pip install "minitorch[distributed]")'
DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # torch.distributed's default_pg_timeout
NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class DistBackendError(RuntimeError):
    """A collective that failed in the communication layer (a timeout: some rank never joined it).

    >>> issubclass(mt.distributed.DistBackendError, RuntimeError)
    True
    """


class ProcessGroup:
    """The world of processes one job runs on: its MPI communicator, rank, size and timeout."""

    def __init__(self, mpi, comm, timeout):
        self.mpi = mpi
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = timeout  # seconds


_default_group = None
_previous_excepthook = None
ABORT_GRACE_SECONDS = 0.5  # see _abort_job_on_uncaught_exception
_LEAVING_TAG = 27  # the message a rank sends every other rank when its process exits
_control = None  # (mpi, a duplicate of MPI_COMM_WORLD) for leaving messages, made by the first init, kept to the end
_departed = set()  # ranks known to have left the job


def is_available():
    """True when the MPI backend can start: mpi4py is installed (`pip install mpi4py mpich`).

    >>> mt.distributed.is_available()
    True
    """
    return importlib.util.find_spec("mpi4py") is not None


is_mpi_available = is_available


def is_initialized():
    """True between init_process_group() and destroy_process_group().

    >>> mt.distributed.is_initialized()
    True
    """
    return _default_group is not None


def default_group():
    """The process group collectives run on; ValueError (PyTorch's message) before init_process_group().

    >>> group = mt.distributed.process_group.default_group()
    >>> group.size, group.rank == mt.distributed.get_rank()
    (2, True)
    """
    if _default_group is None:
        raise ValueError(NOT_INITIALIZED)
    return _default_group


def _load_mpi():
    # Loaded here, not at the top of the module: importing mpi4py.MPI starts MPI
    # (MPI_Init), which belongs in init_process_group, not in `import minitorch`.
    try:
        return importlib.import_module("mpi4py.MPI")
    except ImportError as error:
        raise RuntimeError(
            f"init_process_group(backend='mpi') needs mpi4py and an MPI library, which are not installed: {INSTALL_HINT}"
        ) from error


def timeout_seconds(timeout):
    """`timeout` (a datetime.timedelta, or seconds; None: 30 minutes) in seconds, or a ValueError.

    >>> timeout_seconds(datetime.timedelta(minutes=2)), timeout_seconds(None), timeout_seconds(0.5)
    (120.0, 1800.0, 0.5)
    """
    if timeout is None:
        timeout = DEFAULT_TIMEOUT
    seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else timeout
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"timeout must be a positive datetime.timedelta (or seconds), got {timeout!r}")
    return float(seconds)


def _check_against_mpi(name, given, actual, source):
    if given is not None and int(given) != -1 and int(given) != actual:
        hint = f" (launch with: mpiexec -n {given} python ...)" if name == "world_size" else ""
        raise ValueError(f"init_process_group: {source} says {name} {given}, but MPI says {actual}{hint}")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Joins this process to the job's default process group (MPI's world).

    `backend` is "mpi" (or None). The rank and world size come from MPI
    (`mpiexec -n N`); `init_method="env://"`, the RANK and WORLD_SIZE
    variables and the `rank`/`world_size` arguments are accepted and must
    agree with MPI (MASTER_ADDR/MASTER_PORT are not needed: MPI connects the
    processes). `timeout` bounds every wait for a collective.

    >>> mt.distributed.destroy_process_group()
    >>> mt.distributed.init_process_group("mpi", init_method="env://", timeout=datetime.timedelta(minutes=5))
    >>> mt.distributed.get_world_size()
    2
    """
    global _default_group, _previous_excepthook
    if backend is not None and str(backend).lower() != "mpi":
        raise ValueError(f"init_process_group: minitorch.distributed has the 'mpi' backend only, got backend={backend!r}")
    if init_method is not None and init_method != "env://":
        raise ValueError(
            f"init_process_group: the mpi backend takes the rank and world size from MPI; "
            f"init_method must be None or 'env://', got {init_method!r}"
        )
    if store is not None:
        raise ValueError("init_process_group: the mpi backend does not use a store (MPI connects the processes)")
    if _default_group is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    seconds = timeout_seconds(timeout)
    mpi = _load_mpi()
    world = mpi.COMM_WORLD
    _check_against_mpi("world_size", world_size, world.Get_size(), "the world_size argument")
    _check_against_mpi("rank", rank, world.Get_rank(), "the rank argument")
    _check_against_mpi("world_size", os.environ.get("WORLD_SIZE"), world.Get_size(), "the WORLD_SIZE variable")
    _check_against_mpi("rank", os.environ.get("RANK"), world.Get_rank(), "the RANK variable")
    gone = departed_ranks()
    if gone:
        raise DistBackendError(f"init_process_group: rank {', '.join(map(str, sorted(gone)))} has left the job")
    _default_group = ProcessGroup(mpi, world.Dup(), seconds)
    if _default_group.size > 1:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _abort_job_on_uncaught_exception
        _announce_departure_at_exit(mpi, world)


def _abort_job_on_uncaught_exception(exc_type, exc, traceback):
    (_previous_excepthook or sys.__excepthook__)(exc_type, exc, traceback)
    sys.stderr.flush()
    group = _default_group
    if group is not None:
        rank = group.rank
        sys.stderr.write(f"minitorch.distributed: rank {rank} raised {exc_type.__name__}; aborting the job\n")
        sys.stderr.flush()
        # A rank's output reaches the terminal through mpiexec's own processes, which stop forwarding
        # when the job aborts. Once (in a CI run of the distributed tests) the end of the traceback,
        # the line that says what went wrong, never arrived; a moment's pause lets it through.
        time.sleep(ABORT_GRACE_SECONDS)
        group.mpi.COMM_WORLD.Abort(1)


def _announce_departure_at_exit(mpi, world):
    """Once per process: a communicator for leaving messages, and the atexit handler that sends them
    (before MPI_Finalize, which mpi4py calls after every atexit handler)."""
    global _control
    if _control is None:
        _control = (mpi, world.Dup())
        atexit.register(_announce_departure)


def _announce_departure():
    """Tells every other rank that this process is leaving the job (see the module's docstring)."""
    mpi, comm = _control
    if mpi.Is_finalized():
        return
    me = comm.Get_rank()
    requests = [comm.Isend(bytearray(1), dest=rank, tag=_LEAVING_TAG)
                for rank in range(comm.Get_size()) if rank != me and rank not in _departed]
    deadline = time.monotonic() + 1.0  # one byte each: sent at once; never wait long on the way out
    while not mpi.Request.Testall(requests) and time.monotonic() < deadline:
        os.sched_yield()


def departed_ranks():
    """The ranks known to have left the job (their leaving messages received so far, without waiting).

    >>> departed_ranks()
    set()
    """
    if _control is None:
        return _departed
    mpi, comm = _control
    status = mpi.Status()
    while comm.Iprobe(source=mpi.ANY_SOURCE, tag=_LEAVING_TAG, status=status):
        comm.Recv(bytearray(1), source=status.Get_source(), tag=_LEAVING_TAG)
        _departed.add(status.Get_source())
    return _departed


def destroy_process_group(group=None):
    """Leaves the default process group (MPI itself stays up until the process exits; init again is allowed).

    >>> mt.distributed.destroy_process_group()
    >>> mt.distributed.is_initialized()
    False
    >>> mt.distributed.init_process_group("mpi")
    """
    global _default_group, _previous_excepthook
    current = default_group()
    check_group(group)
    _default_group = None
    if sys.excepthook is _abort_job_on_uncaught_exception:
        sys.excepthook = _previous_excepthook
    _previous_excepthook = None
    current.comm.Free()


def check_group(group):
    """ValueError unless `group` means the default group (None): the only one there is.

    >>> check_group(None)
    >>> check_group("a subgroup")
    Traceback (most recent call last):
    ValueError: minitorch.distributed supports the default (world) process group only: pass group=None
    """
    if group is not None and group is not _default_group and group != "WORLD":
        raise ValueError("minitorch.distributed supports the default (world) process group only: pass group=None")


def get_rank(group=None):
    """This process's rank, 0 .. world size - 1.

    >>> mt.distributed.get_rank() in (0, 1)  # 0 in the first process, 1 in the second
    True
    """
    current = default_group()
    check_group(group)
    return current.rank


def get_world_size(group=None):
    """The number of processes in the job.

    >>> mt.distributed.get_world_size()
    2
    """
    current = default_group()
    check_group(group)
    return current.size


def get_backend(group=None):
    """The backend's name: "mpi".

    >>> mt.distributed.get_backend()
    'mpi'
    """
    default_group()
    check_group(group)
    return "mpi"
