"""Flatten, as torch.nn.Flatten: merges dimensions start_dim..end_dim (by default all but the batch)."""
from . import functional as F
from .module import Module


class Flatten(Module):
    """Flattens dims start_dim..end_dim (default: all but the batch dim).

    >>> mt.nn.Flatten()(mt.ones(2, 3, 4)).shape
    minitorch.Size([2, 12])
    """
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
