"""compute_gradient: the reverse pass over a tape.

A tape is a Wengert list: its entries in recording order, which is a
topological order (an op is recorded after the ops that made its inputs).
So the pass is one sweep over it, backwards, as in HIPS autograd's
`backward_pass`, with TensorFlow's rules for what to compute
(tensorflow/python/eager/imperative_grad.py, tape.h's ComputeGradient):

  1. each target's gradient starts as ones, or the given output gradient;
  2. from the last entry to the first: an entry none of whose outputs has a
     pending gradient is not on the targets' path, and is skipped; otherwise
     every op that read its outputs came after it and has run, so its output
     gradients are complete: sum each (zeros for an output nobody reached,
     unless the op accepts None there), call its backward function for the
     inputs that lead to a source, and add what it returns to its inputs'
     pending gradients, summed back to their shapes;
  3. what is pending at the sources (or, for `backward()`, at the watched
     leaves) at the end are their gradients.

Gradients are minitorch Tensors made by minitorch ops, so a tape that is
recording during the pass records the pass itself: nested tapes,
`create_graph=True` and persistent tapes give higher derivatives.

A releasing pass (a non-persistent tape, `backward()` without retain_graph)
frees each entry's saved values as soon as it has run it, and takes what it
consumed off the tape at the end. A student's own reverse pass can replace
steps 1 to 3 (student_pass.py).
"""
import numpy as np

from ..tensor import Tensor
from . import anomaly, hooks, trace
from .execute import execute
from .nodes import run_with_hooks
from .state import enable_grad, orphaned_hooks, pop_tape, push_tape, switches, tape_lock, thread_state
from .student_pass import replaced_pass
from .tape import Tape, freed_error, history, refuse_freed

# Early aggregation (imperative_grad.py's _MIN_AGGREGATE_COUNT/BYTES): with this many pending gradients for one
# tensor, and this much memory in them, add them up at once to free memory.
MIN_AGGREGATE_COUNT = 4
MIN_AGGREGATE_BYTES = 128 * 1024 * 1024


def compute_gradient(tape, targets, sources, output_gradients=None, release=False, collect_leaves=False,
                     leaf_ready=None):
    """Gradients of `targets` with respect to `sources` (lists of Tensors).

    Returns one gradient (or None) per source. `release` consumes the entries
    it runs, freeing their saved values as it goes (a non-persistent pass).
    With `collect_leaves`, every watched tensor the pass reaches is a source
    too (this is `loss.backward()`), and the result is a dict
    {leaf tensor id: gradient}. With `leaf_ready` as well, each leaf's
    gradient goes to `leaf_ready(leaf id, gradient)` instead, and the dict is
    empty; while post-accumulate-grad hooks exist, as soon as the last op that
    reads the leaf has run (PyTorch accumulates into `.grad` at that moment,
    which lets DistributedDataParallel communicate while the rest of the pass
    runs), else at the end.
    """
    if switches.reverse_pass is not None:
        return replaced_pass(switches.reverse_pass, tape, targets, sources, output_gradients, release,
                             collect_leaves, leaf_ready)
    refuse_freed(tape, targets)
    last = max((t._node.seq for t in targets if t._node is not None and tape in t._node.tapes), default=-1)
    refs, stop = tape.recorded_until(last)  # what ran after the last target cannot lead to it
    sweep = _Sweep(tape, sources, release, None if collect_leaves else _downstream_of(tape, refs, stop, sources))
    sweep.start(targets, output_gradients)
    due = _leaves_due(tape, refs, stop) if leaf_ready is not None and hooks.post_accumulate_hooks else {}
    try:
        sweep.walk(refs, stop, due, leaf_ready)
    except BaseException:
        if release:  # the pass failed: free what it did not run of its graph too, as if it had
            rest = set(history(tape, targets)).union(sweep.consumed)
            sweep.consumed = sorted(rest, key=lambda entry: entry.seq, reverse=True)
            sweep.visited = -1
        raise
    finally:
        if release:
            tape.release(sweep.consumed, whole=len(sweep.consumed) == sweep.visited)
    return sweep.results(collect_leaves, leaf_ready)


