"""Trigonometric and hyperbolic functions: sin, cos, tan and their inverses (asin, acos, atan,
atan2), sinh, cosh, tanh and theirs (asinh, acosh, atanh), sinc, hypot, and the conversions
deg2rad and rad2deg.

Integer inputs are promoted to float32, as in PyTorch. Tanh's gradient is its own op
(TanhGrad), as TensorFlow's: one kernel instead of three, with a gradient of its own.
"""
import math

import numpy as np

from ..creation import ones_like, zeros_like
from ..engine.execute import execute
from .coercion import floating, floating_binary, floating_unary
from .comparison_ops import eq, where
from .exponential_ops import rsqrt
from .rows import TRANSPOSE, elementwise, op

# ----- sine, cosine, tangent -----


def _sin_grad(op, grad):
    """d sin(x) = cos(x) dx."""
    return grad * cos(op.inputs[0])


sin = floating_unary(op("Sin", np.sin, _sin_grad, needs="inputs", jvp=elementwise), "sin", """The sine of each element (radians). Runs the "Sin" op (integers are promoted to float32).

    >>> mt.sin(mt.tensor([0.0, 1.5708]))
    tensor([0., 1.])
    """)


def _cos_grad(op, grad):
    """d cos(x) = -sin(x) dx."""
    return -grad * sin(op.inputs[0])


cos = floating_unary(op("Cos", np.cos, _cos_grad, needs="inputs", jvp=elementwise), "cos", """The cosine of each element (radians). Runs the "Cos" op (integers are promoted to float32).

    >>> mt.cos(mt.tensor([0.0, 3.1416]))
    tensor([ 1., -1.])
    """)


def _tan_grad(op, grad):
    """d tan(x) = (1 + tan(x)^2) dx."""
    y = op.outputs[0]
    return grad * (1 + y * y)


tan = floating_unary(op("Tan", np.tan, _tan_grad, needs="outputs", jvp=elementwise), "tan", """The tangent of each element (radians). Runs the "Tan" op.

    >>> mt.tan(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 1.5574])
    """)


def _asin_grad(op, grad):
    """d asin(x) = dx / sqrt(1 - x^2)."""
    x = op.inputs[0]
    return grad * rsqrt(1 - x * x)


asin = floating_unary(op("Asin", np.arcsin, _asin_grad, needs="inputs", jvp=elementwise), "asin", """The arcsine of each element, in [-pi/2, pi/2]. Runs the "Asin" op (`mt.arcsin` is the same).

    >>> mt.asin(mt.tensor([0.0, 1.0, -0.5]))  # nan outside [-1, 1]
    tensor([ 0.0000,  1.5708, -0.5236])
    """)


def _acos_grad(op, grad):
    """d acos(x) = -dx / sqrt(1 - x^2)."""
    x = op.inputs[0]
    return -grad * rsqrt(1 - x * x)


acos = floating_unary(op("Acos", np.arccos, _acos_grad, needs="inputs", jvp=elementwise), "acos", """The arccosine of each element, in [0, pi]. Runs the "Acos" op (`mt.arccos` is the same).

    >>> mt.acos(mt.tensor([1.0, 0.0]))
    tensor([0.0000, 1.5708])
    """)


def _atan_grad(op, grad):
    """d atan(x) = dx / (1 + x^2)."""
    x = op.inputs[0]
    return grad / (1 + x * x)


atan = floating_unary(op("Atan", np.arctan, _atan_grad, needs="inputs", jvp=elementwise), "atan", """The arctangent of each element, in (-pi/2, pi/2). Runs the "Atan" op (`mt.arctan` is the same).

    >>> mt.atan(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7854])
    """)


