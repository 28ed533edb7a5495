"""Entry: one recorded op, the one object a tape keeps of it.

It is three things at once, so that recording an op makes one Python object:
- the tape entry (tape.h's OpTapeEntry): the op's name, its inputs' and
  outputs' ids, shapes and dtypes;
- the backward function (TensorFlow's `_get_backward_fn`): the op's gradient
  plus only the values the op table says it reads;
- PyTorch's graph node (`tensor.grad_fn`, nodes.py): its `input_nodes` are
  the entries that made its inputs.

Who keeps an entry alive: the tensors it made (each output's `_node`) and
the entries downstream of it (their `input_nodes`). A tape only refers to
its entries weakly (tape.py). So when the last tensor that could still reach
an op dies, CPython's reference counting frees the entry and the values it
saved at once, with no Python code run: that is TensorFlow's DeleteTrace,
done by the reference counts.

Outputs are saved as arrays, never as Tensors (a Tensor kept by the entry it
points to would form a cycle); the gradient rebuilds them as `SavedTensor`s
with their original ids, linked to this entry, so that a tape recording the
gradient sees where they came from (higher orders).
"""
import itertools

from ..tensor import SavedTensor
from .nodes import Node
from .tape import freed_error
from .versions import counter_of


_next_seq = itertools.count().__next__