class _Sweep:
    """One reverse pass: the pending gradients, by tensor id, and what to do with an entry."""

    def __init__(self, tape, sources, release, wanted):
        self.tape = tape
        self.release = release
        self.pending = {}  # tensor id -> its gradient, or the list of the gradients to add up
        self.outstanding = 0  # how many pending tensors an entry on this tape, not yet run, made
        self.sources = sources
        self.source_ids = {s._id for s in sources}
        self.source_grads = {}  # a source some op made: its gradient, taken when that op is reached
        self.source_makers = {s._node for s in sources if s._node is not None and tape.holds(s)}
        self.wanted = wanted  # None: every input on the tape needs a gradient (backward())
        self.consumed = []  # what a releasing pass ran or reached, last first: it leaves the tape at the end
        self.visited = 0  # the live entries the sweep went past (all consumed: their stretch of the tape is cut)
        # No tensor hook to run and no source to catch on the way: one output's gradient is taken as it is.
        self.plain = not (hooks.tensor_hooks or hooks.retaining or orphaned_hooks or self.source_makers)

    def start(self, targets, output_gradients):
        for i, target in enumerate(targets):
            grad = None if output_gradients is None else output_gradients[i]
            if grad is None:
                grad = Tensor._make(np.ones(target._data.shape, target._data.dtype))
            self.send(target._id, grad, target._node)

    def walk(self, refs, stop, due, leaf_ready):
        """The sweep: from the entry recorded last to the first, running those a gradient reached;
        it ends early once no pending gradient waits for an entry."""
        pending = self.pending
        index = stop
        while self.outstanding and index:
            index -= 1
            entry = refs[index]()
            if entry is not None:
                self.visited += 1
                output_ids = entry.output_ids
                if output_ids[0] in pending or (len(output_ids) > 1 and not pending.keys().isdisjoint(output_ids)):
                    self.run(entry)
            if due and index in due:
                self.hand_over(due[index], leaf_ready)
        if self.outstanding:
            # A gradient waits for an op that is no longer on the tape: an earlier releasing pass consumed it.
            raise freed_error()

    def run(self, entry):
        """Runs one reached entry: output gradients in, input gradients out to its inputs."""
        output_ids = entry.output_ids
        pending = self.pending
        if len(output_ids) == 1 and self.plain:  # the common case, without calls
            grad = pending.pop(output_ids[0])
            self.outstanding -= 1
            out_grads = [grad if type(grad) is not list else _aggregate(grad, output_ids[0])]
        elif entry in self.source_makers:
            out_grads = self.take_source_gradients(entry)
        else:
            out_grads = self.output_gradients(entry)
        alone = len(entry.tapes) == 1  # on this tape only
        needs = entry.needs_input_grad if alone and self.wanted is None else self.needs(entry)
        if self.release:
            self.consumed.append(entry)
        if True not in needs:
            return  # no source flows into it: its gradients would be thrown away
        # Exclusive: only this releasing pass can run it, so it may be changed and freed in place.
        exclusive = alone and self.release
        if entry.hooks is None and not switches.check_anomalies:
            in_grads = entry(needs, out_grads, exclusive)
        else:
            in_grads = _run_backward_function(entry, needs, out_grads)
            if exclusive:
                entry.free()
        if switches.tracing:
            trace.backward_call(entry, out_grads, in_grads, needs)
        tape = self.tape
        for tensor_id, node, grad, needed, (shape, dtype) in zip(entry.input_ids, entry.input_nodes, in_grads, needs,
                                                                 entry.input_info):
            if grad is not None and needed:
                data = grad._data
                if data.shape != shape or data.dtype != dtype:
                    grad = match_input(grad, shape, dtype, entry.op_type)
                if tensor_id in pending:
                    self.send(tensor_id, grad)
                else:  # its first gradient: send's first case, inline (the common case)
                    pending[tensor_id] = grad
                    if node is not None and tape in node.tapes:
                        self.outstanding += 1

    def output_gradients(self, entry):
        """One complete gradient per output of `entry`: summed, or zeros, or None where the op accepts it."""
        pending = self.pending
        accepts_none = entry.op_def.accepts_none
        grads = []
        last_info = last_zeros = None  # consecutive outputs often share shape and dtype
        for i, tensor_id in enumerate(entry.output_ids):
            if tensor_id in pending:
                grads.append(_complete(pending.pop(tensor_id), tensor_id))
                self.outstanding -= 1
            elif i in accepts_none:
                grads.append(None)
            else:
                info = entry.output_info[i]
                if info != last_info:
                    last_info, last_zeros = info, Tensor._make(np.zeros(*info))
                grads.append(last_zeros)
        return grads

    def needs(self, entry):
        """One flag per input of `entry`: does its gradient lead to a source (or, for backward(), a leaf)?
        (An entry on this tape alone answered that when it was recorded: the inputs it holds.)"""
        wanted, tape = self.wanted, self.tape
        needs = []
        for tensor_id, node in zip(entry.input_ids, entry.input_nodes):
            if wanted is not None:
                needs.append(tensor_id in wanted)
            else:
                needs.append((node is not None and tape in node.tapes) or tensor_id in tape.watched)
        return tuple(needs)

    def send(self, tensor_id, grad, node=None):
        """Sends a gradient to the tensor `tensor_id` (made by the entry `node`, or None): its pending gradients
        are added up when it is complete (or early, when they take memory)."""
        pending = self.pending
        earlier = pending.get(tensor_id)
        if earlier is None:
            pending[tensor_id] = grad
            if node is not None and self.tape in node.tapes:
                self.outstanding += 1
        elif type(earlier) is not list:
            pending[tensor_id] = [earlier, grad]
        else:
            earlier.append(grad)
            if len(earlier) >= MIN_AGGREGATE_COUNT and len(earlier) * grad._data.nbytes > MIN_AGGREGATE_BYTES:
                earlier[:] = [_aggregate(earlier, tensor_id)]

    def take_source_gradients(self, entry):
        """The output gradients of an entry that made a source: a source that a gradient reached has its
        complete gradient now (which also flows on through the entry); one nobody reached stays None."""
        reached = [tensor_id in self.pending and tensor_id in self.source_ids for tensor_id in entry.output_ids]
        out_grads = self.output_gradients(entry)
        for tensor_id, grad, is_source in zip(entry.output_ids, out_grads, reached):
            if is_source:
                self.source_grads[tensor_id] = grad
        return out_grads

    def hand_over(self, leaf_ids, leaf_ready):
        """Leaves whose last reader has run: their gradients are complete."""
        for tensor_id in leaf_ids:
            if tensor_id in self.pending:
                leaf_ready(tensor_id, _complete(self.pending.pop(tensor_id), tensor_id))

    def results(self, collect_leaves, leaf_ready):
        pending = self.pending
        if collect_leaves:
            watched = self.tape.watched
            finished = {tid: _complete(grad, tid) for tid, grad in pending.items() if tid in watched}
            if leaf_ready is None:
                return finished
            for tid, grad in finished.items():
                leaf_ready(tid, grad)
            return {}
        results = []
        for s in self.sources:
            grad = self.source_grads.get(s._id)
            if grad is None and s._id in pending:
                grad = _complete(pending[s._id], s._id)
            results.append(grad)
        return results


