"""The tape: the ops recorded while it was active, in recording order.

Follows TensorFlow's `GradientTape` (tensorflow/c/eager/tape.h) in what it
does: it says which ops belong on it (`should_record`: an op that reads a
tensor it watches, or one made by an op it recorded), records them, and
hands them to the reverse pass. Its record is a Wengert list, `entries`:
one entry per op (entry.py), in the order the ops ran. Recording order is
already a topological order (an op runs after the ops that made its
inputs), so a reverse pass can sweep the list once, backwards, with no
usage counts and no ready queue (backprop.py).

The list holds weak references. An entry lives as long as a tensor or a
later entry can still reach it (entry.py), so the graph of a dropped
result is freed by reference counting the moment it dies, with no Python
code run per tensor (tape.h's DeleteTrace does that work by callbacks and
usage counts). The dead references left in the list are swept out when it
has doubled (`compact`), and a releasing pass takes the entries it consumed
out at once: a training loop's tapes are empty between steps.

    entries   weak references to the recorded entries, in recording order
    watched   tensor id -> weak reference to a tensor `watch`ed as a leaf
              (tape.h's -1 in tensor_tape)

Whether a tensor is on the tape: it is watched, or its `_node` (the entry
that made it) lists this tape among the tapes that recorded it.

A tape changes only under the engine lock (state.tape_lock): record_gradient
holds it while it records, and `watch`, `compact`, `release` and `clear`
take it themselves.
"""
import itertools
import weakref

from .state import tape_lock, track

_serials = itertools.count(1)
MIN_COMPACTION = 64  # entries before the first sweep of dead references


class Tape:
    """The data structure behind GradientTape and behind `requires_grad`."""

    marks_outputs = False  # the autograd tape sets requires_grad on what it records
    leaves_when_empty = False  # the autograd tape leaves the tape set when it holds nothing

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.entries = []
        self.watched = {}
        self.serial = next(_serials)  # a short name for traces and listings
        self._compact_at = MIN_COMPACTION

    def holds(self, tensor):
        """Is `tensor` on this tape: watched, or made by an op recorded here?"""
        node = tensor._node
        return (node is not None and self in node.tapes) or tensor._id in self.watched

    def should_record(self, inputs):
        """Does an op reading `inputs` belong on this tape? (tape.h: ShouldRecord)

        Only floating tensors are ever watched or made by a recorded op, and only
        floating tensors can require grad, so no dtype check is needed here.
        """
        watched = self.watched
        for t in inputs:
            node = t._node
            if (node is not None and self in node.tapes) or t._id in watched:
                return True
        if self.watch_accessed_variables:
            for t in inputs:
                if t._requires_grad:
                    return True
        return False

    def watch(self, tensor):
        track(tensor)  # its death takes it off `watched`
        with tape_lock:
            if not self.holds(tensor):
                self.watched[tensor._id] = weakref.ref(tensor)

    def unwatch(self, tensor):
        """Stop watching a leaf: ops that read it from now on are not recorded for it, and a pass
        over ops recorded before gives it no gradient (PyTorch's AccumulateGrad skips a leaf that
        no longer requires grad)."""
        with tape_lock:
            if self.watched.pop(tensor._id, None) is not None:
                self._leave_if_empty()

    def record_operation(self, entry, inputs, outputs):
        """Appends `entry` (made by record_gradient from `inputs` and `outputs`) and links the outputs to it:
        each output's `_node` keeps the entry, and through it the graph upstream, alive while it lives."""
        if self.watch_accessed_variables:
            for t in inputs:
                if t._requires_grad and not self.holds(t):
                    self.watch(t)
        entry.tapes += (self,)
        self.entries.append(weakref.ref(entry))
        marks = self.marks_outputs
        for o in outputs:
            if o._data.dtype.kind == "f":  # integer outputs are not trainable: nothing flows back through them
                o._node = entry
                if marks:
                    o._requires_grad = True
        if len(self.entries) >= self._compact_at:
            self.compact()

    def live_entries(self):
        """The entries still on the tape (alive, not consumed by a releasing pass), in recording order."""
        with tape_lock:
            refs = list(self.entries)
        live = []
        for ref in refs:
            entry = ref()
            if entry is not None and self not in entry.released:
                live.append(entry)
        return live

    def compact(self):
        """Drops the references to entries that died or were consumed; the next sweep comes when the list
        has doubled again (amortized constant time per op)."""
        with tape_lock:
            live = [ref for ref in self.entries if (e := ref()) is not None and self not in e.released]
            self.entries = live
            self._compact_at = max(MIN_COMPACTION, 2 * len(live))
            if not live:
                self._leave_if_empty()

    def release(self, entries):
        """A non-persistent pass consumed `entries`: each frees its saved values once no other tape holds it,
        and they leave this tape's list (their shape stays, for grad_fn, while their outputs live)."""
        with tape_lock:
            for entry in entries:
                if self not in entry.released:
                    entry.release(self)
            self.compact()

    def tensor_died(self, tensor_id):
        """A tracked tensor died: a watched one is forgotten (TensorFlow keeps it: its tapes are
        short-lived, while our autograd tape lives as long as the program)."""
        if self.watched.pop(tensor_id, None) is not None:
            self._leave_if_empty()

    def _leave_if_empty(self):
        if self.leaves_when_empty and not self.watched and not any(
                (e := ref()) is not None and self not in e.released for ref in self.entries):
            self.leave()

    def leave(self):
        """Called when the tape holds nothing any more (see leaves_when_empty)."""

    def clear(self):
        """Forgets everything: tensors made before are no longer on this tape."""
        with tape_lock:
            for ref in self.entries:
                entry = ref()
                if entry is not None:
                    entry.tapes = tuple(tape for tape in entry.tapes if tape is not self)
            self.entries = []
            self.watched.clear()
            self._compact_at = MIN_COMPACTION

    def __len__(self):
        return len(self.live_entries())


def refuse_freed(tape, targets):
    """A pass from `targets` through an op an earlier releasing pass on `tape` consumed must raise."""
    for target in targets:
        node = target._node
        if node is not None and tape in node.released:
            raise freed_error()


def history(tape, targets, refuse_released=False):
    """The entries of `tape` the targets depend on (each once, in no particular order), found by walking
    from each target's entry to the entries that made its inputs. An entry an earlier releasing pass
    consumed is skipped, or, with `refuse_released`, raises PyTorch's error."""
    found, seen = [], set()
    stack = [t._node for t in targets]
    while stack:
        entry = stack.pop()
        if entry is None or id(entry) in seen or tape not in entry.tapes:
            continue
        seen.add(id(entry))
        if tape in entry.released:
            if refuse_released:
                raise freed_error()
            continue
        found.append(entry)
        stack.extend(entry.input_nodes)
    return found


def freed_error():
    """PyTorch's error for a pass through a graph an earlier pass consumed."""
    return RuntimeError(_FREED)


_FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they "
          "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
          "or autograd.grad(). Specify retain_graph=True (or use a persistent GradientTape) if you need to "
          "backward through the graph a second time or if you need to access saved tensors after calling backward.")
