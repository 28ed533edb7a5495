"""torch.nn.modules.module: PyTorch's path to these classes, for `from torch.nn.modules.module import ...`.

They live in nn/module.py.
"""
from ..module import Module
