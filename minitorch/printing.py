"""How a tensor prints: PyTorch's layout (`tensor([1., 2.], requires_grad=True)`) over numpy's array2string."""
import numpy as np

from . import dtypes

_DEFAULT_DTYPES = (dtypes.default_float.numpy, np.dtype(np.int64), np.dtype(np.bool_))


def format_tensor(t):
    """PyTorch-like repr: tensor([1., 2.], dtype=minitorch.float64, requires_grad=True)."""
    array = t._data
    formatter = {"float_kind": _float_formatter(array)} if array.dtype.kind == "f" else None
    body = np.array2string(array, separator=", ", prefix="tensor(", formatter=formatter, threshold=1000, edgeitems=3)
    extras = []
    if array.size == 0 and array.ndim != 1:
        extras.append(f"size={tuple(array.shape)}")
    if array.dtype not in _DEFAULT_DTYPES:
        extras.append(f"dtype={t.dtype!r}")
    if t._requires_grad:
        node = t.grad_fn
        extras.append(f"grad_fn=<{node.name()}>" if node is not None else "requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"


def _float_formatter(array):
    finite = array[np.isfinite(array)] if array.size else array
    integral = finite.size == 0 or np.all(finite == np.round(finite))
    nonzero = np.abs(finite[finite != 0]) if finite.size else finite
    big = finite.size and (np.max(np.abs(finite)) >= 1e8 or (nonzero.size and np.min(nonzero) < 1e-4))
    if big:
        return lambda x: f"{x:.4e}"
    if integral:
        return lambda x: f"{x:.0f}." if np.isfinite(x) else str(x)
    return lambda x: f"{x:.4f}" if np.isfinite(x) else str(x)
