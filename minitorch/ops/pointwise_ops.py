"""Pointwise math beyond math_ops' basics: trigonometry, exponentials and logarithms,
rounding, signs, two-argument functions, tests for closeness, conversions.

Most of these ops share one pattern: a numpy ufunc and a short gradient. Each
is then one row: the gradient is written out (a named function stating its
formula, as everywhere), and a factory call such as

    asin = floating_unary("Asin", np.arcsin, "asin", doc)

registers the kernel, makes the forward rule from the gradient (`diagonal_jvp`)
and returns the public function, which promotes integers to float32 as PyTorch
does. Functions that are exact compositions of existing ops (addcmul, deg2rad,
float_power, ...) are plain functions and record those ops; lerp and logit are
ops of their own so that their values and gradients at the ends (weight 1,
p = 0) are PyTorch's. The in-place twins (`mt.acos_`, `x.acos_()`) are made by
`in_place_ops.twin` at the end.
"""
import math
from collections import namedtuple

import numpy as np

from .. import dtypes
from ..creation import as_operand, ones_like, zeros_like
from ..engine.execute import execute
from ..engine.registry import OPS, TRANSPOSE, gradient, jvp, kernel, not_differentiable
from ..errors import ShapeError
from ..tensor import Tensor
from . import math_ops
from .in_place_ops import twin
from .jvp import fit
from .math_ops import _coerce_pair, _floating_pair, binary_function, cast, clamp, eq, isnan, ne, sigmoid, where

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


# ----- the factories: one row makes the kernel, the forward rule and the public function -----

class _Tangent:
    """What a gradient function reads from `op`, for a forward rule that calls it with a tangent."""

    __slots__ = ("op_name", "inputs", "outputs", "attrs", "needs_input_grad")

    def __init__(self, op_name, inputs, outputs, attrs, needs_input_grad):
        self.op_name, self.inputs, self.outputs, self.attrs = op_name, inputs, outputs, attrs
        self.needs_input_grad = needs_input_grad

    @property
    def input_shapes(self):
        return [t.shape for t in self.inputs]


def diagonal_jvp(op_name):
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


def floating(x):
    """`x` as a floating tensor (integers and bools become float32, PyTorch's default)."""
    x = as_operand(x)
    if x._data.dtype.kind != "f":
        x = cast(x, dtypes.default_float)
    return x


def _row(op_name, numpy_function, differentiable):
    kernel(op_name)(numpy_function)
    if differentiable:
        jvp(op_name)(diagonal_jvp(op_name))
    else:
        not_differentiable(op_name)


def _named(function, name, doc):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def floating_unary(op_name, numpy_function, name, doc, differentiable=True):
    """The row of an elementwise function of one tensor whose result is floating point.
    Its gradient, registered above the row, must read only `op.inputs`/`op.outputs`."""
    _row(op_name, numpy_function, differentiable)

    def function(input):
        return execute(op_name, (floating(input),))

    return _named(function, name, doc)


def unary(op_name, numpy_function, name, doc, differentiable=False):
    """The row of an elementwise function that takes any dtype (not differentiable unless said)."""
    _row(op_name, numpy_function, differentiable)

    def function(input):
        return execute(op_name, (as_operand(input),))

    return _named(function, name, doc)


def floating_binary(op_name, numpy_function, name, doc, differentiable=True):
    """The row of a broadcasting function of two tensors whose result is floating point."""
    _row(op_name, numpy_function, differentiable)

    def function(input, other):
        return execute(op_name, _floating_pair(input, other))

    return _named(function, name, doc)


def binary(op_name, numpy_function, name, doc, differentiable=True, kinds=None):
    """The row of a broadcasting function of two tensors, promoted to one dtype as PyTorch does.
    `kinds`: the numpy dtype kinds it accepts ("iub": integers and bools, "f": floating), where
    PyTorch refuses the others."""
    _row(op_name, numpy_function, differentiable)
    function = binary_function(op_name, name, doc)
    if kinds is None:
        return function

    def checked(input, other):
        for t in (input, other):
            if isinstance(t, Tensor) and t._data.dtype.kind not in kinds:
                raise NotImplementedError(f"{name}: not implemented for {t.dtype} ({_KINDS[kinds]} only)")
        return function(input, other)

    return _named(checked, name, doc)


_KINDS = {"iub": "integer and bool tensors", "f": "floating-point tensors"}


# ----- trigonometric and hyperbolic functions -----

@gradient("Tan", needs="outputs")
def _tan_grad(op, grad):
    """d tan(x) = (1 + tan(x)^2) dx."""
    y = op.outputs[0]
    return grad * (1 + y * y)


tan = floating_unary("Tan", np.tan, "tan", """The tangent of each element (radians). Runs the "Tan" op.

    >>> mt.tan(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 1.5574])
    """)


@gradient("Asin", needs="inputs")
def _asin_grad(op, grad):
    """d asin(x) = dx / sqrt(1 - x^2)."""
    x = op.inputs[0]
    return grad * rsqrt(1 - x * x)


