"""torch.nn.modules.conv: PyTorch's path to these classes, for `from torch.nn.modules.conv import ...`.

They live in nn/conv.py, nn/lazy.py.
"""
from ..conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, _ConvNd, _ConvTransposeNd
from ..lazy import LazyConv1d, LazyConv2d, LazyConvTranspose1d, LazyConvTranspose2d
