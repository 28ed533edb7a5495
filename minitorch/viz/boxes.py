"""A picture of a graph, as data: what draw() and to_dot() show, and what the tests read.

One Box per tensor and per op, in recording order:

    tensor  its name (as the trace calls it, or a given or parameter name), its shape
            (and dtype unless float32), its value and its gradient when known: every
            value, signed, when the tensor has at most 6 elements; else min/mean/max
    op      its name, the backward step it ran at, what its backward function keeps;
            side outputs that nothing reads (batch-norm statistics, max-pool
            indices) are listed in their op's box instead of getting boxes of their own

Edges run in the forward direction. Each box has a style (its colour, explained
by the legend) and, with `group_by=model`, the nn.Module it belongs to.
"""
import textwrap

import numpy as np

from ..autograd import graph as graph_module
from ..autograd.gradient_tape import GradientTape
from ..autograd.graph import OUTPUT_ROLES, Graph

# Box styles: (legend text, fill colour). The legend lists the styles a picture uses.
STYLES = {
    "leaf": ("leaf: requires grad", "#d9f2d9"),
    "constant": ("constant: no gradient", "#eeeeee"),
    "computed": ("computed tensor", "#ffffff"),
    "output": ("output: backward starts here", "#fff3c4"),
    "op": ("op: what its backward keeps", "#dbe8f6"),
    "op ran": ("op whose backward ran (#step)", "#f9d9b8"),
    "module": ("nn.Module (group_by)", "none"),
}
WRAP = 46  # characters per line in a box
DIGITS = 3  # significant digits of the min/mean/max of large tensors (small ones show 4)


def as_graph(obj, names=None, group_by=None):
    """The Graph of what mt.viz is given: a Graph, a Tensor, a GradientTape or a Tape (see autograd/graph.py).

    >>> x = mt.tensor([1.0], requires_grad=True)
    >>> [op.op_type for op in as_graph(x * 2).ops]
    ['Mul']
    """
    if isinstance(obj, GradientTape):
        if obj._tape is None:
            graph = Graph("GradientTape")
            graph.notes.append("nothing recorded (a non-persistent tape is cleared by gradient())")
        else:
            graph = graph_module.from_tape(obj._tape, f"GradientTape (tape {obj._tape.serial})", names)
    else:
        graph = graph_module.from_recorded(obj, names)
    if group_by is not None:
        graph_module.group_by_module(graph, group_by)
    return graph


# ----- the picture, as data -----

class Box:
    """One node of a picture: `key` ("t", tensor id) or ("op", op index), its text lines, its style, its module."""

    __slots__ = ("key", "lines", "style", "group")

    def __init__(self, key, lines, style, group=None):
        self.key, self.lines, self.style, self.group = key, lines, style, group

    def __repr__(self):
        return f"<Box {self.style}: {' | '.join(self.lines)}>"


class Picture:
    """What a drawing shows: boxes, edges (forward direction), module groups, legend entries, notes.

    >>> x = mt.tensor([2.0, -1.0], requires_grad=True)
    >>> with mt.viz.capture() as graph:
    ...     y = (x * 3).sum()
    ...     y.backward()
    >>> pic = mt.viz.picture(graph, names={"x": x, "y": y})
    >>> pic.box(x).lines
    ['x  (2,)', 'value [2, -1]', 'grad  [3, 3]']
    >>> [label for label, colour in pic.legend]
    ['leaf: requires grad', 'constant: no gradient', 'computed tensor', 'output: backward starts here', 'op whose backward ran (#step)']
    """

    def __init__(self, title):
        self.title = title
        self.boxes = {}  # key -> Box, in drawing order
        self.edges = []  # (from key, to key), each once
        self.groups = {}  # module name -> its label ("features.0  Conv2d"); "" is the model
        self.legend = []  # (text, colour) for the styles used
        self.notes = []

    def box(self, tensor):
        """The box of a Tensor (by its id)."""
        return self.boxes[("t", tensor._id)]

    def op_boxes(self, op_type):
        """The boxes of the ops of one type, in recording order."""
        return [box for key, box in self.boxes.items() if key[0] == "op" and box.lines[0].split()[0] == op_type]


def _shape_text(node):
    dtype = "" if node.dtype == np.float32 else f" {node.dtype}"
    return f"{tuple(node.shape)}{dtype}"


def _wrap(text):
    return textwrap.wrap(text, WRAP, subsequent_indent="  ", break_long_words=False) or [text]


def _box_lines(label, node):
    lines = [f"{label}  {_shape_text(node)}"]
    if node.value is not None:
        lines += _wrap(f"value {node.value.text(DIGITS)}")
    if node.grad is not None:
        lines += _wrap(f"grad  {node.grad.text(DIGITS)}")
    return lines


