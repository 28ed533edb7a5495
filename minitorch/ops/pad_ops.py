"""Padding, as torch.nn.functional.pad: constant, reflect, replicate and circular.

No op of its own. Zero padding is the adjoint of slicing, so it runs
"StridedSliceGrad" (the input written into zeros of the padded shape), whose
gradient slices back; another constant value is then put in the border with
"SelectV2". Reflect, replicate and circular padding pick, along each padded
dimension, one input element per output element: a selection along an axis,
the "Resample" op, whose gradient adds the copies back up. Negative padding
crops, as in PyTorch (reflect and replicate pad first and crop after,
circular crops first and wraps what is left).
"""
import numpy as np

from ..engine.execute import execute
from ..errors import ShapeError
from ..tensor import Tensor
from .array_ops import clone
from .comparison_ops import where
from .resample_ops import resample, selection_matrix

MODES = ("constant", "reflect", "replicate", "circular")


def _pad_pairs(pad, ndim, mode):
    """PyTorch's pad tuple (last dimension first) as a list of (before, after), one per dimension."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise ValueError(f"pad: padding length must be divisible by 2, got {len(pad)} ({pad})")
    if len(pad) // 2 > ndim:
        raise ValueError(
            f"pad: padding length should be less than or equal to two times the input dimension, but got "
            f"padding length {len(pad)} and input of dimension {ndim}"
        )
    if mode != "constant" and not (1 <= len(pad) // 2 <= 3 and len(pad) // 2 + 1 <= ndim <= len(pad) // 2 + 2):
        raise NotImplementedError(
            f"pad: padding size {len(pad)} is not supported for {ndim}D input tensor in mode {mode!r}; "
            f"non-constant padding pads the last 1, 2 or 3 dimensions of an input with 1 or 2 more dimensions"
        )
    pairs = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        pairs[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return pairs


def zero_pad(x, pairs):
    """x with pairs[d] = (before, after) zeros (both >= 0) around each dimension d. Runs "StridedSliceGrad".

    >>> zero_pad(mt.tensor([1.0, 2.0]), [(1, 2)])
    tensor([0., 1., 2., 0., 0.])
    """
    if not any(lo or hi for lo, hi in pairs):
        return x
    shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, pairs))
    index = tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, pairs))
    return execute("StridedSliceGrad", (x,), {"shape": shape, "index": index})


def _constant_pad(x, pairs, value):
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(x.shape, pairs))
    if any(s.stop < s.start for s in crop):
        raise ShapeError(f"pad: negative padding {pairs} removes more than the input of shape {tuple(x.shape)} holds")
    if any(lo < 0 or hi < 0 for lo, hi in pairs):
        x = x[crop]
    pairs = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    padded = zero_pad(x, pairs)
    if not value or padded is x:
        return padded
    inside = np.zeros(padded.shape, dtype=bool)
    inside[tuple(slice(lo, lo + n) for n, (lo, _) in zip(x.shape, pairs))] = True
    fill = Tensor._make(np.asarray(value).astype(np.asarray(x).dtype))
    return where(Tensor._make(inside), padded, fill)


def source_positions(size, before, after, mode):
    """For each output position along one padded axis, the input position it copies (reflect, replicate, circular).

    >>> source_positions(4, 2, 1, "reflect").tolist(), source_positions(4, 2, 1, "circular").tolist()
    ([2, 1, 0, 1, 2, 3, 2], [2, 3, 0, 1, 2, 3, 0])
    """
    if mode == "circular":  # crop first, then wrap around what is left
        start, stop = max(-before, 0), size - max(-after, 0)
        kept = stop - start
        if max(before, after) > size:
            raise ValueError(f"pad: padding ({before}, {after}) in mode 'circular' wraps around more than once a dimension of size {size}")
        if kept <= 0 and max(before, after) > 0:
            raise ValueError(f"pad: padding ({before}, {after}) in mode 'circular' crops all of a dimension of size {size}: nothing is left to wrap")
        return start + np.arange(-max(before, 0), kept + max(after, 0)) % max(kept, 1)
    positions = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    if before >= size or after >= size:
        raise RuntimeError(
            f"pad: padding size should be less than the corresponding input dimension in mode 'reflect', "
            f"but got padding ({before}, {after}) for a dimension of size {size}"
        )
    return np.abs(size - 1 - np.abs(positions - (size - 1)))


def pad(input, pad, mode="constant", value=None):
    """Pads `input` as torch.nn.functional.pad: `pad` = (left, right, top, bottom, ...), the last dimension first.

    mode: 'constant' (with `value`, default 0; any number of dimensions; negative
    padding crops), 'reflect' (mirror without repeating the edge), 'replicate'
    (repeat the edge) or 'circular' (wrap around), for the last 1, 2 or 3 dimensions.

    >>> x = mt.tensor([[1.0, 2.0, 3.0]])
    >>> pad(x, (2, 1), value=9.0)
    tensor([[9., 9., 1., 2., 3., 9.]])
    >>> pad(x, (2, 1), mode="reflect"), pad(x, (2, 1), mode="replicate"), pad(x, (2, 1), mode="circular")
    (tensor([[3., 2., 1., 2., 3., 2.]]), tensor([[1., 1., 1., 2., 3., 3.]]), tensor([[2., 3., 1., 2., 3., 1.]]))
    """
    if mode not in MODES:
        raise NotImplementedError(f"pad: unrecognised padding mode {mode!r} (expected one of {', '.join(MODES)})")
    pairs = _pad_pairs(pad, input.ndim, mode)
    if mode == "constant":
        out = _constant_pad(input, pairs, value)
        return clone(input) if out is input else out  # a new tensor even for zero padding, as PyTorch
    if value is not None and value != 0:
        raise ValueError(f"pad: padding mode {mode!r} doesn't take in value argument")
    padded = [axis for axis, (before, after) in enumerate(pairs) if before or after]
    sizes = [n + before + after for n, (before, after) in zip(input.shape[input.ndim - len(pad) // 2:], pairs[input.ndim - len(pad) // 2:])]
    # PyTorch: no size may be negative, and reflect/replicate keep one of the padded dimensions non-empty
    if min(sizes) < 0 or (mode != "circular" and max(sizes) < 1):
        raise ShapeError(f"pad: input of shape {tuple(input.shape)} is too small for padding {tuple(pad)} in mode {mode!r}")
    out = input
    for axis in padded:
        size = input.shape[axis]
        out = resample(out, axis, selection_matrix(source_positions(size, *pairs[axis], mode), size))
    return clone(input) if out is input else out
