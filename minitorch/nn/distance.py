"""Distance modules, as torch.nn.PairwiseDistance and torch.nn.CosineSimilarity."""
from . import functional as F
from .module import Module


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p along the last dimension.

    >>> mt.nn.PairwiseDistance(eps=0.0)(mt.tensor([[0.0, 0.0]]), mt.tensor([[3.0, 4.0]]))
    tensor([5.])
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine of the angle between x1 and x2 along `dim`.

    >>> mt.nn.CosineSimilarity(dim=0)(mt.tensor([1.0, 0.0]), mt.tensor([1.0, 1.0]))
    tensor(0.7071)
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
