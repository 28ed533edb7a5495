"""The seam where a student's reverse pass replaces minitorch's (minitorch.exercises).

Inside `reverse_pass_replaced(fn)`, every compute_gradient (backprop.py)
runs `fn(tape, targets, sources, output_gradients)` instead of its sweep,
and does around it what a student's pass need not know: the check that the
graph was not already freed, releasing what the pass consumed, collecting
the leaves for `backward()`. Hooks, anomaly checks and tracing are not run
then.

The student reads the tape as TensorFlow's tape.h keeps it, by id
(`TapeView`): `tensor_tape` maps a tensor id to the id of the op that made
it (-1 for a watched leaf), `op_tape` maps an op id to its entry, and op
ids grow in recording order.
"""
import contextlib

import numpy as np

from ..tensor import Tensor
from .state import switches
from .tape import history, refuse_freed


class TapeView:
    """A tape's live entries as two dicts, `tensor_tape` and `op_tape` (tape.h's maps), read only."""

    def __init__(self, tape):
        self.op_tape = dict(enumerate(tape.live_entries()))
        self.tensor_tape = {tensor_id: -1 for tensor_id in tape.watched}
        for op_id, entry in self.op_tape.items():
            for tensor_id, (_, dtype) in zip(entry.output_ids, entry.output_info):
                if dtype.kind == "f":  # integer outputs are not trainable, as on the tape
                    self.tensor_tape[tensor_id] = op_id
        self.watched = tape.watched
        self.serial = tape.serial


@contextlib.contextmanager
def reverse_pass_replaced(reverse_pass):
    """Runs every reverse pass of the block with `reverse_pass` in place of the built-in one.

    `reverse_pass(tape, targets, sources, output_gradients)` reads the tape
    (`tape.tensor_tape`: tensor id -> op id, -1 for a watched leaf;
    `tape.op_tape`: op id -> entry with op_type, input_ids, input_info,
    output_ids, output_info, backward_function(needs_input_grad, output_grads))
    and returns one gradient (or None) per source. `output_gradients` has one
    Tensor per target. The engine checks the graph was not already freed
    before, releases what the pass consumed after, and hands leaves to
    `backward()`. Hooks, anomaly checks and tracing do not run inside.

    >>> from minitorch.engine.student_pass import reverse_pass_replaced
    >>> def constant_pass(tape, targets, sources, output_gradients):
    ...     return [mt.full(tuple(s.shape), 7.0) for s in sources]
    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> with reverse_pass_replaced(constant_pass):
    ...     (x * x).sum().backward()
    >>> x.grad
    tensor([7., 7.])
    """
    previous = switches.reverse_pass
    switches.reverse_pass = reverse_pass
    try:
        yield
    finally:
        switches.reverse_pass = previous


def replaced_pass(reverse_pass, tape, targets, sources, output_gradients, release, collect_leaves, leaf_ready):
    """compute_gradient with `reverse_pass` as its core (see reverse_pass_replaced)."""
    refuse_freed(tape, targets)
    entries = history(tape, targets, refuse_released=True)
    wanted = list(sources)
    leaves = set()
    if collect_leaves:
        source_ids = {s._id for s in sources}
        leaf_ids = sorted({tid for entry in entries for tid in entry.input_ids if tid in tape.watched} - source_ids)
        refs = [tape.watched.get(tid) for tid in leaf_ids]
        wanted += [leaf for leaf in (ref() if ref is not None else None for ref in refs) if leaf is not None]
        leaves = {t._id for t in targets if t._id in tape.watched} | set(leaf_ids)
    seeds = [Tensor._make(np.ones(t._data.shape, t._data.dtype)) if g is None else g
             for t, g in zip(targets, output_gradients or [None] * len(targets))]
    grads = list(reverse_pass(TapeView(tape), list(targets), wanted, seeds))
    if len(grads) != len(wanted):
        raise RuntimeError(f"the reverse pass {getattr(reverse_pass, '__name__', reverse_pass)!r} returned "
                           f"{len(grads)} gradients for {len(wanted)} sources")
    if release:
        tape.release(sorted(entries, key=lambda entry: entry.seq, reverse=True))
    if not collect_leaves:
        return grads
    finished = {t._id: g for t, g in zip(wanted, grads) if g is not None and t._id in leaves}
    if leaf_ready is None:
        return finished
    for tid, grad in finished.items():
        leaf_ready(tid, grad)
    return {}