def _downstream_of(tape, refs, stop, sources):
    """The ids of the sources and of every tensor an entry made from them: the tensors whose gradient is
    wanted (an op no source flows into is skipped; its gradients would be thrown away)."""
    wanted = {s._id for s in sources if tape.holds(s)}
    for index in range(stop):
        entry = refs[index]()
        if entry is not None and not wanted.isdisjoint(entry.input_ids):
            wanted.update(entry.output_ids)
    return wanted


def _leaves_due(tape, refs, stop):
    """index in `refs` -> the watched leaves whose first reader it is: once the sweep has passed it,
    nothing more can add to their gradients."""
    first = {}
    watched = tape.watched
    for index in range(stop):
        entry = refs[index]()
        if entry is not None:
            for tensor_id in entry.input_ids:
                if tensor_id in watched and tensor_id not in first:
                    first[tensor_id] = index
    due = {}
    for tensor_id, index in first.items():
        due.setdefault(index, []).append(tensor_id)
    return due


def _run_backward_function(entry, needs, out_grads):
    """The backward function with what is switched on around it: grad_fn hooks, anomaly checks."""
    if switches.check_anomalies:
        def run(needs, out_grads):
            return anomaly.run_backward(entry, needs, out_grads)
    else:
        run = entry
    if entry.hooks is None:
        return run(needs, out_grads)
    return run_with_hooks(entry, run, needs, out_grads)


