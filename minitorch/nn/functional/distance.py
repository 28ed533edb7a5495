"""Distances between vectors: F.pairwise_distance, F.cosine_similarity and F.pdist (which is mt.pdist,
ops/norm_ops.py, as in PyTorch).

All are built on the "VectorNorm" op (mt.linalg.vector_norm), whose gradient
at a zero vector is PyTorch's 0, not the 0/0 of d sqrt(s) = ds / (2 sqrt(s)).
"""
import numpy as np

from ...errors import ShapeError
from ...ops import comparison_ops
from ...ops.norm_ops import pdist, vector_norm  # noqa: F401  (F.pdist is mt.pdist)


def _clamped_min(x, low):
    """max(x, low) in value, with the derivative of x everywhere: PyTorch clamps the norms of
    cosine_similarity (and gaussian_nll_loss's variance) in place under no_grad."""
    return comparison_ops.where(x >= low, x, (x - x.detach()) + low)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dimension (the inputs broadcast).

    >>> F.pairwise_distance(mt.tensor([[0.0, 0.0]]), mt.tensor([[3.0, 4.0]]), eps=0.0)
    tensor([5.])
    """
    if not x1.is_floating_point() and not x2.is_floating_point():
        raise TypeError(f"pairwise_distance: expected floating point inputs, got {x1.dtype} and {x2.dtype}")
    dim = max(x1.ndim, x2.ndim) - 1
    if dim < 0:
        return vector_norm((x1 - x2 + eps).reshape(1), p, 0, False).reshape(())
    return vector_norm(x1 - x2 + eps, p, dim, keepdim)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / (max(||x1||, eps) max(||x2||, eps)) along `dim` (the inputs broadcast).

    Each input is divided by its norm before the product, as PyTorch does (the result stays in [-1, 1]).

    >>> F.cosine_similarity(mt.tensor([[1.0, 0.0], [1.0, 1.0]]), mt.tensor([[1.0, 1.0], [2.0, 2.0]]))
    tensor([0.7071, 1.0000])
    """
    try:
        shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    except ValueError:
        raise ShapeError(f"cosine_similarity: shapes {tuple(x1.shape)} and {tuple(x2.shape)} cannot be broadcast") from None
    if not (x1.is_floating_point() or x2.is_floating_point()):
        raise TypeError(f"cosine_similarity: expected common dtype to be floating point, yet common dtype is {x1.dtype}")
    if not -max(len(shape), 1) <= dim < max(len(shape), 1):
        raise IndexError(f"cosine_similarity: dimension out of range (expected to be in range of "
                         f"[{-len(shape)}, {len(shape) - 1}], but got {dim})")
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    norm1 = _clamped_min(vector_norm(x1, 2, dim, keepdim=True), eps)
    norm2 = _clamped_min(vector_norm(x2, 2, dim, keepdim=True), eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim=dim)