asin = floating_unary("Asin", np.arcsin, "asin", """The arcsine of each element, in [-pi/2, pi/2]. Runs the "Asin" op (`mt.arcsin` is the same).

    >>> mt.asin(mt.tensor([0.0, 1.0, -0.5]))  # nan outside [-1, 1]
    tensor([ 0.0000,  1.5708, -0.5236])
    """)


@gradient("Acos", needs="inputs")
def _acos_grad(op, grad):
    """d acos(x) = -dx / sqrt(1 - x^2)."""
    x = op.inputs[0]
    return -grad * rsqrt(1 - x * x)


acos = floating_unary("Acos", np.arccos, "acos", """The arccosine of each element, in [0, pi]. Runs the "Acos" op (`mt.arccos` is the same).

    >>> mt.acos(mt.tensor([1.0, 0.0]))
    tensor([0.0000, 1.5708])
    """)


@gradient("Atan", needs="inputs")
def _atan_grad(op, grad):
    """d atan(x) = dx / (1 + x^2)."""
    x = op.inputs[0]
    return grad / (1 + x * x)


atan = floating_unary("Atan", np.arctan, "atan", """The arctangent of each element, in (-pi/2, pi/2). Runs the "Atan" op (`mt.arctan` is the same).

    >>> mt.atan(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7854])
    """)


@gradient("Sinh", needs="inputs")
def _sinh_grad(op, grad):
    """d sinh(x) = cosh(x) dx."""
    return grad * cosh(op.inputs[0])


sinh = floating_unary("Sinh", np.sinh, "sinh", """The hyperbolic sine of each element. Runs the "Sinh" op.

    >>> mt.sinh(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 1.1752])
    """)


@gradient("Cosh", needs="inputs")
def _cosh_grad(op, grad):
    """d cosh(x) = sinh(x) dx."""
    return grad * sinh(op.inputs[0])


cosh = floating_unary("Cosh", np.cosh, "cosh", """The hyperbolic cosine of each element. Runs the "Cosh" op.

    >>> mt.cosh(mt.tensor([0.0, 1.0]))
    tensor([1.0000, 1.5431])
    """)


@gradient("Asinh", needs="inputs")
def _asinh_grad(op, grad):
    """d asinh(x) = dx / sqrt(x^2 + 1)."""
    x = op.inputs[0]
    return grad * rsqrt(x * x + 1)


asinh = floating_unary("Asinh", np.arcsinh, "asinh", """The inverse hyperbolic sine of each element. Runs the "Asinh" op (`mt.arcsinh` is the same).

    >>> mt.asinh(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8814])
    """)


@gradient("Acosh", needs="inputs")
def _acosh_grad(op, grad):
    """d acosh(x) = dx / sqrt(x^2 - 1)."""
    x = op.inputs[0]
    return grad * rsqrt(x * x - 1)


acosh = floating_unary("Acosh", np.arccosh, "acosh", """The inverse hyperbolic cosine of each element (nan below 1). Runs the "Acosh" op (`mt.arccosh` is the same).

    >>> mt.acosh(mt.tensor([1.0, 2.0]))
    tensor([0.0000, 1.3170])
    """)


@gradient("Atanh", needs="inputs")
def _atanh_grad(op, grad):
    """d atanh(x) = dx / (1 - x^2)."""
    x = op.inputs[0]
    return grad / (1 - x * x)


atanh = floating_unary("Atanh", np.arctanh, "atanh", """The inverse hyperbolic tangent of each element (inf at 1, nan beyond). Runs the "Atanh" op (`mt.arctanh` is the same).

    >>> mt.atanh(mt.tensor([0.0, 0.5, -0.9]))
    tensor([ 0.0000,  0.5493, -1.4722])
    """)


@gradient("Atan2", needs="inputs")
def _atan2_grad(op, grad):
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)."""
    y, x = op.inputs
    need_y, need_x = op.needs_input_grad
    scale = grad / (x * x + y * y)
    return (scale * x if need_y else None), (-scale * y if need_x else None)


atan2 = floating_binary("Atan2", np.arctan2, "atan2", """The angle of the point (other, input): arctan(input / other) in the right quadrant, in [-pi, pi].
    Broadcasts; integers are promoted to float32. Runs the "Atan2" op (`mt.arctan2` is the same).

    >>> mt.atan2(mt.tensor([1.0, 1.0, -1.0]), mt.tensor([1.0, -1.0, -1.0]))
    tensor([ 0.7854,  2.3562, -2.3562])
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


# ----- exponentials, logarithms, powers -----

@gradient("Exp2", needs="outputs")
def _exp2_grad(op, grad):
    """d 2^x = 2^x log(2) dx."""
    return grad * op.outputs[0] * _LN2


exp2 = floating_unary("Exp2", np.exp2, "exp2", """2 to the power of each element. Runs the "Exp2" op.

    >>> mt.exp2(mt.tensor([0, 3, -1]))
    tensor([1.0000, 8.0000, 0.5000])
    """)


