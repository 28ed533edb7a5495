"""Anomaly detection: stop at the first NaN or Inf, naming the op and where it was created.

    with mt.autograd.detect_anomaly():
        loss = model(x)
        loss.backward()

In the forward pass every op's outputs are checked as execute returns them;
in the reverse pass every backward function's results are checked, and the
error shows the user's line that created the op (recorded with each op while
anomaly detection is on), as PyTorch's detect_anomaly does. A write through
`.data` (or `x.data = y`), which no version counter tracks, warns when an op of
a pending graph saved the values it changed (`untracked_write`).
"""
import functools
import os
import sys
import traceback
import warnings

import numpy as np

from ..errors import AnomalyError
from .state import active_tapes, switches


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on: the first NaN/Inf raises AnomalyError naming the op.

    >>> x = mt.tensor([0.0], requires_grad=True)
    >>> with mt.autograd.detect_anomaly():
    ...     y = mt.log(x)
    Traceback (most recent call last):
        ...
    minitorch.errors.AnomalyError: Function 'Log' returned inf values in its output 0.
    Created at:
    ...
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self._previous = []

    def __enter__(self):
        self._previous.append(switches.check_anomalies)
        switches.check_anomalies = self.check_nan
        return self

    def __exit__(self, *exc):
        switches.check_anomalies = self._previous.pop()
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


def set_detect_anomaly(mode):
    """Turns anomaly detection on or off globally (see `detect_anomaly`).

    >>> mt.autograd.set_detect_anomaly(True)
    >>> mt.autograd.is_anomaly_enabled()
    True
    >>> mt.autograd.set_detect_anomaly(False)
    """
    switches.check_anomalies = bool(mode)


def is_anomaly_enabled():
    """True while anomaly detection is on.

    >>> mt.autograd.is_anomaly_enabled()
    False
    >>> with mt.autograd.detect_anomaly():
    ...     mt.autograd.is_anomaly_enabled()
    True
    """
    return switches.check_anomalies


# The package's own folder, not any folder named "minitorch": a checkout made by `git clone .../minitorch`
# or a user's script under ~/minitorch/ has "/minitorch/" in its path too, and its frames are the user's.
PACKAGE_DIR = os.path.normcase(os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), ""))


@functools.lru_cache(maxsize=1024)  # every recorded op asks for every frame while anomaly detection is on
def _in_package(filename):
    return os.path.normcase(os.path.realpath(filename)).startswith(PACKAGE_DIR)


def user_stack():
    """The caller's frames, without minitorch's own."""
    frames = [f for f in traceback.extract_stack() if not _in_package(f.filename)]
    return "".join(traceback.format_list(frames[-6:]))


def _bad(array):
    return array.dtype.kind == "f" and not np.all(np.isfinite(array))


_running_backward = []  # the tape entries whose backward functions are running now


def _what(array):
    return "nan" if np.isnan(array).any() else "inf"


def check_forward(op_name, outputs):
    for i, out in enumerate(outputs):
        if _bad(out._data):
            if _running_backward:  # an op inside a gradient: blame the gradient of the forward op
                _raise_backward(_running_backward[-1], _what(out._data), f"(at its inner op {op_name})")
            raise AnomalyError(f"Function '{op_name}' returned {_what(out._data)} values in its output {i}.\nCreated at:\n{user_stack()}")


def run_backward(entry, needs, out_grads):
    """Calls entry's backward function, checking what it computes."""
    _running_backward.append(entry)
    try:
        in_grads = entry.backward_function(needs, out_grads)
    finally:
        _running_backward.pop()
    for i, grad in enumerate(in_grads):
        if grad is not None and _bad(grad._data):
            _raise_backward(entry, _what(grad._data), f"in its gradient {i}")
    return in_grads


def _raise_backward(entry, what, where):
    created = entry.backward_function.created_at or "(created before anomaly detection was on)\n"
    raise AnomalyError(
        f"Function '{entry.op_type}Backward' returned {what} values {where}.\n"
        f"The forward op {entry.op_type} was created at:\n{created}"
    )


def untracked_write(counter, how):
    """Under anomaly detection: `how` changed the values of the storage whose version counter is
    `counter` without moving it (`.data`, as in PyTorch). Warns, naming each op of a pending graph
    (on a recording tape) that saved those values: its gradient will read the new ones.
    """
    saving = sorted({entry.op_type for tape in tuple(active_tapes) for entry in tape.live_entries()
                     if _saves(entry, counter)})
    if saving:
        ops = ", ".join(f"{name}Backward0" for name in saving)
        warnings.warn(f"{how} changed a tensor that {ops} saved for a pending backward pass, without moving its "
                      f"version (.data is not tracked, as in PyTorch): that gradient will read the new values.",
                      stacklevel=_user_stacklevel())


def _user_stacklevel():
    """warnings.warn's stacklevel, called from the caller of this function, that points at the user's line."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and _in_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _saves(entry, counter):
    """Whether a tape entry keeps, for its gradient, a value whose version counter is `counter`."""
    if entry.freed:  # already run by a releasing pass
        return False
    inputs = entry._inputs or ()
    outputs = entry._saved_outputs or ()
    return any(t._version is counter for t in inputs) or any(saved[1] is counter for saved in outputs)