def vjp_of(fn, inputs, output_gradients):
    """The gradients of `fn(*inputs)` with respect to `inputs`, for `output_gradients`.

    For gradients written as a composition of ops (FusedBatchNormGrad's): `fn`
    is recorded on a private tape, which is then run backwards. Tapes that are
    recording on this thread see the whole computation (higher orders); when
    none is, `fn` runs on fresh tensors no other tape knows.
    """
    if not thread_state.recording:
        inputs = [Tensor._make(t._data) for t in inputs]
    tape = Tape(persistent=False, watch_accessed_variables=False)
    for t in inputs:
        tape.watch(t)
    push_tape(tape)
    try:
        with enable_grad():
            outputs = fn(*inputs)
    finally:
        pop_tape(tape)
    grads = compute_gradient(tape, list(outputs), list(inputs), list(output_gradients), release=True)
    tape.clear()
    return grads


def _complete(pending, tensor_id):
    """The gradient of one tensor, summed and passed through its hooks."""
    grad = pending if type(pending) is not list else _aggregate(pending, tensor_id)
    if hooks.tensor_hooks or hooks.retaining or orphaned_hooks:
        grad = hooks.apply(tensor_id, grad)
    return grad


def _aggregate(grads, tensor_id=None):
    if len(grads) == 1:
        return grads[0]
    if switches.tracing:
        trace.aggregated(tensor_id, len(grads))
    return execute("AddN", grads)


def match_input(grad, shape, dtype, op_type):
    """Sums a broadcast gradient back to its input's shape and casts it to the input's dtype.

    The one place where broadcasting is undone: binary ops' gradients may
    return the broadcast shape, and the tape sums them back here."""
    if grad._data.shape != shape:
        grad = sum_to_shape(grad, shape, op_type)
    if grad._data.dtype != dtype:
        grad = execute("Cast", (grad,), {"dtype": dtype})
    return grad


def broadcast_axes(grad_shape, shape):
    """The axes to sum a gradient of `grad_shape` over to get back `shape`
    (what broadcasting `shape` added or stretched); None if `shape` does not
    broadcast to `grad_shape`."""
    lead = len(grad_shape) - len(shape)
    if lead < 0 or any(n != 1 and n != g for n, g in zip(shape, grad_shape[lead:])):
        return None
    return tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and grad_shape[lead + i] != 1)


def sum_to_shape(grad, shape, op_type):
    """`grad` summed over the axes that broadcasting `shape` added or stretched (un-broadcasting)."""
    gshape = grad._data.shape
    axes = broadcast_axes(gshape, shape)
    if axes is None:
        raise RuntimeError(f"the gradient of {op_type} has shape {gshape}, which does not broadcast to its input's shape {shape}")
    if axes:
        grad = execute("Sum", (grad,), {"axis": axes, "keepdims": False})
    if grad._data.shape == shape:
        return grad  # summing the leading axes was enough (a bias, say)
    return execute("Reshape", (grad,), {"shape": shape})
