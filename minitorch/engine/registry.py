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

The op files (minitorch/ops/) write each row with one call, `op(...)` (ops/rows.py, which
comes to `define` here), under the kernel, gradient and forward rule it names, so the table
is filled where the math is written. Like PyTorch's derivatives.yaml, but in Python.
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

    def __init__(self, name, kernel, grad, needs, accepts_none, jvp, view):
        self.name = name
        self.kernel = kernel
        self.grad = grad
        self.needs_inputs, self.needs_outputs = _NEEDS[needs]
        self.cross_inputs = needs == "other inputs"
        self.accepts_none = frozenset(accepts_none)
        self.differentiable = grad is not None
        self.jvp = jvp
        self.view = view

    def __repr__(self):
        needs = {(True, True): "both", (True, False): "inputs", (False, True): "outputs", (False, False): "nothing"}
        grad = "not differentiable" if not self.differentiable else f"grad needs {needs[self.needs_inputs, self.needs_outputs]}"
        return f"<OpDef {self.name}: {grad}>"


OPS = {}  # op name -> OpDef


def define(name, kernel, grad=None, *, needs=None, accepts_none=(), jvp=None, view=None):
    """Writes the row of op `name`: its numpy `kernel`, its gradient `grad` (None: not differentiable,
    like comparisons and argmax, and nothing is recorded), what the gradient reads (`needs`: "inputs",
    "other inputs" -- the gradient of each input reads only the others --, "outputs", "both" or
    "nothing"; only that is kept alive on the tape, and reading anything else from the `op` argument
    raises), the output indices whose gradient may stay None, the forward rule (a function, or
    TRANSPOSE: forward mode transposes the gradient), and whether the kernel may return a view (VIEW,
    STORAGE). A name is defined once: a second row of the same name raises."""
    if name in OPS:
        raise ValueError(f"op {name!r} is defined twice")
    if (grad is None) != (needs is None) or (grad is None and (jvp is not None or accepts_none)):
        raise ValueError(f"op {name!r}: a gradient comes with its needs= (and a forward rule only with a gradient)")
    if needs is not None and needs not in _NEEDS:
        raise ValueError(f"op {name!r}: needs={needs!r} is none of {', '.join(map(repr, _NEEDS))}")
    row = OPS[name] = OpDef(name, kernel, grad, "nothing" if needs is None else needs, accepts_none, jvp, view)
    return row
