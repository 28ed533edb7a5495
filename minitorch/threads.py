"""How many threads minitorch computes with: the BLAS thread pool numpy (and scipy) call into.

minitorch's ops are numpy calls on the calling thread. Two things use more
threads, both sized by this one number: the BLAS routines under matmul and
convolution, and minitorch's own intra-op threads (minitorch/parallel.py),
which split a big convolution's, max pooling's or ReLU's samples across
threads and, while they do,
hold every OpenBLAS pool at 1 thread (`blas_threads`) so that the two never
compete for the cores. `set_num_threads(n)` sets
the pool of every OpenBLAS library loaded in the process (numpy's and
scipy's, found in /proc/self/maps and called through ctypes, the way
threadpoolctl does), and records `n` in OMP_NUM_THREADS / OPENBLAS_NUM_THREADS
for libraries loaded later. Where no OpenBLAS can be found (another BLAS,
another operating system), the environment variables are all it can set;
`get_num_threads` then reports the recorded number or the CPU count.

There is no inter-op pool (two ops never run side by side; only one op's
parts do): `get_num_interop_threads()` is 1 and `set_num_interop_threads` only checks its argument.

Importing this module shortens how long OpenBLAS's idle worker threads spin
(see OPENBLAS_THREAD_TIMEOUT below); minitorch/__init__.py imports it first,
and once numpy has loaded its OpenBLAS, sizes the pool to the physical cores
unless the environment names a count (`use_default_threads`, DEFAULT_THREADS).
"""
import contextlib
import ctypes
import os
import re
import threading

# OpenBLAS keeps each idle worker thread spinning for 2^28 cycles (about 0.1 s) after every BLAS
# call (its THREAD_TIMEOUT default). A training step calls a GEMM every few milliseconds, so at 2
# threads the worker spins through the copying, pooling and elementwise work that runs on the
# calling thread and takes its core: measured, the CNN+BatchNorm step used 127 ms of CPU for 64 ms
# of wall time. 2^20 cycles (about 0.3 ms) still bridges back-to-back GEMMs. OpenBLAS reads this
# when it loads, so it applies when minitorch is imported before numpy (as in the examples); a
# value already in the environment is kept.
OPENBLAS_THREAD_TIMEOUT = "20"
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", OPENBLAS_THREAD_TIMEOUT)

_ENVIRONMENT = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def physical_cores():
    """The physical cores this process may run on: hyperthread siblings count once (Linux; else the CPU count).

    >>> 1 <= mt.threads.physical_cores() <= os.cpu_count()
    True
    """
    try:
        cpus = os.sched_getaffinity(0)
    except AttributeError:
        return os.cpu_count() or 1
    cores = set()
    for cpu in cpus:
        try:
            with open(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list") as siblings:
                cores.add(siblings.read().strip())
        except OSError:
            cores.add(str(cpu))
    return max(1, len(cores))


# OpenBLAS starts one thread per logical CPU, and its threads meet at a barrier in every GEMM: when
# another program holds one of those CPUs, each GEMM waits for the thread that lost its core. On the
# 2-core machine shared with other jobs, numpy alone took 3.3 ms for a pair of the MLP's GEMMs at 2
# threads against 0.6-1.0 ms at 1 (its CPU time 5x), and the MLP example 1.6-1.8 s an epoch against
# 0.14-0.23 s. PyTorch's default, one thread per physical core, leaves a laptop's hyperthread siblings
# to the browser and the rest; a machine busy with other jobs needs OMP_NUM_THREADS=1 (README).
DEFAULT_THREADS = physical_cores()
_COUNT_GIVEN = any(name in os.environ for name in _ENVIRONMENT)
# OpenBLAS's entry points under the names its builds export (plain, 64-bit-int, scipy-openblas wheels).
_PREFIXES = ("openblas_", "scipy_openblas_")
_SUFFIXES = ("", "64_")


def _openblas_pools():
    """[(set_num_threads, get_num_threads)] for each OpenBLAS library loaded in this process."""
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", maps.read())))
    except OSError:
        return []
    pools = []
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                setter = getattr(library, f"{prefix}set_num_threads{suffix}", None)
                getter = getattr(library, f"{prefix}get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    setter.argtypes, getter.restype = [ctypes.c_int], ctypes.c_int
                    pools.append((setter, getter))
    return pools


# The pools found once, for the hot path (blas_threads, get_num_threads as parallel.py asks it);
# set_num_threads looks again, so a library loaded later (scipy's OpenBLAS) joins the next time
# the count is set.
_cached_pools = None
# Held while a pool's size is changed and restored: set_num_threads waits for a blas_threads
# block to end instead of being undone by its restore.
_pool_lock = threading.RLock()


def _pools():
    global _cached_pools
    if _cached_pools is None:
        _cached_pools = _openblas_pools()
    return _cached_pools


@contextlib.contextmanager
def blas_threads(n):
    """Holds every loaded OpenBLAS pool at `n` threads inside the block; each gets its size back after.

    >>> before = mt.get_num_threads()
    >>> with mt.threads.blas_threads(1):
    ...     mt.get_num_threads()
    1
    >>> mt.get_num_threads() == before
    True
    """
    _positive("blas_threads", n)
    with _pool_lock:
        pools = _pools()
        sizes = [int(getter()) for _, getter in pools]
        for setter, _ in pools:
            setter(n)
        try:
            yield
        finally:
            for (setter, _), size in zip(pools, sizes):
                setter(size)


def _positive(name, n):
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise RuntimeError(f"{name}: Expected a positive number of threads, got {n!r}")


def set_num_threads(n):
    """Sets how many threads the BLAS under matmul and convolution uses (all loaded OpenBLAS pools).

    >>> before = mt.get_num_threads()
    >>> mt.set_num_threads(1); mt.get_num_threads()
    1
    >>> mt.set_num_threads(before)
    """
    global _cached_pools
    _positive("set_num_threads", n)
    with _pool_lock:
        for name in _ENVIRONMENT:
            os.environ[name] = str(n)
        _cached_pools = _openblas_pools()
        for setter, _ in _cached_pools:
            setter(n)


def use_default_threads():
    """Sizes the loaded OpenBLAS pools to DEFAULT_THREADS, unless OMP/OPENBLAS/MKL_NUM_THREADS named a count when
    minitorch was imported. The environment is left as it was, so that a child process still follows its own.

    >>> mt.threads.use_default_threads()
    """
    if _COUNT_GIVEN:
        return
    with _pool_lock:
        for setter, _ in _pools():
            setter(DEFAULT_THREADS)


def get_num_threads():
    """The number of threads the BLAS uses (numpy's OpenBLAS pool; else OMP_NUM_THREADS or the CPU count).

    >>> mt.get_num_threads() >= 1
    True
    """
    pools = _pools()
    if pools:
        return int(pools[0][1]())
    recorded = os.environ.get("OMP_NUM_THREADS", "")
    return int(recorded) if recorded.isdigit() and int(recorded) > 0 else os.cpu_count() or 1


def get_num_interop_threads():
    """1: minitorch runs ops one after another on the calling thread (no inter-op pool).

    >>> mt.get_num_interop_threads()
    1
    """
    return 1


def set_num_interop_threads(n):
    """Checks `n` (a positive int) and changes nothing: there is no inter-op pool to size.

    >>> mt.set_num_interop_threads(2)
    >>> mt.get_num_interop_threads()
    1
    """
    _positive("set_num_interop_threads", n)
