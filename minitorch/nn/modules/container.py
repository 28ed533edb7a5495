"""torch.nn.modules.container: PyTorch's path to these classes, for `from torch.nn.modules.container import ...`.

They live in nn/container.py.
"""
from ..container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
