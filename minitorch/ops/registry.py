"""The op tables, keyed by op name (TensorFlow's names: "Add", "MatMul", ...).

`execute` looks up the forward kernel here; `record_gradient` looks up what the
gradient function needs (seed 002: `_ops_which_dont_need_inputs` /
`_ops_which_dont_need_outputs`); the reverse pass looks up which output
gradients may stay None (seed 003: `_grad_fn_accepts_none_for_indices`).
Each op file declares its kernels and gradients with the decorators below, one
short function each, so the tables are filled where the math is written.
"""

KERNELS = {}  # op name -> numpy function(*arrays, **attrs) -> array or tuple of arrays
GRADIENTS = {}  # op name -> function(op, *output_grads) -> one gradient per input (or None)
OPS_WITHOUT_INPUTS = set()  # their gradient never reads the op's inputs
OPS_WITHOUT_OUTPUTS = set()  # their gradient never reads the op's outputs
ACCEPTS_NONE = {}  # op name -> output indices whose gradient may be passed as None
NOT_DIFFERENTIABLE = set()  # ops with no gradient at all (comparisons, argmax, ...)
JVPS = {}  # op name -> forward-mode rule (filled by the forward-mode code)

_NEEDS = {"inputs": (True, False), "outputs": (False, True), "both": (True, True), "nothing": (False, False)}


def kernel(op_name):
    """Registers the numpy forward kernel of `op_name`."""

    def register(fn):
        KERNELS[op_name] = fn
        return fn

    return register


def gradient(op_name, needs, accepts_none=()):
    """Registers the gradient of `op_name`.

    `needs` says what the gradient reads: "inputs", "outputs", "both" or
    "nothing". Only that is kept alive on the tape; reading anything else
    from the `op` argument raises.
    """
    needs_inputs, needs_outputs = _NEEDS[needs]

    def register(fn):
        GRADIENTS[op_name] = fn
        OPS_WITHOUT_INPUTS.discard(op_name)
        OPS_WITHOUT_OUTPUTS.discard(op_name)
        if not needs_inputs:
            OPS_WITHOUT_INPUTS.add(op_name)
        if not needs_outputs:
            OPS_WITHOUT_OUTPUTS.add(op_name)
        if accepts_none:
            ACCEPTS_NONE[op_name] = frozenset(accepts_none)
        return fn

    return register


def not_differentiable(*op_names):
    NOT_DIFFERENTIABLE.update(op_names)
