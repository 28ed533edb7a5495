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

import numpy as np

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

    def __repr__(self):
        ops = len(self._tape) if self._tape is not None else 0
        return f"<GradientTape persistent={self._persistent} recording={self._recording} ops={ops}>"

    def __str__(self):
        """`print(tape)`: the recorded ops, one line each (minitorch.viz.listing)."""
        from ..viz import listing

        return listing(self)

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

    def jacobian(self, target, sources, unconnected_gradients="none", parallel_iterations=None, experimental_use_pfor=True,
                 _pause_autograd_tape=True):
        """d target / d sources: per source a Tensor of shape target.shape + source.shape.

        One reverse pass per element of `target`, each seeded with a one-hot
        output gradient, all over the same recording (so a non-persistent tape
        can give a whole Jacobian, once). `parallel_iterations` and
        `experimental_use_pfor` are TensorFlow's knobs; there is no pfor here.
        """
        if self._tape is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)")
        if not experimental_use_pfor and not self._persistent:
            raise ValueError("GradientTape must be created with persistent=True to compute the jacobian with while_loop")
        flat_sources = self._check_jacobian_args(target, sources, unconnected_gradients)
        rows = self._gradient_rows(target, flat_sources, _one_hot_rows(target._data.shape, target._data.dtype),
                                   pause_autograd_tape=_pause_autograd_tape)
        jacobians = []
        for s, row in zip(flat_sources, rows):
            jacobians.append(_assemble(row, tuple(target.shape) + tuple(s.shape), s, unconnected_gradients, leading_axis=0))
        return _pack_like(sources, iter(jacobians))

    def batch_jacobian(self, target, source, unconnected_gradients="none", parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: result[i] = d target[i] / d source[i], shape
        target.shape + source.shape[1:]. Assumes example i of the target depends
        only on example i of the source, as TensorFlow's does: one reverse pass
        per element of target[0] instead of per element of target."""
        if self._tape is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)")
        if not experimental_use_pfor and not self._persistent:
            raise ValueError("GradientTape must be created with persistent=True to compute the batch_jacobian with while_loop")
        target_shape, source_shape = tuple(target.shape), tuple(source.shape)
        for shape in (target_shape, source_shape):
            if len(shape) < 2:
                raise ValueError(f"Shape {shape} must have rank at least 2")
        if target_shape[0] != source_shape[0]:
            raise ValueError(f"Need first dimension of target shape ({target_shape}) and source shape ({source_shape}) to match.")
        (flat_source,) = self._check_jacobian_args(target, source, unconnected_gradients)
        batch, per_example = target_shape[0], target_shape[1:]
        seeds = (np.broadcast_to(row, (batch,) + per_example) for row in _one_hot_rows(per_example, target._data.dtype))
        (row,) = self._gradient_rows(target, [flat_source], seeds)
        return _assemble(row, (batch,) + per_example + source_shape[1:], source, unconnected_gradients, leading_axis=1)

    def _check_jacobian_args(self, target, sources, unconnected_gradients):
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
        if not isinstance(target, Tensor):
            raise ValueError(f"GradientTape.jacobian: target must be a Tensor, got {type(target).__name__}")
        flat_sources = _flatten(sources)
        for s in flat_sources:
            if not isinstance(s, Tensor):
                raise ValueError(f"GradientTape.jacobian: sources must be Tensors, got {type(s).__name__}")
        if self._recording and not self._persistent:
            self._pop_tape()  # a non-persistent tape must not record its own Jacobian
        return flat_sources

    def _gradient_rows(self, target, flat_sources, seeds, pause_autograd_tape=True):
        """One reverse pass per seed array; returns per source the list of gradients (None: unconnected).

        Like `gradient`, the passes are hidden from the autograd tape unless
        the caller (autograd.functional with create_graph) asks otherwise."""
        rows = [[] for _ in flat_sources]
        state = tape_set.thread_state
        paused = state.autograd_tape_paused
        state.autograd_tape_paused = paused or pause_autograd_tape
        try:
            for seed in seeds:
                grads = compute_gradient(self._tape, [target], flat_sources, [Tensor._from_array(seed)], release=False)
                for row, g in zip(rows, grads):
                    row.append(g)
        finally:
            state.autograd_tape_paused = paused
        if not self._persistent:
            self._tape.clear()
            self._tape = None
        return rows


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


def _one_hot_rows(shape, dtype):
    """The one-hot arrays e_0, e_1, ... of `shape`, one per element."""
    size = int(np.prod(shape))
    for k in range(size):
        seed = np.zeros(size, dtype)
        seed[k] = 1
        yield seed.reshape(shape)


def _assemble(row, shape, source, unconnected_gradients, leading_axis):
    """Stacks per-row gradients into a Jacobian of `shape` (zeros for rows that were unconnected)."""
    if all(g is None for g in row):
        return zeros(shape, dtype=source.dtype) if unconnected_gradients == "zero" else None
    row = [zeros_like(source) if g is None else g for g in row]
    if not row:
        return zeros(shape, dtype=source.dtype)
    return stack(row, dim=leading_axis).reshape(shape)


from ..creation import zeros, zeros_like  # noqa: E402
from ..ops.array_ops import stack  # noqa: E402
from ..tensor import Tensor, as_tensor  # noqa: E402
