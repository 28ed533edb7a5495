"""The op table: one row (an OpDef) per op, keyed by TensorFlow's op name ("Add", "MatMul", ...).

A row holds what the engine needs to know about an op:

    kernel         numpy function(*arrays, **attrs) -> array or tuple of arrays   (execute runs it)
    grad           function(op, *output_grads) -> one gradient per input          (the reverse pass)
    needs_inputs   the gradient reads the op's inputs   } record_gradient keeps only these alive
    needs_outputs  the gradient reads the op's outputs  } (TensorFlow: _ops_which_dont_need_inputs/outputs)
    cross_inputs   the gradient of each input reads only the other inputs (Mul, MatMul): an input
                   written in place after the op matters only when another input needs a gradient
    accepts_none   output indices whose gradient may stay None
                   (tensorflow/python/eager/imperative_grad.py: _grad_fn_accepts_none_for_indices)
    differentiable False for comparisons, argmax, ...: nothing is recorded
    jvp            forward-mode rule function(inputs, outputs, attrs, tangents) -> output tangent(s),
                   or TRANSPOSE: the tangent comes from transposing the gradient
                   (TensorFlow's ForwardpropFromTape, tensorflow/c/eager/tape.h)
    view           VIEW: the kernel may return a view of input 0 (reshape, slicing, transpose):
                   the output shares the input's storage and version, and remembers the op;
                   STORAGE: it shares the storage and version only (detach; .data then takes a counter of its own)

The op files (minitorch/ops/) fill the rows with the decorators below, each
kernel followed by its gradient and its forward rule, so the table is filled
where the math is written. Like PyTorch's derivatives.yaml, but in Python.
"""
TRANSPOSE = "transpose the gradient"  # the jvp of ops whose tangent is computed from their gradient
VIEW = "view"  # a view op with a history: an in-place write through it rewrites its base's history
STORAGE = "storage"  # shares storage and version counter only (StopGradient)

_NEEDS = {"inputs": (True, False), "other inputs": (True, False), "outputs": (False, True), "both": (True, True),
          "nothing": (False, False)}


class OpDef:
    """One row of the op table."""

    __slots__ = ("name", "kernel", "grad", "needs_inputs", "needs_outputs", "cross_inputs", "accepts_none",
                 "differentiable", "jvp", "view")

    def __init__(self, name):
        self.name = name
        self.kernel = None
        self.grad = None
        self.needs_inputs = True
        self.needs_outputs = True
        self.cross_inputs = False
        self.accepts_none = frozenset()
        self.differentiable = True
        self.jvp = None
        self.view = None

    def __repr__(self):
        needs = {(True, True): "both", (True, False): "inputs", (False, True): "outputs", (False, False): "nothing"}
        grad = "not differentiable" if not self.differentiable else f"grad needs {needs[self.needs_inputs, self.needs_outputs]}"
        return f"<OpDef {self.name}: {grad}>"


OPS = {}  # op name -> OpDef


def op_def(op_name):
    """The row of `op_name`, made empty the first time it is named."""
    row = OPS.get(op_name)
    if row is None:
        row = OPS[op_name] = OpDef(op_name)
    return row


def kernel(op_name, view=None):
    """Registers the numpy forward kernel of `op_name` (`view`: VIEW or STORAGE for ops that may return a view)."""

    def register(fn):
        row = op_def(op_name)
        row.kernel = fn
        row.view = view
        return fn

    return register


def gradient(op_name, needs, accepts_none=(), jvp=None):
    """Registers the gradient of `op_name`.

    `needs` says what the gradient reads: "inputs", "other inputs" (the
    gradient of each input reads only the others), "outputs", "both" or
    "nothing". Only that is kept alive on the tape; reading anything else
    from the `op` argument raises. `jvp=TRANSPOSE` says that forward mode
    transposes this gradient instead of having a rule of its own.
    """
    needs_inputs, needs_outputs = _NEEDS[needs]

    def register(fn):
        row = op_def(op_name)
        row.grad = fn
        row.needs_inputs, row.needs_outputs = needs_inputs, needs_outputs
        row.cross_inputs = needs == "other inputs"
        row.accepts_none = frozenset(accepts_none)
        if jvp is not None:
            row.jvp = jvp
        return fn

    return register


def jvp(*op_names):
    """Registers a forward-mode rule for each of `op_names`."""

    def register(fn):
        for name in op_names:
            op_def(name).jvp = fn
        return fn

    return register


def not_differentiable(*op_names):
    """Marks ops that have no gradient at all (comparisons, argmax, ...): record_gradient skips them."""
    for name in op_names:
        row = op_def(name)
        row.differentiable = False
        row.needs_inputs = row.needs_outputs = False
