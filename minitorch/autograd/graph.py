"""What a tape holds, as a graph a student can read: the data behind mt.viz.

    Graph       ops in recording order and the tensors they read and wrote,
                each tensor with its name, shape, value and gradient when known,
                made from a tensor (the ops upstream of it), a tape (all its
                entries), or captured as the program runs (`capture()`)
    listing(x)  one line per recorded op: op id, op type, inputs -> outputs
                (tensor names with shapes), what the backward function keeps
                (the op table decides); then each tensor's value and gradient

A static view shows what the tapes hold now. backward() without
retain_graph frees the values the tape saved, but keeps the graph's shape
while its output lives (grad_fn, engine/nodes.py): a static view after
backward shows every op, and values only for leaves, named tensors and the
output. To see every value and gradient of a pass, capture it: capture()
listens to the tracing hook points (engine/trace.py), so the engine pays
nothing when no capture is open. Tensor names come from the trace's naming
(trace.name), so the trace, the listing and the picture agree. Drawings (DOT
text, PNG) are in minitorch/viz/.
"""
import contextlib

import numpy as np

from ..engine import trace
from ..engine.autograd_tape import AUTOGRAD_TAPE
from ..engine.backprop import broadcast_axes
from ..engine.state import active_tapes
from ..engine.tape import Tape
from ..tensor import Tensor

# Jupyter shows a Graph as the stepping page, which minitorch.viz draws (explore.inline): viz sits a floor
# above this module, so it sets this when imported (`import minitorch` imports it).
html_view = None

# What the outputs of multi-output ops are: the first is the result, the others side outputs
# (folded into their op in pictures when nothing reads them).
OUTPUT_ROLES = {
    "FusedBatchNorm": ("y", "batch mean", "batch var", "saved mean", "saved inv std"),
    "MaxPool": ("values", "argmax"),
    "SoftmaxCrossEntropyWithLogits": ("loss", "backprop"),
    "SparseSoftmaxCrossEntropyWithLogits": ("loss", "backprop"),
}


class Summary:
    """A tensor's values in brief: all of them, signed, when there are at most 6 (`values`), else min/mean/max.

    >>> from minitorch.autograd.graph import Summary
    >>> Summary(np.array([3.0, -0.41614])).text()
    '[3, -0.4161]'
    >>> Summary(np.arange(10.0)).text()
    'min 0 mean 4.5 max 9'
    """

    __slots__ = ("values", "low", "mean", "high")

    def __init__(self, array):
        array = np.asarray(array)
        if array.dtype == bool:
            array = array.astype(np.int64)
        self.values = array.copy() if array.size <= trace.SMALL else None
        if array.size:
            self.low, self.mean, self.high = (float(array.min()), float(array.mean(dtype=np.float64)), float(array.max()))
        else:
            self.low = self.mean = self.high = float("nan")

    def text(self, digits=4):
        """Small tensors: every value (4 significant digits); larger: min, mean and max with `digits`."""
        if self.values is not None:
            return trace.format_values(self.values)
        return f"min {self.low:.{digits}g} mean {self.mean:.{digits}g} max {self.high:.{digits}g}"


class TensorNode:
    """A tensor as the graph knows it: id, shape, dtype, kind, name, and value and gradient once known."""

    __slots__ = ("tensor_id", "shape", "dtype", "kind", "name", "value", "grad", "grad_norm", "_grad_sum", "keep",
                 "value_array", "grad_array")

    def __init__(self, tensor_id, shape, dtype, keep=False):
        self.tensor_id = tensor_id
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.kind = "computed"  # or "leaf" (watched: a gradient can be asked for) or "constant"
        self.name = None  # t0, t1, ... as the trace calls it (or a parameter's name)
        self.value = None  # Summary
        self.grad = None  # Summary
        self.grad_norm = None
        self._grad_sum = None  # leaves: the gradients their consumers sent, summed over the passes
        self.keep = keep  # keep the value and gradient in full (value_array, grad_array), not only their summaries
        self.value_array = self.grad_array = None

    def set_value(self, array):
        self.value = Summary(array)
        if self.keep:
            self.value_array = np.array(array, copy=True)

    def set_grad(self, array):
        array = np.asarray(array)
        self.grad = Summary(array)
        self.grad_norm = trace.l2_norm(array)
        if self.keep:
            self.grad_array = np.array(array, copy=True)


