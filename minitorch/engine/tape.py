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
    seqs      each entry's sequence number (entry.seq, increasing): where an
              entry is in the list, by bisection
    watched   tensor id -> weak reference to a tensor `watch`ed as a leaf
              (tape.h's -1 in tensor_tape)

`entries` and `seqs` are replaced, never changed in place, except by
appending: a reverse pass reads the list it started with while other
threads record.

Whether a tensor is on the tape: it is watched, or its `_node` (the entry
that made it) lists this tape among the tapes that recorded it.

A tape changes only under the engine lock (state.tape_lock): record_gradient
holds it while it records, and `watch`, `compact`, `release` and `clear`
take it themselves.
"""
import bisect
import itertools
import weakref

from .state import tape_lock, track

_serials = itertools.count(1)
MIN_COMPACTION = 64  # references in the list before the first sweep of dead ones


class Tape:
    """The data structure behind GradientTape and behind `requires_grad`."""

    marks_outputs = False  # the autograd tape sets requires_grad on what it records
    leaves_when_empty = False  # the autograd tape leaves the tape set when it holds nothing

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.entries = []
        self.seqs = []
        self.watched = {}
        self.serial = next(_serials)  # a short name for traces and listings
        self._compact_at = MIN_COMPACTION

    def holds(self, tensor):
        """Is `tensor` on this tape: watched, or made by an op recorded here?"""
        node = tensor._node
        return (node is not None and self in node.tapes) or tensor._id in self.watched

    def held(self, tensors):
        """One flag per tensor: is it on this tape?"""
        flags = []
        for t in tensors:
            flags.append(self.holds(t))
        return tuple(flags)

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
            node = tensor._node
            if not (node is not None and self in node.tapes):  # an op recorded here made it: already on the tape
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
        if not self.marks_outputs:  # a GradientTape (the autograd tape watches through requires_grad_())
            self._adopt(entry, inputs)
        entry.tapes += (self,)
        if self.seqs and entry.seq < self.seqs[-1]:
            self._insert(entry)
        else:
            self.entries.append(weakref.ref(entry))
            self.seqs.append(entry.seq)
        for o in outputs:
            if o._data.dtype.kind == "f":  # integer outputs are not trainable: nothing flows back through them
                o._node = entry
                if self.marks_outputs:
                    o._requires_grad = True
        if len(self.entries) >= self._compact_at:
            self.compact()

    def _adopt(self, entry, inputs):
        """Watches the inputs that require grad (watch_accessed_variables); as the first tape to record the
        entry, says which inputs need a gradient: the ones on this tape. (The entry says which require
        grad: what the autograd tape, which marks what it records, holds.)"""
        if self.watch_accessed_variables:
            for t in inputs:
                if t._requires_grad and not self.holds(t):
                    self.watch(t)
        if not entry.tapes:
            entry.needs_input_grad = self.held(inputs)

    def _insert(self, entry):
        """Records an entry made before the last one recorded, where its number puts it: a forward-mode
        accumulator records an op on its private tape after the ops its tangent needed (forwardprop.py).
        Entries are numbered as their ops run, after the ops that made their inputs, so the numbers' order
        is a topological order on every tape."""
        at = bisect.bisect(self.seqs, entry.seq)
        self.entries = self.entries[:at] + [weakref.ref(entry)] + self.entries[at:]
        self.seqs = self.seqs[:at] + [entry.seq] + self.seqs[at:]

    def live_entries(self):
        """The entries still on the tape (alive, not consumed by a releasing pass), in recording order."""
        with tape_lock:
            refs = self.entries
        live = []
        for ref in refs:
            entry = ref()
            if entry is not None and self not in entry.released:
                live.append(entry)
        return live

    def recorded_until(self, seq):
        """The list of entries and the number of them recorded up to the entry numbered `seq`."""
        with tape_lock:
            return self.entries, bisect.bisect_right(self.seqs, seq)

    def compact(self, first_seq=None, last_seq=None):
        """Drops the references to entries that died or were consumed, between the entries numbered
        `first_seq` and `last_seq` (all of them by default). The whole list is swept when it has doubled
        since the last sweep (amortized constant time per op); a releasing pass sweeps what it ran."""
        with tape_lock:
            seqs = self.seqs
            start = 0 if first_seq is None else bisect.bisect_left(seqs, first_seq)
            end = len(seqs) if last_seq is None else bisect.bisect_right(seqs, last_seq)
            kept_refs, kept_seqs = [], []
            for ref, seq in zip(self.entries[start:end], seqs[start:end]):
                entry = ref()
                if entry is not None and self not in entry.released:
                    kept_refs.append(ref)
                    kept_seqs.append(seq)
            self.entries = self.entries[:start] + kept_refs + self.entries[end:]
            self.seqs = seqs[:start] + kept_seqs + seqs[end:]
            if first_seq is None:
                self._compact_at = max(MIN_COMPACTION, 2 * len(self.entries))
            if not self.entries:
                self._leave_if_empty()

    def release(self, entries, whole=False):
        """A non-persistent pass consumed `entries` (last recorded first): each frees its saved values once no
        other tape holds it, and they leave this tape's list (their shape stays, for grad_fn, while their
        outputs live). `whole`: they are every live entry of their stretch of the list, which is cut out."""
        if not entries:
            return
        with tape_lock:
            for entry in entries:
                if self not in entry.released:
                    entry.released += (self,)
                    if not entry.freed and len(entry.released) >= len(entry.tapes):
                        entry.free()  # no tape that recorded it holds it any more
            first, last = entries[-1].seq, entries[0].seq
            if whole:
                start, end = bisect.bisect_left(self.seqs, first), bisect.bisect_right(self.seqs, last)
                self.entries = self.entries[:start] + self.entries[end:]
                self.seqs = self.seqs[:start] + self.seqs[end:]
                if not self.entries:
                    self._leave_if_empty()  # a leaf that died during the pass found the pass's entries still here
            else:
                self.compact(first, last)

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
            self.entries, self.seqs = [], []
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
