"""Exponentials, logarithms and roots: exp, exp2, expm1; log, log2, log10, log1p; logaddexp and
logaddexp2; sqrt and rsqrt; ldexp and frexp (a float as mantissa times a power of two).

expm1 and log1p are the accurate forms near 0 (no rounding of 1 + x), which keep
BCEWithLogitsLoss accurate for large logits. Integer inputs are promoted to float32, as in PyTorch.
"""
import math
from collections import namedtuple

import numpy as np

from ..engine.execute import execute
from .activation_ops import sigmoid
from .coercion import as_operand, cast, floating, floating_binary, floating_unary
from .rows import TRANSPOSE, elementwise, op

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


# ----- exponentials -----

def _exp_grad(op, grad):
    """d e^x = e^x dx."""
    return grad * op.outputs[0]


exp = floating_unary(op("Exp", np.exp, _exp_grad, needs="outputs", jvp=elementwise), "exp", """e to the power of each element. Runs the "Exp" op (integers are promoted to float32).

    >>> mt.exp(mt.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """)


def _exp2_grad(op, grad):
    """d 2^x = 2^x log(2) dx."""
    return grad * op.outputs[0] * _LN2


exp2 = floating_unary(op("Exp2", np.exp2, _exp2_grad, needs="outputs", jvp=elementwise), "exp2", """2 to the power of each element. Runs the "Exp2" op.

    >>> mt.exp2(mt.tensor([0, 3, -1]))
    tensor([1.0000, 8.0000, 0.5000])
    """)


def _expm1_grad(op, grad):
    """d (e^x - 1) = e^x dx = (expm1(x) + 1) dx."""
    return grad * (op.outputs[0] + 1)


expm1 = floating_unary(op("Expm1", np.expm1, _expm1_grad, needs="outputs", jvp=elementwise), "expm1", """e^x - 1 for each element, accurate for small x. Runs the "Expm1" op.

    >>> mt.expm1(mt.tensor([1e-10, 1.0], dtype=mt.float64))
    tensor([1.0000e-10, 1.7183e+00], dtype=minitorch.float64)
    """)


# ----- logarithms -----

def _log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


def _log_grad(op, grad):
    """d log x = dx / x."""
    return grad / op.inputs[0]


log = floating_unary(op("Log", _log, _log_grad, needs="inputs", jvp=elementwise), "log", """The natural logarithm of each element. Runs the "Log" op (integers are promoted to float32).

    >>> mt.log(mt.tensor([1.0, 4.0]))
    tensor([0.0000, 1.3863])
    """)


def _log2_grad(op, grad):
    """d log2(x) = dx / (x log(2))."""
    return grad / (op.inputs[0] * _LN2)


log2 = floating_unary(op("Log2", np.log2, _log2_grad, needs="inputs", jvp=elementwise), "log2", """The base-2 logarithm of each element. Runs the "Log2" op.

    >>> mt.log2(mt.tensor([1.0, 8.0, 0.5]))
    tensor([ 0.,  3., -1.])
    """)


def _log10_grad(op, grad):
    """d log10(x) = dx / (x log(10))."""
    return grad / (op.inputs[0] * _LN10)


log10 = floating_unary(op("Log10", np.log10, _log10_grad, needs="inputs", jvp=elementwise), "log10", """The base-10 logarithm of each element. Runs the "Log10" op.

    >>> mt.log10(mt.tensor([1.0, 10.0, 0.5]))
    tensor([ 0.0000,  1.0000, -0.3010])
    """)


def _log1p(x):
    """np.log1p, as a Python function: an in-place log1p_ of an integer tensor then computes the float
    result and refuses to write it (a ufunc would refuse, naming the integer dtype)."""
    return np.log1p(x)


def _log1p_grad(op, grad):
    """d log(1 + x) = dx / (1 + x)."""
    return grad / (1 + op.inputs[0])


log1p = floating_unary(op("Log1p", _log1p, _log1p_grad, needs="inputs", jvp=TRANSPOSE), "log1p", """log(1 + x), elementwise, accurate for small x (integers are promoted to float32). Runs the "Log1p" op.

    >>> mt.log1p(mt.tensor([1e-10, 1.0], dtype=mt.float64))
    tensor([1.0000e-10, 6.9315e-01], dtype=minitorch.float64)
    """)