class Step:
    """One backward call of a reverse pass: `op` (its index in graph.ops), the gradients that arrived for
    its outputs (`out_grads`), those it sent to its inputs (`in_grads`, summed back to each input's shape;
    None where it sent none or none was needed), and which of those the tape had to un-broadcast
    (`broadcast`: the shape the backward function returned, or None). Gradients are kept as arrays
    when the graph keeps values, else as Summaries."""

    __slots__ = ("op", "out_grads", "in_grads", "broadcast")

    def __init__(self, op, out_grads, in_grads, broadcast):
        self.op, self.out_grads, self.in_grads, self.broadcast = op, out_grads, in_grads, broadcast


class OpNode:
    """One recorded op: `index` in the graph, `op_id` on its tape, what its backward function
    keeps (`keeps`, and the ids in `saved_ids`), the backward steps it ran at, its module."""

    __slots__ = ("index", "op_id", "op_type", "input_ids", "output_ids", "keeps", "saved_ids", "tapes",
                 "backward_steps", "module")

    def __init__(self, index, op_id, op_type, input_ids, output_ids, keeps, tapes):
        self.index = index
        self.op_id = op_id
        self.op_type = op_type
        self.input_ids = tuple(input_ids)
        self.output_ids = tuple(output_ids)
        self.keeps = keeps
        self.saved_ids = (self.input_ids if "inputs" in keeps else ()) + (self.output_ids if "outputs" in keeps else ())
        self.tapes = tuple(tapes)
        self.backward_steps = []
        self.module = None  # the qualified name of the nn.Module that ran it ("" for the model itself)


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
    >>> graph.tensors[x._id].value.text(), graph.tensors[x._id].grad.text()
    ('[1, 2]', '[2, 4]')
    """

    def __init__(self, title="graph", keep_values=False):
        self.title = title
        self.keep_values = keep_values  # every value and gradient in full, not only summaries (mt.viz.explore)
        self.ops = []
        self.tensors = {}  # tensor id -> TensorNode, in order of first appearance
        self.backward_order = []  # op indices, in the order their backward functions ran
        self.steps = []  # a Step per backward call, in that order
        self.aggregations = []  # (tensor id, how many gradients were summed)
        self.notes = []
        self.modules = {}  # qualified module name -> class name ("" is the model), when grouped by a model
        self.roots = set()  # tensor ids asked for (a static view's tensor): never folded away
        self.parameter_ids = set()  # the model's parameters, when grouped by a model
        self.source_ids = []  # the tensors a replayed pass gave a gradient (replay.py), in full in grad_array

    def _tensor(self, tensor_id, shape, dtype):
        node = self.tensors.get(tensor_id)
        if node is None:
            node = self.tensors[tensor_id] = TensorNode(tensor_id, shape, dtype, self.keep_values)
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
            if tid not in produced and node.kind != "leaf":
                node.kind = "leaf" if tid in watched or node._grad_sum is not None else "constant"

    def _finish_names(self):
        """Names for the tensors not named yet, agreeing with the trace's."""
        unnamed = [tid for tid, node in self.tensors.items() if node.name is None]
        for tid, label in trace.names_for(unnamed).items():
            self.tensors[tid].name = label

    def names(self, names=None):
        """Tensor id -> display name: the given {name: Tensor} first, then the graph's (t0, t1, ... as the trace calls them).

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> y = x * 2
        >>> sorted(mt.viz.graph_of(y).names({"x": x}).values())
        ['t1', 't2', 'x']
        """
        result = {tid: node.name for tid, node in self.tensors.items()}
        result.update({t._id: label for label, t in (names or {}).items() if t._id in result})
        return result

    def targets(self):
        """Tensor ids no op of the graph reads: where the graph ends."""
        read = {tid for op in self.ops for tid in op.input_ids}
        return [tid for tid in self.tensors if tid not in read]

    def side_outputs(self, op):
        """The outputs of `op` after its first that no op of the graph reads (batch-norm statistics, max-pool indices)."""
        read = {tid for other in self.ops for tid in other.input_ids}
        return [tid for tid in op.output_ids[1:] if tid not in read and tid not in self.roots]

    def __str__(self):
        return listing(self)

    def _repr_html_(self):
        """Jupyter's display of a Graph: the page that steps through its backward passes (mt.viz.explore)."""
        return html_view(self) if html_view is not None else None

    def __repr__(self):
        return f"<Graph {self.title!r}: {len(self.ops)} ops, {len(self.tensors)} tensors, {len(self.backward_order)} backward calls>"


