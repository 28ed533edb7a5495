"""`mt.cuda`: what PyTorch code asks about CUDA, answered for a CPU-only library.

`is_available()` is False and `device_count()` 0, so `"cuda" if
mt.cuda.is_available() else "cpu"` picks the CPU. Seeding is a no-op, as in
PyTorch without a GPU (scripts seed every device at start-up). Anything that
needs a GPU raises DeviceError.
"""
from .devices import DeviceError


def is_available():
    """False: minitorch has no CUDA devices.

    >>> mt.cuda.is_available()
    False
    """
    return False


def is_initialized():
    """False: there is no CUDA state to initialise.

    >>> mt.cuda.is_initialized()
    False
    """
    return False


def device_count():
    """0: the number of CUDA devices minitorch can use.

    >>> mt.cuda.device_count()
    0
    """
    return 0


def manual_seed(seed):
    """Does nothing (there is no CUDA generator), as PyTorch does on a machine without CUDA.

    >>> mt.cuda.manual_seed(0)
    """
    int(seed)


def manual_seed_all(seed):
    """Does nothing (there are no CUDA generators), as PyTorch does on a machine without CUDA.

    >>> mt.cuda.manual_seed_all(0)
    """
    int(seed)


def seed():
    """Does nothing (there is no CUDA generator).

    >>> mt.cuda.seed()
    """


def seed_all():
    """Does nothing (there are no CUDA generators).

    >>> mt.cuda.seed_all()
    """


def empty_cache():
    """Does nothing: there is no CUDA memory to release (PyTorch's also returns None without CUDA).

    >>> mt.cuda.empty_cache()
    """


def _unavailable(name):
    def unavailable(*args, **kwargs):
        raise DeviceError(f"mt.cuda.{name}: there is no CUDA device (minitorch computes on the CPU only)")

    unavailable.__name__ = unavailable.__qualname__ = name
    unavailable.__doc__ = f"Raises DeviceError: minitorch has no CUDA device.\n\n    >>> mt.cuda.{name}()\n" \
        "    Traceback (most recent call last):\n        ...\n    minitorch.devices.DeviceError: mt.cuda." \
        f"{name}: there is no CUDA device (minitorch computes on the CPU only)\n"
    return unavailable


current_device = _unavailable("current_device")
synchronize = _unavailable("synchronize")
set_device = _unavailable("set_device")
get_device_name = _unavailable("get_device_name")
get_device_properties = _unavailable("get_device_properties")
