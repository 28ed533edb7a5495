"""record_gradient: the one place where an executed op meets the tapes.

TensorFlow's commit "Record gradient in C" moved `RecordGradient` into one
flat function (tensorflow/python/eager/pywrap_tfe_src.cc); this is ours, in
the same order of steps. Every op ends here (see execute.py). What a tape
keeps of an op is a BackwardFunction: the op's gradient plus only the values
the op table says it reads (TensorFlow's `_get_backward_fn`).
"""
from ..tensor import SavedTensor
from . import anomaly, trace
from .registry import OPS
from .state import active_accumulators, active_tapes, lock_tapes, switches, thread_state, unlock_tapes
from .versions import counter_of


def record_gradient(op_name, inputs, attrs, results):
    # 1. Nothing to do when no tape is active or this thread stopped recording.
    if not (active_tapes or active_accumulators) or not thread_state.recording:
        return
    op_def = OPS[op_name]
    if not op_def.differentiable:
        return

    # Steps 2 to 5 hold the engine lock (state.py): no other thread changes the
    # tape set or the tapes between asking a tape and recording on it.
    lock_tapes()
    try:
        # 2. Which active tapes watch one of the inputs? Over a copy of the set: the lock is
        #    re-entrant, and a garbage collection run here can end a tensor whose death makes
        #    the autograd tape leave the set (on this very thread), which would skip the next tape.
        tapes = []
        for tape in tuple(active_tapes):
            if tape.should_record(inputs):
                tapes.append(tape)
        accumulators = [acc for acc in active_accumulators if acc.should_record(inputs)] if active_accumulators else ()
        if not tapes and not accumulators:
            return

        # 3. The op table: keep alive only what the gradient will read.
        op_inputs = inputs if op_def.needs_inputs else None
        op_outputs = results if op_def.needs_outputs else None

        # 4. The backward function, from the op's row, with each input's shape and dtype
        #    (un-broadcasting, casting back). A loop, not a comprehension: that is a call in CPython 3.11.
        input_info = []
        for t in inputs:
            data = t._data
            input_info.append((data.shape, data.dtype))
        backward_function = BackwardFunction(op_def, attrs, tuple(input_info), op_inputs, op_outputs)
        if switches.check_anomalies:
            backward_function.created_at = anomaly.user_stack()

        # 5. Record the op on every tape that asked for it, then (without the
        #    lock: they run ops) let forward-mode accumulators push tangents through it.
        for tape in tapes:
            tape.record_operation(op_name, inputs, results, backward_function)
    finally:
        unlock_tapes()
    for accumulator in accumulators:
        accumulator.accumulate(op_name, inputs, attrs, results, backward_function)
    if switches.tracing:
        keeps = " and ".join(k for k, v in (("inputs", op_inputs), ("outputs", op_outputs)) if v is not None)
        trace.recorded(op_name, inputs, results, tapes, keeps or "nothing")


class BackwardFunction:
    """What a tape keeps of one op: its gradient function and only the values it needs.

    The reverse pass calls it with the output gradients. A gradient function
    receives it as `op` and reads `op.inputs`, `op.outputs`, `op.attrs`,
    `op.input_shapes` and `op.needs_input_grad`, like a TensorFlow gradient
    reads `op.inputs` / `op.outputs`.
    """

    __slots__ = ("op_def", "attrs", "input_info", "needs_input_grad", "_inputs", "_input_versions", "_saved_outputs",
                 "created_at")

    def __init__(self, op_def, attrs, input_info, inputs, outputs):
        self.op_def = op_def
        self.attrs = attrs
        self.input_info = input_info
        self.needs_input_grad = (True,) * len(input_info)  # changed only by an exclusive call: see __call__
        self._inputs = inputs
        # The version of each saved value now (only the saved ones: most ops keep no inputs): an
        # in-place write before the gradient runs makes the gradient refuse (engine/versions.py).
        if inputs is None:
            self._input_versions = None
        else:
            versions = []
            for t in inputs:
                versions.append(0 if t._version is None else t._version.value)
            self._input_versions = tuple(versions)
        # Outputs are kept as (array, id, version counter, version), not as Tensors:
        # a Tensor kept by its own entry would never die, and its trace would never be deleted.
        if outputs is None:
            self._saved_outputs = None
        else:
            saved = []
            for o in outputs:
                counter = counter_of(o)
                saved.append((o._data, o._id, counter, counter.value))
            self._saved_outputs = tuple(saved)
        self.created_at = None  # the user's stack, kept while anomaly detection is on

    @property
    def op_name(self):
        return self.op_def.name

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
        outputs = []  # a loop, not a comprehension (a call of its own in CPython 3.11): this runs in every pass
        for data, tid, _, _ in self._saved_outputs:
            outputs.append(SavedTensor._restore(data, tid))
        return outputs

    @property
    def input_shapes(self):
        return [shape for shape, _ in self.input_info]

    def __call__(self, needs_input_grad, output_grads, exclusive=False):
        grad_fn = self.op_def.grad
        if grad_fn is None:
            raise LookupError(f"no gradient is registered for op {self.op_name!r}")
        # PyTorch's check that no value the gradient reads was written in place since the op ran,
        # inline (it runs for most ops of every pass); _check_versions says which value and why.
        if self._inputs is not None:
            for t, saved in zip(self._inputs, self._input_versions):
                if t._version is not None and t._version.value != saved:
                    self._check_versions(needs_input_grad)
                    break
        if self._saved_outputs is not None:
            for _, _, counter, saved in self._saved_outputs:
                if counter.value != saved:
                    self._check_versions(needs_input_grad)
        op = self
        if exclusive:  # the pass took the entry off its tape: no other pass can run it
            self.needs_input_grad = needs_input_grad
        elif needs_input_grad != self.needs_input_grad:
            # An entry still on its tape may run in several passes at once (threads): a copy, not an update.
            op = object.__new__(BackwardFunction)
            for name in BackwardFunction.__slots__:
                setattr(op, name, getattr(self, name))
            op.needs_input_grad = needs_input_grad
        grads = grad_fn(op, *output_grads)
        if type(grads) is not tuple:
            grads = tuple(grads) if isinstance(grads, list) else (grads,)
        if len(grads) != len(self.input_info):
            raise RuntimeError(
                f"the gradient of {self.op_name} returned {len(grads)} gradients for {len(self.input_info)} inputs"
            )
        return grads

    def _check_versions(self, needs_input_grad):
        """PyTorch's check: no value the gradient reads was written in place since the op ran."""
        if self._inputs is not None:
            for i, (t, saved) in enumerate(zip(self._inputs, self._input_versions)):
                counter = t._version
                if counter is not None and counter.value != saved and not (
                        self.op_def.cross_inputs and not any(n for j, n in enumerate(needs_input_grad) if j != i)):
                    self._modified(f"input {i}", t._data, counter.value, saved)
        if self._saved_outputs is not None:
            for i, (data, _, counter, saved) in enumerate(self._saved_outputs):
                if counter.value != saved:
                    self._modified(f"output {i}", data, counter.value, saved)

    def _modified(self, which, data, now, saved):
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[minitorch.{data.dtype} {list(data.shape)}], which is {which} of {self.op_name}Backward0, "
            f"is at version {now}; expected version {saved} instead. Hint: the operation that failed to compute "
            "its gradient saved this value; make the in-place update out of place (x = x + 1, not x += 1), "
            "or clone() the value before changing it."
        )
