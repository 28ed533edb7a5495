"""User-written gradients, through ONE op, "CustomGradient", with two doors.

    @mt.custom_gradient                      class Square(mt.autograd.Function):
    def log1pexp(x):                             @staticmethod
        e = mt.exp(x)                            def forward(ctx, x):
        def grad_fn(dy):                             ctx.save_for_backward(x)
            return dy * (1 - 1 / (1 + e))            return x * x
        return mt.log(1 + e), grad_fn            @staticmethod
                                                 def backward(ctx, grad):
                                                     (x,) = ctx.saved_tensors
                                                     return 2 * x * grad

Both doors compute the values first, then pass them through the op
"CustomGradient": its kernel hands the values on unchanged, its gradient
calls the user's gradient function, kept in the op's attrs. Tapes, the
autograd tape and forward accumulators therefore all see the call through
`record_gradient`, like a built-in op (TensorFlow eager's
`_eager_mode_decorator` records one op for the whole call, too).

The doors differ as their frameworks do. TensorFlow's `custom_gradient`
runs the user's function with recording on, so tensors that `grad_fn`
closes over stay connected to the inputs and a tape recording the backward
pass differentiates `grad_fn` again. PyTorch's `Function.forward` runs with
recording paused; `ctx.saved_tensors` then returns the op's own inputs and
outputs, so a `backward` written with minitorch ops is differentiable too.
"""
import functools

import numpy as np

from ..engine.backprop import broadcast_axes
from ..engine.execute import execute
from ..engine.state import active_accumulators, active_tapes, stop_recording, tape_lock, thread_state
from ..ops.coercion import as_operand
from ..ops.rows import TRANSPOSE, op
from ..tensor import Tensor


def _custom_gradient_kernel(*inputs, values, gradient, name):
    """The values the user's function computed; the inputs only link the op to them."""
    return values[0] if len(values) == 1 else tuple(values)


def _custom_gradient_grad(op, *output_grads):
    """d f(x) = what the user's gradient function says (grad_fn, or Function.backward)."""
    return op.attrs["gradient"](op, *output_grads)


op("CustomGradient", _custom_gradient_kernel, _custom_gradient_grad, needs="both", jvp=TRANSPOSE)


def _run(inputs, values, gradient_of_op, name):
    """The op's outputs for `values`, with `gradient_of_op(op, *output_grads)` as their gradient."""
    outputs = execute("CustomGradient", tuple(inputs), {"values": tuple(values), "gradient": gradient_of_op, "name": name})
    return outputs if isinstance(outputs, tuple) else (outputs,)


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
            g = as_operand(g)
        if g is not None and broadcast_axes(tuple(g.shape), tuple(shape)) is None:
            raise ValueError(
                f"custom gradient of {name}: {what} returned a gradient of shape {tuple(g.shape)} "
                f"for input {i} of shape {tuple(shape)}"
            )
        checked.append(g)
    return tuple(checked)


# ----- the TensorFlow door -----

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

        def gradient_of_op(op, *output_grads):
            return check_gradients(name, "grad_fn", grad_fn(*output_grads), op.input_shapes)

        outputs = _run(inputs, [out._data for out in flat], gradient_of_op, name)
        if isinstance(result, (tuple, list)):
            return type(result)(outputs)
        return outputs[0]

    return decorated


# ----- the PyTorch door -----

def _function_gradient(ctx, op, *output_grads):
    """Calls the user's backward with one gradient per forward output (zeros for those marked
    non-differentiable); `ctx.saved_tensors` meanwhile returns the op's own inputs and outputs."""
    ctx._op_outputs = op.outputs
    ctx._op_inputs = op.inputs
    given = iter(output_grads)
    all_grads = [Tensor._make(np.zeros_like(out._data)) if id(out) in ctx._non_differentiable else next(given)
                 for out in ctx._forward_outputs]
    try:
        grads = ctx._function.backward(ctx, *all_grads)
    finally:
        ctx._op_outputs = ctx._op_inputs = None
    if not isinstance(grads, tuple):
        grads = (grads,)
    expected = len(ctx._arg_is_tensor)
    if len(grads) > expected and all(g is None for g in grads[expected:]):
        grads = grads[:expected]  # PyTorch allows trailing Nones
    name = ctx._function.__name__
    if len(grads) != expected:
        raise RuntimeError(f"function {name}.backward returned an incorrect number of gradients (expected {expected}, got {len(grads)})")
    tensor_grads = [g for g, is_tensor in zip(grads, ctx._arg_is_tensor) if is_tensor]
    return check_gradients(name, "backward", tensor_grads, op.input_shapes)


