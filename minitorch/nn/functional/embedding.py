"""Embedding lookups and encodings (PyTorch's "sparse functions"): F.embedding (max_norm,
scale_grad_by_freq, padding_idx), F.embedding_bag and F.one_hot.

A lookup is the GatherNd of `weight[indices]`; its gradient scatter-adds into
the looked-up rows. PyTorch's options change only values or gradients around
it, with composites:

* max_norm renormalises, in place and unrecorded, every looked-up row whose
  p-norm exceeds max_norm to max_norm / (norm + 1e-7) of itself
  (PyTorch's embedding_renorm_), before the lookup.
* padding_idx and scale_grad_by_freq keep the values and change the
  gradient: `rows.detach() + (rows - rows.detach()) * s` is `rows` exactly
  (the bracket is exactly 0) with gradient s, here 1 / (the number of times
  the index occurs in the batch), and `where(is_padding, rows.detach(), rows)`
  sends no gradient to the padding row.

EmbeddingBag reduces each bag (a run of indices given by offsets, or a row
of a 2-D input) by sum, mean or max, skipping padding_idx: the bags are
padded to one length and reduced with a mask.
"""
import numpy as np

from ... import dtypes
from ...creation import from_numpy
from ...engine.state import no_grad
from ...errors import ShapeError
from ...ops import coercion, comparison_ops
from ...ops.norm_ops import vector_norm


def _checked_indices(input, num_embeddings, name):
    indices = np.asarray(input)
    if indices.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: expected an integer index tensor (Long or Int), got {indices.dtype}")
    if indices.size and (indices.min() < 0 or indices.max() >= num_embeddings):
        raise IndexError(f"{name}: index out of range in self (indices must lie in [0, {num_embeddings}))")
    return indices


