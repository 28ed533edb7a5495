"""torch.nn.modules.dropout: PyTorch's path to these classes, for `from torch.nn.modules.dropout import ...`.

They live in nn/dropout.py.
"""
from ..dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, FeatureAlphaDropout
