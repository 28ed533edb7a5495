"""Tracing: watch the engine work, one line per recorded op and per backward call.

TensorFlow's `_tracing` flag (tensorflow/python/eager/backprop.py) printed raw tensors; this prints what a student
needs: op names, shapes, which tape recorded what, what the op tables let the
backward function keep, and during the reverse pass the order in which the
ready-op stack runs the backward functions, with the gradients (their values,
signed, when a gradient has at most 6 elements; else their norm |g|).

    with mt.autograd.tracing():
        y = (x * w).sum()
        y.backward()

Off by default; record_gradient and compute_gradient test one flag, after
their own early exits. Besides printing, listeners (objects with `recorded`,
`backward_call` and `aggregated` methods, see minitorch.viz.capture) can be
told the same events; `switches.tracing` (engine/state.py) is on while
printing or while any listener is.

Names: one naming of tensors for the trace, the listings and the pictures
(minitorch.viz). A naming session starts when tracing or a capture starts and
none is open; every tensor the session sees is called t0, t1, ... in the order
it is first seen, and keeps that name until the next session starts, so a
listing drawn after a traced pass calls each tensor what the trace called it.
"""
import contextlib
import sys

import numpy as np

from .state import switches

SMALL = 6  # tensors with at most this many elements are shown by value, larger ones by a summary

_printing = False
_listeners = []
_stream = None


class _Naming:
    """Tensor id -> "tN" for the current (or last) naming session."""

    table = {}
    sessions = 0  # open tracing sessions and captures


def begin_naming():
    """Opens a naming session; the first one open starts the names again from t0."""
    if _Naming.sessions == 0:
        _Naming.table = {}
    _Naming.sessions += 1


def end_naming():
    """Closes a naming session; the names stay until the next session begins."""
    _Naming.sessions = max(0, _Naming.sessions - 1)


def set_tracing(flag, stream=None):
    """Turns tracing on or off: one printed line per recorded op and per backward call (to `stream`, default sys.stdout).

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> mt.autograd.set_tracing(True)
    >>> y = (x * 3).sum()
    record   Mul          t0(2,) t1() -> t2(2,)  tape 1  keeps inputs
    record   Sum          t2(2,) -> t3()  tape 1  keeps nothing
    >>> mt.autograd.set_tracing(False)
    """
    global _printing, _stream
    flag = bool(flag)
    if flag and not _printing:
        begin_naming()
    elif _printing and not flag:
        end_naming()
    _printing = flag
    switches.tracing = _printing or bool(_listeners)
    _stream = stream


def add_listener(listener):
    """Tells `listener` every event from now on: listener.recorded(op_name, inputs,
    results, tapes, keeps), .backward_call(entry, out_grads, in_grads, needs),
    .aggregated(tensor_id, count)."""
    _listeners.append(listener)
    switches.tracing = True


def remove_listener(listener):
    if listener in _listeners:
        _listeners.remove(listener)
    switches.tracing = _printing or bool(_listeners)


@contextlib.contextmanager
def tracing(stream=None):
    """Traces the ops and backward calls in the block (see `set_tracing`).

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> with mt.autograd.tracing():
    ...     (x * 3).sum().backward()
    record   Mul          t0(2,) t1() -> t2(2,)  tape 1  keeps inputs
    record   Sum          t2(2,) -> t3()  tape 1  keeps nothing
    backward Sum          grad of t3 = 1 -> t2(2,) = [1, 1]
    backward Mul          grad of t2 = [1, 1] -> t0(2,) = [3, 3]
    """
    previous = _printing, _stream
    set_tracing(True, stream)
    try:
        yield
    finally:
        set_tracing(*previous)


def name(tensor_id):
    """The tensor's name in the current naming session (given on first sight)."""
    table = _Naming.table
    found = table.get(tensor_id)
    if found is None:
        found = table[tensor_id] = f"t{len(table)}"
    return found


def names_for(tensor_ids):
    """Names for `tensor_ids` (in order of first appearance), agreeing with the trace.

    In an open session every tensor is named in it. Otherwise tensors the last
    session named keep their names and the others are numbered after them; when
    the last session saw none of them, they are numbered from t0.
    """
    if _Naming.sessions:
        return {tid: name(tid) for tid in tensor_ids}
    table = _Naming.table
    known = {tid: table[tid] for tid in tensor_ids if tid in table}
    counter = len(table) if known else 0
    result = {}
    for tid in tensor_ids:
        if tid in known:
            result[tid] = known[tid]
        elif tid not in result:
            result[tid] = f"t{counter}"
            counter += 1
    return result


def format_values(array, digits=4):
    """A small array's values, signed, as nested lists ("[1, -0.5]"); a scalar as a number.

    >>> from minitorch.engine.trace import format_values
    >>> format_values(np.array([[1.0, -0.41614684], [2.5, 0.0]]))
    '[[1, -0.4161], [2.5, 0]]'
    """
    array = np.asarray(array)
    if array.dtype == bool:
        array = array.astype(np.int64)
    if array.ndim == 0:
        value = array.item()
        return f"{value:.{digits}g}" if isinstance(value, float) else str(value)
    return "[" + ", ".join(format_values(item, digits) for item in array) + "]"


def _emit(line):
    print(line, file=_stream or sys.stdout)


def shape_text(shape):
    """A shape as listings print it: (2, 3)."""
    return str(tuple(shape))


def l2_norm(array):
    """The 2-norm of all of an array, in float64 (what a listing shows of a gradient too big to print)."""
    return float(np.sqrt(np.sum(np.square(array, dtype=np.float64))))


def _tensors_text(tensors):
    return " ".join(f"{name(t._id)}{shape_text(t._data.shape)}" for t in tensors)


def _gradient_text(grad):
    """'= values' for a small gradient, '|norm|' for a larger one."""
    data = grad._data
    if data.size <= SMALL:
        return f"= {format_values(data)}"
    return f"|{l2_norm(data):.4g}|"


def recorded(op_name, inputs, results, tapes, keeps):
    for listener in _listeners:
        listener.recorded(op_name, inputs, results, tapes, keeps)
    if not _printing:
        return
    tape_names = ",".join(str(tape.serial) for tape in tapes)
    _emit(f"record   {op_name:<12} {_tensors_text(inputs)} -> {_tensors_text(results)}  tape {tape_names}  keeps {keeps}")


def backward_call(entry, out_grads, in_grads, needs):
    for listener in _listeners:
        listener.backward_call(entry, out_grads, in_grads, needs)
    if not _printing:
        return
    incoming = ", ".join(
        f"{name(tid)} {_gradient_text(g)}" if g is not None else f"{name(tid)} None" for tid, g in zip(entry.output_ids, out_grads)
    )
    outgoing = ", ".join(
        f"{name(tid)}{shape_text(g._data.shape)} {_gradient_text(g)}"
        for tid, g, needed in zip(entry.input_ids, in_grads, needs)
        if g is not None and needed
    )
    _emit(f"backward {entry.op_type:<12} grad of {incoming} -> {outgoing or 'nothing needed'}")


def aggregated(tensor_id, count):
    for listener in _listeners:
        listener.aggregated(tensor_id, count)
    if not _printing:
        return
    _emit(f"sum      {count} gradients of {name(tensor_id)}")
