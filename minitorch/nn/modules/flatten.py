"""torch.nn.modules.flatten: PyTorch's path to these classes, for `from torch.nn.modules.flatten import ...`.

They live in nn/flatten.py.
"""
from ..flatten import Flatten, Unflatten
