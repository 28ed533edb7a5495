"""Looking at what the engine recorded: tape listings, Graphviz DOT text and a PNG drawing.

The tapes keep ids, shapes and backward functions (autograd/tape.py); this
file turns them into something a student can read:

    listing(x)      one line per recorded op: op id, op type, inputs -> outputs
                    (short tensor names with shapes), what the backward function
                    keeps (the op tables of ops/registry.py decide)
    to_dot(x)       the same graph as Graphviz DOT text (tensor and op nodes, edges)
    draw(x, path)   the same graph as a PNG, drawn with matplotlib alone
    capture()       a `with` block that records the graph as it is built and,
                    during backward passes, the order in which the backward
                    functions ran and the gradient norms

`x` is a Tensor (the ops upstream of it on the autograd tape, or on an active
GradientTape), a GradientTape or a Tape (all its entries), or a Graph made by
capture(). A static view shows what the tape holds now: backward() without
retain_graph releases the entries it ran, so to see a graph after its
backward pass, capture it. capture() listens to the tracing hook points
(autograd/trace.py), so the engine pays nothing when no capture is open.
"""
import contextlib

import numpy as np

__all__ = ["Graph", "capture", "draw", "listing", "to_dot"]


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


def _from_tape(tape, title):
    graph = Graph(title)
    for op_id in sorted(tape.op_tape):
        _entry_op(graph, tape, op_id, tape.op_tape[op_id])
    graph._finish_kinds(tape.watched)
    _watched_grads(graph, tape)
    return graph


def _tape_holding(tensor):
    from .autograd import tape_set
    from .autograd.autograd_tape import AUTOGRAD_TAPE

    for tape in [AUTOGRAD_TAPE] + list(tape_set.active_tapes):
        if tensor._id in tape.tensor_tape:
            return tape
    return None


def _from_tensor(tensor):
    from .autograd.autograd_tape import AUTOGRAD_TAPE

    tape = _tape_holding(tensor)
    kind = "autograd tape" if tape is AUTOGRAD_TAPE else "tape"
    graph = Graph(f"graph of a tensor of shape {tuple(tensor.shape)}" + (f" on {kind} {tape.serial}" if tape else ""))
    if tape is None:
        graph._tensor(tensor._id, tensor._data.shape, tensor._data.dtype)
        graph._finish_kinds()
        graph.notes.append("no tape recorded how this tensor was made (does anything it came from require grad?)")
        return graph
    op_ids, stack, seen = set(), [tensor._id], set()
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
        op_ids.add(op_id)
        stack.extend(entry.input_ids)
    for op_id in sorted(op_ids):
        _entry_op(graph, tape, op_id, tape.op_tape[op_id])
    graph._tensor(tensor._id, tensor._data.shape, tensor._data.dtype)
    graph._finish_kinds(tape.watched)
    _watched_grads(graph, tape)
    return graph


def _as_graph(obj):
    from .autograd.gradient_tape import GradientTape
    from .autograd.tape import Tape
    from .tensor import Tensor

    if isinstance(obj, Graph):
        return obj
    if isinstance(obj, Tensor):
        return _from_tensor(obj)
    if isinstance(obj, GradientTape):
        if obj._tape is None:
            graph = Graph("GradientTape")
            graph.notes.append("nothing recorded (a non-persistent tape is cleared by gradient())")
            return graph
        return _from_tape(obj._tape, f"GradientTape (tape {obj._tape.serial})")
    if isinstance(obj, Tape):
        return _from_tape(obj, f"tape {obj.serial}")
    raise TypeError(f"minitorch.viz expects a Tensor, a GradientTape, a Tape or a Graph, got {type(obj).__name__}")


# ----- capture: the graph as it is built, and the backward passes -----

class _Recorder:
    """A trace listener (autograd/trace.py) that fills a Graph."""

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
    from .autograd import trace

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
    lead = array.ndim - len(shape)
    if lead > 0:
        array = array.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and array.shape[i] != 1)
    if axes:
        array = array.sum(axis=axes, keepdims=True)
    return array.reshape(shape)


