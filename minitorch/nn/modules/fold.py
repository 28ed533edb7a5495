"""torch.nn.modules.fold: PyTorch's path to these classes, for `from torch.nn.modules.fold import ...`.

They live in nn/fold.py.
"""
from ..fold import Fold, Unfold
