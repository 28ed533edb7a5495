"""The tape: what was recorded, by id, so that a reverse pass can be run later.

Follows TensorFlow's `GradientTape` class template in tensorflow/c/eager/tape.h. The tape never holds a Tensor:
it maps tensor ids to the op that produced them and op ids to entries. Only
an entry's backward function keeps values alive, and only the ones its
gradient needs (see record.py).

    tensor_tape   tensor id -> id of the op that produced it (-1: watched)
    op_tape       op id -> TapeEntry
    tensor_usage  tensor id -> how many entries use it (+1 while it is alive)
    released      op id -> an entry a reverse pass consumed, its saved values freed, kept
                  while one of its outputs lives: `grad_fn` still names it and shows
                  its inputs (engine/nodes.py), as PyTorch's graph does after backward;
                  its `consumed` (a ConsumedPass) keeps the entries upstream of it

`delete_trace` runs when a Tensor dies: once nothing uses a tensor any more
its producing op is dropped, and so on up the graph. Finished work is thus
freed during training, not when the tape goes away.

A tape changes only under the engine lock (state.tape_lock): record_gradient
holds it while it records, state._tensor_died while a dead tensor's trace is
deleted, and `watch` and `release` take it themselves.
"""
import itertools
import weakref

from .state import lock_tapes, tape_lock, track, unlock_tapes

_serials = itertools.count(1)


class TapeEntry:
    """One recorded op (tape.h: OpTapeEntry).

    Its ids and infos are tuples, as are the backward function's (record.py), not lists: they live
    as long as the entry, and CPython's garbage collector counts a surviving list towards its next
    collection while it takes small tuples from a free list uncounted (and stops tracking tuples of
    plain values). With lists, a forward pass of small ops ran a collection every ~90 ops and a full
    one every ~80 passes; measured on bench_per_op.py's chain, the mean time per op fell by 16%.
    """

    __slots__ = ("op_type", "output_ids", "output_info", "input_ids", "input_info", "backward_function", "hooks", "metadata",
                 "consumed")

    def __init__(self, op_type, output_ids, output_info, input_ids, input_info, backward_function):
        self.op_type = op_type
        self.output_ids = output_ids
        self.output_info = output_info  # (shape, numpy dtype) per output: zeros for missing gradients
        self.input_ids = input_ids
        self.input_info = input_info  # (shape, numpy dtype) per input: un-broadcasting, casting back
        self.backward_function = backward_function
        self.hooks = None  # (pre-hooks, hooks) registered through grad_fn, or None
        self.metadata = None  # grad_fn.metadata, made on first use
        self.consumed = None  # while released with an output alive: the ConsumedPass that released it


class ConsumedPass:
    """What a releasing reverse pass consumed, kept so that grad_fn still walks the whole graph after
    backward, as PyTorch's nodes do (engine/nodes.py): tensor id -> op id for every tensor the pass met,
    and the consumed entries whose outputs all died. Released entries with an output alive (in
    Tape.released) hold it; it holds none of them, so no reference cycle forms. Nothing of it is
    made per op but one dict store: releasing passes stay as cheap as before."""

    __slots__ = ("producer", "entries")

    def __init__(self, producer):
        self.producer = producer
        self.entries = {}