class FunctionCtx:
    """The `ctx` passed to a Function's forward and backward: saved tensors, `needs_input_grad`.

    >>> class Show(mt.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x, y):
    ...         print(ctx.needs_input_grad)
    ...         return x + y
    >>> _ = Show.apply(mt.ones(1, requires_grad=True), mt.ones(1))
    (True, False)
    """

    def __init__(self, function, args):
        self._function = function
        self._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        self._inputs = [a for a in args if isinstance(a, Tensor)]
        self._saved = ()
        self._non_differentiable = set()
        self._forward_outputs = ()
        self._op_outputs = self._op_inputs = None
        self.needs_input_grad = tuple(isinstance(a, Tensor) and _would_record(a) for a in args)

    def save_for_backward(self, *tensors):
        """Keeps tensors (or None) for backward, where `ctx.saved_tensors` returns them.

        >>> class Cube(mt.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return 3 * x * x * grad
        >>> x = mt.tensor([2.0], requires_grad=True)
        >>> Cube.apply(x).backward()
        >>> x.grad
        tensor([12.])
        """
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save Tensors or None, got {type(t).__name__}")
        self._saved = tensors

    @property
    def saved_tensors(self):
        """The saved tensors; inputs and outputs as the op recorded them, so they link to the graph."""
        by_id = {}
        if self._op_inputs is not None:
            by_id.update({id(a): b for a, b in zip(self._inputs, self._op_inputs)})
        if self._op_outputs is not None:
            differentiable = [o for o in self._forward_outputs if id(o) not in self._non_differentiable]
            by_id.update({id(a): b for a, b in zip(differentiable, self._op_outputs)})
        return tuple(by_id.get(id(t), t) for t in self._saved)

    def mark_non_differentiable(self, *outputs):
        """Marks forward outputs that get no gradient (backward receives zeros for them).

        >>> class SortedWithIndex(mt.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         i = x.argmax()
        ...         ctx.mark_non_differentiable(i)
        ...         return x * 1, i
        ...     @staticmethod
        ...     def backward(ctx, grad, grad_i):
        ...         return grad
        >>> y, i = SortedWithIndex.apply(mt.tensor([1.0, 3.0], requires_grad=True))
        >>> i, i.requires_grad
        (tensor(1), False)
        """
        self._non_differentiable.update(id(o) for o in outputs)


def _would_record(t):
    """Could a gradient with respect to `t` be asked for? (some active tape or accumulator watches it)"""
    if not thread_state.recording or t._data.dtype.kind != "f":
        return False
    with tape_lock:
        return any(tape.should_record((t,)) for tape in tuple(active_tapes)) or any(
            acc.should_record((t,)) for acc in active_accumulators)


class Function:
    """A custom op: subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call with `.apply(*args)`. Runs the "CustomGradient" op.

    >>> class Square(mt.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = mt.tensor([1.0, 3.0], requires_grad=True)
    >>> Square.apply(x).sum().backward()
    >>> x.grad
    tensor([2., 6.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @classmethod
    def apply(cls, *args):
        """Runs `forward` with recording paused, then records one "CustomGradient" op whose gradient calls `backward`.

        >>> class Double(mt.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         return grad * 2
        >>> Double.apply(mt.tensor([1.0], requires_grad=True))
        tensor([2.], grad_fn=<CustomGradientBackward0>)
        """
        ctx = FunctionCtx(cls, args)
        with stop_recording():
            result = cls.forward(ctx, *args)
        flat = list(result) if isinstance(result, tuple) else [result]
        for i, out in enumerate(flat):
            if not isinstance(out, Tensor):
                raise TypeError(f"{cls.__name__}.forward: output {i} is {type(out).__name__}, not a Tensor")
        ctx._forward_outputs = tuple(flat)
        differentiable = [o for o in flat if id(o) not in ctx._non_differentiable and o.is_floating_point()]
        ctx._non_differentiable |= {id(o) for o in flat if not o.is_floating_point()}
        outputs = {}
        if differentiable:
            made = _run(ctx._inputs, [o._data for o in differentiable], functools.partial(_function_gradient, ctx), cls.__name__)
            outputs = {id(a): b for a, b in zip(differentiable, made)}
        results = tuple(outputs.get(id(o), o.detach() if o._requires_grad else o) for o in flat)
        return results if isinstance(result, tuple) else results[0]
