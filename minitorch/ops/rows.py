"""How an op file writes a row of the op table (engine/registry.py): one call, which names the op once,
under the kernel, gradient and forward rule it holds:

    def _mul_grad(op, grad):
        '''d(xy) = y dx + x dy.'''
        ...

    op("Mul", np.multiply, _mul_grad, needs="other inputs", jvp=_mul_jvp)

A row without a gradient is an op that is not differentiable (comparisons, argmax): nothing is recorded.
A name is written once; a misspelt one in a function that runs it (`unary(...)`, `execute`) is a
KeyError, at import for the row factories of ops/coercion.py.

The forward rule (`jvp=`) is a function, or one of the rules the row's gradient or kernel gives:

    linear         the op is linear in its one input: the tangent goes through the op itself
    linear_in_all  linear in all its inputs together (missing tangents are zeros)
    elementwise    the op is elementwise: its Jacobian is diagonal, its own transpose, so the
                   gradient function applied to the tangent gives the output's tangent
    TRANSPOSE      forward mode transposes the gradient on a private tape (engine/forwardprop.py)

A rule receives the op's input and output Tensors, its attrs and one tangent
per input (None where the input has none, i.e. a zero tangent) and returns
the output tangent(s). Rules are written with minitorch ops, so tangents are
differentiable again (reverse-over-forward, forward-over-forward). This file
also has the helpers rules are written with (`fit`, `sum_terms`).
"""
import numpy as np

from ..engine.execute import execute
from ..engine.registry import OPS, TRANSPOSE, define  # noqa: F401  (TRANSPOSE: the op files take it from here)
from ..tensor import Tensor


def op(name, kernel, gradient=None, *, needs=None, accepts_none=(), jvp=None, view=None):
    """Writes the row of op `name` (see engine/registry.py `define` for the fields); returns it.
    `jvp` may be one of this file's rules, `linear`, `linear_in_all` or `elementwise`, made for this op."""
    if jvp in (linear, linear_in_all, elementwise):
        jvp = jvp(name)
    return define(name, kernel, gradient, needs=needs, accepts_none=accepts_none, jvp=jvp, view=view)


def written_into_zeros(op_name):
    """The gradient of a linear op that reads part of its input (a slice, a gather, a diagonal, windows): op
    `op_name`, its adjoint, writes the output's gradient into zeros of the input's shape, at the places read."""

    def gradient(op, grad):
        return execute(op_name, (grad,), {**op.attrs, "shape": op.input_shapes[0]})

    gradient.__name__ = f"_{op_name.lower()}_of_grad"
    gradient.__doc__ = f"d f(x) = f(dx), f linear: its adjoint {op_name} writes the gradient into zeros of x's shape."
    return gradient


def read_back_by(op_name):
    """The gradient of such an adjoint (`written_into_zeros`' op): op `op_name` reads the gradient back."""

    def gradient(op, grad):
        return execute(op_name, (grad,), {key: value for key, value in op.attrs.items() if key != "shape"})

    gradient.__name__ = f"_{op_name.lower()}_of_grad"
    gradient.__doc__ = f"The op is linear and its transpose is {op_name}: d f(g) = {op_name}(dg)."
    return gradient


def linear(op_name):
    """The rule of an op that is linear in its one input: the tangent goes through the op itself."""

    def rule(inputs, outputs, attrs, tangents):
        return execute(op_name, (tangents[0],), attrs)

    rule.__name__ = f"_{op_name.lower()}_jvp"
    rule.__doc__ = f"{op_name} is linear: its tangent is {op_name} of the input's tangent."
    return rule


def linear_in_all(op_name):
    """The rule of an op that is linear in all its inputs together (missing tangents are zeros)."""

    def rule(inputs, outputs, attrs, tangents):
        return execute(op_name, zeros_for_missing(inputs, tangents), attrs)

    rule.__name__ = f"_{op_name.lower()}_jvp"
    rule.__doc__ = f"{op_name} is linear in all inputs (missing tangents are zeros)."
    return rule


def fit(tangent, output):
    """A tangent of a broadcast input, broadcast to the output's shape and cast to its dtype."""
    if tangent._data.shape != output._data.shape:
        tangent = execute("BroadcastTo", (tangent,), {"shape": output._data.shape})
    if tangent._data.dtype != output._data.dtype:
        tangent = execute("Cast", (tangent,), {"dtype": output._data.dtype})
    return tangent


def zeros_for_missing(inputs, tangents):
    return tuple(Tensor._make(np.zeros_like(x._data)) if t is None else t for x, t in zip(inputs, tangents))


def sum_terms(terms, output):
    """The sum of the terms that are not None, fitted to the output."""
    present = [t for t in terms if t is not None]
    total = present[0] if len(present) == 1 else present[0] + present[1]
    return fit(total, output)


class _Tangent:
    """What a gradient function reads from `op`, for a forward rule that calls it with a tangent."""

    __slots__ = ("op_name", "inputs", "outputs", "attrs", "needs_input_grad")

    def __init__(self, op_name, inputs, outputs, attrs, needs_input_grad):
        self.op_name, self.inputs, self.outputs, self.attrs = op_name, inputs, outputs, attrs
        self.needs_input_grad = needs_input_grad

    @property
    def input_shapes(self):
        return [t.shape for t in self.inputs]


def elementwise(op_name):
    """The forward rule of an elementwise op, made from its gradient.

    An elementwise op's Jacobian with respect to each input is diagonal (up to
    broadcasting), hence its own transpose: J t is the gradient function applied
    to the tangent t, taken one input at a time. No private tape is needed, as
    it is for `jvp=TRANSPOSE`.
    """

    def rule(inputs, outputs, attrs, tangents):
        grad_fn = OPS[op_name].grad
        total = None
        for i, tangent in enumerate(tangents):
            if tangent is None:
                continue
            one_hot = tuple(j == i for j in range(len(inputs)))
            term = grad_fn(_Tangent(op_name, inputs, outputs, attrs, one_hot), tangent)
            term = term[i] if isinstance(term, tuple) else term
            if term is not None:
                total = term if total is None else total + term
        return None if total is None else fit(total, outputs[0])

    rule.__name__ = f"_{op_name.lower()}_jvp"
    rule.__doc__ = f"{op_name} is elementwise: its tangent is its gradient applied to the input tangents."
    return rule
