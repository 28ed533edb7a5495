"""torch.nn.modules.lazy: PyTorch's path to these classes, for `from torch.nn.modules.lazy import ...`.

They live in nn/lazy.py.
"""
from ..lazy import LazyModuleMixin
