"""`mt.backends.cudnn`: cuDNN's flags, which tutorials set; there is no cuDNN, so they change nothing.

>>> import minitorch.backends.cudnn as cudnn
>>> cudnn.benchmark = True
>>> cudnn.is_available(), cudnn.enabled
(False, True)
"""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """False: minitorch does not use cuDNN.

    >>> mt.backends.cudnn.is_available()
    False
    """
    return False


def version():
    """None: no cuDNN library is loaded (PyTorch returns None too without cuDNN).

    >>> mt.backends.cudnn.version() is None
    True
    """
    return None