# ----- building a graph from what a tape holds now -----

FREED = " (freed)"


def _keeps(entry):
    """What the entry keeps for its gradient; after a releasing pass, what it kept (the op table says)."""
    if entry.freed:
        row = entry.op_def
        kept = [what for what, flag in (("inputs", row.needs_inputs), ("outputs", row.needs_outputs)) if flag]
        return (" and ".join(kept) or "nothing") + FREED
    kept = [what for what, value in (("inputs", entry._inputs), ("outputs", entry._saved_outputs)) if value is not None]
    return " and ".join(kept) or "nothing"


def _entry_op(graph, tape, op_id, entry):
    inputs = [(tid, shape, dtype) for tid, (shape, dtype) in zip(entry.input_ids, entry.input_info)]
    outputs = [(tid, shape, dtype) for tid, (shape, dtype) in zip(entry.output_ids, entry.output_info)]
    op = graph._add_op(op_id, entry.op_type, inputs, outputs, _keeps(entry), (tape.serial,))
    _saved_values(graph, entry)
    return op


def _saved_values(graph, entry):
    """The values an entry kept for its gradient (unchanged since, by their versions)."""
    if entry.freed:
        return
    if entry._inputs is not None:
        for t, version in zip(entry._inputs, entry._input_versions):
            if (0 if t._version is None else t._version.value) == version and t._id in graph.tensors:
                graph.tensors[t._id].set_value(t._data)
    for (data, counter, version), tid in zip(entry._saved_outputs or (), entry.output_ids):
        if counter.value == version and tid in graph.tensors:
            graph.tensors[tid].set_value(data)


def _known_tensors(graph, tape, names):
    """Values and gradients of the tensors we can reach: the tape's live watched leaves and the named tensors."""
    tensors = [ref() for ref in tape.watched.values()] + list((names or {}).values())
    for tensor in tensors:
        node = graph.tensors.get(tensor._id) if tensor is not None else None
        if node is None:
            continue
        node.set_value(tensor._data)
        if getattr(tensor, "grad", None) is not None:
            node.set_grad(tensor.grad._data)


def from_tape(tape, title, names=None):
    graph = Graph(title)
    for op_id, entry in enumerate(tape.live_entries()):
        _entry_op(graph, tape, op_id, entry)
    graph._finish_kinds(tape.watched)
    _known_tensors(graph, tape, names)
    graph._finish_names()
    return graph


def _tape_holding(tensor):
    for tape in [AUTOGRAD_TAPE] + list(active_tapes):
        if tape.holds(tensor):
            return tape
    return None


FREED_NOTE = ("backward() freed the values this graph saved (its shape is kept while the output lives): "
              "values show for leaves, named tensors and the output only; draw a captured pass "
              "(with mt.viz.capture() as graph: ...) to see every value and gradient")


def _upstream_entries(tape, tensor, graph):
    """Every entry of `tape` upstream of `tensor`, live or consumed by a releasing pass (each entry holds
    the entries that made its inputs), in recording order."""
    entries, seen = [], set()
    stack = [tensor._node]
    while stack:
        entry = stack.pop()
        if entry is None or id(entry) in seen or tape not in entry.tapes:
            continue
        seen.add(id(entry))
        if entry.freed and FREED_NOTE not in graph.notes:
            graph.notes.append(FREED_NOTE)
        entries.append(entry)
        stack.extend(entry.input_nodes)
    return sorted(entries, key=lambda entry: entry.seq)


def from_tensor(tensor, names=None, keep_values=False):
    tape = _tape_holding(tensor)
    kind = "autograd tape" if tape is AUTOGRAD_TAPE else "tape"
    graph = Graph(f"graph of a tensor of shape {tuple(tensor.shape)}" + (f" on {kind} {tape.serial}" if tape is not None else ""),
                  keep_values)
    graph.roots.add(tensor._id)
    if tape is None:
        graph._tensor(tensor._id, tensor._data.shape, tensor._data.dtype).set_value(tensor._data)
        graph._finish_kinds()
        graph._finish_names()
        graph.notes.append("no tape recorded how this tensor was made (does anything it came from require grad?)")
        return graph
    for op_id, entry in enumerate(_upstream_entries(tape, tensor, graph)):
        _entry_op(graph, tape, op_id, entry)
    graph._tensor(tensor._id, tensor._data.shape, tensor._data.dtype).set_value(tensor._data)
    graph._finish_kinds(tape.watched)
    _known_tensors(graph, tape, names)
    graph._finish_names()
    return graph


