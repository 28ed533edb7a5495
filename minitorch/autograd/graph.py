"""What a tape holds, as a graph a student can read: the data behind mt.viz.

    Graph       ops in recording order and the tensors they read and wrote,
                made from a tensor (the ops upstream of it), a tape (all its
                entries), or captured as the program runs (`capture()`)
    listing(x)  one line per recorded op: op id, op type, inputs -> outputs
                (short tensor names with shapes), what the backward function
                keeps (the op table decides), and gradients when known

A static view shows what the tape holds now: backward() without
retain_graph releases the entries it ran, so to see a graph after its
backward pass, capture it. capture() listens to the tracing hook points
(engine/trace.py), so the engine pays nothing when no capture is open.
Drawings (DOT text, PNG) are in minitorch/viz.py.
"""
import contextlib

import numpy as np

from ..engine import trace
from ..engine.autograd_tape import AUTOGRAD_TAPE
from ..engine.backprop import broadcast_axes
from ..engine.state import active_tapes, tape_lock
from ..engine.tape import Tape
from ..tensor import Tensor

class TensorNode:
    """A tensor as the graph knows it: id, shape, dtype, and its gradient norm once known."""

    __slots__ = ("tensor_id", "shape", "dtype", "kind", "grad_norm", "_grad_sum")

    def __init__(self, tensor_id, shape, dtype):
        self.tensor_id = tensor_id
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.kind = "computed"  # or "leaf" (watched: a gradient can be asked for) or "constant"
        self.grad_norm = None
        self._grad_sum = None  # leaves: the gradients their consumers sent, summed over the passes


class OpNode:
    """One recorded op: `index` in the graph, `op_id` on its tape, and the backward steps it ran at."""

    __slots__ = ("index", "op_id", "op_type", "input_ids", "output_ids", "keeps", "tapes", "backward_steps")

    def __init__(self, index, op_id, op_type, input_ids, output_ids, keeps, tapes):
        self.index = index
        self.op_id = op_id
        self.op_type = op_type
        self.input_ids = tuple(input_ids)
        self.output_ids = tuple(output_ids)
        self.keeps = keeps
        self.tapes = tuple(tapes)
        self.backward_steps = []


class Graph:
    """Ops in recording order and the tensors they read and wrote.

    Made by `capture()`, or internally from a tensor or a tape. `print(graph)`
    shows its listing.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> with mt.viz.capture() as graph:
    ...     y = (x * x).sum()
    ...     y.backward()
    >>> [op.op_type for op in graph.ops], [graph.ops[i].op_type for i in graph.backward_order]
    (['Mul', 'Sum'], ['Sum', 'Mul'])
    """

    def __init__(self, title="graph"):
        self.title = title
        self.ops = []
        self.tensors = {}  # tensor id -> TensorNode, in order of first appearance
        self.backward_order = []  # op indices, in the order their backward functions ran
        self.aggregations = []  # (tensor id, how many gradients were summed)
        self.notes = []

    def _tensor(self, tensor_id, shape, dtype):
        node = self.tensors.get(tensor_id)
        if node is None:
            node = self.tensors[tensor_id] = TensorNode(tensor_id, shape, dtype)
        return node

    def _add_op(self, op_id, op_type, inputs, outputs, keeps, tapes=()):
        """inputs/outputs: (tensor id, shape, dtype) triples."""
        for tid, shape, dtype in list(inputs) + list(outputs):
            self._tensor(tid, shape, dtype)
        op = OpNode(len(self.ops), op_id, op_type, [i[0] for i in inputs], [o[0] for o in outputs], keeps, tapes)
        self.ops.append(op)
        return op

    def _finish_kinds(self, watched=()):
        produced = {tid for op in self.ops for tid in op.output_ids}
        for tid, node in self.tensors.items():
            if tid not in produced:
                node.kind = "leaf" if tid in watched or node._grad_sum is not None else "constant"

    def names(self, names=None):
        """Tensor id -> display name: the given {name: Tensor} first, then t0, t1, ... by first appearance."""
        given = {t._id: label for label, t in (names or {}).items()}
        result, counter = {}, 0
        for tid in self.tensors:
            if tid in given:
                result[tid] = given[tid]
            else:
                result[tid] = f"t{counter}"
                counter += 1
        return result

    def targets(self):
        """Tensor ids no op of the graph reads: where the graph ends."""
        read = {tid for op in self.ops for tid in op.input_ids}
        return [tid for tid in self.tensors if tid not in read]

    def __str__(self):
        return listing(self)

    def __repr__(self):
        return f"<Graph {self.title!r}: {len(self.ops)} ops, {len(self.tensors)} tensors, {len(self.backward_order)} backward calls>"


# ----- building a graph from what a tape holds now -----