def _norm(array):
    return float(np.sqrt(np.sum(np.square(array, dtype=np.float64))))


# ----- the three views -----

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
    graph = _as_graph(obj)
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


def _tensor_label(name, node):
    text = f"{name}\n{_shape(node.shape)} {node.dtype}"
    if node.grad_norm is not None:
        text += f"\n|grad| {node.grad_norm:.4g}"
    return text


def _op_label(op):
    text = f"{op.op_type}\nkeeps {op.keeps}"
    if op.backward_steps:
        text += "\nbackward " + " ".join(f"#{s}" for s in op.backward_steps)
    return text


def to_dot(obj, names=None):
    """Graphviz DOT text of the graph: tensor nodes (name, shape, dtype, gradient norm), op nodes, edges.

    Tensor nodes are `t0`, `t1`, ... (labelled with their names), op nodes
    `op0`, `op1`, ... in recording order; edges run input -> op -> output.
    Render with Graphviz (`dot -Tpng`) if you have it, or use draw().

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> print(mt.viz.to_dot((x * x).sum(), names={"x": x}))
    digraph minitorch {
      node [fontname="Helvetica", fontsize=10];
      t0 [shape=ellipse, style=filled, fillcolor="#d9f2d9", label="x\\n(2,) float32"];
      t1 [shape=ellipse, style=filled, fillcolor="#ffffff", label="t0\\n(2,) float32"];
      t2 [shape=ellipse, style=filled, fillcolor="#fff3c4", label="t1\\n() float32"];
      op0 [shape=box, style="rounded,filled", fillcolor="#dbe8f6", label="Mul\\nkeeps inputs"];
      op1 [shape=box, style="rounded,filled", fillcolor="#dbe8f6", label="Sum\\nkeeps nothing"];
      t0 -> op0;
      t0 -> op0;
      op0 -> t1;
      t1 -> op1;
      op1 -> t2;
    }
    """
    graph = _as_graph(obj)
    label = graph.names(names)
    node_id = {tid: f"t{i}" for i, tid in enumerate(graph.tensors)}
    targets = set(graph.targets())
    lines = ["digraph minitorch {", '  node [fontname="Helvetica", fontsize=10];']
    for tid, node in graph.tensors.items():
        color = _tensor_color(node, tid in targets)
        lines.append(f'  {node_id[tid]} [shape=ellipse, style=filled, fillcolor="{color}", label="{_dot_escape(_tensor_label(label[tid], node))}"];')
    for op in graph.ops:
        color = _OP_RAN_COLOR if op.backward_steps else _OP_COLOR
        lines.append(f'  op{op.index} [shape=box, style="rounded,filled", fillcolor="{color}", label="{_dot_escape(_op_label(op))}"];')
    for op in graph.ops:
        lines += [f"  {node_id[tid]} -> op{op.index};" for tid in op.input_ids]
        lines += [f"  op{op.index} -> {node_id[tid]};" for tid in op.output_ids]
    for note in dict.fromkeys(graph.notes):
        lines.append(f"  // note: {note}")
    lines.append("}")
    return "\n".join(lines)


_OP_COLOR, _OP_RAN_COLOR = "#dbe8f6", "#f9d9b8"


def _tensor_color(node, is_target):
    if is_target:
        return "#fff3c4"
    return {"leaf": "#d9f2d9", "constant": "#eeeeee"}.get(node.kind, "#ffffff")


def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _layers(graph):
    """Node -> depth from the target: the longest path down to a tensor nothing reads.

    Nodes are ("t", tensor id) and ("op", op index). Ops are in recording
    order, which is topological, so one sweep from the last op back suffices.
    """
    depth = {("t", tid): 0 for tid in graph.tensors}
    for op in reversed(graph.ops):
        node = ("op", op.index)
        depth[node] = max(depth[("t", tid)] for tid in op.output_ids) + 1
        for tid in op.input_ids:
            depth[("t", tid)] = max(depth[("t", tid)], depth[node] + 1)
    return depth