def from_recorded(obj, names=None):
    """A Graph of `obj`: a Graph itself, a Tensor (the ops upstream of it) or an engine Tape."""
    if isinstance(obj, Graph):
        return obj
    if isinstance(obj, Tensor):
        return from_tensor(obj, names)
    if isinstance(obj, Tape):
        return from_tape(obj, f"tape {obj.serial}", names)
    raise TypeError(f"minitorch.viz expects a Tensor, a GradientTape, a Tape or a Graph, got {type(obj).__name__}")


# ----- modules: which nn.Module ran each op -----

def _module_of_parameter(model):
    """Parameter tensor id -> (its qualified name, the qualified name of the module that owns it)."""
    found = {}
    for name, parameter in model.named_parameters():
        found[parameter._id] = (name, name.rpartition(".")[0])
    return found


def _common_module(paths):
    """The innermost module containing every one of `paths` ("" is the model itself)."""
    split = [path.split(".") if path else [] for path in paths]
    common = []
    for parts in zip(*split):
        if any(part != parts[0] for part in parts):
            break
        common.append(parts[0])
    return ".".join(common)


def group_by_module(graph, model):
    """Fills `op.module` from `model` for the ops a capture did not tag, and names the parameters
    (`features.0.weight`). An op reading a module's parameters belongs to that module; a run of
    parameter-free ops (ReLU, pooling, flattening) between ops of modules belongs to the innermost
    module holding those (a ReLU between two layers of a Sequential belongs to the Sequential)."""
    graph.modules = {name: type(module).__name__ for name, module in model.named_modules()}
    owners = _module_of_parameter(model)
    for tid, (name, _) in owners.items():
        if tid in graph.tensors:
            graph.tensors[tid].name = name
            graph.parameter_ids.add(tid)
    if any(op.module is not None for op in graph.ops):
        return  # a capture saw the modules run: exact
    for op in graph.ops:
        modules = {owners[tid][1] for tid in op.input_ids if tid in owners}
        if modules:
            op.module = _common_module(modules)
    for run, before, after in _parameter_free_runs(graph):
        if before and after:
            module = _common_module(before | after)
            for op in run:
                op.module = module


def _parameter_free_runs(graph):
    """The connected runs of ops without a module: (ops, modules of the ops feeding them, modules of those they feed)."""
    producer = {tid: op for op in graph.ops for tid in op.output_ids}
    consumers = {}
    for op in graph.ops:
        for tid in op.input_ids:
            consumers.setdefault(tid, []).append(op)
    seen, runs = set(), []
    for start in graph.ops:
        if start.module is not None or start.index in seen:
            continue
        run, before, after, stack = [], set(), set(), [start]
        seen.add(start.index)
        while stack:
            op = stack.pop()
            run.append(op)
            neighbours = [(producer[tid], before) for tid in op.input_ids if tid in producer]
            neighbours += [(c, after) for tid in op.output_ids for c in consumers.get(tid, ())]
            for other, side in neighbours:
                if other.module is not None:
                    side.add(other.module)
                elif other.index not in seen:
                    seen.add(other.index)
                    stack.append(other)
        runs.append((run, before, after))
    return runs


class _ModuleStack:
    """Forward pre-hooks and hooks on every module of a model: which module is running now."""

    def __init__(self, model):
        self.running = []
        self.handles = []
        for name, module in model.named_modules():
            self.handles.append(module.register_forward_pre_hook(self._entered(name)))
            self.handles.append(module.register_forward_hook(self._left(name)))

    def _entered(self, name):
        def hook(module, args):
            self.running.append(name)
        return hook

    def _left(self, name):
        def hook(module, args, output):
            if name in self.running:  # a forward that raised left its name behind: drop it too
                del self.running[len(self.running) - 1 - self.running[::-1].index(name):]
        return hook

    def current(self):
        return self.running[-1] if self.running else None

    def remove(self):
        for handle in self.handles:
            handle.remove()


# ----- capture: the graph as it is built, and the backward passes -----

