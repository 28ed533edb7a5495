"""A reverse pass replayed on a recorded graph without touching it: the data of mt.viz.explore.

    replay(target)   the Graph upstream of `target` (graph.py: every value the tape kept,
                     in full), with one Step per backward call of a reverse pass from
                     `target`: the gradient that arrived at the op, the ones it sent

The engine's reverse pass (compute_gradient) runs over the tape that holds
`target` without releasing anything (as a persistent tape's pass does), with
a capture listener (graph.py's _Recorder) on the tracing hooks
(engine/trace.py): the gradients are the ones the op table's gradient
functions computed, in the order the engine ran them. The user's graph is not
consumed (a later backward() works), and no `.grad` is written: the leaves'
gradients are what the pass returned, which is what backward() would add.
Hooks registered with register_hook run, as in backward(); retain_grad's
keeping is held back for the pass (it would write `.grad`).
"""
import contextlib

from ..engine import hooks, trace
from ..engine.backprop import compute_gradient
from ..engine.state import no_grad, tape_lock
from ..engine.tape import history
from ..tensor import Tensor
from .graph import _Recorder, _tape_holding, from_tensor, group_by_module

FREED_GRAPH = ("backward() already freed the graph of this tensor: call explore before backward(), or "
         "backward(retain_graph=True)")


@contextlib.contextmanager
def _retain_grad_held_back():
    """retain_grad() writes `.grad` during any pass; for the block it does not (its table is emptied in place)."""
    with tape_lock:
        held = dict(hooks.retaining)
        hooks.retaining.clear()
    try:
        yield
    finally:
        with tape_lock:
            hooks.retaining.update(held)


def replay(target, names=None, sources=None, group_by=None):
    """The Graph of `target` with every value the tape kept and a Step per backward call of a reverse pass from it.

    `sources=None` gives every leaf that requires grad its gradient, as backward() does; a list of
    tensors gives them theirs, as autograd.grad(target, sources) does. The graph's `leaf_ids`
    are the tensors given a gradient. `group_by=model` tags each op with its nn.Module.

    >>> a, b = mt.tensor(2.0, requires_grad=True), mt.tensor(-3.0, requires_grad=True)
    >>> graph = replay(a * b + a)
    >>> [graph.ops[step.op].op_type for step in graph.steps], graph.tensors[a._id].grad_array
    (['Add', 'Mul'], array(-2., dtype=float32))
    >>> a.grad is None
    True
    """
    if not isinstance(target, Tensor):
        raise TypeError(f"explore: the target must be a Tensor, got {type(target).__name__}")
    if target._data.size != 1:
        raise RuntimeError(f"explore: the target must hold one number, as for backward() (its shape is "
                           f"{tuple(target.shape)}): reduce it first, e.g. .sum()")
    for i, source in enumerate(sources or ()):
        if not isinstance(source, Tensor) or not source._requires_grad:
            raise RuntimeError(f"explore: source {i} is not a Tensor that requires grad")
    tape = _tape_holding(target)
    if tape is None or target._node is None or tape not in target._node.tapes:
        raise RuntimeError("explore: no tape recorded how this tensor was made (does anything it came from "
                           "require grad?)")
    graph = from_tensor(target, names, keep_values=True)
    graph.title = "reverse pass"
    try:
        history(tape, [target], refuse_released=True)
    except RuntimeError:
        raise RuntimeError(f"explore: {FREED_GRAPH}") from None
    if group_by is not None:
        group_by_module(graph, group_by)
    recorder = _Recorder(graph)
    recorder.producer = {tid: op.index for op in graph.ops for tid in op.output_ids}
    trace.add_listener(recorder)
    try:
        with no_grad(), _retain_grad_held_back():
            if sources is None:
                found = compute_gradient(tape, [target], [], collect_leaves=True)
                leaves = {tid: tape.watched[tid]() for tid in found if tid in tape.watched}
                results = {tid: grad for tid, grad in found.items()
                           if leaves.get(tid) is not None and leaves[tid]._requires_grad}
            else:
                grads = compute_gradient(tape, [target], list(sources))
                results = {s._id: g for s, g in zip(sources, grads) if g is not None}
    finally:
        trace.remove_listener(recorder)
    for tid, grad in results.items():
        graph.tensors[tid].set_grad(grad._data)
    graph.source_ids = list(results)
    graph._finish_kinds()
    return graph
