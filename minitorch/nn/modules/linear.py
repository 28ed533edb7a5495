"""torch.nn.modules.linear: PyTorch's path to these classes, for `from torch.nn.modules.linear import ...`.

They live in nn/attention.py, nn/lazy.py, nn/linear.py.
"""
from ..attention import NonDynamicallyQuantizableLinear, NonDynamicallyQuantizableLinear
from ..lazy import LazyLinear
from ..linear import Bilinear, Identity, Linear