def _logaddexp_grad(op, grad):
    """d log(e^x + e^y) = sigmoid(x - y) dx + sigmoid(y - x) dy."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad * sigmoid(x - y) if need_x else None), (grad * sigmoid(y - x) if need_y else None)


logaddexp = floating_binary(op("LogAddExp", np.logaddexp, _logaddexp_grad, needs="inputs", jvp=elementwise), "logaddexp", """log(e^input + e^other), elementwise, without overflow. Runs the "LogAddExp" op.

    >>> mt.logaddexp(mt.tensor([1000.0, -1.0], dtype=mt.float64), mt.tensor([1000.0, -2.0], dtype=mt.float64))
    tensor([ 1.0007e+03, -6.8674e-01], dtype=minitorch.float64)
    """)


def _logaddexp2_grad(op, grad):
    """d log2(2^x + 2^y) = sigmoid((x - y) log 2) dx + sigmoid((y - x) log 2) dy."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return ((grad * sigmoid((x - y) * _LN2)) if need_x else None), ((grad * sigmoid((y - x) * _LN2)) if need_y else None)


logaddexp2 = floating_binary(op("LogAddExp2", np.logaddexp2, _logaddexp2_grad, needs="inputs", jvp=elementwise), "logaddexp2", """log2(2^input + 2^other), elementwise, without overflow. Runs the "LogAddExp2" op.

    >>> mt.logaddexp2(mt.tensor([1.0, 3.0]), mt.tensor([1.0, 4.0]))
    tensor([2.0000, 4.5850])
    """)


# ----- roots -----

def _sqrt(x):
    with np.errstate(invalid="ignore"):
        return np.sqrt(x)


def _sqrt_grad(op, grad):
    """d sqrt(x) = dx / (2 sqrt(x))."""
    return grad / (op.outputs[0] * 2)


sqrt = floating_unary(op("Sqrt", _sqrt, _sqrt_grad, needs="outputs", jvp=elementwise), "sqrt", """The square root of each element. Runs the "Sqrt" op (integers are promoted to float32).

    >>> mt.sqrt(mt.tensor([4, 9]))
    tensor([2., 3.])
    """)


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


def _rsqrt_grad(op, grad):
    """d x^(-1/2) = -x^(-3/2) / 2 dx = -rsqrt(x)^3 / 2 dx."""
    y = op.outputs[0]
    return grad * (y * y * y) * -0.5


rsqrt = floating_unary(op("Rsqrt", _rsqrt, _rsqrt_grad, needs="outputs", jvp=elementwise), "rsqrt", """1 / sqrt(x) for each element. Runs the "Rsqrt" op.

    >>> mt.rsqrt(mt.tensor([4.0, 0.25, 1.0]))  # inf at 0, nan below
    tensor([0.5000, 2.0000, 1.0000])
    """)


# ----- a float as mantissa times a power of two -----

def ldexp(input, other):
    """input * 2 ** other (the result is floating point). Runs the "Pow" and "Mul" ops.

    >>> mt.ldexp(mt.tensor([1.0, 3.0]), mt.tensor([3, -1]))
    tensor([8.0000, 1.5000])
    """
    return floating(input) * (2.0 ** as_operand(other))


def _frexp_grad(op, grad_mantissa, grad_exponent):
    """x = m 2^e with e piecewise constant: dm = dx / 2^e."""
    exponent = op.outputs[1]
    return grad_mantissa / (2.0 ** cast(exponent, grad_mantissa._data.dtype))


op("Frexp", np.frexp, _frexp_grad, needs="outputs", accepts_none=(1,), jvp=TRANSPOSE)

frexp_result = namedtuple("frexp", ["mantissa", "exponent"])  # as torch.return_types.frexp


def frexp(input):
    """input split into mantissa and exponent, input = mantissa * 2 ** exponent, 0.5 <= |mantissa| < 1. Runs the "Frexp" op.

    Returns a pair (mantissa, exponent) with those field names; exponent is int32.

    >>> m, e = mt.frexp(mt.tensor([8.0, -0.75, 0.0]))
    >>> m, e
    (tensor([ 0.5000, -0.7500,  0.0000]), tensor([4, 0, 0], dtype=minitorch.int32))
    >>> mt.frexp(mt.tensor([8.0])).exponent
    tensor([4], dtype=minitorch.int32)
    """
    input = as_operand(input)
    if input._data.dtype.kind != "f":
        raise TypeError(f"frexp only supports floating-point dtypes, got {input.dtype}")
    return frexp_result(*execute("Frexp", (input,)))