@gradient("Expm1", needs="outputs")
def _expm1_grad(op, grad):
    """d (e^x - 1) = e^x dx = (expm1(x) + 1) dx."""
    return grad * (op.outputs[0] + 1)


expm1 = floating_unary("Expm1", np.expm1, "expm1", """e^x - 1 for each element, accurate for small x. Runs the "Expm1" op.

    >>> mt.expm1(mt.tensor([1e-10, 1.0], dtype=mt.float64))
    tensor([1.0000e-10, 1.7183e+00], dtype=minitorch.float64)
    """)


@gradient("Log2", needs="inputs")
def _log2_grad(op, grad):
    """d log2(x) = dx / (x log(2))."""
    return grad / (op.inputs[0] * _LN2)


log2 = floating_unary("Log2", np.log2, "log2", """The base-2 logarithm of each element. Runs the "Log2" op.

    >>> mt.log2(mt.tensor([1.0, 8.0, 0.5]))
    tensor([ 0.,  3., -1.])
    """)


@gradient("Log10", needs="inputs")
def _log10_grad(op, grad):
    """d log10(x) = dx / (x log(10))."""
    return grad / (op.inputs[0] * _LN10)


log10 = floating_unary("Log10", np.log10, "log10", """The base-10 logarithm of each element. Runs the "Log10" op.

    >>> mt.log10(mt.tensor([1.0, 10.0, 0.5]))
    tensor([ 0.0000,  1.0000, -0.3010])
    """)


@gradient("Rsqrt", needs="outputs")
def _rsqrt_grad(op, grad):
    """d x^(-1/2) = -x^(-3/2) / 2 dx = -rsqrt(x)^3 / 2 dx."""
    y = op.outputs[0]
    return grad * (y * y * y) * -0.5


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


rsqrt = floating_unary("Rsqrt", _rsqrt, "rsqrt", """1 / sqrt(x) for each element. Runs the "Rsqrt" op.

    >>> mt.rsqrt(mt.tensor([4.0, 0.25, 1.0]))  # inf at 0, nan below
    tensor([0.5000, 2.0000, 1.0000])
    """)


@gradient("Reciprocal", needs="outputs")
def _reciprocal_grad(op, grad):
    """d (1/x) = -dx / x^2 = -(1/x)^2 dx."""
    y = op.outputs[0]
    return -grad * (y * y)


reciprocal = floating_unary("Reciprocal", np.reciprocal, "reciprocal", """1 / x for each element (integers give float32, as in PyTorch). Runs the "Reciprocal" op.

    >>> mt.reciprocal(mt.tensor([2, -4]))
    tensor([ 0.5000, -0.2500])
    """)


@gradient("Sinc", needs="inputs")
def _sinc_grad(op, grad):
    """d sinc(x) = (cos(pi x) - sinc(x)) / x dx, and 0 at x = 0."""
    x = op.inputs[0]
    zero = eq(x, 0)
    safe_x = where(zero, ones_like(x), x)
    slope = (math_ops.cos(safe_x * math.pi) - sinc(safe_x)) / safe_x
    return grad * where(zero, zeros_like(x), slope)


def _sinc(x):
    """np.sinc's formula, computed here so that numpy's warning for sin(inf) is silenced as the other kernels' are."""
    y = np.pi * np.where(x == 0, 1.0e-20, x)
    return np.sin(y) / y


sinc = floating_unary("Sinc", _sinc, "sinc", """The normalized sinc, sin(pi x) / (pi x), and 1 at 0. Runs the "Sinc" op.

    >>> mt.sinc(mt.tensor([0.0, 0.5, 1.5]))
    tensor([ 1.0000,  0.6366, -0.2122])
    """)


@gradient("LogAddExp", needs="inputs")
def _logaddexp_grad(op, grad):
    """d log(e^x + e^y) = sigmoid(x - y) dx + sigmoid(y - x) dy."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad * sigmoid(x - y) if need_x else None), (grad * sigmoid(y - x) if need_y else None)


logaddexp = floating_binary("LogAddExp", np.logaddexp, "logaddexp", """log(e^input + e^other), elementwise, without overflow. Runs the "LogAddExp" op.

    >>> mt.logaddexp(mt.tensor([1000.0, -1.0], dtype=mt.float64), mt.tensor([1000.0, -2.0], dtype=mt.float64))
    tensor([ 1.0007e+03, -6.8674e-01], dtype=minitorch.float64)
    """)


@gradient("LogAddExp2", needs="inputs")
def _logaddexp2_grad(op, grad):
    """d log2(2^x + 2^y) = sigmoid((x - y) log 2) dx + sigmoid((y - x) log 2) dy."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return ((grad * sigmoid((x - y) * _LN2)) if need_x else None), ((grad * sigmoid((y - x) * _LN2)) if need_y else None)


