"""glibc malloc settings for training loops: freed array memory is kept for the next step.

A training step allocates its activations and gradients afresh and frees
them at its end. By default glibc serves each big array with a fresh `mmap`
and returns it at `free`, or trims the heap's top, so every step touches new
pages: about 8,500 page faults and 15-20 ms of system time per CNN+BatchNorm
step on this project's machine (docs/RESULTS.md). With arrays up to 32 MiB
taken from the heap, and up to 256 MiB of freed heap kept, the next step
reuses the same pages. What a process keeps is bounded by those 256 MiB.

The settings are glibc's `mallopt(M_MMAP_THRESHOLD)` and
`mallopt(M_TRIM_THRESHOLD)`, made once when minitorch is imported, on Linux
with glibc only. A process started with MALLOC_MMAP_THRESHOLD_ or
MALLOC_TRIM_THRESHOLD_ in its environment keeps its own choice, and
MINITORCH_MALLOC_TUNING=0 leaves glibc's defaults alone.
"""
import ctypes
import ctypes.util
import os

M_TRIM_THRESHOLD = -1  # glibc's malloc.h
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 1024 * 1024
TRIM_THRESHOLD = 256 * 1024 * 1024


def _glibc():
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "gnu_get_libc_version") else None


def keep_freed_memory():
    """Applies the settings above; True if glibc took them (False elsewhere, or if the environment chose).

    >>> isinstance(mt.allocator.keep_freed_memory(), bool)
    True
    """
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return False
    if os.environ.get("MINITORCH_MALLOC_TUNING", "1") == "0":
        return False
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


applied = keep_freed_memory()
