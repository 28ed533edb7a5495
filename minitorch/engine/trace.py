"""Tracing: watch the engine work, one line per recorded op and per backward call.

TensorFlow's `_tracing` flag (tensorflow/python/eager/backprop.py) printed raw tensors; this prints what a student
needs: op names, shapes, which tape recorded what, what the op tables let the
backward function keep, and during the reverse pass the order in which the
ready-op stack runs the backward functions, with gradient norms.

    with mt.autograd.tracing():
        y = (x * w).sum()
        y.backward()

Off by default; record_gradient and compute_gradient test one flag, after
their own early exits. Besides printing, listeners (objects with `recorded`,
`backward_call` and `aggregated` methods, see minitorch.viz.capture) can be
told the same events; `switches.tracing` (engine/state.py) is on while
printing or while any listener is.
"""
import contextlib
import sys

import numpy as np

from .state import switches

_printing = False
_listeners = []
_names = {}  # tensor id -> short name, stable within one tracing session
_stream = None


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
    _printing = bool(flag)
    switches.tracing = _printing or bool(_listeners)
    _stream = stream
    _names.clear()


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
    backward Sum          grad of t3 |1| -> t2(2,) |1.414|
    backward Mul          grad of t2 |1.414| -> t0(2,) |4.243|
    """
    previous = _printing, _stream
    set_tracing(True, stream)
    try:
        yield
    finally:
        set_tracing(*previous)


def name(tensor_id):
    if tensor_id not in _names:
        _names[tensor_id] = f"t{len(_names)}"
    return _names[tensor_id]


def _emit(line):
    print(line, file=_stream or sys.stdout)


def _shape(shape):
    return str(tuple(shape))


def _describe(tensors):
    return " ".join(f"{name(t._id)}{_shape(t._data.shape)}" for t in tensors)


def _norm(grad):
    return float(np.sqrt(np.sum(np.square(grad._data, dtype=np.float64))))


def recorded(op_name, inputs, results, tapes, keeps):
    for listener in _listeners:
        listener.recorded(op_name, inputs, results, tapes, keeps)
    if not _printing:
        return
    tape_names = ",".join(str(tape.serial) for tape in tapes)
    _emit(f"record   {op_name:<12} {_describe(inputs)} -> {_describe(results)}  tape {tape_names}  keeps {keeps}")


def backward_call(entry, out_grads, in_grads, needs):
    for listener in _listeners:
        listener.backward_call(entry, out_grads, in_grads, needs)
    if not _printing:
        return
    incoming = ", ".join(
        f"{name(tid)} |{_norm(g):.4g}|" if g is not None else f"{name(tid)} None" for tid, g in zip(entry.output_ids, out_grads)
    )
    outgoing = ", ".join(
        f"{name(tid)}{_shape(g._data.shape)} |{_norm(g):.4g}|"
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
