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
    reverse_pass = None  # a replacement for compute_gradient's core, or None (student_pass.reverse_pass_replaced)


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
    For a tensor with hooks, `hooks` is a weak reference to them (engine/hooks.py); `node` is a weak
    reference to the entry that made the tensor, if any (engine/entry.py)."""

    __slots__ = ("tensor_id", "hooks", "node")


def track(tensor):
    """From now on, `tensor`'s death is reported to the tapes and accumulators (by id).

    Only for the few tensors whose death concerns them by id: watched leaves, tensors with hooks,
    tensors with a forward-mode tangent. The graph itself needs no such report: an entry is freed by
    reference counting when nothing can reach it any more (engine/entry.py). A weak reference with a
    callback, not a `__del__` method, which every tensor would pay for."""
    if tensor._tracker is None:
        tracker = tensor._tracker = _Tracker(tensor, _tensor_died)
        tracker.tensor_id = tensor._id
        tracker.hooks = None
        tracker.node = None if tensor._node is None else weakref.ref(tensor._node)
        # Held here too: a tensor that dies in a reference cycle takes the trackers
        # it alone holds with it, and the collector drops those without calling back.
        _trackers.add(tracker)


def untrack(tensor):
    """`tensor`'s death no longer concerns the tapes (another object took over its id)."""
    _trackers.discard(tensor._tracker)
    tensor._tracker = None


def _tensor_died(tracker):
    """A tracked Tensor died: the tapes forget it if they watched it and the accumulators drop its tangent."""
    _trackers.discard(tracker)
    if active_tapes or active_accumulators:
        lock_tapes()
        try:
            for tape in tuple(active_tapes):  # a tape may leave the set on the way
                tape.tensor_died(tracker.tensor_id)
            for accumulator in active_accumulators:
                accumulator.delete_trace(tracker)
        finally:
            unlock_tapes()
    if orphaned_hooks or tracker.hooks is not None:
        _keep_orphaned_hooks(tracker)


def still_needed(tracker):
    """Is the dead tensor of `tracker` still reachable by a backward pass (the entry that made it lives)?"""
    return tracker.node is not None and tracker.node() is not None


_trackers = set()
# tensor id -> (hooks, weak reference to the entry that made the tensor) for a tensor (engine/hooks.py) that
# died while the entry that made it lives: they run when its gradient comes, as PyTorch's hooks on a dropped
# tensor do, and go with that entry.
orphaned_hooks = {}


def _keep_orphaned_hooks(tracker):
    """At a tensor's death (the dying tensor's slots still hold its hooks, which the tracker sees weakly)."""
    with tape_lock:
        hooks = tracker.hooks() if tracker.hooks is not None else None
        if hooks is not None and still_needed(tracker):
            orphaned_hooks[tracker.tensor_id] = (hooks, tracker.node)
        for tensor_id in [tensor_id for tensor_id, (_, node) in orphaned_hooks.items() if node() is None]:
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