def padding_index(padding_idx, num_embeddings, message="Padding_idx must be within num_embeddings"):
    """padding_idx as an index in [0, num_embeddings) (a negative one counts from the end), or None;
    out of range, PyTorch's AssertionError with its `message`."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(message)
    return padding_idx % num_embeddings


def embedding_renorm_(input, indices, max_norm, norm_type):
    """PyTorch's torch.embedding_renorm_: the rows of the table `input` used by `indices` scaled down to norm
    max_norm (max_norm / (norm + 1e-7) of themselves), in place and unrecorded; returns `input`.

    >>> mt.embedding_renorm_(mt.tensor([[3.0, 4.0], [0.3, 0.4]]), mt.tensor([0, 1]), 1.0, 2.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    rows = np.unique(np.asarray(indices))
    if rows.size == 0:
        return input
    with no_grad():
        used = input.detach()[from_numpy(rows)]
        norms = vector_norm(used, norm_type, 1, keepdim=True)
        scale = comparison_ops.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        input.detach()[from_numpy(rows)] = used * scale
    return input


def _scaled_gradient(values, scale):
    """`values`, whose gradient is multiplied by `scale` (the bracket is exactly zero)."""
    frozen = values.detach()
    return frozen + (values - frozen) * scale


def _inverse_frequencies(all_indices, looked_up, dtype):
    """1 / (how often each looked-up index occurs in the whole input), one per row, broadcast over the row."""
    counts = np.bincount(all_indices.reshape(-1), minlength=int(looked_up.max(initial=0)) + 1)
    scale = 1.0 / np.maximum(counts[looked_up], 1)
    return from_numpy(scale.astype(dtype)[..., None])


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of `weight` picked by the integer tensor `input`; output shape input.shape + (embedding_dim,).

    Rows looked up at padding_idx get no gradient; max_norm renormalises the rows used (in place);
    scale_grad_by_freq divides each row's gradient by its count in the batch, as in PyTorch.

    >>> weight = mt.tensor([[0.0, 0.0], [1.0, 1.0], [3.0, 4.0]])
    >>> F.embedding(mt.tensor([2, 0]), weight).tolist()
    [[3.0, 4.0], [0.0, 0.0]]
    >>> F.embedding(mt.tensor([2]), weight, max_norm=1.0)
    tensor([[0.6000, 0.8000]])
    >>> weight[2]                            # renormalised in place
    tensor([0.6000, 0.8000])
    """
    if sparse:
        raise NotImplementedError("embedding: sparse=True (sparse gradients) is not supported: minitorch is dense-only")
    if weight.ndim != 2:
        raise ShapeError(f"embedding: 'weight' must be 2-D, got shape {tuple(weight.shape)}")
    num_embeddings = weight.shape[0]
    indices = _checked_indices(input, num_embeddings, "embedding")
    padding_idx = padding_index(padding_idx, num_embeddings)
    if max_norm is not None:
        embedding_renorm_(weight, indices, max_norm, norm_type)
    rows = weight[from_numpy(indices)]
    if scale_grad_by_freq:
        rows = _scaled_gradient(rows, _inverse_frequencies(indices, indices, np.asarray(weight).dtype))
    if padding_idx is None:
        return rows
    is_padding = from_numpy((indices == padding_idx)[..., None])
    return comparison_ops.where(is_padding, rows.detach(), rows)


def _bags(input, offsets, include_last_offset, per_sample_weights):
    """The flat indices, each bag's (start, end), and flat per-sample weights, from PyTorch's two input forms."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                             f"length sequences. However, found offsets of type {type(offsets)}")
        bags, length = input.shape
        starts = np.arange(bags) * length
        flat_weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return np.asarray(input).reshape(-1), starts, starts + length, flat_weights
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = np.asarray(offsets).astype(np.int64)
    n = input.shape[0]
    if starts.size and starts[0] != 0:
        raise ValueError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                         f"However, got {starts[0]}")
    if starts.size and (np.any(np.diff(starts) < 0) or starts[-1] > n):
        raise ValueError(f"embedding_bag: offsets must be non-decreasing and at most the input's length {n}")
    if include_last_offset:
        starts, ends = starts[:-1], starts[1:]
    else:
        ends = np.append(starts[1:], n)
    return np.asarray(input), starts, ends, per_sample_weights


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of the embedding rows in each bag: (B, embedding_dim).

    Bags are the rows of a 2-D input, or the runs of a 1-D input starting at `offsets`.
    Indices equal to padding_idx are left out of their bag; an empty bag gives zeros.
    per_sample_weights (mode='sum' only) weighs each looked-up row.

    >>> weight = mt.tensor([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]])
    >>> F.embedding_bag(mt.tensor([0, 1, 2, 2]), weight, mt.tensor([0, 2, 4]), mode="sum")
    tensor([[1., 2.],
            [8., 8.],
            [0., 0.]])
    """
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, then it "
                         f"must have the same shape as the input ({tuple(input.shape)})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse=True (sparse gradients) is not supported: minitorch is dense-only")
    flat, starts, ends, sample_weights = _bags(input, offsets, include_last_offset, per_sample_weights)
    num_embeddings = weight.shape[0]
    flat = _checked_indices(flat, num_embeddings, "embedding_bag")
    padding_idx = padding_index(padding_idx, num_embeddings)
    if max_norm is not None:
        embedding_renorm_(weight, flat, max_norm, norm_type)
    if sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
                                  f"for mode='sum' (got mode='{mode}'). Please open a feature request on GitHub.")
    longest = int((ends - starts).max(initial=0))
    positions = starts[:, None] + np.arange(max(longest, 1))[None, :]  # (B, L) positions into flat
    inside = positions < ends[:, None]
    positions = np.where(inside, positions, 0) if flat.size else np.zeros_like(positions)
    looked_up = flat[positions] if flat.size else np.zeros(positions.shape, dtype=np.int64)
    kept = inside & (looked_up != padding_idx if padding_idx is not None else True)
    rows = weight[from_numpy(looked_up)]  # (B, L, D)
    if scale_grad_by_freq:
        rows = _scaled_gradient(rows, _inverse_frequencies(flat, looked_up, np.asarray(weight).dtype))
    dtype = np.asarray(weight).dtype
    mask = from_numpy(kept[..., None])
    if mode == "max":
        largest = comparison_ops.where(mask, rows, -np.inf).amax(dim=1)
        return comparison_ops.where(from_numpy(kept.any(axis=1)[:, None]), largest, 0.0)
    rows = comparison_ops.where(mask, rows, 0.0)
    if sample_weights is not None:
        rows = rows * sample_weights[from_numpy(positions)].unsqueeze(-1)
    total = rows.sum(dim=1)
    if mode == "sum":
        return total
    return total / from_numpy(np.maximum(kept.sum(axis=1), 1).astype(dtype)[:, None])


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with a new last dimension of size num_classes (max + 1 if -1).

    >>> mt.nn.functional.one_hot(mt.tensor([0, 2]), 3).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    values = np.asarray(tensor)
    if values.dtype.kind not in "iu":
        raise RuntimeError(f"one_hot is only applicable to index tensor of integer dtype, got {tensor.dtype}")
    if num_classes == -1:
        num_classes = int(values.max()) + 1 if values.size else 0
    if values.size and (values.min() < 0 or values.max() >= num_classes):
        raise RuntimeError(f"one_hot: class values must be in [0, {num_classes}), got values in [{values.min()}, {values.max()}]")
    classes = from_numpy(np.arange(num_classes, dtype=values.dtype))
    return coercion.cast(tensor.unsqueeze(-1) == classes, dtypes.int64)