class Tape:
    """The data structure behind GradientTape and behind `requires_grad`."""

    marks_outputs = False  # the autograd tape sets requires_grad on what it records
    leaves_when_empty = False  # the autograd tape leaves the tape set when it tracks nothing

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.tensor_tape = {}
        self.op_tape = {}
        self.tensor_usage = {}
        self.released = {}
        self.watched = {}  # tensor id -> weakref to the watched Tensor
        self.next_op_id = 0
        self.serial = next(_serials)  # a short name for traces and listings

    def should_record(self, inputs):
        """Does an op reading `inputs` belong on this tape? (tape.h: ShouldRecord)

        Only floating tensors ever enter tensor_tape, and only floating tensors
        can require grad, so no dtype check is needed here.
        """
        tensor_tape = self.tensor_tape
        for t in inputs:
            if t._id in tensor_tape:
                return True
        if self.watch_accessed_variables:
            for t in inputs:
                if t._requires_grad:
                    return True
        return False

    def watch(self, tensor):
        track(tensor)
        with tape_lock:
            if tensor._id not in self.tensor_tape:
                self.tensor_tape[tensor._id] = -1
                self.watched[tensor._id] = weakref.ref(tensor)

    def unwatch(self, tensor):
        """Stop watching a leaf: ops that read it from now on are not recorded for it, and a pass
        over ops recorded before gives it no gradient (PyTorch's AccumulateGrad skips a leaf that
        no longer requires grad)."""
        with tape_lock:
            if self.tensor_tape.get(tensor._id) == -1:
                del self.tensor_tape[tensor._id]
                self.watched.pop(tensor._id, None)
                if self.leaves_when_empty and not self.tensor_tape:
                    self.leave()

    def record_operation(self, op_type, inputs, outputs, backward_function):
        tensor_tape, usage = self.tensor_tape, self.tensor_usage
        input_ids = []
        watch_accessed = self.watch_accessed_variables
        for t in inputs:
            tid = t._id
            if tid in tensor_tape:
                usage[tid] = usage.get(tid, 0) + 1
            elif watch_accessed and t._requires_grad:
                self.watch(t)
                usage[tid] = usage.get(tid, 0) + 1
            input_ids.append(tid)
        op_id = self.next_op_id
        self.next_op_id += 1
        output_ids = []
        output_info = []
        for o in outputs:
            data = o._data
            output_ids.append(o._id)
            output_info.append((data.shape, data.dtype))
            if data.dtype.kind == "f":  # integer outputs are not trainable: nothing flows back through them
                # The output may already be watched (tape.h: "we cannot check that we're inserting it here").
                tensor_tape[o._id] = op_id
                usage[o._id] = 1
                if o._tracker is None:
                    track(o)
                if self.marks_outputs:
                    o._requires_grad = True
        self.op_tape[op_id] = TapeEntry(
            op_type, tuple(output_ids), tuple(output_info), tuple(input_ids), backward_function.input_info, backward_function
        )

    def tensor_died(self, tensor_id):
        """The Tensor object is gone. A dead watched tensor is forgotten too
        (TensorFlow keeps it: its tapes are short-lived, while our autograd tape
        lives as long as the program)."""
        tensor_tape = self.tensor_tape
        op_id = tensor_tape.get(tensor_id)
        if op_id is None:
            return  # never on this tape
        if op_id == -1:
            del tensor_tape[tensor_id]
            self.watched.pop(tensor_id, None)
        else:
            count = self.tensor_usage.get(tensor_id, 0)
            if count > 1:  # recorded ops still read it: only its own use ends (delete_trace's first case, inline)
                self.tensor_usage[tensor_id] = count - 1
                return
        self.delete_trace(tensor_id)
        if self.leaves_when_empty and not tensor_tape:
            self.leave()

    def leave(self):
        """Called when the tape tracks nothing any more (see leaves_when_empty)."""

    def delete_trace(self, tensor_id):
        """One use of `tensor_id` ended; drop what nobody can reach any more."""
        count = self.tensor_usage.get(tensor_id)
        if count is None:
            return
        if count > 1:
            self.tensor_usage[tensor_id] = count - 1
            return
        del self.tensor_usage[tensor_id]
        op_id = self.tensor_tape.get(tensor_id)
        if op_id is None or op_id == -1:
            return  # never delete a watched tensor
        entry = self.op_tape.get(op_id)
        if entry is None:
            del self.tensor_tape[tensor_id]  # its op was already released by a reverse pass
            released = self.released.get(op_id)
            if released is not None and not any(self.tensor_tape.get(o) == op_id for o in released.output_ids):
                del self.released[op_id]
                if released.consumed is not None:  # still upstream of the pass's live outputs: its pass keeps it
                    released.consumed.entries[op_id] = released
                    released.consumed = None
            return
        for output_id in entry.output_ids:
            if output_id in self.tensor_usage:
                # Another output of the op is still in use. Keep this one's link to
                # the op: the gradient may read it (FusedBatchNorm's statistics),
                # and a tape recording that gradient must see where it came from.
                return
        if op_id not in self.op_tape:
            return  # the garbage collector, run during the loop above, let another output drop the op
        del self.op_tape[op_id]
        self._forget_outputs(entry, op_id)
        for input_id in entry.input_ids:
            self.delete_trace(input_id)

    def _forget_outputs(self, entry, op_id):
        """Drops the links of the op's dead outputs; live ones keep theirs. True if one kept it."""
        tensor_tape, usage = self.tensor_tape, self.tensor_usage
        linked = False
        for output_id in entry.output_ids:
            if tensor_tape.get(output_id) == op_id:
                if output_id in usage:
                    linked = True
                else:
                    del tensor_tape[output_id]
        return linked

    def release(self, consumed_entries, consumed=None):
        """Forget entries a non-persistent reverse pass consumed, [(entry, op id), ...]: their inputs
        lose one use each. Live outputs keep their link, which marks the graph as freed; `consumed`
        (the pass's ConsumedPass) keeps the graph's shape for grad_fn. One call, under one lock,
        after the pass (which freed each entry's saved values as it ran it)."""
        lock_tapes()
        try:
            for entry, op_id in consumed_entries:
                if self._forget_outputs(entry, op_id):
                    self.released[op_id] = entry
                    entry.consumed = consumed
                elif consumed is not None:
                    consumed.entries[op_id] = entry
                entry.backward_function = None  # the saved values go now, if the pass did not free them
                for input_id in entry.input_ids:
                    self.delete_trace(input_id)
        finally:
            unlock_tapes()

    def clear(self):
        self.tensor_tape.clear()
        self.op_tape.clear()
        self.tensor_usage.clear()
        self.watched.clear()
        self.released.clear()

    def __len__(self):
        return len(self.op_tape)