def _keeps(backward_function):
    kept = [what for what, value in (("inputs", backward_function._inputs), ("outputs", backward_function._saved_outputs))
            if value is not None]
    return " and ".join(kept) or "nothing"


def _entry_op(graph, tape, op_id, entry):
    inputs = [(tid, shape, dtype) for tid, (shape, dtype) in zip(entry.input_ids, entry.input_info)]
    outputs = [(tid, shape, dtype) for tid, (shape, dtype) in zip(entry.output_ids, entry.output_info)]
    return graph._add_op(op_id, entry.op_type, inputs, outputs, _keeps(entry.backward_function), (tape.serial,))


def _watched_grads(graph, tape):
    """Leaves a tape watches whose tensors are alive: their `.grad` norms."""
    for tid, node in graph.tensors.items():
        ref = tape.watched.get(tid)
        tensor = ref() if ref is not None else None
        if tensor is not None and getattr(tensor, "grad", None) is not None:
            node.grad_norm = _norm(tensor.grad._data)


def from_tape(tape, title):
    graph = Graph(title)
    with tape_lock:  # other threads may be recording on it (docs/ARCHITECTURE.md, "Threads")
        entries = sorted(tape.op_tape.items(), key=lambda item: item[0])
    for op_id, entry in entries:
        _entry_op(graph, tape, op_id, entry)
    graph._finish_kinds(tape.watched)
    _watched_grads(graph, tape)
    return graph


def _tape_holding(tensor):
    for tape in [AUTOGRAD_TAPE] + list(active_tapes):
        if tensor._id in tape.tensor_tape:
            return tape
    return None


def from_tensor(tensor):
    tape = _tape_holding(tensor)
    kind = "autograd tape" if tape is AUTOGRAD_TAPE else "tape"
    graph = Graph(f"graph of a tensor of shape {tuple(tensor.shape)}" + (f" on {kind} {tape.serial}" if tape else ""))
    if tape is None:
        graph._tensor(tensor._id, tensor._data.shape, tensor._data.dtype)
        graph._finish_kinds()
        graph.notes.append("no tape recorded how this tensor was made (does anything it came from require grad?)")
        return graph
    entries, stack, seen = {}, [tensor._id], set()
    while stack:
        tid = stack.pop()
        if tid in seen:
            continue
        seen.add(tid)
        op_id = tape.tensor_tape.get(tid)
        if op_id is None or op_id == -1:
            continue
        entry = tape.op_tape.get(op_id)
        if entry is None:
            graph.notes.append("part of the graph was released by a backward pass: use retain_graph=True, or mt.viz.capture()")
            continue
        entries[op_id] = entry
        stack.extend(entry.input_ids)
    for op_id in sorted(entries):
        _entry_op(graph, tape, op_id, entries[op_id])
    graph._tensor(tensor._id, tensor._data.shape, tensor._data.dtype)
    graph._finish_kinds(tape.watched)
    _watched_grads(graph, tape)
    return graph


def as_graph(obj):
    """A Graph of `obj`: a Graph itself, a Tensor (the ops upstream of it) or an engine Tape."""
    if isinstance(obj, Graph):
        return obj
    if isinstance(obj, Tensor):
        return from_tensor(obj)
    if isinstance(obj, Tape):
        return from_tape(obj, f"tape {obj.serial}")
    raise TypeError(f"minitorch.viz expects a Tensor, a GradientTape, a Tape or a Graph, got {type(obj).__name__}")


# ----- capture: the graph as it is built, and the backward passes -----

class _Recorder:
    """A trace listener (engine/trace.py) that fills a Graph."""

    def __init__(self, graph):
        self.graph = graph
        self.producer = {}  # tensor id -> op index, for ops recorded in the block

    def recorded(self, op_name, inputs, results, tapes, keeps):
        describe = [(t._id, t._data.shape, t._data.dtype) for t in inputs]
        outputs = [(t._id, t._data.shape, t._data.dtype) for t in results]
        op = self.graph._add_op(None, op_name, describe, outputs, keeps, [tape.serial for tape in tapes])
        for tid, _, _ in outputs:
            self.producer[tid] = op.index

    def backward_call(self, entry, out_grads, in_grads, needs):
        graph = self.graph
        index = self.producer.get(entry.output_ids[0])
        if index is None:  # recorded before the block began: take it from the tape entry
            op = graph._add_op(None, entry.op_type,
                               [(tid, s, d) for tid, (s, d) in zip(entry.input_ids, entry.input_info)],
                               [(tid, s, d) for tid, (s, d) in zip(entry.output_ids, entry.output_info)],
                               _keeps(entry.backward_function))
            for tid in entry.output_ids:
                self.producer[tid] = op.index
            index = op.index
        graph.backward_order.append(index)
        graph.ops[index].backward_steps.append(len(graph.backward_order))
        for tid, grad in zip(entry.output_ids, out_grads):
            if grad is not None:
                graph.tensors[tid].grad_norm = _norm(grad._data)
        for tid, grad, needed, (shape, _) in zip(entry.input_ids, in_grads, needs, entry.input_info):
            if grad is None or not needed or tid in self.producer:
                continue
            node = graph.tensors[tid]
            summed = _sum_to_shape(np.asarray(grad._data, dtype=np.float64), shape)
            node._grad_sum = summed if node._grad_sum is None else node._grad_sum + summed
            node.grad_norm = _norm(node._grad_sum)

    def aggregated(self, tensor_id, count):
        self.graph.aggregations.append((tensor_id, count))


