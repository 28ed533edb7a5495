"""Attention: F.scaled_dot_product_attention and F.multi_head_attention_forward, as PyTorch computes them
(the math backend of aten/src/ATen/native/transformers/attention.cpp, and torch/nn/functional.py).

Composed from MatMul, Softmax, SelectV2 and friends, so gradients of every
order come from those ops. Masks follow PyTorch: a boolean attn_mask of
scaled_dot_product_attention says which positions take part (True), a
boolean key_padding_mask or attn_mask of multi-head attention says which are
masked out (True); float masks are added to the scores. A query row whose
every key is masked gets zero weights (PyTorch's _safe_softmax, which its
scaled_dot_product_attention uses; its multi-head attention gives nan there
when it returns the weights), and no nan reaches any gradient: the softmax
runs on zeros there.
"""
import math
import warnings

import numpy as np

from ...creation import from_numpy, zeros
from ...errors import ShapeError
from ...ops import array_ops, comparison_ops, product_ops, reduction_ops
from .dropout import dropout
from .linear import linear


def _as_additive(mask, dtype, name):
    """A bool mask (True = masked out) as 0 / -inf of `dtype`; a float mask as it is."""
    if mask is None:
        return None
    if mask.is_floating_point():
        return mask
    if np.asarray(mask).dtype != np.bool_:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return comparison_ops.where(mask, -math.inf, zeros((), dtype=dtype))