logaddexp2 = floating_binary("LogAddExp2", np.logaddexp2, "logaddexp2", """log2(2^input + 2^other), elementwise, without overflow. Runs the "LogAddExp2" op.

    >>> mt.logaddexp2(mt.tensor([1.0, 3.0]), mt.tensor([1.0, 4.0]))
    tensor([2.0000, 4.5850])
    """)


@gradient("Hypot", needs="both")
def _hypot_grad(op, grad):
    """d sqrt(x^2 + y^2) = (x dx + y dy) / hypot(x, y)."""
    x, y = op.inputs
    scale = grad / op.outputs[0]
    need_x, need_y = op.needs_input_grad
    return (scale * x if need_x else None), (scale * y if need_y else None)


hypot = floating_binary("Hypot", np.hypot, "hypot", """sqrt(input^2 + other^2), elementwise, without overflow. Runs the "Hypot" op.

    >>> mt.hypot(mt.tensor([3.0, 5.0]), mt.tensor([4.0, 12.0]))
    tensor([ 5., 13.])
    """)


def float_power(input, exponent):
    """input ** exponent computed in float64, whatever the dtypes (the result is float64). Runs the "Pow" op.

    >>> mt.float_power(mt.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=minitorch.float64)
    """
    return math_ops.pow(as_operand(input, dtype=dtypes.float64), as_operand(exponent, dtype=dtypes.float64))


def ldexp(input, other):
    """input * 2 ** other (the result is floating point). Runs the "Pow" and "Mul" ops.

    >>> mt.ldexp(mt.tensor([1.0, 3.0]), mt.tensor([3, -1]))
    tensor([8.0000, 1.5000])
    """
    return math_ops.mul(floating(input), math_ops.pow(2.0, as_operand(other)))


@kernel("Frexp")
def _frexp(x):
    return np.frexp(x)


@gradient("Frexp", needs="outputs", accepts_none=(1,), jvp=TRANSPOSE)
def _frexp_grad(op, grad_mantissa, grad_exponent):
    """x = m 2^e with e piecewise constant: dm = dx / 2^e."""
    exponent = op.outputs[1]
    return grad_mantissa / math_ops.pow(2.0, cast(exponent, grad_mantissa._data.dtype))


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


# ----- rounding, remainders, signs -----

trunc = unary("Trunc", np.trunc, "trunc", """Each element rounded toward zero (same dtype). Runs the "Trunc" op (its gradient is 0; `mt.fix` is the same).

    >>> mt.trunc(mt.tensor([1.7, -1.7, 0.2]))
    tensor([ 1., -1.,  0.])
    """, differentiable=True)
gradient("Trunc", needs="nothing")(math_ops.zero_gradient)


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


@gradient("TruncateMod", needs="inputs")
def _fmod_grad(op, grad):
    """fmod(x, y) = x - trunc(x / y) y: d/dx = 1, d/dy = -trunc(x / y)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad if need_x else None), (-grad * execute("TruncateDiv", (x, y)) if need_y else None)


fmod = binary("TruncateMod", math_ops.integer_division(np.fmod, "TruncateMod"), "fmod", """The C remainder: input - trunc(input / other) * other, with the sign of input. Runs the "TruncateMod" op.

    Integer division by zero raises, as in PyTorch. `mt.remainder` (Python's %) takes the sign of other.

    >>> mt.fmod(mt.tensor([7.0, -7.0]), 3)
    tensor([ 1., -1.])
    >>> mt.fmod(mt.tensor([-7, 7]), -3)
    tensor([-1,  1])
    """)


@gradient("Copysign", needs="inputs")
def _copysign_grad(op, grad):
    """d copysign(x, y) = [sign(x) = sign(y)] dx - [sign(x) != sign(y)] dx (0 at x = 0); flat in y."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    grad_x = None
    if need_x:
        same = cast(eq(signbit(x), signbit(y)), grad._data.dtype)
        grad_x = grad * (same * 2 - 1) * cast(ne(x, 0), grad._data.dtype)
    return grad_x, (zeros_like(grad) if need_y else None)


copysign = floating_binary("Copysign", np.copysign, "copysign", """|input| with the sign of other (also -0.0's sign), elementwise. Runs the "Copysign" op.

    >>> mt.copysign(mt.tensor([1.0, -2.0, 3.0]), mt.tensor([-1.0, 1.0, -0.0]))
    tensor([-1.,  2., -3.])
    """)


def _signbit(x):
    return np.signbit(x) if x.dtype.kind == "f" else x < 0


signbit = unary("Signbit", _signbit, "signbit", """True where the sign bit is set (negative numbers and -0.0). Runs the "Signbit" op.

    >>> mt.signbit(mt.tensor([-1.0, -0.0, 0.0, 2.0]))
    tensor([ True,  True, False, False])
    """)


def _heaviside(x, values):
    """PyTorch's definition, x == 0 ? values : x > 0 (so nan gives 0; np.heaviside gives nan)."""
    return np.where(x == 0, values, x > 0).astype(x.dtype, copy=False)


_row("Heaviside", _heaviside, differentiable=False)


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
nextafter = binary("NextAfter", np.nextafter, "nextafter", """The next floating-point value after input in the direction of other. Runs the "NextAfter" op (not differentiable).

    >>> mt.nextafter(mt.tensor([1.0], dtype=mt.float64), mt.tensor([2.0], dtype=mt.float64)) - 1
    tensor([2.2204e-16], dtype=minitorch.float64)
    """, differentiable=False, kinds="f")


@gradient("Fmax", needs="inputs")
def _fmax_grad(op, grad):
    """d fmax(x, y) = [x >= y or y is nan] dx + [x < y or x is nan] dy (ties go to x, as PyTorch)."""
    return _pick_grad(op, grad, math_ops.ge)


@gradient("Fmin", needs="inputs")
def _fmin_grad(op, grad):
    """d fmin(x, y) = [x <= y or y is nan] dx + [x > y or x is nan] dy (ties go to x, as PyTorch)."""
    return _pick_grad(op, grad, math_ops.le)


def _pick_grad(op, grad, x_wins):
    x, y = op.inputs
    picked_x = math_ops.logical_or(x_wins(x, y), isnan(y))
    zeros = zeros_like(grad)
    need_x, need_y = op.needs_input_grad
    return (where(picked_x, grad, zeros) if need_x else None), (where(picked_x, zeros, grad) if need_y else None)


fmax = binary("Fmax", np.fmax, "fmax", """The larger of input and other, elementwise, ignoring NaN (NaN only where both are). Runs the "Fmax" op.

    >>> mt.fmax(mt.tensor([1.0, float("nan"), 3.0]), mt.tensor([2.0, 0.0, float("nan")]))
    tensor([2., 0., 3.])
    """)
fmin = binary("Fmin", np.fmin, "fmin", """The smaller of input and other, elementwise, ignoring NaN (NaN only where both are). Runs the "Fmin" op.

    >>> mt.fmin(mt.tensor([1.0, float("nan"), 3.0]), mt.tensor([2.0, 0.0, float("nan")]))
    tensor([1., 0., 3.])
    """)


@kernel("NanToNum")
def _nan_to_num(x, nan, posinf, neginf):
    return np.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)


