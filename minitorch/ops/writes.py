"""Writes into a tensor the caller gives: PyTorch's refusals (check_writable) and its `out=` keyword.

`out=` comes from one wrapper, `accepts_out`, applied where the public names are made
(minitorch/__init__.py, linalg.py, special.py), not to the op functions themselves: operators and
methods (`a + b`, `x.exp()`), which PyTorch gives no `out=`, do not pay for it. A function whose
PyTorch form takes `out` by position (norm, tensordot, F.normalize) has it in its own signature.
"""
import functools
import inspect
import warnings

import numpy as np

from .. import dtypes
from ..engine.state import thread_state
from ..engine.versions import bump
from ..tensor import Tensor


def check_writable(t, name):
    """PyTorch's refusals: a leaf that requires grad (or a view of one) outside no_grad; a broadcast view."""
    if t._requires_grad and thread_state.recording:
        base = t
        while base._view_of is not None:
            base = base._view_of[0]
        if t.is_leaf:
            raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in an in-place operation.")
        if base is not t and base._requires_grad and base.is_leaf:
            raise RuntimeError(f"{name}: a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if not t._data.flags.writeable:
        raise RuntimeError(
            f"{name}: unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location (an expand()ed or broadcast view). Please clone() the tensor before performing the operation."
        )


def cast_error(name, result_dtype, t):
    return RuntimeError(f"{name}: result type {dtypes.from_numpy_dtype(np.dtype(result_dtype))} can't be cast to the "
                        f"desired output type {t.dtype}")


def accepts_out(fn):
    """`fn` with PyTorch's `out=` keyword: the result is written into `out` (resized if its shape differs,
    cast to its dtype where that is a same-kind cast) and `out` is returned. As in PyTorch, `out=` refuses
    to take part in autograd: a result that requires grad raises.

    >>> cumsum = accepts_out(mt.ops.scan_ops.cumsum)
    >>> c = mt.zeros(2)
    >>> cumsum(mt.tensor([1.0, 2.0]), 0, out=c) is c, c
    (True, tensor([1., 3.]))
    """
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        return write_out(fn.__name__, fn(*args, **kwargs), out)

    signature = inspect.signature(fn)
    if "out" in signature.parameters:  # it takes out= itself (norm, tensordot)
        return fn
    functools.update_wrapper(with_out, fn)
    params = list(signature.parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    with_out.__signature__ = signature.replace(parameters=params)
    return with_out


def write_out(name, result, out):
    """Writes `result` (a tensor, or a tuple of them for `out=(values, indices)`) into `out`; returns `out`."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(result)} Tensors")
        written = [write_out(name, r, o) for r, o in zip(result, out)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if not isinstance(result, Tensor):
        result = Tensor._from_data(result)
    if result._requires_grad:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    check_writable(out, name)
    if not np.can_cast(result._data.dtype, out._data.dtype, "same_kind"):
        raise cast_error(name, result._data.dtype, out)
    if out.shape != result.shape:
        if out._data.size:
            warnings.warn(f"{name}(): an output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape {list(result.shape)}. "
                          "(As in PyTorch: resize it to zero elements first to silence this.)", UserWarning, stacklevel=3)
        out._data = np.empty(result.shape, out._data.dtype)  # new storage, no longer a view of anything
        out._view_of = out._version = None
    np.copyto(out._data, result._data, casting="unsafe")
    bump(out)
    return out
