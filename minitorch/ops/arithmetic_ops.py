"""Arithmetic: + - * / // % and their named forms (add, sub, mul, div, floor_divide, remainder,
fmod, rsub), negation and absolute value, powers (pow, float_power, square, reciprocal), the
fused forms (addcmul, addcdiv, lerp), add_n, and positive and resolve_neg.

Each op is a row of the op table (engine/registry.py), written here: its numpy kernel, its
gradient, its forward-mode rule. Gradients are written with minitorch ops, so a recording tape
sees them and higher derivatives come for free. Broadcasting is undone by the tape
(engine/backprop.py, match_input): a binary op's gradient may return the broadcast shape.
"""
import numpy as np

from .. import dtypes
from ..creation import ones_like, zeros_like
from ..engine.execute import execute
from ..tensor import Tensor
from .coercion import as_operand, binary, cast, floating_pair, floating_unary, promote_pair, with_alpha
from .comparison_ops import where
from .exponential_ops import log
from .rounding_ops import sign, zero_jvp
from .rows import TRANSPOSE, elementwise, linear, linear_in_all, op, sum_terms

# ----- + - * / -----


def _add_grad(op, grad):
    """d(x + y) = dx + dy."""
    return grad, grad


def _add_jvp(inputs, outputs, attrs, tangents):
    """d(x + y) = dx + dy."""
    return sum_terms(tangents, outputs[0])


add = with_alpha(op("Add", np.add, _add_grad, needs="nothing", jvp=_add_jvp), "add", """a + alpha * b, elementwise with broadcasting. Runs the "Add" op.

    >>> mt.add(mt.tensor([1.0, 2.0]), mt.tensor([10.0, 20.0]), alpha=2)
    tensor([21., 42.])
    """)


def _sub_grad(op, grad):
    """d(x - y) = dx - dy."""
    return grad, (-grad if op.needs_input_grad[1] else None)


def _sub_jvp(inputs, outputs, attrs, tangents):
    """d(x - y) = dx - dy."""
    tx, ty = tangents
    return sum_terms([tx, -ty if ty is not None else None], outputs[0])


sub = with_alpha(op("Sub", np.subtract, _sub_grad, needs="nothing", jvp=_sub_jvp), "sub", """a - alpha * b, elementwise with broadcasting. Runs the "Sub" op.

    >>> mt.sub(mt.tensor([5.0, 5.0]), mt.tensor([1.0, 2.0]))
    tensor([4., 3.])
    """)


def rsub(input, other, *, alpha=1):
    """other - alpha * input: subtraction with the operands reversed. Runs the "Sub" op.

    >>> mt.rsub(mt.tensor([1.0, 2.0]), 10)
    tensor([9., 8.])
    """
    return sub(other, input, alpha=alpha)


def _mul_grad(op, grad):
    """d(xy) = y dx + x dy."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad * y if need_x else None), (grad * x if need_y else None)


def _mul_jvp(inputs, outputs, attrs, tangents):
    """d(xy) = dx y + x dy."""
    (x, y), (tx, ty) = inputs, tangents
    return sum_terms([tx * y if tx is not None else None, x * ty if ty is not None else None], outputs[0])


mul = binary(op("Mul", np.multiply, _mul_grad, needs="other inputs", jvp=_mul_jvp), "mul", """a * b, elementwise with broadcasting. Runs the "Mul" op.

    >>> mt.mul(mt.tensor([1.0, 2.0]), 3)
    tensor([3., 6.])
    """)


def _div_grad(op, grad):
    """d(x/y) = dx / y - x dy / y^2."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad / y if need_x else None), (-grad * x / (y * y) if need_y else None)


def _div_jvp(inputs, outputs, attrs, tangents):
    """d(x / y) = (dx - (x / y) dy) / y."""
    (_, y), (tx, ty) = inputs, tangents
    numerator = sum_terms([tx, -(outputs[0] * ty) if ty is not None else None], outputs[0])
    return numerator / y


op("RealDiv", np.true_divide, _div_grad, needs="inputs", jvp=_div_jvp)