@gradient("NanToNum", needs="inputs")
def _nan_to_num_grad(op, grad):
    """d nan_to_num(x) = [x is finite] dx."""
    return where(math_ops.isfinite(op.inputs[0]), grad, zeros_like(grad))


jvp("NanToNum")(diagonal_jvp("NanToNum"))


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by `nan`, `posinf` and `neginf` (by default 0 and the dtype's
    largest and smallest finite values). Runs the "NanToNum" op.

    >>> mt.nan_to_num(mt.tensor([float("nan"), float("inf"), -float("inf"), 1.0]))
    tensor([ 0.0000e+00,  3.4028e+38, -3.4028e+38,  1.0000e+00])
    >>> mt.nan_to_num(mt.tensor([float("nan"), float("inf")]), nan=-1.0, posinf=9.0)
    tensor([-1.,  9.])
    """
    return execute("NanToNum", (as_operand(input),), {"nan": 0.0 if nan is None else nan, "posinf": posinf,
                                                       "neginf": neginf})


# ----- integers and bits -----

gcd = binary("Gcd", np.gcd, "gcd", """The greatest common divisor of input and other, elementwise (integers only; gcd(0, 0) = 0). Runs the "Gcd" op.

    >>> mt.gcd(mt.tensor([12, -18, 0]), mt.tensor([8, 12, 0]))
    tensor([4, 6, 0])
    """, differentiable=False, kinds="iub")
lcm = binary("Lcm", np.lcm, "lcm", """The least common multiple of input and other, elementwise (integers only). Runs the "Lcm" op.

    >>> mt.lcm(mt.tensor([4, -6, 0]), mt.tensor([6, 4, 5]))
    tensor([12, 12,  0])
    """, differentiable=False, kinds="iub")
bitwise_left_shift = binary("LeftShift", np.left_shift, "bitwise_left_shift", """input << other, elementwise (integers only; shifting by the width or more gives 0). Runs the "LeftShift" op.

    >>> mt.bitwise_left_shift(mt.tensor([1, -3]), 2), mt.tensor([1, 2]) << 1
    (tensor([  4, -12]), tensor([2, 4]))
    """, differentiable=False, kinds="iub")
bitwise_right_shift = binary("RightShift", np.right_shift, "bitwise_right_shift", """input >> other, elementwise, arithmetic (the sign is kept; integers only). Runs the "RightShift" op.

    >>> mt.bitwise_right_shift(mt.tensor([16, -16]), 2), mt.tensor([5]) >> 1
    (tensor([ 4, -4]), tensor([2]))
    """, differentiable=False, kinds="iub")


# ----- interpolation, fused multiply-adds, limits -----

@kernel("Lerp")
def _lerp(start, end, weight):
    """PyTorch's two-sided formula: exact at both ends (weight 0 gives start, weight 1 gives end)."""
    difference = end - start
    return np.where(weight < 0.5, start + weight * difference, end - difference * (1 - weight))


