"""torch.nn.modules.upsampling: PyTorch's path to these classes, for `from torch.nn.modules.upsampling import ...`.

They live in nn/upsampling.py.
"""
from ..upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
