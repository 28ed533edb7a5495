"""Turning samples into batches: default_collate and default_convert (PyTorch's torch/utils/data/_utils/collate.py).

`default_collate` merges a list of samples into a batch (the DataLoader's
default when it batches); `default_convert` only turns numpy arrays and
scalars into Tensors (its default with `batch_size=None`). Both keep the
structure of a sample: tuples, lists, namedtuples and dicts are handled
field by field.
"""
from __future__ import annotations

import collections.abc
import copy
import numbers
from typing import Any

import numpy as np

from ...creation import from_numpy
from ...tensor import Tensor

__all__ = ["default_collate", "default_convert"]


def _to_tensor(array: np.ndarray):
    """The one place where numpy data becomes a minitorch Tensor (C-ordered; a 0-d array stays 0-d)."""
    return from_numpy(np.asarray(array, order="C"))


def _as_numpy(obj: Any) -> np.ndarray:
    """A Tensor's data (or any array-like) as a numpy array, without copying when possible.

    ``np.asarray`` (via ``Tensor.__array__``) also works for tensors that require
    grad, where ``.numpy()`` refuses; batches never carry the graph anyway.
    """
    return np.asarray(obj)


def default_collate(batch: list):
    """Merge a list of samples into a batch, like ``torch.utils.data.default_collate``.

    Tensors and numpy arrays are stacked, Python ints become int64 and floats
    float64 tensors, strings stay a list, and tuples, lists, namedtuples and
    dicts are collated field by field.

    >>> from minitorch.utils.data import default_collate
    >>> default_collate([(mt.tensor([1.0, 2.0]), 0), (mt.tensor([3.0, 4.0]), 1)])
    [tensor([[1., 2.],
            [3., 4.]]), tensor([0, 1])]
    >>> default_collate([{"x": 1.5, "name": "a"}, {"x": 2.5, "name": "b"}])
    {'x': tensor([1.5000, 2.5000], dtype=minitorch.float64), 'name': ['a', 'b']}
    """
    if len(batch) == 0:
        raise ValueError("default_collate: empty batch")
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _to_tensor(np.stack([_as_numpy(t) for t in batch]))
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "USO":
            raise TypeError(f"default_collate: cannot batch numpy arrays of dtype {elem.dtype}")
        return _to_tensor(np.stack(batch))
    if isinstance(elem, np.generic):
        return _to_tensor(np.asarray(batch))
    if isinstance(elem, bool):
        return _to_tensor(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return _to_tensor(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, numbers.Real):
        # PyTorch's default_collate turns Python floats into float64.
        return _to_tensor(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("default_collate: each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate: cannot batch samples of type {type(elem).__name__}")


def default_convert(data):
    """Numpy arrays and scalars inside `data` become Tensors; nothing is stacked (``torch.utils.data.default_convert``).

    The DataLoader's default `collate_fn` when `batch_size=None` turns batching off.
    Arrays of strings or objects stay arrays; tuples become lists, as in PyTorch.

    >>> from minitorch.utils.data import default_convert
    >>> default_convert({"x": np.array([1.0, 2.0]), "label": 3, "pair": (np.int64(4), "a")})
    {'x': tensor([1., 2.], dtype=minitorch.float64), 'label': 3, 'pair': [tensor(4), 'a']}
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "USOV" else _to_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return _to_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({key: default_convert(value) for key, value in data.items()})
        except TypeError:  # a Mapping type that cannot be built from a dict
            return {key: default_convert(value) for key, value in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                converted = copy.copy(data)
                for i, d in enumerate(data):
                    converted[i] = default_convert(d)
                return converted
            return type(data)([default_convert(d) for d in data])
        except TypeError:  # a Sequence type that cannot be built from a list
            return [default_convert(d) for d in data]
    return data
