"""`mt.cpu`: the device module of the CPU, the one device minitorch has (torch.cpu).

>>> mt.cpu.is_available(), mt.cpu.device_count(), mt.cpu.current_device()
(True, 1, 'cpu')
"""


def is_available():
    """True: the CPU is always there.

    >>> mt.cpu.is_available()
    True
    """
    return True


def device_count():
    """1: minitorch counts the CPU as one device.

    >>> mt.cpu.device_count()
    1
    """
    return 1


def current_device():
    """'cpu', as torch.cpu.current_device().

    >>> mt.cpu.current_device()
    'cpu'
    """
    return "cpu"


def synchronize(device=None):
    """Returns at once: CPU ops finish before they return.

    >>> mt.cpu.synchronize()
    """
