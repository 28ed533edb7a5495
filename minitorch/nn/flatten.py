"""Flatten and Unflatten, as torch.nn: merge dimensions start_dim..end_dim (by default all but the batch), or split one."""
import math

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


class Unflatten(Module):
    """Splits dimension `dim` into `unflattened_size` (one entry may be -1), as torch.nn.Unflatten.

    >>> mt.nn.Unflatten(1, (2, 3))
    Unflatten(dim=1, unflattened_size=(2, 3))
    >>> mt.nn.Unflatten(1, (2, -1))(mt.ones(4, 6)).shape
    minitorch.Size([4, 2, 3])
    """
    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError(f"Unflatten: dim must be an int (named dimensions are not supported), got {type(dim).__name__}")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(unflattened_size).__name__}")
        for position, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of type {type(size).__name__} at pos {position}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        dim = self.dim + input.ndim if self.dim < 0 else self.dim
        if not 0 <= dim < input.ndim:
            raise IndexError(f"Unflatten: dimension {self.dim} is out of range for input of shape {tuple(input.shape)}")
        sizes = list(self.unflattened_size)
        known = math.prod(s for s in sizes if s != -1)
        if sizes.count(-1) > 1 or (-1 not in sizes and known != input.shape[dim]) or (
                -1 in sizes and (known == 0 or input.shape[dim] % known)):
            raise RuntimeError(f"unflatten: provided sizes {sizes} don't multiply up to the size of dim {self.dim} "
                               f"({input.shape[dim]}) in the input tensor")
        return input.reshape(*input.shape[:dim], *sizes, *input.shape[dim + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