@contextlib.contextmanager
def capture(title="captured graph"):
    """Records, for the block, every op a tape records and every backward call.

    Yields a Graph that fills as the block runs; after a backward pass it
    knows the order in which the backward functions ran and the norm of
    every gradient (a leaf's is summed over the passes in the block). Ops the
    reverse pass records (create_graph=True, nested tapes) join the graph too.

    >>> w = mt.tensor([3.0, 4.0], requires_grad=True)
    >>> with mt.viz.capture() as graph:
    ...     loss = (w * w).sum()
    ...     loss.backward()
    >>> print(graph)
    captured graph: 2 ops
    op  type  inputs         -> outputs  keeps    backward
    0   Mul   t0(2,) t0(2,)  -> t1(2,)   inputs   #2
    1   Sum   t1(2,)         -> t2()     nothing  #1
    gradients:
    t0  (2,)  float32  leaf      |grad| 10
    t1  (2,)  float32  computed  |grad| 1.414
    t2  ()    float32  computed  |grad| 1
    summed 2 gradients of t0
    """
    graph = Graph(title)
    recorder = _Recorder(graph)
    trace.add_listener(recorder)
    try:
        yield graph
    finally:
        trace.remove_listener(recorder)
        graph._finish_kinds()


def _sum_to_shape(array, shape):
    """A broadcast gradient summed back to its input's shape (compute_gradient does this after tracing)."""
    return array.sum(axis=broadcast_axes(array.shape, shape)).reshape(shape)


def _norm(array):
    return float(np.sqrt(np.sum(np.square(array, dtype=np.float64))))



def _shape(shape):
    return str(tuple(shape))


def _table(rows):
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(map(len, rows)))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]


def listing(obj, names=None):
    """A table of the recorded ops: op id, op type, inputs -> outputs, what the backward function keeps.

    `obj` is a Tensor, a GradientTape, a Tape or a captured Graph. Tensors get
    short names t0, t1, ... in order of first appearance (the ones in `names`,
    a dict {name: Tensor}, get theirs). When gradients are known (a captured
    backward pass, or `.grad` of watched leaves) they are listed with norms.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> w = mt.tensor([3.0, 4.0], requires_grad=True)
    >>> y = (x * w + x).sum()
    >>> print(mt.viz.listing(y, names={"x": x, "w": w}))  # doctest: +ELLIPSIS
    graph of a tensor of shape () on autograd tape ...: 3 ops
    op  type  inputs        -> outputs  keeps
    ... Mul   x(2,) w(2,)   -> t0(2,)   inputs
    ... Add   t0(2,) x(2,)  -> t1(2,)   nothing
    ... Sum   t1(2,)        -> t2()     nothing
    """
    graph = as_graph(obj)
    label = graph.names(names)
    ran_backward = bool(graph.backward_order)
    lines = [f"{graph.title}: {len(graph.ops)} ops"]
    header = ["op", "type", "inputs", "-> outputs", "keeps"] + (["backward"] if ran_backward else [])
    rows = [header]
    for op in graph.ops:
        ins = " ".join(f"{label[t]}{_shape(graph.tensors[t].shape)}" for t in op.input_ids)
        outs = " ".join(f"{label[t]}{_shape(graph.tensors[t].shape)}" for t in op.output_ids)
        row = [str(op.index if op.op_id is None else op.op_id), op.op_type, ins, "-> " + outs, op.keeps]
        if ran_backward:
            row.append(" ".join(f"#{s}" for s in op.backward_steps) or "-")
        rows.append(row)
    if graph.ops:
        lines += _table(rows)
    with_grads = [(tid, node) for tid, node in graph.tensors.items() if node.grad_norm is not None]
    if with_grads:
        lines.append("gradients:")
        lines += _table([[label[tid], _shape(node.shape), str(node.dtype), node.kind, f"|grad| {node.grad_norm:.4g}"]
                         for tid, node in with_grads])
    for tid, count in graph.aggregations:
        lines.append(f"summed {count} gradients of {label.get(tid, '?')}")
    lines += [f"note: {note}" for note in dict.fromkeys(graph.notes)]
    return "\n".join(lines)