class _Recorder:
    """A trace listener (engine/trace.py) that fills a Graph."""

    def __init__(self, graph, modules=None):
        self.graph = graph
        self.modules = modules
        self.producer = {}  # tensor id -> op index, for ops recorded in the block

    def _see(self, tensor, tapes):
        """A tensor's node: named as the trace names it, its value as it is now (first sight)."""
        node = self.graph.tensors.get(tensor._id)
        if node is None:
            node = self.graph._tensor(tensor._id, tensor._data.shape, tensor._data.dtype)
            node.name = trace.name(tensor._id)
            node.set_value(tensor._data)
            if tensor._requires_grad or any(tensor._id in tape.watched for tape in tapes):
                node.kind = "leaf"
        return node

    def recorded(self, op_name, inputs, results, tapes, keeps):
        for t in inputs:
            self._see(t, tapes)
        for t in results:
            self._see(t, ()).kind = "computed"
        describe = [(t._id, t._data.shape, t._data.dtype) for t in inputs]
        outputs = [(t._id, t._data.shape, t._data.dtype) for t in results]
        op = self.graph._add_op(None, op_name, describe, outputs, keeps, [tape.serial for tape in tapes])
        if self.modules is not None:
            op.module = self.modules.current()
        for tid, _, _ in outputs:
            self.producer[tid] = op.index

    def _op_from_entry(self, entry):
        """An op recorded before the block began: taken from its tape entry."""
        graph = self.graph
        for tid, (shape, dtype) in list(zip(entry.input_ids, entry.input_info)) + list(zip(entry.output_ids, entry.output_info)):
            if tid not in graph.tensors:
                graph._tensor(tid, shape, dtype).name = trace.name(tid)
        op = graph._add_op(None, entry.op_type,
                           [(tid, s, d) for tid, (s, d) in zip(entry.input_ids, entry.input_info)],
                           [(tid, s, d) for tid, (s, d) in zip(entry.output_ids, entry.output_info)],
                           _keeps(entry))
        _saved_values(graph, entry)
        for tid in entry.output_ids:
            self.producer[tid] = op.index
        return op.index

    def backward_call(self, entry, out_grads, in_grads, needs):
        graph = self.graph
        index = self.producer.get(entry.output_ids[0])
        if index is None:
            index = self._op_from_entry(entry)
        graph.backward_order.append(index)
        graph.ops[index].backward_steps.append(len(graph.backward_order))
        for tid, grad in zip(entry.output_ids, out_grads):
            if grad is not None:
                graph.tensors[tid].set_grad(grad._data)
        sent, broadcast = [], []
        for tid, grad, needed, (shape, _) in zip(entry.input_ids, in_grads, needs, entry.input_info):
            if grad is None or not needed:
                sent.append(None)
                broadcast.append(None)
                continue
            node = graph.tensors[tid]
            returned = np.asarray(grad._data)
            summed = _sum_to_shape(returned.astype(np.float64, copy=False), shape)
            sent.append(summed.astype(node.dtype, copy=False))
            broadcast.append(returned.shape if returned.shape != tuple(shape) else None)
            if tid not in self.producer:
                node._grad_sum = summed if node._grad_sum is None else node._grad_sum + summed
                node.set_grad(node._grad_sum.astype(node.dtype, copy=False))
        graph.steps.append(Step(index, tuple(_kept(graph, g._data if g is not None else None) for g in out_grads),
                                tuple(_kept(graph, g) for g in sent), tuple(broadcast)))

    def aggregated(self, tensor_id, count):
        self.graph.aggregations.append((tensor_id, count))


