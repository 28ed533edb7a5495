"""torch.nn.modules.pixelshuffle: PyTorch's path to these classes, for `from torch.nn.modules.pixelshuffle import ...`.

They live in nn/pixelshuffle.py.
"""
from ..pixelshuffle import PixelShuffle, PixelUnshuffle
