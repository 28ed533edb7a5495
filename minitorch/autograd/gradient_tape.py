"""GradientTape: the TensorFlow-eager door onto the tape machinery.

    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)          # 2x

Entering the context pushes a Tape onto the global tape set
(engine/state.py); ops whose inputs it watches are recorded on it by
record_gradient; gradient() runs compute_gradient (engine/backprop.py). Tapes nest: a gradient computed while an
outer tape records is recorded on that tape, which gives higher derivatives.
"""
import contextlib
import math

import numpy as np

from ..creation import zeros, zeros_like
from ..engine import state
from ..engine.backprop import compute_gradient
from ..engine.tape import Tape
from ..nest import flatten, pack_like
from ..ops.array_ops import stack
from ..ops.coercion import as_operand
from ..tensor import Tensor
from .graph import from_tape, listing


class GradientTape:
    """Records the ops run on watched tensors inside its `with` block, for `tape.gradient` (TensorFlow's tf.GradientTape).

    Floating tensors that require grad are watched automatically; `tape.watch(x)`
    adds others. Nested tapes give higher derivatives; `persistent=True` allows
    several gradient calls.

    >>> x = mt.tensor(3.0)
    >>> with mt.GradientTape() as outer:
    ...     outer.watch(x)
    ...     with mt.GradientTape() as inner:
    ...         inner.watch(x)
    ...         y = x * x * x
    ...     dy = inner.gradient(y, x)
    >>> dy, outer.gradient(dy, x)
    (tensor(27.), tensor(18.))
    """
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
        state.push_tape(self._tape)
        self._recording = True

    def _pop_tape(self):
        state.pop_tape(self._tape)
        self._recording = False

    def __repr__(self):
        ops = len(self._tape) if self._tape is not None else 0
        return f"<GradientTape persistent={self._persistent} recording={self._recording} ops={ops}>"

    def __str__(self):
        """`print(tape)`: the recorded ops, one line each (minitorch.viz.listing)."""
        if self._tape is None:
            return "GradientTape: nothing recorded (a non-persistent tape is cleared by gradient())"
        return listing(from_tape(self._tape, f"GradientTape (tape {self._tape.serial})"))

    def watch(self, tensor):
        """Ensures `tensor` (or each tensor in a list/tuple/dict) is traced by this tape.

        >>> x = mt.tensor([1.0, 2.0])
        >>> with mt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = (x * x).sum()
        >>> tape.gradient(y, x)
        tensor([2., 4.])
        """
        if self._tape is None:
            self._tape = Tape(self._persistent, self._watch_accessed_variables)
        for t in flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(f"GradientTape.watch expects Tensors, got {type(t).__name__}")
            if t._data.dtype.kind == "f":
                self._tape.watch(t)

    def watched_variables(self):
        """The tensors this tape watches, as a tuple.

        >>> x = mt.tensor([1.0])
        >>> with mt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * 2
        >>> tape.watched_variables()[0] is x
        True
        """
        return tuple(t for t in (ref() for ref in self._tape.watched.values()) if t is not None) if self._tape is not None else ()

    @contextlib.contextmanager
    def stop_recording(self):
        """Pauses recording on this thread for the block (stopping is per thread, as in TensorFlow).

        >>> x = mt.tensor(2.0)
        >>> with mt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     with tape.stop_recording():
        ...         c = x * 10
        ...     y = x * x + c
        >>> tape.gradient(y, x)
        tensor(4.)
        """
        if not self._recording:
            raise RuntimeError("Tape must be recording to stop recording.")
        with state.stop_recording():
            yield

    def reset(self):
        """Clears everything recorded so far; the tape keeps recording if it was.

        >>> x = mt.tensor(2.0)
        >>> with mt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        ...     tape.reset()
        ...     tape.watch(x)
        ...     y = x * 3
        >>> tape.gradient(y, x)
        tensor(3.)
        """
        recording = self._recording
        if recording:
            self._pop_tape()
        self._tape = None
        if recording:
            self._push_tape()

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """d(sum of target)/d(sources); `sources` may be a Tensor, a list/tuple or a dict.

        >>> x, w = mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0])
        >>> with mt.GradientTape(persistent=True) as tape:
        ...     tape.watch([x, w])
        ...     y = (x * w).sum()
        >>> tape.gradient(y, [x, w])
        [tensor([3., 4.]), tensor([1., 2.])]
        >>> tape.gradient(y, {"w": w})
        {'w': tensor([1., 2.])}
        """
        if self._tape is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)")
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
        if self._recording and not self._persistent:
            self._pop_tape()  # a non-persistent tape must not record its own gradient
        targets = flatten(target)
        flat_sources = flatten(sources)
        for s in flat_sources:
            if not isinstance(s, Tensor):
                raise ValueError(f"GradientTape.gradient: sources must be Tensors, got {type(s).__name__}")
        if output_gradients is not None:
            output_gradients = [None if g is None else as_operand(g, like=t) for g, t in zip(flatten(output_gradients), targets)]
        thread = state.thread_state
        paused, thread.autograd_tape_paused = thread.autograd_tape_paused, True
        try:
            grads = compute_gradient(self._tape, targets, flat_sources, output_gradients, release=not self._persistent)
        finally:
            thread.autograd_tape_paused = paused
        if not self._persistent:
            self._tape.clear()
            self._tape = None
        if unconnected_gradients == "zero":
            grads = [zeros_like(s) if g is None else g for g, s in zip(grads, flat_sources)]
        return pack_like(sources, iter(grads))

    def jacobian(self, target, sources, unconnected_gradients="none", parallel_iterations=None, experimental_use_pfor=True):
        """d target / d sources: per source a Tensor of shape target.shape + source.shape.

        One reverse pass per element of `target`, each seeded with a one-hot
        output gradient, all over the same recording (so a non-persistent tape
        can give a whole Jacobian, once). `parallel_iterations` and
        `experimental_use_pfor` are TensorFlow's knobs; there is no pfor here.

        >>> x = mt.tensor([1.0, 2.0])
        >>> with mt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.jacobian(y, x)
        tensor([[2., 0.],
                [0., 4.]])
        """
        if not experimental_use_pfor and not self._persistent:
            raise ValueError("GradientTape must be created with persistent=True to compute the jacobian with while_loop")
        return self.jacobian_seen_by_autograd(target, sources, unconnected_gradients, seen=False)

    def jacobian_seen_by_autograd(self, target, sources, unconnected_gradients="none", seen=True):
        """`jacobian`, with its reverse passes recorded by the autograd tape when `seen`
        (autograd.functional's create_graph); `jacobian` hides them, as `gradient` does."""
        if self._tape is None:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)")
        flat_sources = self._check_jacobian_args(target, sources, unconnected_gradients)
        rows = self._gradient_rows(target, flat_sources, _one_hot_rows(target._data.shape, target._data.dtype),
                                   pause_autograd_tape=not seen)
        jacobians = []
        for s, row in zip(flat_sources, rows):
            jacobians.append(_assemble(row, tuple(target.shape) + tuple(s.shape), s, unconnected_gradients, leading_axis=0))
        return pack_like(sources, iter(jacobians))

    def batch_jacobian(self, target, source, unconnected_gradients="none", parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: result[i] = d target[i] / d source[i], shape
        target.shape + source.shape[1:]. Assumes example i of the target depends
        only on example i of the source, as TensorFlow's does: one reverse pass
        per element of target[0] instead of per element of target.

        >>> x = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> with mt.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> tape.batch_jacobian(y, x)
        tensor([[[2., 0.],
                 [0., 4.]],
        <BLANKLINE>
                [[6., 0.],
                 [0., 8.]]])
        """
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
        flat_sources = flatten(sources)
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
        thread = state.thread_state
        paused = thread.autograd_tape_paused
        thread.autograd_tape_paused = paused or pause_autograd_tape
        try:
            for seed in seeds:
                grads = compute_gradient(self._tape, [target], flat_sources, [Tensor._make(seed)], release=False)
                for row, g in zip(rows, grads):
                    row.append(g)
        finally:
            thread.autograd_tape_paused = paused
        if not self._persistent:
            self._tape.clear()
            self._tape = None
        return rows


def _one_hot_rows(shape, dtype):
    """The one-hot arrays e_0, e_1, ... of `shape`, one per element."""
    size = int(math.prod(shape))
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

