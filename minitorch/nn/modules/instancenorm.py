"""torch.nn.modules.instancenorm: PyTorch's path to these classes, for `from torch.nn.modules.instancenorm import ...`.

They live in nn/instancenorm.py, nn/lazy.py.
"""
from ..instancenorm import InstanceNorm1d, InstanceNorm2d, _InstanceNorm
from ..lazy import LazyInstanceNorm1d, LazyInstanceNorm2d
