"""Distances between vectors: F.pairwise_distance, F.cosine_similarity, F.pdist, and the p-norm they share.

All are compositions of existing ops. The norm follows PyTorch's
linalg_vector_norm, including its gradient at a zero vector, which is 0 (not
the 0/0 of d sqrt(s) = ds / (2 sqrt(s))): the sum under the root is replaced
by 1 where it is 0, and the result by 0 there.
"""
import math

import numpy as np

from ..creation import from_numpy
from ..errors import ShapeError
from ..ops import math_ops, reduction_ops


def vector_norm(x, p, dim, keepdim=False):
    """The p-norm of `x` along `dim` (p = 0, 1, 2, inf, -inf or any positive float), as torch.linalg.vector_norm.

    >>> from minitorch.nn.functional_distance import vector_norm
    >>> vector_norm(mt.tensor([[3.0, 4.0], [0.0, 0.0]]), 2, dim=1)
    tensor([5., 0.])
    """
    magnitude = x.abs()
    if p == math.inf:
        return reduction_ops.amax(magnitude, dim, keepdim)
    if p == -math.inf:
        return reduction_ops.amin(magnitude, dim, keepdim)
    if p == 0:
        return math_ops.cast(x != 0, x.dtype).sum(dim=dim, keepdim=keepdim)
    if p == 1:
        return magnitude.sum(dim=dim, keepdim=keepdim)
    powered = x * x if p == 2 else magnitude ** p
    total = powered.sum(dim=dim, keepdim=keepdim)
    is_zero = total == 0
    safe = math_ops.where(is_zero, 1.0, total)
    root = safe.sqrt() if p == 2 else safe ** (1.0 / p)
    return math_ops.where(is_zero, 0.0, root)


def _clamped_min(x, low):
    """max(x, low) in value, with the derivative of x everywhere: PyTorch clamps the norms of
    cosine_similarity (and gaussian_nll_loss's variance) in place under no_grad."""
    return math_ops.where(x >= low, x, (x - x.detach()) + low)


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


def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input, for each pair i < j: N (N - 1) / 2 values.

    >>> F.pdist(mt.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 8.0]]))
    tensor([5., 8., 5.])
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, columns = np.triu_indices(input.shape[0], 1)
    if rows.size == 0:
        return input.reshape(-1)[:0]
    return vector_norm(input[from_numpy(rows)] - input[from_numpy(columns)], p, 1)
