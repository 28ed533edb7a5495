"""mt.autograd.Function: a custom op with `forward` and `backward` (PyTorch style).

    class Square(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    y = Square.apply(x)

As in PyTorch, `forward` runs with recording paused; its results then pass
through the registered op "PyFunction" (kernel: hand the values on; gradient:
call `backward` with the ctx kept in the op's attrs), so every tape and
forward accumulator sees the call through `record_gradient`. Saved outputs
are swapped for the op's outputs in `ctx.saved_tensors`, so a `backward`
written with minitorch ops is itself differentiable (double backward).
"""
from ..ops.registry import gradient, kernel
from .custom_gradient import check_gradients
from .execute import execute
from .tape_set import active_accumulators, active_tapes, stop_recording, thread_state


@kernel("PyFunction")
def _py_function_kernel(*inputs, values, ctx):
    """The values `forward` computed; the inputs only link the op to them."""
    return values[0] if len(values) == 1 else tuple(values)


@gradient("PyFunction", needs="both")
def _py_function_grad(op, *output_grads):
    """Calls the user's backward with one gradient per forward output."""
    ctx = op.attrs["ctx"]
    ctx._op_outputs = op.outputs
    ctx._op_inputs = op.inputs
    try:
        grads = ctx._function.backward(ctx, *_all_output_grads(ctx, output_grads))
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


def _all_output_grads(ctx, differentiable_grads):
    """Gradients for every forward output: zeros for those marked non-differentiable."""
    grads = iter(differentiable_grads)
    return [zeros_like(out) if id(out) in ctx._non_differentiable else next(grads) for out in ctx._forward_outputs]


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
    return any(tape.should_record((t,)) for tape in active_tapes) or any(acc.should_record((t,)) for acc in active_accumulators)


class Function:
    """A custom op: subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call with `.apply(*args)`. Runs the "PyFunction" op.

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
        """Runs `forward` with recording paused, then records one "PyFunction" op whose gradient calls `backward`.

        >>> class Double(mt.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         return grad * 2
        >>> Double.apply(mt.tensor([1.0], requires_grad=True))
        tensor([2.], grad_fn=<PyFunctionBackward>)
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
            made = execute("PyFunction", tuple(ctx._inputs), {"values": tuple(o._data for o in differentiable), "ctx": ctx})
            made = made if isinstance(made, tuple) else (made,)
            outputs = {id(a): b for a, b in zip(differentiable, made)}
        results = tuple(outputs.get(id(o), o.detach() if o._requires_grad else o) for o in flat)
        return results if isinstance(result, tuple) else results[0]


from ..creation import zeros_like  # noqa: E402
from ..tensor import Tensor  # noqa: E402
