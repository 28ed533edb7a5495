"""The engine's state: the set of active tapes (global), the per-thread
recording switch, and every other engine-wide switch. Nothing else in the
engine keeps a mutable global; whoever flips a switch flips it here.

TensorFlow's commit "Fix the threading model of gradient tapes" made the set
of tapes global, because tensors cross threads, while each thread can still
pause recording on its own (tensorflow/python/eager/tape.py,
`stop_recording`). `no_grad`, `enable_grad` and `stop_recording` are that
per-thread switch.

Threads (see docs/ARCHITECTURE.md, "Threads"): every change to the tape set
and to what a tape holds happens under `tape_lock`, one re-entrant lock for
the whole engine. Per-thread things (the recording flag, a ForwardAccumulator's
call state) live in `threading.local` objects.
"""
import functools
import os
import threading
import weakref

active_tapes = []  # every tape that is recording, in the order they were entered
active_accumulators = []  # forward-mode accumulators, on the same recording path

# One lock, not one per tape: a dying Tensor reaches every tape, from whichever
# thread drops it (or runs the garbage collector) at whatever point that thread
# is, so per-tape locks could be taken in any order and deadlock. Re-entrant,
# because that point may be inside a locked section of the same thread.
tape_lock = threading.RLock()
# The hot paths (record_gradient, _tensor_died, Tape.release) call these in a
# try/finally: half the cost of `with tape_lock:` (CPython 3.11).
lock_tapes, unlock_tapes = tape_lock.acquire, tape_lock.release
if hasattr(os, "register_at_fork"):
    # A child forked while another thread held the lock would inherit it held, and a
    # tape half-changed: fork only between two changes.
    os.register_at_fork(before=lock_tapes, after_in_parent=unlock_tapes, after_in_child=unlock_tapes)


class _ThreadState(threading.local):
    recording = True  # False inside no_grad()/stop_recording() on this thread
    autograd_tape_paused = False  # True while a GradientTape runs its reverse pass on this thread


thread_state = _ThreadState()


class Switches:
    """The engine-wide switches read on the hot path (one attribute read each)."""

    check_anomalies = False  # detect_anomaly(): check every op's outputs for NaN/Inf
    tracing = False  # autograd.tracing() or a graph capture is listening
    reverse_pass = None  # a replacement for compute_gradient's core, or None (backprop.reverse_pass_replaced)


switches = Switches()


def push_tape(tape):
    with tape_lock:
        active_tapes.append(tape)


def pop_tape(tape):
    with tape_lock:
        if tape in active_tapes:
            active_tapes.remove(tape)


def is_recording():
    """True when an op run now on this thread could be recorded."""
    return bool(active_tapes or active_accumulators) and thread_state.recording


class _Tracker(weakref.ref):
    """The weak reference a tracked tensor holds to itself: its callback reports the tensor's death, by id.
    For a tensor with hooks, `hooks` is a weak reference to them (engine/hooks.py)."""

    __slots__ = ("tensor_id", "hooks")


def track(tensor):
    """From now on, `tensor`'s death frees what the tapes keep only for it (tape.h: DeleteTrace).

    A weak reference to itself, with a callback, made only for tensors a tape
    knows: the many tensors no tape ever sees (constants, gradients, anything
    under no_grad) die without any Python code running, which a `__del__`
    method would cost every one of them."""
    if tensor._tracker is None:
        tracker = tensor._tracker = _Tracker(tensor, _tensor_died)
        tracker.tensor_id = tensor._id
        tracker.hooks = None
        # Held here too: a tensor that dies in a reference cycle takes the trackers
        # it alone holds with it, and the collector drops those without calling back.
        _trackers.add(tracker)


def untrack(tensor):
    """`tensor`'s death no longer concerns the tapes (another object took over its id)."""
    _trackers.discard(tensor._tracker)
    tensor._tracker = None


def _tensor_died(tracker):
    """A tracked Tensor died: the tapes free what only it needed and the
    accumulators drop its tangent (tape.h: DeleteTrace). This runs once per
    recorded op, so it does its work itself instead of calling a helper."""
    _trackers.discard(tracker)
    if not (active_tapes or active_accumulators):
        return
    tensor_id = tracker.tensor_id
    lock_tapes()
    try:
        if len(active_tapes) == 1:  # the common case, and the lock's cost paid back
            active_tapes[0].tensor_died(tensor_id)
        else:
            for tape in tuple(active_tapes):  # a tape may leave the set on the way
                tape.tensor_died(tensor_id)
        if active_accumulators:
            for accumulator in active_accumulators:
                accumulator.delete_trace(tensor_id)
    finally:
        unlock_tapes()
    if orphaned_hooks or tracker.hooks is not None:
        _keep_orphaned_hooks(tracker)


_trackers = set()
# tensor id -> the hooks (engine/hooks.py) of a tensor that died while a tape still holds the op that made it:
# they run when its gradient comes, as PyTorch's hooks on a dropped tensor do, and go when no active tape
# knows the id any more.
orphaned_hooks = {}


def _keep_orphaned_hooks(tracker):
    """At a tensor's death (the dying tensor's slots still hold its hooks, which the tracker sees weakly)."""
    def known(tensor_id):
        return any(tensor_id in tape.tensor_tape for tape in active_tapes)

    with tape_lock:
        hooks = tracker.hooks() if tracker.hooks is not None else None
        if hooks is not None and known(tracker.tensor_id):
            orphaned_hooks[tracker.tensor_id] = hooks
        for tensor_id in [tensor_id for tensor_id in orphaned_hooks if not known(tensor_id)]:
            del orphaned_hooks[tensor_id]


class _RecordingSwitch:
    """Sets this thread's recording flag for a `with` block or a decorated call."""

    enabled = True

    def __init__(self):
        self._saved = []

    def __enter__(self):
        self._saved.append(thread_state.recording)
        thread_state.recording = self.enabled
        return self

    def __exit__(self, *exc):
        thread_state.recording = self._saved.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_RecordingSwitch):
    """Pauses recording on this thread (PyTorch's name).

    >>> x = mt.ones(2, requires_grad=True)
    >>> with mt.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    enabled = False


class stop_recording(_RecordingSwitch):
    """Pauses recording on this thread (TensorFlow's name); the same switch as `no_grad`.

    >>> x = mt.ones(2)
    >>> with mt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     with mt.stop_recording():
    ...         y = x * 2
    >>> print(tape.gradient(y, x))
    None
    """

    enabled = False


class enable_grad(_RecordingSwitch):
    """Turns recording back on for this thread inside a `no_grad` block (context manager or decorator).

    >>> x = mt.ones(2, requires_grad=True)
    >>> with mt.no_grad():
    ...     with mt.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """

    enabled = True


def set_grad_enabled(mode):
    """Sets this thread's recording flag; usable as a context manager too (restoring the old flag on exit).

    >>> x = mt.ones(2, requires_grad=True)
    >>> with mt.set_grad_enabled(False):
    ...     y = x * 2
    >>> y.requires_grad, mt.is_grad_enabled()
    (False, True)
    """
    previous = thread_state.recording
    thread_state.recording = bool(mode)
    return _RestoreOnExit(previous)


class _RestoreOnExit:
    def __init__(self, previous):
        self._previous = previous

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        thread_state.recording = self._previous
        return False


def is_grad_enabled():
    """True when ops on this thread are recorded (outside `no_grad`).

    >>> mt.is_grad_enabled()
    True
    >>> with mt.no_grad():
    ...     mt.is_grad_enabled()
    False
    """
    return thread_state.recording