def div(input, other, *, rounding_mode=None):
    """a / b, true division (integers give float32). Runs the "RealDiv" op.

    `rounding_mode="trunc"` rounds the quotient toward zero (C's integer division, the
    "TruncateDiv" op), `"floor"` toward minus infinity (`mt.floor_divide`, Python's //); both keep
    integer dtypes and are not differentiable. Integer division by zero raises in those modes.

    >>> mt.div(mt.tensor([1, 3]), 2)
    tensor([0.5000, 1.5000])
    >>> mt.div(mt.tensor([-7, 7]), 2, rounding_mode="trunc"), mt.div(mt.tensor([-7, 7]), 2, rounding_mode="floor")
    (tensor([-3,  3]), tensor([-4,  3]))
    """
    if rounding_mode is not None:
        if rounding_mode == "floor":
            return floor_divide(input, other)
        if rounding_mode == "trunc":
            return execute("TruncateDiv", promote_pair(input, other))
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {rounding_mode!r}")
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input._data.dtype is other._data.dtype and input._data.dtype.kind == "f":
        return execute("RealDiv", (input, other))
    return execute("RealDiv", floating_pair(input, other))


# ----- integer division and remainders: // % fmod -----

def _integer_division(divide, op_name):
    """The kernel `divide(a, b)`, refusing an integer division by zero as PyTorch does
    (numpy would give 0 and a warning)."""

    def checked(a, b):
        if b.dtype.kind in "iub" and a.dtype.kind in "iub" and not np.all(b):
            raise RuntimeError(f"{op_name}: ZeroDivisionError (integer division by zero)")
        return divide(a, b)

    checked.__name__ = checked.__qualname__ = f"_{op_name.lower()}"
    return checked


def _truncate_divide(a, b):
    """a / b rounded toward zero (C's integer division)."""
    if a.dtype.kind == "f":
        return np.trunc(np.true_divide(a, b))
    quotient = np.floor_divide(a, b)
    return quotient + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))).astype(quotient.dtype)


def _zero_gradients(op, grad):
    """d floor(x / y) = d trunc(x / y) = 0 for both operands wherever they are differentiable: PyTorch's
    div(rounding_mode="floor"/"trunc") gives these zeros, so its result requires grad when x does."""
    return zeros_like(grad), zeros_like(grad)


floor_divide = binary(op("FloorDiv", _integer_division(np.floor_divide, "FloorDiv"), _zero_gradients, needs="nothing",
                         jvp=zero_jvp), "floor_divide", """a // b, rounded toward minus infinity (Python's and PyTorch's `//`). Runs the "FloorDiv" op (not differentiable).

    >>> mt.floor_divide(mt.tensor([7, -7]), 2)
    tensor([ 3, -4])
    """)
op("TruncateDiv", _integer_division(_truncate_divide, "TruncateDiv"), _zero_gradients, needs="nothing", jvp=zero_jvp)


def _floor_mod_grad(op, grad):
    """x mod y = x - floor(x / y) y: d/dx = 1, d/dy = -floor(x / y)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad if need_x else None), (-grad * execute("FloorDiv", (x, y)) if need_y else None)


remainder = binary(op("FloorMod", _integer_division(np.remainder, "FloorMod"), _floor_mod_grad, needs="inputs",
                      jvp=TRANSPOSE), "remainder", """a % b with the sign of b (Python's and PyTorch's `%`). Runs the "FloorMod" op.

    >>> mt.remainder(mt.tensor([7.0, -7.0]), 3)
    tensor([1., 2.])
    """)


def _fmod_grad(op, grad):
    """fmod(x, y) = x - trunc(x / y) y: d/dx = 1, d/dy = -trunc(x / y)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad if need_x else None), (-grad * execute("TruncateDiv", (x, y)) if need_y else None)