@gradient("Lerp", needs="inputs")
def _lerp_grad(op, grad):
    """d lerp(a, b, w) = (1 - w) da + w db + (b - a) dw."""
    start, end, weight = op.inputs
    need_start, need_end, need_weight = op.needs_input_grad
    return ((grad * (1 - weight) if need_start else None), (grad * weight if need_end else None),
            (grad * (end - start) if need_weight else None))


jvp("Lerp")(diagonal_jvp("Lerp"))


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
    tensor1, tensor2 = _coerce_pair(tensor1, tensor2)
    return math_ops.add(input, _scaled(value, tensor1, "addcmul") * tensor2)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2, elementwise with broadcasting. Runs the "Mul", "RealDiv" and "Add" ops.

    Integer tensor1 and tensor2 raise, as in PyTorch (integer division is ambiguous).

    >>> mt.addcdiv(mt.ones(2), mt.tensor([1.0, 2.0]), mt.tensor([4.0, 8.0]), value=2)
    tensor([1.5000, 1.5000])
    """
    tensor1, tensor2 = _coerce_pair(tensor1, tensor2)
    if tensor1._data.dtype.kind != "f":
        raise TypeError("addcdiv: integer division is not supported: make tensor1 or tensor2 floating point "
                        "(for true division), or use mt.div(tensor1, tensor2, rounding_mode='trunc') for C-style "
                        "integer division")
    return math_ops.add(input, _scaled(value, tensor1, "addcdiv") / tensor2)


@kernel("Logit")
def _logit(p, eps):
    if eps is not None:
        p = np.clip(p, eps, 1 - eps)
    return np.log(p / (1 - p))


@gradient("Logit", needs="inputs")
def _logit_grad(op, grad):
    """d log(p / (1 - p)) = dp / (p (1 - p)); with eps, 0 where p is outside [eps, 1 - eps]."""
    p, eps = op.inputs[0], op.attrs["eps"]
    slope = grad / (p * (1 - p))
    if eps is None:
        return slope
    inside = math_ops.logical_and(math_ops.ge(p, eps), math_ops.le(p, 1 - eps))
    return where(inside, slope, zeros_like(slope))


jvp("Logit")(diagonal_jvp("Logit"))


def logit(input, eps=None):
    """log(p / (1 - p)), the inverse of the sigmoid. With `eps`, p is first clamped to
    [eps, 1 - eps] (and the gradient is 0 outside). Runs the "Logit" op.

    >>> mt.logit(mt.tensor([0.5, 0.75, 0.1]))  # +-inf at 1 and 0
    tensor([ 0.0000,  1.0986, -2.1972])
    >>> mt.logit(mt.tensor([0.0, 1.0]), eps=0.1)
    tensor([-2.1972,  2.1972])
    """
    return execute("Logit", (floating(input),), {"eps": eps})


def clamp_min(input, min):
    """Each element raised to at least `min` (a number or a broadcasting tensor); `mt.clamp(input, min=min)`.

    >>> mt.clamp_min(mt.tensor([-1.0, 0.5, 2.0]), 0.0)
    tensor([0.0000, 0.5000, 2.0000])
    """
    return clamp(input, min=min)


def clamp_max(input, max):
    """Each element lowered to at most `max` (a number or a broadcasting tensor); `mt.clamp(input, max=max)`.

    >>> mt.clamp_max(mt.tensor([-1.0, 0.5, 2.0]), mt.tensor([0.0, 0.0, 1.0]))
    tensor([-1.,  0.,  1.])
    """
    return clamp(input, max=max)


def rsub(input, other, *, alpha=1):
    """other - alpha * input: subtraction with the operands reversed. Runs the "Sub" op.

    >>> mt.rsub(mt.tensor([1.0, 2.0]), 10)
    tensor([9., 8.])
    """
    return math_ops.sub(other, input, alpha=alpha)


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


# ----- closeness and equality -----

@kernel("IsClose")
def _isclose(a, b, rtol, atol, equal_nan):
    if a.dtype == np.bool_:
        return np.equal(a, b)
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


not_differentiable("IsClose")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True where |input - other| <= atol + rtol * |other| (or the two are equal), elementwise.
    Both must have the same dtype, as in PyTorch. Runs the "IsClose" op.

    >>> mt.isclose(mt.tensor([1.0, 1.0, float("nan")]), mt.tensor([1.0 + 1e-6, 1.1, float("nan")]))
    tensor([ True, False, False])
    >>> mt.isclose(mt.tensor([float("nan")]), mt.tensor([float("nan")]), equal_nan=True)
    tensor([True])
    """
    input = as_operand(input)
    other = as_operand(other, like=input)
    if input.dtype != other.dtype:
        raise TypeError(f"isclose: input and other must have the same dtype, got {input.dtype} and {other.dtype}")
    return execute("IsClose", (input, other), {"rtol": rtol, "atol": atol, "equal_nan": equal_nan})


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True (a Python bool) if `isclose` holds for every element (after broadcasting).

    >>> mt.allclose(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.0 + 1e-7]))
    True
    >>> mt.tensor([1.0]).allclose(mt.tensor([1.1]))
    False
    """
    return bool(np.all(isclose(input, other, rtol, atol, equal_nan)._data))


def equal(input, other):
    """True (a Python bool) if both tensors have the same shape and the same values (NaN is never equal).

    >>> mt.equal(mt.tensor([1, 2]), mt.tensor([1.0, 2.0])), mt.equal(mt.tensor([1, 2]), mt.tensor([1]))
    (True, False)
    """
    return tuple(input.shape) == tuple(other.shape) and bool(np.all(eq(input, other)._data))


def _isposinf(x):
    return np.isposinf(x) if x.dtype.kind == "f" else np.zeros(x.shape, np.bool_)


def _isneginf(x):
    return np.isneginf(x) if x.dtype.kind == "f" else np.zeros(x.shape, np.bool_)


isposinf = unary("IsPosInf", _isposinf, "isposinf", """True where an element is +inf. Runs the "IsPosInf" op.

    >>> mt.isposinf(mt.tensor([1.0, float("inf"), -float("inf")]))
    tensor([False,  True, False])
    """)
isneginf = unary("IsNegInf", _isneginf, "isneginf", """True where an element is -inf. Runs the "IsNegInf" op.

    >>> mt.isneginf(mt.tensor([1.0, float("inf"), -float("inf")]))
    tensor([False, False,  True])
    """)


def isreal(input):
    """True for every element: minitorch has no complex dtypes, so every value is real.

    >>> mt.isreal(mt.tensor([1.0, float("nan")]))
    tensor([True, True])
    """
    return ones_like(input, dtype=dtypes.bool_)


# ----- conversions and new tensors like self (methods) -----

def bfloat16(self):
    """Refused: numpy has no bfloat16, so minitorch cannot hold one honestly.

    >>> mt.ones(1).bfloat16()
    Traceback (most recent call last):
    ...
    TypeError: bfloat16 is not supported: numpy has no bfloat16 dtype. Use .half() (float16) or .float() (float32).
    """
    raise TypeError("bfloat16 is not supported: numpy has no bfloat16 dtype. Use .half() (float16) or .float() (float32).")


def type_as(self, other):
    """This tensor converted to `other`'s dtype. Runs the "Cast" op (nothing runs if the dtypes match).

    >>> mt.tensor([1.7, -1.7]).type_as(mt.tensor([1]))
    tensor([ 1, -1])
    """
    return cast(self, other.dtype)


def float_power_(self, exponent):
    """In place: self ** exponent, for a float64 self only (the result of float_power is float64, as in PyTorch).

    >>> x = mt.tensor([2.0, 3.0], dtype=mt.float64)
    >>> x.float_power_(2) is x, x
    (True, tensor([4., 9.], dtype=minitorch.float64))
    """
    if self._data.dtype != np.float64:
        raise TypeError(f"float_power_: the base has dtype {self.dtype}, but the operation's result requires dtype "
                        "float64 (use float_power, or .double() first)")
    return _float_power_in_place(self, exponent)


# ----- in-place twins: `mt.acos_(x)` is `x.acos_()`; tensor_methods binds them as methods -----
# The op name lets an unrecorded update run the op's numpy ufunc straight into the storage
# (None where the ufunc would compute something else in the tensor's dtype, as
# np.reciprocal does for integers, or where the function is a composition).

acos_ = twin(acos, "acos_", "Acos")
asin_ = twin(asin, "asin_", "Asin")
atan_ = twin(atan, "atan_", "Atan")
acosh_ = twin(acosh, "acosh_", "Acosh")
asinh_ = twin(asinh, "asinh_", "Asinh")
atanh_ = twin(atanh, "atanh_", "Atanh")
cosh_ = twin(cosh, "cosh_", "Cosh")
sinh_ = twin(sinh, "sinh_", "Sinh")
tan_ = twin(tan, "tan_", "Tan")
atan2_ = twin(atan2, "atan2_", "Atan2")
deg2rad_ = twin(deg2rad, "deg2rad_")
rad2deg_ = twin(rad2deg, "rad2deg_")
exp2_ = twin(exp2, "exp2_", "Exp2")
expm1_ = twin(expm1, "expm1_", "Expm1")
log2_ = twin(log2, "log2_", "Log2")
log10_ = twin(log10, "log10_", "Log10")
rsqrt_ = twin(rsqrt, "rsqrt_")
reciprocal_ = twin(reciprocal, "reciprocal_")
sinc_ = twin(sinc, "sinc_")
hypot_ = twin(hypot, "hypot_", "Hypot")
_float_power_in_place = twin(float_power, "float_power_")
ldexp_ = twin(ldexp, "ldexp_")
trunc_ = twin(trunc, "trunc_", "Trunc")
frac_ = twin(frac, "frac_")
fmod_ = twin(fmod, "fmod_")
copysign_ = twin(copysign, "copysign_", "Copysign")
heaviside_ = twin(heaviside, "heaviside_")
nextafter_ = twin(nextafter, "nextafter_", "NextAfter")
nan_to_num_ = twin(nan_to_num, "nan_to_num_")
gcd_ = twin(gcd, "gcd_", "Gcd")
lcm_ = twin(lcm, "lcm_", "Lcm")
bitwise_left_shift_ = twin(bitwise_left_shift, "bitwise_left_shift_", "LeftShift")
bitwise_right_shift_ = twin(bitwise_right_shift, "bitwise_right_shift_", "RightShift")
lerp_ = twin(lerp, "lerp_")
addcmul_ = twin(addcmul, "addcmul_")
addcdiv_ = twin(addcdiv, "addcdiv_")
logit_ = twin(logit, "logit_")
clamp_min_ = twin(clamp_min, "clamp_min_")
clamp_max_ = twin(clamp_max, "clamp_max_")

# twins of math_ops' functions: Tensor has them from tensor_methods.IN_PLACE, mt needs them too
abs_ = twin(math_ops.abs, "abs_", "Abs")
neg_ = twin(math_ops.neg, "neg_", "Neg")
exp_ = twin(math_ops.exp, "exp_", "Exp")
log_ = twin(math_ops.log, "log_")
sqrt_ = twin(math_ops.sqrt, "sqrt_")
square_ = twin(math_ops.square, "square_")
sin_ = twin(math_ops.sin, "sin_", "Sin")
cos_ = twin(math_ops.cos, "cos_", "Cos")
tanh_ = twin(math_ops.tanh, "tanh_", "Tanh")
sigmoid_ = twin(sigmoid, "sigmoid_", "Sigmoid")
relu_ = twin(math_ops.relu, "relu_")
clamp_ = twin(clamp, "clamp_")
floor_ = twin(math_ops.floor, "floor_", "Floor")
ceil_ = twin(math_ops.ceil, "ceil_", "Ceil")
round_ = twin(math_ops.round, "round_")
sign_ = twin(math_ops.sign, "sign_", "Sign")
sub_ = twin(math_ops.sub, "sub_", "Sub")
mul_ = twin(math_ops.mul, "mul_", "Mul")
div_ = twin(math_ops.div, "div_", "RealDiv")

# twins of the comparisons and logical functions (methods only in PyTorch): the bool result is
# written as 0 and 1 into the tensor's dtype
eq_ = twin(eq, "eq_", "Equal")
ne_ = twin(ne, "ne_", "NotEqual")
lt_ = twin(math_ops.lt, "lt_", "Less")
le_ = twin(math_ops.le, "le_", "LessEqual")
gt_ = twin(math_ops.gt, "gt_", "Greater")
ge_ = twin(math_ops.ge, "ge_", "GreaterEqual")
logical_and_ = twin(math_ops.logical_and, "logical_and_", "LogicalAnd")
logical_or_ = twin(math_ops.logical_or, "logical_or_", "LogicalOr")
logical_xor_ = twin(math_ops.logical_xor, "logical_xor_", "LogicalXor")
logical_not_ = twin(math_ops.logical_not, "logical_not_", "LogicalNot")


# ----- activations that are Tensor methods too (F.prelu, F.hardshrink, x.prelu(w), x.hardshrink()) -----

def _require_floating_input(input, name):
    if not input.is_floating_point():
        raise NotImplementedError(f'"{name}" not implemented for {input.dtype}: it needs a floating point input')


def prelu(input, weight):
    """x where x > 0, else weight * x, with one learned slope per channel (dimension 1) or one for all.

    >>> mt.prelu(mt.tensor([[-2.0, 1.0], [4.0, -1.0]]), mt.tensor([0.5, 0.25])).tolist()
    [[-1.0, 1.0], [4.0, -0.25]]
    """
    _require_floating_input(input, "prelu")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.ndim > 1 or weight.numel() not in (1, channels):
        raise ShapeError(
            f"prelu: mismatch of parameter numbers and input channel size. Found parameter numbers = {weight.numel()} "
            f"and channel size = {channels} (input of shape {tuple(input.shape)}, weight of shape {tuple(weight.shape)})"
        )
    if weight.numel() != 1 and input.ndim > 2:
        weight = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    elif weight.ndim == 1 and weight.numel() == 1:
        weight = weight.reshape(())
    return math_ops.where(input > 0, input, weight * input)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0.

    >>> mt.hardshrink(mt.tensor([-1.0, 0.3, 0.6]))
    tensor([-1.0000, 0.0000, 0.6000])
    """
    _require_floating_input(input, "hardshrink")
    return math_ops.where((input >= -lambd) & (input <= lambd), 0.0, input)
