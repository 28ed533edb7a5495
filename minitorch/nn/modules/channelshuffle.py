"""torch.nn.modules.channelshuffle: PyTorch's path to these classes, for `from torch.nn.modules.channelshuffle import ...`.

They live in nn/pixelshuffle.py.
"""
from ..pixelshuffle import ChannelShuffle
