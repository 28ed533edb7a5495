"""torch.nn.modules.transformer: PyTorch's path to these classes, for `from torch.nn.modules.transformer import ...`.

They live in nn/transformer.py.
"""
from ..transformer import (
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