@contextlib.contextmanager
def capture(title="captured graph", group_by=None, keep_values=False):
    """Records, for the block, every op a tape records and every backward call.

    Yields a Graph that fills as the block runs: each tensor's value when an
    op first met it; after a backward pass, the order in which the backward
    functions ran and every gradient, signed (a leaf's is summed over the
    passes in the block). Ops the reverse pass records (create_graph=True,
    nested tapes) join the graph too. With `group_by=model`, each op is
    tagged with the nn.Module that ran it (pictures box them). The graph
    grows with every op the block records: capture a pass, not a whole
    training run. With `keep_values=True` it keeps every value and every
    gradient of every backward call in full (for the stepping page,
    mt.viz.explore), else their summaries (`graph.steps`).

    >>> w = mt.tensor([3.0, -4.0], requires_grad=True)
    >>> with mt.viz.capture() as graph:
    ...     loss = (w * w).sum()
    ...     loss.backward()
    >>> print(graph)
    captured graph: 2 ops
    op  type  inputs         -> outputs  keeps    backward
    0   Mul   t0(2,) t0(2,)  -> t1(2,)   inputs   #2
    1   Sum   t1(2,)         -> t2()     nothing  #1
    tensors:
    t0  (2,)  float32  leaf      value [3, -4]   grad [6, -8]
    t1  (2,)  float32  computed  value [9, 16]   grad [1, 1]
    t2  ()    float32  computed  value 25        grad 1
    summed 2 gradients of t0
    """
    graph = Graph(title, keep_values)
    modules = _ModuleStack(group_by) if group_by is not None else None
    recorder = _Recorder(graph, modules)
    trace.begin_naming()
    trace.add_listener(recorder)
    try:
        yield graph
    finally:
        trace.remove_listener(recorder)
        trace.end_naming()
        if modules is not None:
            modules.remove()
            group_by_module(graph, group_by)
        graph._finish_kinds()


def _kept(graph, array):
    """A gradient as a Step keeps it: a copy when the graph keeps values, else its Summary (None stays None)."""
    if array is None:
        return None
    return np.array(array, copy=True) if graph.keep_values else Summary(array)


def _sum_to_shape(array, shape):
    """A broadcast gradient summed back to its input's shape (compute_gradient does this after tracing)."""
    return array.sum(axis=broadcast_axes(array.shape, shape)).reshape(shape)


def _table(rows):
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(max(map(len, rows)))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]


def listing(obj, names=None):
    """A table of the recorded ops: op id, op type, inputs -> outputs, what the backward function keeps;
    then each tensor's value and gradient where known (signed values up to 6 elements, else min/mean/max).

    `obj` is a Tensor, a GradientTape, a Tape or a captured Graph. Tensors are
    called as the trace calls them: t0, t1, ... in order of first appearance
    (the ones in `names`, a dict {name: Tensor}, get theirs).

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> w = mt.tensor([3.0, -4.0], requires_grad=True)
    >>> y = (x * w + x).sum()
    >>> print(mt.viz.listing(y, names={"x": x, "w": w}))  # doctest: +ELLIPSIS
    graph of a tensor of shape () on autograd tape ...: 3 ops
    op  type  inputs        -> outputs  keeps
    ... Mul   x(2,) w(2,)   -> t2(2,)   inputs
    ... Add   t2(2,) x(2,)  -> t3(2,)   nothing
    ... Sum   t3(2,)        -> t4()     nothing
    tensors:
    x   (2,)  float32  leaf      value [1, 2]
    w   (2,)  float32  leaf      value [3, -4]
    t4  ()    float32  computed  value -2
    """
    graph = from_recorded(obj, names)
    label = graph.names(names)
    ran_backward = bool(graph.backward_order)
    lines = [f"{graph.title}: {len(graph.ops)} ops"]
    header = ["op", "type", "inputs", "-> outputs", "keeps"] + (["backward"] if ran_backward else [])
    rows = [header]
    for op in graph.ops:
        ins = " ".join(f"{label[t]}{trace.shape_text(graph.tensors[t].shape)}" for t in op.input_ids)
        outs = " ".join(f"{label[t]}{trace.shape_text(graph.tensors[t].shape)}" for t in op.output_ids)
        row = [str(op.index if op.op_id is None else op.op_id), op.op_type, ins, "-> " + outs, op.keeps]
        if ran_backward:
            row.append(" ".join(f"#{s}" for s in op.backward_steps) or "-")
        rows.append(row)
    if graph.ops:
        lines += _table(rows)
    known = [(tid, node) for tid, node in graph.tensors.items() if node.value is not None or node.grad is not None]
    if known:
        lines.append("tensors:")
        lines += _table([[label[tid], trace.shape_text(node.shape), str(node.dtype), node.kind,
                          f"value {node.value.text()}" if node.value is not None else "",
                          f"grad {node.grad.text()}" if node.grad is not None else ""]
                         for tid, node in known])
    for tid, count in graph.aggregations:
        lines.append(f"summed {count} gradients of {label.get(tid, '?')}")
    lines += [f"note: {note}" for note in dict.fromkeys(graph.notes)]
    return "\n".join(lines)
