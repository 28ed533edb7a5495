"""mt.custom_gradient: a function with a gradient written by the user (TensorFlow style).

    @mt.custom_gradient
    def log1pexp(x):
        e = mt.exp(x)
        def grad_fn(dy):
            return dy * (1 - 1 / (1 + e))
        return mt.log(1 + e), grad_fn

Recorded like a built-in op (TensorFlow eager's `_eager_mode_decorator`
records one op for the whole call): the results pass through the registered
op "CustomGradient", whose kernel hands the values on unchanged and whose
gradient calls the user's `grad_fn`, kept in the op's attrs. Tapes, the
autograd tape and forward accumulators therefore all see it through
`record_gradient`. The user's function runs with recording on, as in
TensorFlow, so tensors it computes and `grad_fn` closes over stay connected
to the inputs: a tape recording the backward pass differentiates `grad_fn`
again (higher orders through a custom gradient).
"""
import functools

from ..ops.registry import gradient, kernel
from .execute import execute


@kernel("CustomGradient")
def _custom_gradient_kernel(*inputs, values, grad_fn, name):
    """The values computed by the user's function; the inputs only link the op to them."""
    return values[0] if len(values) == 1 else tuple(values)


@gradient("CustomGradient", needs="nothing")
def _custom_gradient_grad(op, *output_grads):
    """Calls the user's grad_fn with one gradient per output; checks what comes back."""
    name = op.attrs["name"]
    grads = op.attrs["grad_fn"](*output_grads)
    return check_gradients(name, "grad_fn", grads, op.input_shapes)


def check_gradients(name, what, grads, input_shapes):
    """One gradient (Tensor or None) per input, of a shape the tape can sum back to the input's."""
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    grads = tuple(grads)
    if len(grads) != len(input_shapes):
        raise ValueError(
            f"custom gradient of {name}: {what} returned {len(grads)} gradient(s), "
            f"but the function has {len(input_shapes)} tensor input(s)"
        )
    checked = []
    for i, (g, shape) in enumerate(zip(grads, input_shapes)):
        if g is not None and not isinstance(g, Tensor):
            g = as_tensor(g)
        if g is not None and not _sums_to(tuple(g.shape), tuple(shape)):
            raise ValueError(
                f"custom gradient of {name}: {what} returned a gradient of shape {tuple(g.shape)} "
                f"for input {i} of shape {tuple(shape)}"
            )
        checked.append(g)
    return tuple(checked)


def _sums_to(grad_shape, shape):
    """True when the tape can sum a gradient of grad_shape back to shape (un-broadcasting)."""
    lead = len(grad_shape) - len(shape)
    return lead >= 0 and all(n == 1 or n == g for n, g in zip(shape, grad_shape[lead:]))


def custom_gradient(f):
    """Decorates `f(*args) -> (outputs, grad_fn)`; `grad_fn(*output_grads)` returns one
    gradient per Tensor argument of `f` (None for no gradient). Runs the "CustomGradient" op (TensorFlow's tf.custom_gradient).

    >>> @mt.custom_gradient
    ... def clip_grad_identity(x):
    ...     return x * 1, lambda dy: dy.clamp(-1, 1)
    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> (clip_grad_identity(x) * 5).sum().backward()
    >>> x.grad
    tensor([1., 1.])
    """
    name = getattr(f, "__name__", type(f).__name__)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        result, grad_fn = f(*args, **kwargs)
        if not callable(grad_fn):
            raise TypeError(f"custom_gradient: {name} must return (outputs, grad_fn) with a callable grad_fn")
        inputs = tuple(a for a in args if isinstance(a, Tensor))
        flat = list(result) if isinstance(result, (tuple, list)) else [result]
        for i, out in enumerate(flat):
            if not isinstance(out, Tensor):
                raise TypeError(f"custom_gradient: output {i} of {name} is {type(out).__name__}, not a Tensor")
        values = tuple(out._data for out in flat)
        outputs = execute("CustomGradient", inputs, {"values": values, "grad_fn": grad_fn, "name": name})
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        if isinstance(result, (tuple, list)):
            return type(result)(outputs)
        return outputs[0]

    return decorated


from ..tensor import Tensor, as_tensor  # noqa: E402
