"""Looking at what the engine recorded: tape listings, Graphviz DOT text and a PNG drawing.

The tapes keep ids, shapes and backward functions (engine/tape.py);
autograd/graph.py turns them into a Graph, and this file shows it:

    listing(x)      one line per recorded op: op id, op type, inputs -> outputs
                    (short tensor names with shapes), what the backward function
                    keeps (the op table, engine/registry.py, decides)
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
(engine/trace.py), so the engine pays nothing when no capture is open.
"""
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .autograd import graph as graph_module
from .autograd.gradient_tape import GradientTape
from .autograd.graph import Graph, capture

__all__ = ["Graph", "capture", "draw", "listing", "to_dot"]


def _as_graph(obj):
    if isinstance(obj, GradientTape):
        if obj._tape is None:
            graph = Graph("GradientTape")
            graph.notes.append("nothing recorded (a non-persistent tape is cleared by gradient())")
            return graph
        return graph_module.from_tape(obj._tape, f"GradientTape (tape {obj._tape.serial})")
    return graph_module.as_graph(obj)


def listing(obj, names=None):
    return graph_module.listing(_as_graph(obj), names)


listing.__doc__ = graph_module.listing.__doc__


def _shape(shape):
    return str(tuple(shape))


# ----- the three views -----

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
