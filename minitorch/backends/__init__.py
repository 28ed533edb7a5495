"""`mt.backends`: the switches tutorials set for PyTorch's GPU back ends, on a CPU-only library.

`mt.backends.mps.is_available()` is False; `mt.backends.cudnn.benchmark = True`
and `mt.backends.cudnn.deterministic = True` are accepted and change nothing
(there is no cuDNN: minitorch's convolutions are numpy code, deterministic).

>>> mt.backends.mps.is_available(), mt.backends.cudnn.is_available()
(False, False)
"""
from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
