"""Dropout, as torch.nn.Dropout: inverted dropout while training, the identity in eval mode."""
from . import functional as F
from .module import Module


class Dropout(Module):
    """Zeroes elements with probability p while training, scaling the rest by 1/(1-p); the identity in eval().

    >>> drop = mt.nn.Dropout(p=0.5).eval()
    >>> drop(mt.ones(3)).tolist()
    [1.0, 1.0, 1.0]
    """
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