def _positions(graph, depth):
    """x, y per node: layers bottom (target) to top, each ordered by its successors' mean x."""
    successors = {}
    for op in graph.ops:
        for tid in op.input_ids:
            successors.setdefault(("t", tid), []).append(("op", op.index))
        successors[("op", op.index)] = [("t", tid) for tid in op.output_ids]
    appearance = {node: i for i, node in enumerate(
        [("t", tid) for tid in graph.tensors] + [("op", op.index) for op in graph.ops])}
    by_layer = {}
    for node, d in depth.items():
        by_layer.setdefault(d, []).append(node)
    position = {}
    for d in sorted(by_layer):
        def key(node):
            xs = [position[s][0] for s in successors.get(node, ()) if s in position]
            return (sum(xs) / len(xs) if xs else 0.0, appearance[node])
        layer = sorted(by_layer[d], key=key)
        for i, node in enumerate(layer):
            position[node] = ((i - (len(layer) - 1) / 2) * 2.2, float(d))
    return position, max(len(layer) for layer in by_layer.values()) if by_layer else 1


def draw(obj, path, names=None, dpi=120):
    """Draws the graph to a PNG at `path` with matplotlib alone (no Graphviz); returns `path`.

    A layered layout: the target at the bottom, each node one layer above the
    node it feeds, inputs at the top; arrows follow the forward pass. Leaves
    are green, the target yellow, ops blue (orange once their backward
    function ran, with its step number); tensors show their gradient norm
    when it is known.

    >>> import os, tempfile
    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> path = mt.viz.draw((x * x).sum(), os.path.join(tempfile.mkdtemp(), "graph.png"))
    >>> open(path, "rb").read(8) == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    graph = _as_graph(obj)
    label = graph.names(names)
    depth = _layers(graph)
    position, widest = _positions(graph, depth)
    top = max(depth.values(), default=0)
    figure = Figure(figsize=(max(4.0, 1.9 * widest + 0.6), max(2.5, 0.95 * (top + 1) + 0.9)))
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0, 0, 1, 0.92 if graph.title else 1))
    axes.set_axis_off()
    half_width = 1.1 * widest + 0.2
    axes.set_xlim(-half_width, half_width)
    axes.set_ylim(-0.6, top + 0.6)
    targets = set(graph.targets())
    boxes = {}
    for tid, node in graph.tensors.items():
        x, y = position[("t", tid)]
        boxes[("t", tid)] = axes.text(x, y, _tensor_label(label[tid], node), ha="center", va="center", fontsize=7,
                                      bbox=dict(boxstyle="round,pad=0.4", fc=_tensor_color(node, tid in targets), ec="#555555"))
    for op in graph.ops:
        x, y = position[("op", op.index)]
        color = _OP_RAN_COLOR if op.backward_steps else _OP_COLOR
        boxes[("op", op.index)] = axes.text(x, y, _op_label(op), ha="center", va="center", fontsize=7, fontweight="bold",
                                            bbox=dict(boxstyle="square,pad=0.4", fc=color, ec="#2b4c7e"))
    for op in graph.ops:
        edges = [(("t", tid), ("op", op.index)) for tid in op.input_ids] + [(("op", op.index), ("t", tid)) for tid in op.output_ids]
        for start, end in edges:
            axes.annotate("", xy=position[end], xytext=position[start],
                          arrowprops=dict(arrowstyle="-|>", color="#444444", lw=0.8, shrinkA=0, shrinkB=0,
                                          patchA=boxes[start].get_bbox_patch(), patchB=boxes[end].get_bbox_patch()))
    if graph.title:
        figure.suptitle(graph.title, fontsize=9)
    figure.savefig(path, dpi=dpi)
    return path
