"""torch.nn.modules.pooling: PyTorch's path to these classes, for `from torch.nn.modules.pooling import ...`.

They live in nn/pooling.py.
"""
from ..pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
    FractionalMaxPool2d, LPPool1d, LPPool2d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d, _AdaptiveAvgPoolNd,
    _AdaptiveMaxPoolNd, _LPPoolNd, _MaxPoolNd, _MaxUnpoolNd,
)
