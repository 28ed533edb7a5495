"""`tensor.grad_fn`: a recorded op seen as one of PyTorch's graph nodes.

What a tape records of an op (entry.py) is the node itself, so that a
student can walk from a loss to its leaves exactly as PyTorch's tutorials do:

    loss.grad_fn                          <MeanBackward0 object at 0x...>
    loss.grad_fn.next_functions           ((<PowBackward0 ...>, 0),)
    ... .next_functions[0][0].variable    the leaf tensor (an AccumulateGrad node)

Names are the op's name plus "Backward0" (MulBackward0, MatMulBackward0,
RealDivBackward0): consistent with the op table, close to PyTorch's. A
`next_functions` item is (node, which output of that node), (AccumulateGrad,
0) for a leaf that requires grad, and (None, 0) for a constant. After a
backward pass that released the graph, a node keeps its name, its inputs
and the nodes upstream of it while an output lives (each node holds the
nodes that made its inputs), as in PyTorch; only the saved values are gone.

`Node` is the part of an entry that is PyTorch's API; `Entry` (entry.py)
adds the data and the gradient call.
"""
from .hooks import add_hook


class Node:
    """One recorded op, as PyTorch's `torch.autograd.graph.Node` (the methods of an `Entry`)."""

    __slots__ = ()

    def name(self):
        """The node's name: the op's name + "Backward0".

        >>> x = mt.tensor([1.0], requires_grad=True)
        >>> (x * 2).grad_fn.name()
        'MulBackward0'
        """
        return self.op_def.name + "Backward0"

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
        return tuple(self._edge(i) for i in range(len(self.input_ids)))

    def _edge(self, i):
        """(node, output index) of the op that made input `i`, or the leaf's AccumulateGrad, or None."""
        tensor_id, node = self.input_ids[i], self.input_nodes[i]
        if node is not None and any(tape in node.tapes for tape in self.tapes):
            return node, node.output_ids.index(tensor_id)
        for tape in self.tapes:
            ref = tape.watched.get(tensor_id)
            leaf = ref() if ref is not None else None
            if leaf is not None and leaf._requires_grad:
                return AccumulateGrad(leaf), 0
        return None, 0

    @property
    def metadata(self):
        """A dict for the user's own notes about this node (PyTorch's `Node.metadata`).

        >>> y = mt.tensor([1.0], requires_grad=True) * 2
        >>> y.grad_fn.metadata["layer"] = "fc1"
        >>> y.grad_fn.metadata
        {'layer': 'fc1'}
        """
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

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
        if self.hooks is None:
            self.hooks = ({}, {})
        return add_hook(self.hooks[kind], hook)

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"


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
