"""torch.nn.modules.padding: PyTorch's path to these classes, for `from torch.nn.modules.padding import ...`.

They live in nn/padding.py.
"""
from ..padding import (
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
    ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)
