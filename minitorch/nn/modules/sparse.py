"""torch.nn.modules.sparse: PyTorch's path to these classes, for `from torch.nn.modules.sparse import ...`.

They live in nn/embedding.py.
"""
from ..embedding import Embedding, EmbeddingBag