def _role(op, tid, label):
    roles = OUTPUT_ROLES.get(op.op_type)
    return roles[op.output_ids.index(tid)] if roles else label[tid]


def _op_lines(graph, op, label, folded):
    head = op.op_type + ("   backward " + " ".join(f"#{s}" for s in op.backward_steps) if op.backward_steps else "")
    kept_inputs = [label[t] for t in op.input_ids if t in op.saved_ids]
    kept_outputs = [label[t] for t in op.output_ids if t in op.saved_ids and t not in folded]
    if folded and any(t in op.saved_ids for t in folded):
        kept_outputs.append("the side outputs")
    parts = ([f"inputs {', '.join(dict.fromkeys(kept_inputs))}"] if kept_inputs else []) + (
        [f"output{'s' if len(kept_outputs) > 1 else ''} {' and '.join(kept_outputs)}"] if kept_outputs else [])
    freed = " (freed by backward)" if op.keeps.endswith(graph_module.FREED) else ""
    lines = [head] + _wrap(f"keeps {'; '.join(parts) or 'nothing'}{freed}")
    if folded:
        shapes = {graph.tensors[t].shape for t in folded}
        roles = ", ".join(_role(op, t, label) for t in folded)
        where = f" {tuple(shapes.pop())}" if len(shapes) == 1 else ""
        lines += _wrap(f"side outputs: {roles}{where}")
    return lines


def _module_of_tensors(graph, folded):
    """Tensor id -> module: an op's outputs are in its module; a parameter is in the module that reads it."""
    module = {}
    for op in graph.ops:
        for tid in op.output_ids:
            if tid not in folded and op.module is not None:
                module[tid] = op.module
    readers = {}
    for op in graph.ops:
        for tid in op.input_ids:
            readers.setdefault(tid, set()).add(op.module)
    for tid in graph.parameter_ids:
        if tid not in module:
            found = readers.get(tid, {None})
            if len(found) == 1 and None not in found and tid in graph.parameter_ids:
                module[tid] = found.pop()
    return module


def picture(obj, names=None, group_by=None):
    """What draw() and to_dot() show, as data (a Picture): one box per tensor and per op, edges, module groups, legend.

    A tensor's box shows its name, shape (and dtype unless float32), its value
    and its gradient when known: signed values when it has at most 6
    elements, else min/mean/max. An op's box shows its name, the backward
    step it ran at, what its backward function keeps, and its side outputs
    (statistics, indices that nothing reads), which get no box of their own.
    With `group_by=model`, each nn.Module's ops are grouped (Picture.groups).

    >>> w = mt.tensor([1.0, -2.0], requires_grad=True)
    >>> pic = mt.viz.picture((w * w).sum(), names={"w": w})
    >>> [box.lines for box in pic.boxes.values()]
    [['w  (2,)', 'value [1, -2]'], ['Mul', 'keeps inputs w'], ['t1  (2,)'], ['Sum', 'keeps nothing'], ['t2  ()', 'value 5']]
    """
    graph = as_graph(obj, names, group_by)
    label = graph.names(names)
    folded = {tid for op in graph.ops for tid in graph.side_outputs(op)}
    targets = set(graph.targets())
    tensor_module = _module_of_tensors(graph, folded)
    result = Picture(graph.title)

    def add_tensor(tid):
        key = ("t", tid)
        if key not in result.boxes and tid not in folded:
            node = graph.tensors[tid]
            style = "output" if tid in targets and node.kind == "computed" else node.kind
            result.boxes[key] = Box(key, _box_lines(label[tid], node), style, tensor_module.get(tid))

    for op in graph.ops:
        for tid in op.input_ids:
            add_tensor(tid)
        key = ("op", op.index)
        result.boxes[key] = Box(key, _op_lines(graph, op, label, [t for t in op.output_ids if t in folded]),
                                "op ran" if op.backward_steps else "op", op.module)
        for tid in op.output_ids:
            add_tensor(tid)
        edges = [(("t", t), key) for t in op.input_ids] + [(key, ("t", t)) for t in op.output_ids if t not in folded]
        result.edges += [edge for edge in dict.fromkeys(edges) if edge not in result.edges]
    for tid in graph.tensors:  # a tensor no op touched (nothing was recorded)
        add_tensor(tid)
    used = {box.group for box in result.boxes.values() if box.group is not None}
    for name in sorted(graph.modules):
        if any(g == name or g.startswith(name + ".") or name == "" for g in used):
            result.groups[name] = f"{name or 'model'}  {graph.modules[name]}"
    styles = {box.style for box in result.boxes.values()}
    result.legend = [STYLES[s] for s in STYLES if s in styles or (s == "module" and result.groups)]
    result.notes = list(dict.fromkeys(graph.notes))
    return result
