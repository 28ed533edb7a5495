"""torch.nn.modules.distance: PyTorch's path to these classes, for `from torch.nn.modules.distance import ...`.

They live in nn/distance.py.
"""
from ..distance import CosineSimilarity, PairwiseDistance
