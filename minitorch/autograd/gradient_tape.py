"""GradientTape: the TensorFlow-eager door onto the tape machinery.

    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)          # 2x

Entering the context pushes a Tape onto the global tape set (tape_set.py);
ops whose inputs it watches are recorded on it by record_gradient; gradient()
runs compute_gradient (backprop.py). Tapes nest: a gradient computed while an
outer tape records is recorded on that tape, which gives higher derivatives.
"""
import contextlib

from . import tape_set
from .backprop import compute_gradient
from .tape import Tape


class GradientTape:
    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._tape = None
        self._recording = False

    def __enter__(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active tape.")
        self._push_tape()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop_tape()
        return False

    def _push_tape(self):
        if self._tape is None:
            self._tape = Tape(self._persistent, self._watch_accessed_variables)
        tape_set.push_tape(self._tape)
        self._recording = True

    def _pop_tape(self):
        tape_set.pop_tape(self._tape)
        self._recording = False

    def watch(self, tensor):
        """Ensures `tensor` (or each tensor in a list/tuple/dict) is traced by this tape."""
        if self._tape is None:
            self._tape = Tape(self._persistent, self._watch_accessed_variables)
        for t in _flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(f"GradientTape.watch expects Tensors, got {type(t).__name__}")
            if t._data.dtype.kind == "f":
                self._tape.watch(t)

    def watched_variables(self):
        return tuple(t for t in (ref() for ref in self._tape.watched.values()) if t is not None) if self._tape else ()

    @contextlib.contextmanager
    def stop_recording(self):
        """Pauses recording on this thread for the block (seed 004: stopping is per thread)."""
        if not self._recording:
            raise RuntimeError("Tape must be recording to stop recording.")
        with tape_set.stop_recording():
            yield

    def reset(self):
        """Clears everything recorded so far; the tape keeps recording if it was."""
        recording = self._recording
        if recording:
            self._pop_tape()
        self._tape = None
        if recording:
            self._push_tape()

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """d(sum of target)/d(sources); `sources` may be a Tensor, a list/tuple or a dict."""
        if self._tape is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)")
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
        if self._recording and not self._persistent:
            self._pop_tape()  # a non-persistent tape must not record its own gradient
        targets = _flatten(target)
        flat_sources = _flatten(sources)
        for s in flat_sources:
            if not isinstance(s, Tensor):
                raise ValueError(f"GradientTape.gradient: sources must be Tensors, got {type(s).__name__}")
        if output_gradients is not None:
            output_gradients = [None if g is None else as_tensor(g, like=t) for g, t in zip(_flatten(output_gradients), targets)]
        state = tape_set.thread_state
        paused, state.autograd_tape_paused = state.autograd_tape_paused, True
        try:
            grads = compute_gradient(self._tape, targets, flat_sources, output_gradients, release=not self._persistent)
        finally:
            state.autograd_tape_paused = paused
        if not self._persistent:
            self._tape.clear()
            self._tape = None
        if unconnected_gradients == "zero":
            grads = [zeros_like(s) if g is None else g for g, s in zip(grads, flat_sources)]
        return _pack_like(sources, iter(grads))


def _flatten(structure):
    if isinstance(structure, dict):
        return [t for key in structure for t in _flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [t for item in structure for t in _flatten(item)]
    return [structure]


def _pack_like(structure, flat):
    if isinstance(structure, dict):
        return {key: _pack_like(value, flat) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_pack_like(item, flat) for item in structure)
    return next(flat)


from ..creation import zeros_like  # noqa: E402
from ..tensor import Tensor, as_tensor  # noqa: E402
