"""`mt.backends.mps`: Apple's Metal back end, which minitorch does not have.

>>> mt.backends.mps.is_available(), mt.backends.mps.is_built()
(False, False)
"""


def is_available():
    """False: minitorch cannot compute on an MPS device.

    >>> mt.backends.mps.is_available()
    False
    """
    return False


def is_built():
    """False: minitorch is not built with MPS support.

    >>> mt.backends.mps.is_built()
    False
    """
    return False