def _atan2_grad(op, grad):
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)."""
    y, x = op.inputs
    need_y, need_x = op.needs_input_grad
    scale = grad / (x * x + y * y)
    return (scale * x if need_y else None), (-scale * y if need_x else None)


atan2 = floating_binary(op("Atan2", np.arctan2, _atan2_grad, needs="inputs", jvp=elementwise), "atan2", """The angle of the point (other, input): arctan(input / other) in the right quadrant, in [-pi, pi].
    Broadcasts; integers are promoted to float32. Runs the "Atan2" op (`mt.arctan2` is the same).

    >>> mt.atan2(mt.tensor([1.0, 1.0, -1.0]), mt.tensor([1.0, -1.0, -1.0]))
    tensor([ 0.7854,  2.3562, -2.3562])
    """)


# ----- hyperbolic functions -----

def _sinh_grad(op, grad):
    """d sinh(x) = cosh(x) dx."""
    return grad * cosh(op.inputs[0])


sinh = floating_unary(op("Sinh", np.sinh, _sinh_grad, needs="inputs", jvp=elementwise), "sinh", """The hyperbolic sine of each element. Runs the "Sinh" op.

    >>> mt.sinh(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 1.1752])
    """)


def _cosh_grad(op, grad):
    """d cosh(x) = sinh(x) dx."""
    return grad * sinh(op.inputs[0])


cosh = floating_unary(op("Cosh", np.cosh, _cosh_grad, needs="inputs", jvp=elementwise), "cosh", """The hyperbolic cosine of each element. Runs the "Cosh" op.

    >>> mt.cosh(mt.tensor([0.0, 1.0]))
    tensor([1.0000, 1.5431])
    """)


def _tanh_grad(op, grad):
    """d tanh(x) = (1 - tanh(x)^2) dx, computed by the TanhGrad op from the output."""
    return execute("TanhGrad", (op.outputs[0], grad))


tanh = floating_unary(op("Tanh", np.tanh, _tanh_grad, needs="outputs", jvp=elementwise), "tanh", """The hyperbolic tangent of each element. Runs the "Tanh" op (integers are promoted to float32).

    >>> mt.tanh(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """)


def _tanh_grad_kernel(y, g):
    return g * (1 - y * y)


def _tanh_grad_grad(op, grad):
    """TanhGrad(y, g) = g (1 - y^2): d/dy = -2 y g, d/dg = 1 - y^2."""
    y, g = op.inputs
    need_y, need_g = op.needs_input_grad
    return (grad * g * y * -2 if need_y else None), (execute("TanhGrad", (y, grad)) if need_g else None)


op("TanhGrad", _tanh_grad_kernel, _tanh_grad_grad, needs="inputs", jvp=TRANSPOSE)


def _asinh_grad(op, grad):
    """d asinh(x) = dx / sqrt(x^2 + 1)."""
    x = op.inputs[0]
    return grad * rsqrt(x * x + 1)


asinh = floating_unary(op("Asinh", np.arcsinh, _asinh_grad, needs="inputs", jvp=elementwise), "asinh", """The inverse hyperbolic sine of each element. Runs the "Asinh" op (`mt.arcsinh` is the same).

    >>> mt.asinh(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8814])
    """)


def _acosh_grad(op, grad):
    """d acosh(x) = dx / sqrt(x^2 - 1)."""
    x = op.inputs[0]
    return grad * rsqrt(x * x - 1)


acosh = floating_unary(op("Acosh", np.arccosh, _acosh_grad, needs="inputs", jvp=elementwise), "acosh", """The inverse hyperbolic cosine of each element (nan below 1). Runs the "Acosh" op (`mt.arccosh` is the same).

    >>> mt.acosh(mt.tensor([1.0, 2.0]))
    tensor([0.0000, 1.3170])
    """)


def _atanh_grad(op, grad):
    """d atanh(x) = dx / (1 - x^2)."""
    x = op.inputs[0]
    return grad / (1 - x * x)


atanh = floating_unary(op("Atanh", np.arctanh, _atanh_grad, needs="inputs", jvp=elementwise), "atanh", """The inverse hyperbolic tangent of each element (inf at 1, nan beyond). Runs the "Atanh" op (`mt.arctanh` is the same).

    >>> mt.atanh(mt.tensor([0.0, 0.5, -0.9]))
    tensor([ 0.0000,  0.5493, -1.4722])
    """)


# ----- sinc, hypot, angles -----

def _sinc(x):
    """np.sinc's formula, computed here so that numpy's warning for sin(inf) is silenced as the other kernels' are."""
    y = np.pi * np.where(x == 0, 1.0e-20, x)
    return np.sin(y) / y


def _sinc_grad(op, grad):
    """d sinc(x) = (cos(pi x) - sinc(x)) / x dx, and 0 at x = 0."""
    x = op.inputs[0]
    zero = eq(x, 0)
    safe_x = where(zero, ones_like(x), x)
    slope = (cos(safe_x * math.pi) - sinc(safe_x)) / safe_x
    return grad * where(zero, zeros_like(x), slope)


sinc = floating_unary(op("Sinc", _sinc, _sinc_grad, needs="inputs", jvp=elementwise), "sinc", """The normalized sinc, sin(pi x) / (pi x), and 1 at 0. Runs the "Sinc" op.

    >>> mt.sinc(mt.tensor([0.0, 0.5, 1.5]))
    tensor([ 1.0000,  0.6366, -0.2122])
    """)


def _hypot_grad(op, grad):
    """d sqrt(x^2 + y^2) = (x dx + y dy) / hypot(x, y)."""
    x, y = op.inputs
    scale = grad / op.outputs[0]
    need_x, need_y = op.needs_input_grad
    return (scale * x if need_x else None), (scale * y if need_y else None)


hypot = floating_binary(op("Hypot", np.hypot, _hypot_grad, needs="both", jvp=elementwise), "hypot", """sqrt(input^2 + other^2), elementwise, without overflow. Runs the "Hypot" op.

    >>> mt.hypot(mt.tensor([3.0, 5.0]), mt.tensor([4.0, 12.0]))
    tensor([ 5., 13.])
    """)


def deg2rad(input):
    """Each angle converted from degrees to radians (integers are promoted to float32). Runs the "Mul" op.

    >>> mt.deg2rad(mt.tensor([180, 90]))
    tensor([3.1416, 1.5708])
    """
    return floating(input) * (math.pi / 180.0)


def rad2deg(input):
    """Each angle converted from radians to degrees (integers are promoted to float32). Runs the "Mul" op.

    >>> mt.rad2deg(mt.tensor([3.14159265, 1.0]))
    tensor([180.0000,  57.2958])
    """
    return floating(input) * (180.0 / math.pi)
