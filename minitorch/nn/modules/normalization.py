"""torch.nn.modules.normalization: PyTorch's path to these classes, for `from torch.nn.modules.normalization import ...`.

They live in nn/normalization.py.
"""
from ..normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
