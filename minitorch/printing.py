"""How a tensor prints: PyTorch's layout, number for number.

This follows PyTorch's torch/_tensor_str.py on numpy arrays: one width for
every element (`tensor([ 2.5000, 10.5000])`), integers-valued floats as `1.`,
scientific notation when the magnitudes span more than 1000x (or go past
1e8 or below 1e-4), summaries with `...` past `threshold` elements, lines
wrapped at `linewidth`, and the dtype shown when it is not a default one.
`set_printoptions` takes PyTorch's arguments.
"""
import contextlib
import math

import numpy as np

from . import dtypes

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {"default": _DEFAULTS, "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
             "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80}}
PRINT_OPTS = dict(_DEFAULTS, sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Sets how tensors print, as torch.set_printoptions (profile "default", "short" or "full").

    >>> mt.set_printoptions(precision=2)
    >>> mt.tensor([1.12345])
    tensor([1.12])
    >>> mt.set_printoptions(threshold=5)
    >>> mt.arange(10)
    tensor([0, 1, 2,  ..., 7, 8, 9])
    >>> mt.set_printoptions(profile="default")
    >>> mt.tensor([1.12345])
    tensor([1.1235])
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, got {profile!r}")
        PRINT_OPTS.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            PRINT_OPTS[name] = value
    PRINT_OPTS["sci_mode"] = sci_mode


def get_printoptions():
    """The current print options, as a dict `set_printoptions(**options)` accepts.

    >>> mt.printing.get_printoptions()["precision"]
    4
    """
    return dict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**options):
    """Print options changed for the duration of a `with` block.

    >>> with mt.printing.printoptions(precision=1):
    ...     mt.tensor([1.25])
    tensor([1.2])
    """
    saved = get_printoptions()
    set_printoptions(**options)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Formatter:
    """One width and notation for every element of a tensor (torch/_tensor_str.py: _Formatter)."""

    def __init__(self, array):
        self.floating = array.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        precision = PRINT_OPTS["precision"]
        if not self.floating:
            self.max_width = max((len(str(v)) for v in array.ravel().tolist()), default=1)
            return
        values = array.ravel()
        finite = values[np.isfinite(values) & (values != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite).astype(np.float64)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        sci_mode = PRINT_OPTS["sci_mode"]
        self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4 \
            if sci_mode is None else sci_mode
        numbers = finite.tolist()
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{precision}e}") for v in numbers)
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in numbers)
        else:
            self.max_width = max(len(f"{v:.{precision}f}") for v in numbers)

    def format(self, value):
        precision = PRINT_OPTS["precision"]
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{precision}f}"
        return (self.max_width - len(text)) * " " + text


def _summarized(array):
    """The elements a summary shows: the first and last `edgeitems` along every dimension."""
    edge = PRINT_OPTS["edgeitems"]
    for axis, size in enumerate(array.shape):
        if size > 2 * edge:
            array = np.concatenate([array.take(range(edge), axis), array.take(range(size - edge, size), axis)], axis)
    return array


def _vector(array, indent, summarize, formatter):
    edge = PRINT_OPTS["edgeitems"]
    per_line = max(1, math.floor((PRINT_OPTS["linewidth"] - indent) / (formatter.max_width + 2)))
    if summarize and not edge:
        items = ["..."]
    elif summarize and len(array) > 2 * edge:
        items = ([formatter.format(v) for v in array[:edge].tolist()] + [" ..."]
                 + [formatter.format(v) for v in array[-edge:].tolist()])
    else:
        items = [formatter.format(v) for v in array.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(array, indent, summarize, formatter):
    if array.ndim == 0:
        return formatter.format(array.item())
    if array.ndim == 1:
        return _vector(array, indent, summarize, formatter)
    edge = PRINT_OPTS["edgeitems"]
    if summarize and len(array) > 2 * edge:
        rows = ([_body(array[i], indent + 1, summarize, formatter) for i in range(edge)] + ["..."]
                + [_body(array[i], indent + 1, summarize, formatter) for i in range(len(array) - edge, len(array))])
    else:
        rows = [_body(row, indent + 1, summarize, formatter) for row in array]
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _with_suffixes(text, suffixes, indent):
    last_line = len(text) - text.rfind("\n") + 1
    parts = [text]
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > PRINT_OPTS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"


def format_tensor(t):
    """PyTorch's repr: tensor([1., 2.], dtype=minitorch.float64, requires_grad=True).

    >>> mt.tensor([2.5, 10.5]), mt.tensor([1e-5, 1.0]), mt.tensor([True, False])
    (tensor([ 2.5000, 10.5000]), tensor([1.0000e-05, 1.0000e+00]), tensor([ True, False]))
    """
    array = t._data
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    default_float = dtypes.default_float.numpy
    if array.size == 0:
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        if array.dtype != default_float:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "[]"
    else:
        if not PRINT_OPTS["edgeitems"]:
            suffixes.append(f"size={tuple(array.shape)}")
        if array.dtype not in (default_float, np.dtype(np.int64), np.dtype(np.bool_)):
            suffixes.append(f"dtype={t.dtype!r}")
        summarize = array.size > PRINT_OPTS["threshold"]
        formatter = _Formatter(_summarized(array) if summarize else array)
        body = _body(array, indent, summarize, formatter)
    if t._requires_grad:
        node = t.grad_fn
        suffixes.append(f"grad_fn=<{node.name()}>" if node is not None else "requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)
