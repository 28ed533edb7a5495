"""compute_gradient: the reverse pass over a tape.

TensorFlow's tensorflow/python/eager/imperative_grad.py and tape.h's
ComputeGradient, step by step:
  1. filter the tape to the ops the targets depend on, counting how often each
     tensor is used and how many output gradients each op still waits for;
  2. start a stack with the ops whose output gradients are all known;
  3. seed the targets' gradients (ones, or the given output gradients);
  4. pop an op, sum its output gradients (zeros for missing ones, unless the
     op accepts None there), call its backward function, hand the input
     gradients on; an op whose outputs are all done joins the stack.
Gradients are minitorch Tensors made by minitorch ops, so an outer tape that
is recording sees the whole reverse pass: that is how higher orders work.

One seam, for students who write the reverse pass themselves
(minitorch.exercises): inside `reverse_pass_replaced(fn)`, every
compute_gradient runs `fn(tape, targets, sources, output_gradients)` instead
of steps 1 to 4, and does around it what a student's pass need not know
(the second-backward check, releasing the consumed entries, collecting the
leaves for `backward()`). Hooks, anomaly checks and tracing are not run then.
"""
import contextlib

import numpy as np

from ..tensor import Tensor
from . import anomaly, hooks, trace
from .execute import execute
from .nodes import run_with_hooks
from .state import enable_grad, orphaned_hooks, pop_tape, push_tape, switches, tape_lock, thread_state
from .tape import ConsumedPass, Tape

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
    gradient goes to `leaf_ready(leaf id, gradient)` instead, as soon as the
    last op that reads the leaf has run (PyTorch accumulates into `.grad` at
    that moment, which lets DistributedDataParallel communicate while the
    rest of the pass runs), and the dict is empty.
    """
    if switches.reverse_pass is not None:
        return _replaced_pass(switches.reverse_pass, tape, targets, sources, output_gradients, release,
                              collect_leaves, leaf_ready)
    source_ids = {s._id for s in sources}
    with tape_lock:
        usage, entries, producer, leaves = _prepare_backprop(tape, targets, release)
    consumed = ConsumedPass(producer) if release else None
    if collect_leaves:
        wanted = producer  # every tensor the pass meets leads to a leaf or a target
        source_ops = {}
    else:
        usage, wanted = _keep_paths_to_sources(entries, producer, source_ids, tape if release else None, consumed)
        source_ops = {producer[tid] for tid in source_ids if producer.get(tid) in entries}
    source_grads = {}  # a source some op produced: its gradient, kept when that op runs and takes it
    missing = {}
    for tid in usage:
        op_id = producer.get(tid)
        if op_id in entries:
            missing[op_id] = missing.get(op_id, 0) + 1
    ready = [op_id for op_id in entries if op_id not in missing]
    gradients = _initial_gradients(targets, output_gradients)
    tensor_hooks, retaining = hooks.tensor_hooks, hooks.retaining  # filled and emptied in place, never replaced
    ran = []  # (entry, op id) of each entry run, for a releasing pass to take off the tape at the end

    try:
        gradient_sizes = {}
        while ready:
            op_id = ready.pop()
            entry = entries[op_id]
            output_ids = entry.output_ids
            if op_id in source_ops:  # outputs that reached no target stay None, not the zeros filled in below
                reached = {tid for tid in output_ids if tid in source_ids and gradients.get(tid)}
                out_grads = _output_gradients(entry, gradients)
                source_grads.update((tid, g) for tid, g in zip(output_ids, out_grads) if tid in reached)
            elif len(output_ids) == 1 and not (tensor_hooks or retaining or orphaned_hooks):
                # The common case without calls: one output, no tensor hook to run on its gradient.
                out_grads = gradients.pop(output_ids[0], None)
                if out_grads is None:
                    out_grads = _output_gradients(entry, gradients)  # zeros, or None where accepted
                elif len(out_grads) > 1:
                    out_grads = [_aggregate(out_grads, output_ids[0])]
            else:
                out_grads = _output_gradients(entry, gradients)
            # Skip the gradients nobody needs: inputs that lead to no source (or leaf) on the tape.
            input_ids = entry.input_ids
            if len(input_ids) == 1:  # most ops read one or two tensors: no map() for them (a call and an iterator)
                needs = (input_ids[0] in wanted,)
            elif len(input_ids) == 2:
                needs = (input_ids[0] in wanted, input_ids[1] in wanted)
            else:
                needs = tuple(map(wanted.__contains__, input_ids))
            if entry.hooks is None and not switches.check_anomalies:
                in_grads = entry.backward_function(needs, out_grads, release)
            else:
                in_grads = _run_backward_function(entry, needs, out_grads)
            if switches.tracing:
                trace.backward_call(entry, out_grads, in_grads, needs)
            del entries[op_id]
            if release:
                entry.backward_function = None  # its saved values go now; the tape's bookkeeping at the end
                ran.append((entry, op_id))
            for tid, grad, needed, info in zip(input_ids, in_grads, needs, entry.input_info):
                if grad is not None and needed:
                    data = grad._data
                    if data.shape != info[0] or data.dtype != info[1]:
                        grad = match_input(grad, info[0], info[1], entry.op_type)
                    pending = gradients.get(tid)
                    if pending is None:
                        gradients[tid] = [grad]
                    else:
                        pending.append(grad)
                        if len(pending) >= MIN_AGGREGATE_COUNT:
                            size = gradient_sizes.setdefault(tid, grad._data.nbytes)
                            if len(pending) * size > MIN_AGGREGATE_BYTES:
                                pending[:] = [_aggregate(pending, tid)]
                count = usage.get(tid, 0)
                if count > 0:
                    usage[tid] = count - 1
                    if count == 1:
                        producer_id = producer.get(tid)
                        if producer_id in missing:
                            missing[producer_id] -= 1
                            if missing[producer_id] == 0:
                                ready.append(producer_id)
                        elif leaf_ready is not None and tid in leaves:
                            pending = gradients.pop(tid, None)
                            if pending:
                                leaf_ready(tid, _complete(pending, tid))
    except BaseException:
        if release:  # the pass failed: free what it took off the tape and did not run, as if it had
            tape.release([(entry, op_id) for op_id, entry in entries.items()])
        raise
    finally:
        if release:
            tape.release(ran, consumed)

    if collect_leaves:
        finished = {tid: _complete(gradients[tid], tid) for tid in leaves if gradients.get(tid)}
        if leaf_ready is None:
            return finished
        for tid, grad in finished.items():  # leaves that were targets themselves
            leaf_ready(tid, grad)
        return {}
    return [source_grads[s._id] if s._id in source_grads
            else _complete(gradients[s._id], s._id) if gradients.get(s._id) else None for s in sources]


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

    >>> from minitorch.engine.backprop import reverse_pass_replaced
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


def _replaced_pass(reverse_pass, tape, targets, sources, output_gradients, release, collect_leaves, leaf_ready):
    """compute_gradient with `reverse_pass` as its core (see reverse_pass_replaced)."""
    source_ids = {s._id for s in sources}
    with tape_lock:
        _, entries, producer, leaves = _prepare_backprop(tape, targets, release=False)
    wanted = list(sources)
    if collect_leaves:
        refs = [tape.watched.get(tid) for tid in sorted(leaves - source_ids)]
        wanted += [leaf for leaf in (ref() if ref is not None else None for ref in refs) if leaf is not None]
    seeds = [Tensor._make(np.ones(t._data.shape, t._data.dtype)) if g is None else g
             for t, g in zip(targets, output_gradients or [None] * len(targets))]
    grads = list(reverse_pass(tape, list(targets), wanted, seeds))
    if len(grads) != len(wanted):
        raise RuntimeError(f"the reverse pass {getattr(reverse_pass, '__name__', reverse_pass)!r} returned "
                           f"{len(grads)} gradients for {len(wanted)} sources")
    if release:
        consumed = ConsumedPass(producer)
        with tape_lock:
            taken = [op_id for op_id in sorted(entries, reverse=True) if tape.op_tape.pop(op_id, None) is not None]
            tape.release([(entries[op_id], op_id) for op_id in taken], consumed)  # consumers first, as the built-in pass
    if not collect_leaves:
        return grads
    finished = {t._id: g for t, g in zip(wanted, grads) if g is not None and t._id in leaves}
    if leaf_ready is None:
        return finished
    for tid, grad in finished.items():
        leaf_ready(tid, grad)
    return {}


def _run_backward_function(entry, needs, out_grads):
    """The backward function with what is switched on around it: grad_fn hooks, anomaly checks."""
    if switches.check_anomalies:
        def run(needs, out_grads):
            return anomaly.run_backward(entry, needs, out_grads)
    else:
        run = entry.backward_function
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
    grad = pending[0] if len(pending) == 1 else _aggregate(pending, tensor_id)
    if hooks.tensor_hooks or hooks.retaining or orphaned_hooks:
        grad = hooks.apply(tensor_id, grad)
    return grad


def _prepare_backprop(tape, targets, release):
    """Filters the tape to what the targets need and counts tensor usages.

    The walk goes through sources too: a source may itself depend on another
    source (the gradient of x must count the path through h = f(x))."""
    tensor_tape, op_tape = tape.tensor_tape, tape.op_tape
    usage = {}  # tensor id -> how many filtered ops read it
    entries = {}  # op id -> entry, every op the targets depend on
    producer = {}  # tensor id -> op id (-1: watched), for every tensor on the tape the pass meets
    leaves = set()
    stack = [t._id for t in targets]
    while stack:
        tid = stack.pop()
        op_id = tensor_tape.get(tid)
        if op_id is None:
            continue
        producer[tid] = op_id
        if op_id == -1:
            leaves.add(tid)
            continue
        if op_id in entries:
            continue
        entry = op_tape.pop(op_id, None) if release else op_tape.get(op_id)
        if entry is None:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors "
                "after they have already been freed). Specify retain_graph=True (or use a persistent "
                "GradientTape) if you need to backward through the graph a second time."
            )
        entries[op_id] = entry
        for input_id in entry.input_ids:
            if input_id in usage:
                usage[input_id] += 1
            else:
                usage[input_id] = 1
                stack.append(input_id)
    return usage, entries, producer, leaves


def _keep_paths_to_sources(entries, producer, source_ids, release_from, consumed):
    """Drops from `entries` the ops no source flows into (their gradients would be thrown away),
    releasing them from the tape `release_from` if given. Returns the usage counts of the ops
    kept and the ids of the tensors whose gradient is wanted: the sources and what the kept ops
    produce."""
    readers = {}  # tensor id -> the ops that read it
    for op_id, entry in entries.items():
        for tid in entry.input_ids:
            readers.setdefault(tid, []).append(op_id)
    kept, stack = set(), [tid for tid in source_ids if tid in producer]
    while stack:
        for op_id in readers.get(stack.pop(), ()):
            if op_id not in kept:
                kept.add(op_id)
                stack.extend(entries[op_id].output_ids)
    usage, wanted, dropped = {}, set(source_ids), []
    for op_id in list(entries):
        if op_id not in kept:
            dropped.append((entries.pop(op_id), op_id))
            continue
        wanted.update(entries[op_id].output_ids)
        for tid in entries[op_id].input_ids:
            usage[tid] = usage.get(tid, 0) + 1
    if release_from is not None and dropped:
        release_from.release(dropped, consumed)
    return usage, wanted


def _initial_gradients(targets, output_gradients):
    gradients = {}
    for i, target in enumerate(targets):
        grad = None if output_gradients is None else output_gradients[i]
        if grad is None:
            grad = Tensor._make(np.ones(target._data.shape, target._data.dtype))
        gradients.setdefault(target._id, []).append(grad)
    return gradients


def _output_gradients(entry, gradients):
    """One gradient per output of `entry`: summed, or zeros, or None where accepted."""
    if len(entry.output_ids) == 1:  # the common case
        tid = entry.output_ids[0]
        pending = gradients.pop(tid, None)
        if pending:
            return [_complete(pending, tid)]
    accepts_none = entry.backward_function.op_def.accepts_none
    grads = []
    last_info = last_zeros = None  # consecutive outputs often share shape and dtype
    for i, tid in enumerate(entry.output_ids):
        pending = gradients.pop(tid, None)
        if pending:
            grads.append(_complete(pending, tid))
        elif i in accepts_none:
            grads.append(None)
        else:
            info = entry.output_info[i]
            if info != last_info:
                last_info, last_zeros = info, Tensor._make(np.zeros(*info))
            grads.append(last_zeros)
    return grads


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

