"""`tensor.grad_fn`: the autograd tape's entries seen as PyTorch's graph nodes.

The tape keeps the graph by id (tape.py); a Node is a view of one entry, made
when asked for, so that a student can walk from a loss to its leaves exactly
as PyTorch's tutorials do:

    loss.grad_fn                          <MeanBackward0 object at 0x...>
    loss.grad_fn.next_functions           ((<PowBackward0 ...>, 0),)
    ... .next_functions[0][0].variable    the leaf tensor (an AccumulateGrad node)

Names are the op's name plus "Backward0" (MulBackward0, MatMulBackward0,
RealDivBackward0): consistent with the op table, close to PyTorch's. A
`next_functions` item is (node, which output of that node), (AccumulateGrad,
0) for a leaf that requires grad, and (None, 0) for a constant. After a
backward pass that released the graph, a node keeps its name, its inputs
and the nodes upstream of it while its outputs live (the pass's
ConsumedPass, engine/tape.py, keeps the consumed entries and which op made
which tensor), so the whole graph can still be walked from the loss, as in
PyTorch; only the saved values are gone.
"""
from .autograd_tape import AUTOGRAD_TAPE
from .hooks import add_hook


class Node:
    """One op recorded on the autograd tape (PyTorch's `torch.autograd.graph.Node`)."""

    __slots__ = ("_tape", "_op_id", "_entry", "_consumed")

    def __init__(self, tape, op_id, entry, consumed=None):
        self._tape = tape
        self._op_id = op_id
        self._entry = entry
        self._consumed = consumed  # the ConsumedPass this node was found through, if any

    def name(self):
        """The node's name: the op's name + "Backward0".

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> (x * 2).grad_fn.name()
        'MulBackward0'
        """
        return self._entry.op_type + "Backward0"

    @property
    def next_functions(self):
        """One (node, output index) per input of the op: where its gradient goes next.

        >>> w = mt.tensor([2.0], requires_grad=True)
        >>> loss = (w * 3).sum()
        >>> loss.grad_fn.next_functions[0][0].name()
        'MulBackward0'
        >>> loss.grad_fn.next_functions[0][0].next_functions
        ((<AccumulateGrad object at ...>, 0), (None, 0))
        """
        consumed = self._entry.consumed or self._consumed
        return tuple(_edge(self._tape, tid, consumed) for tid in self._entry.input_ids)

    @property
    def metadata(self):
        """A dict for the user's own notes about this node (PyTorch's `Node.metadata`).

        >>> y = mt.tensor([1.0], requires_grad=True) * 2
        >>> y.grad_fn.metadata["layer"] = "fc1"
        >>> y.grad_fn.metadata
        {'layer': 'fc1'}
        """
        if self._entry.metadata is None:
            self._entry.metadata = {}
        return self._entry.metadata

    def register_hook(self, hook):
        """Calls `hook(grad_inputs, grad_outputs)` after this node computed its input gradients;
        a returned tuple replaces grad_inputs.

        >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> seen = []
        >>> handle = y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_inputs[0]))
        >>> y.sum().backward()
        >>> seen
        [tensor([3., 3.])]
        """
        return self._add_hook(1, hook)

    def register_prehook(self, hook):
        """Calls `hook(grad_outputs)` before this node runs; a returned tuple replaces grad_outputs.

        >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> handle = y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 0,))
        >>> y.sum().backward()
        >>> x.grad
        tensor([0., 0.])
        """
        return self._add_hook(0, hook)

    def _add_hook(self, kind, hook):
        if self._entry.hooks is None:
            self._entry.hooks = ({}, {})
        return add_hook(self._entry.hooks[kind], hook)

    def __eq__(self, other):
        return isinstance(other, Node) and other._tape is self._tape and other._op_id == self._op_id

    def __hash__(self):
        return hash((id(self._tape), self._op_id))

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self._entry))}>"


class AccumulateGrad:
    """The node of a leaf that requires grad: its gradient ends in `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "AccumulateGrad"

    next_functions = ()

    def __eq__(self, other):
        return isinstance(other, AccumulateGrad) and other.variable is self.variable

    def __hash__(self):
        return id(self.variable)

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self.variable))}>"


def node_of(tensor):
    """The Node that made `tensor` on the autograd tape, or None for leaves and constants."""
    return producer_node(AUTOGRAD_TAPE, tensor._id)


def producer_node(tape, tensor_id):
    """The Node of the op that made tensor `tensor_id` on `tape` (live or released), or None.

    >>> from minitorch.engine.autograd_tape import AUTOGRAD_TAPE
    >>> y = mt.tensor([1.0], requires_grad=True) * 2
    >>> producer_node(AUTOGRAD_TAPE, y._id).name()
    'MulBackward0'
    """
    op_id = tape.tensor_tape.get(tensor_id)
    if op_id is None or op_id == -1:
        return None
    entry = tape.op_tape.get(op_id) or tape.released.get(op_id)
    return None if entry is None else Node(tape, op_id, entry)


def _edge(tape, tensor_id, consumed=None):
    """(node, output index) of the op that made `tensor_id`; `consumed` is the ConsumedPass of a releasing pass."""
    op_id = tape.tensor_tape.get(tensor_id)
    if op_id == -1:
        ref = tape.watched.get(tensor_id)
        leaf = ref() if ref is not None else None
        return (AccumulateGrad(leaf) if leaf is not None and leaf._requires_grad else None), 0
    node = producer_node(tape, tensor_id)
    if node is None and consumed is not None:
        node = consumed_node(tape, consumed, tensor_id)
    if node is None:
        return None, 0
    return node, node._entry.output_ids.index(tensor_id)


def consumed_node(tape, consumed, tensor_id):
    """The Node of the op that made `tensor_id`, a tensor a releasing pass consumed and that died since.

    >>> x = mt.tensor([1.0], requires_grad=True)
    >>> loss = (x * 2).sum()
    >>> loss.backward()
    >>> consumed = loss.grad_fn._entry.consumed
    >>> (mul, _), = loss.grad_fn.next_functions  # the Mul's output died: found through the pass
    >>> mul == consumed_node(loss.grad_fn._tape, consumed, loss.grad_fn._entry.input_ids[0])
    True
    """
    op_id = consumed.producer.get(tensor_id)
    entry = consumed.entries.get(op_id) or tape.released.get(op_id)
    return None if entry is None else Node(tape, op_id, entry, consumed)


def run_with_hooks(entry, call, needs, out_grads):
    """Calls `call(needs, out_grads)` (the backward function) between the node's pre-hooks and hooks."""
    prehooks, hooks = entry.hooks
    for hook in list(prehooks.values()):
        replaced = hook(tuple(out_grads))
        if replaced is not None:
            out_grads = list(replaced)
    in_grads = call(needs, out_grads)
    for hook in list(hooks.values()):
        replaced = hook(tuple(in_grads), tuple(out_grads))
        if replaced is not None:
            in_grads = tuple(replaced)
    return in_grads