fmod = binary(op("TruncateMod", _integer_division(np.fmod, "TruncateMod"), _fmod_grad, needs="inputs", jvp=elementwise),
              "fmod", """The C remainder: input - trunc(input / other) * other, with the sign of input. Runs the "TruncateMod" op.

    Integer division by zero raises, as in PyTorch. `mt.remainder` (Python's %) takes the sign of other.

    >>> mt.fmod(mt.tensor([7.0, -7.0]), 3)
    tensor([ 1., -1.])
    >>> mt.fmod(mt.tensor([-7, 7]), -3)
    tensor([-1,  1])
    """)


# ----- signs: neg, abs, positive, resolve_neg -----

def _neg_grad(op, grad):
    """d(-x) = -dx."""
    return -grad


op("Neg", np.negative, _neg_grad, needs="nothing", jvp=linear)


def neg(input):
    """-x. Runs the "Neg" op.

    >>> mt.neg(mt.tensor([1.0, -2.0]))
    tensor([-1., 2.])
    """
    return execute("Neg", (input,))


def _abs_grad(op, grad):
    """d|x| = sign(x) dx (0 at x = 0, as PyTorch)."""
    return grad * sign(op.inputs[0])


op("Abs", np.abs, _abs_grad, needs="inputs", jvp=elementwise)


def abs(input):
    """The absolute value of each element. Runs the "Abs" op.

    >>> mt.abs(mt.tensor([-1.5, 2.0]))
    tensor([1.5000, 2.0000])
    """
    return execute("Abs", (input,))


def positive(input):
    """input itself (+input). Bool tensors raise, as in PyTorch.

    >>> x = mt.tensor([-1.0, 2.0])
    >>> mt.positive(x) is x
    True
    """
    if input._data.dtype == np.bool_:
        raise TypeError("positive: the `+` operator on a bool tensor is not supported")
    return input


def resolve_neg(input):
    """input itself: PyTorch's lazy negation bit exists only for complex views, and minitorch
    tensors are real, so there is never a pending negation to materialize.

    >>> x = mt.tensor([-1.0, 2.0])
    >>> mt.resolve_neg(x) is x
    True
    """
    return input


# ----- powers: pow, float_power, square, reciprocal -----

def _pow_grad(op, grad):
    """d(x^y) = y x^(y-1) dx + log(x) x^y dy  (the log term taken as 0 where x <= 0)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    grad_x = grad * y * x ** (y - 1) if need_x else None
    grad_y = None
    if need_y:
        positive = x > 0
        safe_x = where(positive, x, ones_like(x))
        grad_y = grad * where(positive, op.outputs[0] * log(safe_x), zeros_like(x))
    return grad_x, grad_y


op("Pow", np.power, _pow_grad, needs="both", jvp=TRANSPOSE)


def pow(input, exponent):
    """input to the power exponent, elementwise with broadcasting. Runs the "Pow" op.

    >>> mt.pow(mt.tensor([2.0, 3.0]), 2)
    tensor([4., 9.])
    """
    if isinstance(input, Tensor) and isinstance(exponent, Tensor) and input._data.dtype is exponent._data.dtype:
        return execute("Pow", (input, exponent))
    return execute("Pow", promote_pair(input, exponent))


def float_power(input, exponent):
    """input ** exponent computed in float64, whatever the dtypes (the result is float64). Runs the "Pow" op.

    >>> mt.float_power(mt.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=minitorch.float64)
    """
    return pow(as_operand(input, dtype=dtypes.float64), as_operand(exponent, dtype=dtypes.float64))


def square(input):
    """x * x elementwise. Runs the "Mul" op.

    >>> mt.square(mt.tensor([-2.0, 3.0]))
    tensor([4., 9.])
    """
    return input * input


def _reciprocal_grad(op, grad):
    """d (1/x) = -dx / x^2 = -(1/x)^2 dx."""
    y = op.outputs[0]
    return -grad * (y * y)


reciprocal = floating_unary(op("Reciprocal", np.reciprocal, _reciprocal_grad, needs="outputs", jvp=elementwise), "reciprocal", """1 / x for each element (integers give float32, as in PyTorch). Runs the "Reciprocal" op.

    >>> mt.reciprocal(mt.tensor([2, -4]))
    tensor([ 0.5000, -0.2500])
    """)


# ----- fused forms: addcmul, addcdiv, lerp, add_n -----

def _scaled(value, tensor, function_name):
    """value * tensor, checking that a fractional value is not silently truncated for integers."""
    if value == 1:
        return tensor
    if tensor._data.dtype.kind != "f" and not float(value).is_integer():
        raise TypeError(f"{function_name}: value {value} must be an integer for {tensor.dtype} tensors")
    return value * tensor


def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2, elementwise with broadcasting. Runs the "Mul" and "Add" ops.

    >>> mt.addcmul(mt.ones(2), mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0]), value=0.5)
    tensor([2.5000, 5.0000])
    """
    tensor1, tensor2 = promote_pair(tensor1, tensor2)
    return add(input, _scaled(value, tensor1, "addcmul") * tensor2)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2, elementwise with broadcasting. Runs the "Mul", "RealDiv" and "Add" ops.

    Integer tensor1 and tensor2 raise, as in PyTorch (integer division is ambiguous).

    >>> mt.addcdiv(mt.ones(2), mt.tensor([1.0, 2.0]), mt.tensor([4.0, 8.0]), value=2)
    tensor([1.5000, 1.5000])
    """
    tensor1, tensor2 = promote_pair(tensor1, tensor2)
    if tensor1._data.dtype.kind != "f":
        raise TypeError("addcdiv: integer division is not supported: make tensor1 or tensor2 floating point "
                        "(for true division), or use mt.div(tensor1, tensor2, rounding_mode='trunc') for C-style "
                        "integer division")
    return add(input, _scaled(value, tensor1, "addcdiv") / tensor2)


def _lerp(start, end, weight):
    """PyTorch's two-sided formula: exact at both ends (weight 0 gives start, weight 1 gives end)."""
    difference = end - start
    return np.where(weight < 0.5, start + weight * difference, end - difference * (1 - weight))


