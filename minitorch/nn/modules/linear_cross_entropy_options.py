"""torch.nn.modules.linear_cross_entropy_options: PyTorch's path to these classes, for `from torch.nn.modules.linear_cross_entropy_options import ...`.

They live in nn/loss.py.
"""
from ..loss import LinearCrossEntropyOptions