def _safe_softmax(scores):
    """softmax over the last dimension, with 0 (not nan) for rows that are -inf everywhere."""
    dead = from_numpy(np.all(np.asarray(scores) == -np.inf, axis=-1, keepdims=True))
    if not bool(np.asarray(dead).any()):
        return reduction_ops.softmax(scores, -1)
    weights = reduction_ops.softmax(comparison_ops.where(dead, 0.0, scores), -1)
    return comparison_ops.where(dead, 0.0, weights)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q K^T * scale + mask) V over the last two dimensions (..., L, E) x (..., S, E) x (..., S, Ev).

    attn_mask: bool (True = take part) or float (added), broadcast to (..., L, S); is_causal: the
    lower-triangular mask; scale defaults to 1/sqrt(E); dropout_p drops attention weights (always,
    as in PyTorch: pass 0.0 outside training); enable_gqa repeats key/value heads for grouped queries.

    >>> q = k = v = mt.tensor([[[1.0, 0.0], [0.0, 1.0]]])
    >>> F.scaled_dot_product_attention(q, k, v, is_causal=True)
    tensor([[[1.0000, 0.0000],
             [0.3302, 0.6698]]])
    """
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise ShapeError(f"scaled_dot_product_attention: expected query, key and value of at least 2 dimensions, got "
                         f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise ShapeError(f"scaled_dot_product_attention: query {tuple(query.shape)}, key {tuple(key.shape)} and value "
                         f"{tuple(value.shape)} do not fit (query and key need the same last size, key and value the "
                         "same length)")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    # PyTorch scales q and k by sqrt(scale) each, for stability (a negative scale goes to q).
    root = math.sqrt(abs(scale))
    query = query * (-root if scale < 0 else root)
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        repeats = query.shape[-3] // key.shape[-3]
        heads = from_numpy(np.repeat(np.arange(key.shape[-3]), repeats))
        before = (slice(None),) * (key.ndim - 3)
        key, value = key[before + (heads,)], value[before + (heads,)]
    scores = product_ops.matmul(query, key.transpose(-2, -1) * root)
    length, source = scores.shape[-2], scores.shape[-1]
    if is_causal:
        attn_mask = from_numpy(np.tril(np.ones((length, source), dtype=bool)))
    if attn_mask is not None:
        if np.asarray(attn_mask).dtype == np.bool_:
            attn_mask = comparison_ops.where(attn_mask, zeros((), dtype=scores.dtype), -math.inf)
        scores = scores + attn_mask
    weights = _safe_softmax(scores)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return product_ops.matmul(weights, value)


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's _mha_shape_check: whether the inputs are batched, with its errors."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.ndim - 1}-D but "
                             f"found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                             f"{attn_mask.ndim}-D tensor instead")
    if not batched and attn_mask is not None and attn_mask.ndim == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
    return batched


def _in_projection(query, key, value, weights, biases):
    if query is key and key is value and len(weights) == 1:
        projected = linear(query, weights[0], biases)
        size = query.shape[-1]
        return tuple(projected[..., k * size:(k + 1) * size] for k in range(3))
    if len(weights) == 1:
        size = query.shape[-1]
        weights = [weights[0][k * size:(k + 1) * size] for k in range(3)]
    parts = [None] * 3 if biases is None else [biases[k * query.shape[-1]:(k + 1) * query.shape[-1]] for k in range(3)]
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, parts))


def _append_zero_column(mask):
    return None if mask is None else array_ops.cat([mask, zeros(*mask.shape[:-1], 1, dtype=mask.dtype)], dim=-1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
                                 bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None, use_separate_proj_weight=False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
                                 average_attn_weights=True, is_causal=False):
    """Multi-head attention on (L, N, E) query and (S, N, E_k/E_v) key and value (or unbatched (L, E), (S, E)).

    Returns (output (L, N, E), weights (N, L, S) averaged over heads, or (N, heads, L, S), or None).

    >>> E = 4
    >>> x = mt.randn(3, 2, E)
    >>> out, weights = F.multi_head_attention_forward(x, x, x, E, 2, mt.randn(3 * E, E), mt.zeros(3 * E), None, None,
    ...                                               False, 0.0, mt.randn(E, E), mt.zeros(E))
    >>> tuple(out.shape), tuple(weights.shape)
    ((3, 2, 4), (2, 3, 3))
    """
    batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target_length, batch, embed_dim = query.shape
    if key_padding_mask is not None and attn_mask is not None and key_padding_mask.dtype != attn_mask.dtype:
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type for both "
                      "instead.", stacklevel=2)
    key_padding_mask = _as_additive(key_padding_mask, query.dtype, "key_padding_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                           "`generate_square_subsequent_mask` to create this mask.")
    attn_mask = _as_additive(attn_mask, query.dtype, "attn_mask")  # is_causal is a hint: the mask is used as given
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
        q, k, v = _in_projection(query, key, value, [q_proj_weight, k_proj_weight, v_proj_weight], in_proj_bias)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection(query, key, value, [in_proj_weight], in_proj_bias)
    if attn_mask is not None:
        expected = (target_length, key.shape[0]) if attn_mask.ndim == 2 else (batch * num_heads, target_length, key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise RuntimeError(f"The shape of the {attn_mask.ndim}D attn_mask is {tuple(attn_mask.shape)}, but should be "
                               f"{expected}.")
        if attn_mask.ndim == 2:
            attn_mask = attn_mask.unsqueeze(0)
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k is set but bias_v is None" if bias_v is None else "bias_v is set but bias_k is None")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key." if static_k is not None else
                                 "bias cannot be added to static value.")
        k = array_ops.cat([k, bias_k.expand(1, batch, embed_dim)])
        v = array_ops.cat([v, bias_v.expand(1, batch, embed_dim)])
        attn_mask, key_padding_mask = _append_zero_column(attn_mask), _append_zero_column(key_padding_mask)
    q = q.reshape(target_length, batch * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, batch, num_heads, head_dim, "static_k")
    v = _heads(v, static_v, batch, num_heads, head_dim, "static_v")
    if add_zero_attn:
        k = array_ops.cat([k, zeros(batch * num_heads, 1, head_dim, dtype=k.dtype)], dim=1)
        v = array_ops.cat([v, zeros(batch * num_heads, 1, head_dim, dtype=v.dtype)], dim=1)
        attn_mask, key_padding_mask = _append_zero_column(attn_mask), _append_zero_column(key_padding_mask)
    source_length = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (batch, source_length):
            raise AssertionError(f"Expected key_padded_mask.shape to be {(batch, source_length)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        padding = key_padding_mask.reshape(batch, 1, 1, source_length).expand(batch, num_heads, 1, source_length)
        padding = padding.reshape(batch * num_heads, 1, source_length)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    scores = product_ops.matmul(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _safe_softmax(scores)
    if training and dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    output = product_ops.matmul(weights, v).transpose(0, 1).reshape(target_length * batch, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias).reshape(target_length, batch, embed_dim)
    if not need_weights:
        return (output if batched else output.squeeze(1)), None
    weights = weights.reshape(batch, num_heads, target_length, source_length)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        output, weights = output.squeeze(1), weights.squeeze(0)
    return output, weights


def _heads(x, static, batch, num_heads, head_dim, name):
    """(S, N, E) -> (N * heads, S, head_dim), or the given static keys/values (checked)."""
    if static is None:
        return x.reshape(x.shape[0], batch * num_heads, head_dim).transpose(0, 1)
    if static.shape[0] != batch * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch * num_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static
