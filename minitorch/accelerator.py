"""`mt.accelerator`: PyTorch's device-neutral accelerator questions, answered for a CPU-only library.

>>> mt.accelerator.is_available(), mt.accelerator.current_accelerator(), mt.accelerator.device_count()
(False, None, 0)
"""


def is_available():
    """False: minitorch has no accelerator (CUDA, MPS, XPU, ...).

    >>> mt.accelerator.is_available()
    False
    """
    return False


def current_accelerator(check_available=False):
    """None: there is no accelerator (PyTorch returns None too when it finds none).

    >>> mt.accelerator.current_accelerator() is None
    True
    """
    return None


def device_count():
    """0: the number of accelerator devices.

    >>> mt.accelerator.device_count()
    0
    """
    return 0