class Entry(Node):
    """One op on the tapes: what its gradient reads, and where its inputs came from.

    A gradient function receives it as `op` and reads `op.inputs`,
    `op.outputs`, `op.attrs`, `op.input_shapes` and `op.needs_input_grad`,
    like a TensorFlow gradient reads `op.inputs` / `op.outputs`.
    """

    __slots__ = ("op_def", "attrs", "input_ids", "input_info", "input_nodes", "output_ids", "output_info",
                 "needs_input_grad", "_inputs", "_input_versions", "_saved_outputs", "tapes", "released", "freed",
                 "hooks", "_metadata", "created_at", "seq", "__weakref__")

    def __init__(self, op_def, attrs, inputs, outputs):
        self.op_def = op_def
        self.attrs = attrs
        # Which inputs need a gradient, as PyTorch's needs_input_grad: those that require grad (a GradientTape
        # that records it first puts the ones it holds instead); a pass that asks for others runs a copy.
        # Most ops read one or two tensors and make one: their tuples are spelled out for them, without
        # lists and comprehensions (a comprehension is a call of its own in CPython 3.11: this runs per op).
        if len(inputs) == 1:
            (a,) = inputs
            data = a._data
            self.input_ids, self.input_info, self.input_nodes = (a._id,), ((data.shape, data.dtype),), (a._node,)
            self.needs_input_grad = (a._requires_grad,)
        elif len(inputs) == 2:
            a, b = inputs
            data, other = a._data, b._data
            self.input_ids = (a._id, b._id)
            self.input_info = ((data.shape, data.dtype), (other.shape, other.dtype))
            self.input_nodes = (a._node, b._node)
            self.needs_input_grad = (a._requires_grad, b._requires_grad)
        else:
            self.input_ids = tuple([t._id for t in inputs])
            self.input_info = tuple([(t._data.shape, t._data.dtype) for t in inputs])
            self.input_nodes = tuple([t._node for t in inputs])
            self.needs_input_grad = tuple([t._requires_grad for t in inputs])
        if len(outputs) == 1:
            (o,) = outputs
            data = o._data
            self.output_ids, self.output_info = (o._id,), ((data.shape, data.dtype),)
        else:
            self.output_ids = tuple([o._id for o in outputs])
            self.output_info = tuple([(o._data.shape, o._data.dtype) for o in outputs])
        # What the gradient reads, as the op table says, with the version each value has now: an
        # in-place write before the gradient runs makes the gradient refuse (versions.py).
        if op_def.needs_inputs:
            self._inputs = inputs
            self._input_versions = tuple([0 if t._version is None else t._version.value for t in inputs])
        else:
            self._inputs = self._input_versions = None
        if op_def.needs_outputs:
            self._saved_outputs = tuple([(o._data, counter_of(o), o._version.value) for o in outputs])
        else:
            self._saved_outputs = None
        self.tapes = ()  # the tapes that recorded it (Tape.record_operation adds itself)
        self.released = ()  # the tapes whose releasing pass consumed it
        self.freed = False  # True once the saved values are gone
        self.hooks = None  # (pre-hooks, hooks) registered through grad_fn, or None
        self._metadata = None  # grad_fn.metadata, made on first use
        self.created_at = None  # the user's stack, kept while anomaly detection is on
        self.seq = _next_seq()  # recording order across all tapes (PyTorch's sequence number)

    # ----- what a gradient function reads -----

    @property
    def op_type(self):
        return self.op_def.name

    op_name = op_type

    @property
    def backward_function(self):
        """The entry itself: call it as `entry.backward_function(needs, output_grads)` (the exercises' contract)."""
        return self

    @property
    def inputs(self):
        if self._inputs is None:
            self._refuse("inputs")
        return self._inputs

    @property
    def outputs(self):
        """The op's outputs, rebuilt with their original ids and linked to this entry."""
        if self._saved_outputs is None:
            self._refuse("outputs")
        requires_grad = False  # on the autograd tape, which marks what it records: a loop, not any() (a call)
        for tape in self.tapes:
            requires_grad = requires_grad or tape.marks_outputs
        outputs = []  # a loop, not a comprehension (a call of its own in CPython 3.11): this runs in every pass
        for (data, _, _), tensor_id in zip(self._saved_outputs, self.output_ids):
            floating = data.dtype.kind == "f"
            outputs.append(SavedTensor._restore(data, tensor_id, self if floating else None, requires_grad and floating))
        return outputs

    def _refuse(self, asked):
        if self.freed:
            raise freed_error()
        kept = "its inputs: use op.inputs" if self._inputs is not None else (
            "its outputs: use op.outputs[0]" if self._saved_outputs is not None else "neither its inputs nor its outputs")
        raise RuntimeError(f"the gradient of {self.op_type} reads op.{asked}, but this op keeps {kept} "
                           "(what it keeps is the `needs=` of its gradient in the op table)")

    @property
    def input_shapes(self):
        return [shape for shape, _ in self.input_info]

    # ----- running the gradient -----

    def __call__(self, needs_input_grad, output_grads, exclusive=False):
        """The input gradients for `output_grads`; `needs_input_grad` says which inputs need one.
        `exclusive`: no other pass can run this entry (a releasing pass took it off its only tape)."""
        grad_fn = self.op_def.grad
        if grad_fn is None:
            raise LookupError(f"no gradient is registered for op {self.op_type!r}")
        if self.freed:
            raise freed_error()
        # PyTorch's check that no value the gradient reads was written in place since the op ran, inline
        # (it runs for most ops of every pass); _check_versions says which value and why.
        if self._inputs is not None:
            for t, saved in zip(self._inputs, self._input_versions):
                if t._version is not None and t._version.value != saved:
                    self._check_versions(needs_input_grad)
                    break
        if self._saved_outputs is not None:
            for _, counter, saved in self._saved_outputs:
                if counter.value != saved:
                    self._check_versions(needs_input_grad)
        op = self
        if needs_input_grad != self.needs_input_grad:
            if exclusive:
                self.needs_input_grad = needs_input_grad
            else:  # several passes may run an entry still on its tape at once (threads): a copy, not an update
                op = self._with_needs(needs_input_grad)
        grads = grad_fn(op, *output_grads)
        if exclusive:  # nothing can run it again: its saved values go now, not at the end of the pass
            self.free()
        if type(grads) is not tuple:
            grads = tuple(grads) if isinstance(grads, list) else (grads,)
        if len(grads) != len(self.input_ids):
            raise RuntimeError(
                f"the gradient of {self.op_type} returned {len(grads)} gradients for {len(self.input_ids)} inputs"
            )
        return grads

    def _with_needs(self, needs_input_grad):
        op = object.__new__(Entry)
        for name in _COPIED:
            setattr(op, name, getattr(self, name))
        op.needs_input_grad = needs_input_grad
        return op

    def _check_versions(self, needs_input_grad):
        """PyTorch's check: no value the gradient reads was written in place since the op ran."""
        if self._inputs is not None:
            for i, (t, saved) in enumerate(zip(self._inputs, self._input_versions)):
                counter = t._version
                if counter is not None and counter.value != saved and not (
                        self.op_def.cross_inputs and not any(n for j, n in enumerate(needs_input_grad) if j != i)):
                    self._modified(f"input {i}", t._data, counter.value, saved)
        if self._saved_outputs is not None:
            for i, (data, counter, saved) in enumerate(self._saved_outputs):
                if counter.value != saved:
                    self._modified(f"output {i}", data, counter.value, saved)

    def _modified(self, which, data, now, saved):
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[minitorch.{data.dtype} {list(data.shape)}], which is {which} of {self.op_type}Backward0, "
            f"is at version {now}; expected version {saved} instead. Hint: the operation that failed to compute "
            "its gradient saved this value; make the in-place update out of place (x = x + 1, not x += 1), "
            "or clone() the value before changing it."
        )

    # ----- after a pass -----

    def free(self):
        """Drops the saved values (a releasing pass ran the entry); the graph's shape stays."""
        self._inputs = self._input_versions = self._saved_outputs = None
        self.freed = True


_COPIED = [name for name in Entry.__slots__ if name != "__weakref__"]
