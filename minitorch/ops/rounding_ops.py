"""Rounding and signs: floor, ceil, round, trunc (fix) and frac; sign (sgn), signbit, copysign,
heaviside and nextafter.

The step functions (floor, ceil, round, trunc, sign) are flat wherever they are differentiable:
their gradient is zeros, as PyTorch's, so their results still require grad.
"""
import numpy as np

from ..creation import zeros_like
from ..engine.execute import execute
from .coercion import as_operand, binary, cast, floating_binary, unary
from .comparison_ops import eq, ne
from .rows import elementwise, op


def zero_gradient(op, grad):
    """d f(x) = 0 for the step functions (floor, ceil, round, trunc, sign) wherever they are
    differentiable. PyTorch gives these zeros too, so their results still require grad."""
    return zeros_like(grad)


def zero_jvp(inputs, outputs, attrs, tangents):
    """A step function's tangent is zero (None: no tangent)."""
    return None


# ----- rounding -----

op("Floor", np.floor, zero_gradient, needs="nothing", jvp=zero_jvp)
op("Ceil", np.ceil, zero_gradient, needs="nothing", jvp=zero_jvp)
op("Round", np.round, zero_gradient, needs="nothing", jvp=zero_jvp)


def floor(input):
    """The largest integer <= each element (same dtype). Runs the "Floor" op (its gradient is 0).

    >>> mt.floor(mt.tensor([1.5, -1.5]))
    tensor([ 1., -2.])
    """
    return execute("Floor", (input,))


def ceil(input):
    """The smallest integer >= each element (same dtype). Runs the "Ceil" op (its gradient is 0).

    >>> mt.ceil(mt.tensor([1.5, -1.5]))
    tensor([ 2., -1.])
    """
    return execute("Ceil", (input,))


def round(input, *, decimals=0):
    """Each element rounded to `decimals` decimal places (default: to an integer), halves to even
    (as PyTorch). Negative `decimals` round to tens, hundreds, ... Runs the "Round" op (its gradient is 0).

    >>> mt.round(mt.tensor([0.5, 1.5, 2.7]))
    tensor([0., 2., 3.])
    >>> mt.round(mt.tensor([1.2345, 2.5678]), decimals=2), mt.round(mt.tensor([1234.5]), decimals=-2)
    (tensor([1.2300, 2.5700]), tensor([1200.]))
    """
    if decimals == 0:
        return execute("Round", (input,))
    if input._data.dtype.kind != "f":
        raise TypeError(f"round: decimals is not supported for {input.dtype} tensors (floating point only)")
    return execute("Round", (input,), {"decimals": decimals})


trunc = unary(op("Trunc", np.trunc, zero_gradient, needs="nothing", jvp=elementwise), "trunc", """Each element rounded toward zero (same dtype). Runs the "Trunc" op (its gradient is 0; `mt.fix` is the same).

    >>> mt.trunc(mt.tensor([1.7, -1.7, 0.2]))
    tensor([ 1., -1.,  0.])
    """)


def frac(input):
    """The fractional part of each element, input - trunc(input) (sign of input). Runs the "Sub" and "Trunc" ops.

    The gradient is 1, as in PyTorch (trunc is flat).

    >>> mt.frac(mt.tensor([1.75, -1.75]))
    tensor([ 0.7500, -0.7500])
    """
    input = as_operand(input)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"frac: not implemented for {input.dtype} (floating point only)")
    return input - trunc(input)


# ----- signs -----

def _sign(x):
    """np.sign, with PyTorch's sign(nan) = 0 (and bools kept as they are). A sum finds NaNs
    faster than np.isnan does; the rare array with one pays a second pass."""
    if x.dtype == np.bool_:
        return x.copy()
    signs = np.sign(x)
    if x.dtype.kind == "f" and np.isnan(np.add.reduce(signs, axis=None)):
        signs = np.asarray(signs)  # np.sign of a 0-d array gives a numpy scalar
        np.copyto(signs, 0, where=np.isnan(signs))
    return signs


op("Sign", _sign, zero_gradient, needs="nothing", jvp=zero_jvp)


def sign(input):
    """-1, 0 or 1 by the sign of each element (0 for NaN, as PyTorch). Runs the "Sign" op (its gradient is 0).

    >>> mt.sign(mt.tensor([-3.0, 0.0, 2.0]))
    tensor([-1., 0., 1.])
    """
    return execute("Sign", (input,))


def _signbit(x):
    return np.signbit(x) if x.dtype.kind == "f" else x < 0


signbit = unary(op("Signbit", _signbit), "signbit", """True where the sign bit is set (negative numbers and -0.0). Runs the "Signbit" op.

    >>> mt.signbit(mt.tensor([-1.0, -0.0, 0.0, 2.0]))
    tensor([ True,  True, False, False])
    """)


def _copysign_grad(op, grad):
    """d copysign(x, y) = [sign(x) = sign(y)] dx - [sign(x) != sign(y)] dx (0 at x = 0); flat in y."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    grad_x = None
    if need_x:
        same = cast(eq(signbit(x), signbit(y)), grad._data.dtype)
        grad_x = grad * (same * 2 - 1) * cast(ne(x, 0), grad._data.dtype)
    return grad_x, (zeros_like(grad) if need_y else None)


copysign = floating_binary(op("Copysign", np.copysign, _copysign_grad, needs="inputs", jvp=elementwise), "copysign", """|input| with the sign of other (also -0.0's sign), elementwise. Runs the "Copysign" op.

    >>> mt.copysign(mt.tensor([1.0, -2.0, 3.0]), mt.tensor([-1.0, 1.0, -0.0]))
    tensor([-1.,  2., -3.])
    """)


def _heaviside(x, values):
    """PyTorch's definition, x == 0 ? values : x > 0 (so nan gives 0; np.heaviside gives nan)."""
    return np.where(x == 0, values, x > 0).astype(x.dtype, copy=False)


op("Heaviside", _heaviside)


def heaviside(input, values):
    """The step function: 0 where input < 0, 1 where input > 0, `values` where input == 0. Runs the
    "Heaviside" op (not differentiable). input and values must have the same dtype, as in PyTorch.

    >>> mt.heaviside(mt.tensor([-1.5, 0.0, 2.0]), mt.tensor(0.5))
    tensor([0.0000, 0.5000, 1.0000])
    """
    input, values = as_operand(input), as_operand(values)
    if input.dtype != values.dtype:
        raise RuntimeError(f"heaviside is not implemented for tensors with different dtypes ({input.dtype} and {values.dtype})")
    return execute("Heaviside", (input, values))


nextafter = binary(op("NextAfter", np.nextafter), "nextafter", """The next floating-point value after input in the direction of other. Runs the "NextAfter" op (not differentiable).

    >>> mt.nextafter(mt.tensor([1.0], dtype=mt.float64), mt.tensor([2.0], dtype=mt.float64)) - 1
    tensor([2.2204e-16], dtype=minitorch.float64)
    """, kinds="f")