def _lerp_grad(op, grad):
    """d lerp(a, b, w) = (1 - w) da + w db + (b - a) dw."""
    start, end, weight = op.inputs
    need_start, need_end, need_weight = op.needs_input_grad
    return ((grad * (1 - weight) if need_start else None), (grad * weight if need_end else None),
            (grad * (end - start) if need_weight else None))


op("Lerp", _lerp, _lerp_grad, needs="inputs", jvp=elementwise)


def lerp(input, end, weight):
    """Linear interpolation, input + weight * (end - input), elementwise with broadcasting
    (weight: a number or a tensor). Runs the "Lerp" op.

    As in PyTorch, weights of 0.5 and more use end - (end - input) * (1 - weight), so
    weight 1 gives `end` exactly. input and end must have the same floating dtype.

    >>> mt.lerp(mt.tensor([0.0, 10.0]), mt.tensor([10.0, 20.0]), 0.25)
    tensor([ 2.5000, 12.5000])
    >>> mt.lerp(mt.zeros(2), mt.ones(2), mt.tensor([0.1, 0.9]))
    tensor([0.1000, 0.9000])
    """
    input, end = as_operand(input), as_operand(end)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"lerp: not implemented for {input.dtype} (floating point only)")
    if input.dtype != end.dtype:
        raise TypeError(f"lerp: expected dtype {input.dtype} for `end` but got dtype {end.dtype}")
    weight = cast(as_operand(weight, like=input), input._data.dtype)
    return execute("Lerp", (input, end, weight))


def _add_n(*xs):
    total = xs[0] + xs[1]
    for x in xs[2:]:
        total += x
    return total


def _add_n_grad(op, grad):
    """d(x1 + ... + xn) = dx1 + ... + dxn."""
    return (grad,) * len(op.input_info)


op("AddN", _add_n, _add_n_grad, needs="nothing", jvp=linear_in_all)


def add_n(tensors):
    """The elementwise sum of a list of same-shape tensors. Runs the "AddN" op (TensorFlow's tf.add_n).

    >>> mt.add_n([mt.ones(2), mt.ones(2), mt.tensor([1.0, 2.0])])
    tensor([3., 4.])
    """
    return execute("AddN", tuple(tensors))
