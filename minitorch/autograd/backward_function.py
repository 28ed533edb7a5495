"""What a tape keeps of one op: its gradient function and only the values it needs.

Seed 002's backward-function getter, as an object. `record_gradient` builds
one per recorded op; the reverse pass calls it with the output gradients. A
gradient function receives it as `op` and reads `op.inputs`, `op.outputs`,
`op.attrs`, `op.input_shapes` and `op.needs_input_grad`, like a TensorFlow
gradient reads `op.inputs` / `op.outputs`.
"""
from ..ops.registry import GRADIENTS


class BackwardFunction:
    __slots__ = ("op_name", "attrs", "input_info", "needs_input_grad", "_inputs", "_saved_outputs", "created_at")

    def __init__(self, op_name, attrs, input_info, inputs, outputs):
        self.op_name = op_name
        self.attrs = attrs
        self.input_info = input_info
        self.needs_input_grad = ()
        self._inputs = inputs
        # Outputs are kept as (array, id), not as Tensors: a Tensor kept by its own
        # entry would never die, and its trace would never be deleted.
        self._saved_outputs = None if outputs is None else [(o._data, o._id) for o in outputs]
        self.created_at = None  # the user's stack, kept while anomaly detection is on

    @property
    def inputs(self):
        if self._inputs is None:
            raise RuntimeError(f"the gradient of {self.op_name} reads its inputs, but is registered with needs that exclude them")
        return self._inputs

    @property
    def outputs(self):
        """The op's outputs, rebuilt with their original ids so that a tape
        recording the backward pass links them to the op that made them."""
        if self._saved_outputs is None:
            raise RuntimeError(f"the gradient of {self.op_name} reads its outputs, but is registered with needs that exclude them")
        return [SavedTensor._restore(data, tid) for data, tid in self._saved_outputs]

    @property
    def input_shapes(self):
        return [shape for shape, _ in self.input_info]

    def __call__(self, needs_input_grad, output_grads):
        grad_fn = GRADIENTS.get(self.op_name)
        if grad_fn is None:
            raise LookupError(f"no gradient is registered for op {self.op_name!r}")
        self.needs_input_grad = needs_input_grad
        grads = grad_fn(self, *output_grads)
        if type(grads) is not tuple:
            grads = tuple(grads) if isinstance(grads, list) else (grads,)
        if len(grads) != len(self.input_info):
            raise RuntimeError(
                f"the gradient of {self.op_name} returned {len(grads)} gradients for {len(self.input_info)} inputs"
            )
        return grads


from ..tensor import SavedTensor  # noqa: E402  (tensor.py imports the engine first)
