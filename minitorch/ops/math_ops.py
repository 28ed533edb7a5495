"""Elementwise math and matmul: each op's numpy kernel, then its gradient.

Each op is a row of the op table (engine/registry.py), filled here: its
numpy kernel, then its gradient, then its forward-mode rule. Gradients are
written with minitorch ops, so a recording tape sees them and higher
derivatives come for free. Broadcasting is undone by the tape
(engine/backprop.py, match_input): a binary op's gradient may return the
broadcast shape. Dedicated gradient ops (TanhGrad, SigmoidGrad, ReluGrad)
follow TensorFlow: one kernel instead of three, with their own gradients.
"""
import builtins

import numpy as np
from scipy.special import expit

from .. import dtypes, parallel
from ..creation import as_operand, ones_like, zeros_like
from ..engine.execute import execute
from ..engine.registry import TRANSPOSE, gradient, jvp, kernel, not_differentiable
from ..errors import ShapeError
from ..tensor import Tensor
from .jvp import fit, linear, linear_in_all, sum_terms


def binary_function(op_name, name, doc):
    """The public function of a broadcasting binary op: `name(input, other)` runs `op_name` on input and
    other promoted to one dtype (Python numbers are 'weak', as in PyTorch)."""

    def function(input, other):
        if isinstance(input, Tensor) and isinstance(other, Tensor) and input._data.dtype is other._data.dtype:
            return execute(op_name, (input, other))  # the common case, kept short: this is the hot path
        return execute(op_name, _coerce_pair(input, other))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _with_alpha(op_name, name, doc):
    """add/sub: `name(input, other, *, alpha=1)` is `op_name(input, alpha * other)`."""

    def function(input, other, *, alpha=1):
        if alpha != 1:
            other = other * alpha
        if isinstance(input, Tensor) and isinstance(other, Tensor) and input._data.dtype is other._data.dtype:
            return execute(op_name, (input, other))
        return execute(op_name, _coerce_pair(input, other))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _coerce_pair(a, b):
    """Tensors of one dtype, following PyTorch's promotion (Python numbers are 'weak')."""
    if not isinstance(a, Tensor):
        a = as_operand(a, like=b)
    elif not isinstance(b, Tensor):
        b = as_operand(b, like=a)
    da, db = a._data.dtype, b._data.dtype
    if da is not db and da != db:
        target = dtypes.promote(a._data, b._data)
        if da != target:
            a = cast(a, target)
        if db != target:
            b = cast(b, target)
    return a, b


def cast(x, dtype):
    """A tensor with `x`'s values converted to `dtype`. Runs the "Cast" op (nothing runs if the dtype already matches).

    >>> mt.ops.math_ops.cast(mt.tensor([1.7, -1.7]), mt.int64)
    tensor([ 1, -1])
    """
    np_dtype = dtypes.to_numpy_dtype(dtype)
    if x._data.dtype == np_dtype:
        return x
    return execute("Cast", (x,), {"dtype": np_dtype})


@kernel("Cast")
def _cast(x, dtype):
    return x.astype(dtype)


@gradient("Cast", needs="nothing")
def _cast_grad(op, grad):
    """d cast(x) = dx (the tape casts the gradient back to the input's dtype)."""
    return grad


jvp("Cast")(linear("Cast"))


# ----- arithmetic -----

kernel("Add")(np.add)


@gradient("Add", needs="nothing")
def _add_grad(op, grad):
    """d(x + y) = dx + dy."""
    return grad, grad


@jvp("Add")
def _add_jvp(inputs, outputs, attrs, tangents):
    """d(x + y) = dx + dy."""
    return sum_terms(tangents, outputs[0])


kernel("Sub")(np.subtract)


@gradient("Sub", needs="nothing")
def _sub_grad(op, grad):
    """d(x - y) = dx - dy."""
    return grad, (-grad if op.needs_input_grad[1] else None)


@jvp("Sub")
def _sub_jvp(inputs, outputs, attrs, tangents):
    """d(x - y) = dx - dy."""
    tx, ty = tangents
    return sum_terms([tx, -ty if ty is not None else None], outputs[0])


kernel("Mul")(np.multiply)


@gradient("Mul", needs="other inputs")
def _mul_grad(op, grad):
    """d(xy) = y dx + x dy."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad * y if need_x else None), (grad * x if need_y else None)


@jvp("Mul")
def _mul_jvp(inputs, outputs, attrs, tangents):
    """d(xy) = dx y + x dy."""
    (x, y), (tx, ty) = inputs, tangents
    return sum_terms([tx * y if tx is not None else None, x * ty if ty is not None else None], outputs[0])


kernel("RealDiv")(np.true_divide)


@gradient("RealDiv", needs="inputs")
def _div_grad(op, grad):
    """d(x/y) = dx / y - x dy / y^2."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad / y if need_x else None), (-grad * x / (y * y) if need_y else None)


@jvp("RealDiv")
def _div_jvp(inputs, outputs, attrs, tangents):
    """d(x / y) = (dx - (x / y) dy) / y."""
    (_, y), (tx, ty) = inputs, tangents
    numerator = sum_terms([tx, -(outputs[0] * ty) if ty is not None else None], outputs[0])
    return numerator / y


kernel("Neg")(np.negative)


@gradient("Neg", needs="nothing")
def _neg_grad(op, grad):
    """d(-x) = -dx."""
    return -grad


jvp("Neg")(linear("Neg"))


kernel("Pow")(np.power)


@gradient("Pow", needs="both", jvp=TRANSPOSE)
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


@kernel("AddN")
def _add_n(*xs):
    total = xs[0] + xs[1]
    for x in xs[2:]:
        total += x
    return total


@gradient("AddN", needs="nothing")
def _add_n_grad(op, grad):
    """d(x1 + ... + xn) = dx1 + ... + dxn."""
    return (grad,) * len(op.input_info)


jvp("AddN")(linear_in_all("AddN"))


# ----- elementwise functions -----

kernel("Exp")(np.exp)


@gradient("Exp", needs="outputs")
def _exp_grad(op, grad):
    """d e^x = e^x dx."""
    return grad * op.outputs[0]


@jvp("Exp")
def _exp_jvp(inputs, outputs, attrs, tangents):
    """d e^x = e^x dx."""
    return tangents[0] * outputs[0]


@kernel("Log")
def _log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


@gradient("Log", needs="inputs")
def _log_grad(op, grad):
    """d log x = dx / x."""
    return grad / op.inputs[0]


@jvp("Log")
def _log_jvp(inputs, outputs, attrs, tangents):
    """d log x = dx / x."""
    return tangents[0] / inputs[0]


@kernel("Sqrt")
def _sqrt(x):
    with np.errstate(invalid="ignore"):
        return np.sqrt(x)


@gradient("Sqrt", needs="outputs")
def _sqrt_grad(op, grad):
    """d sqrt(x) = dx / (2 sqrt(x))."""
    return grad / (op.outputs[0] * 2)


@jvp("Sqrt")
def _sqrt_jvp(inputs, outputs, attrs, tangents):
    """d sqrt(x) = dx / (2 sqrt(x))."""
    return tangents[0] / (outputs[0] * 2)


kernel("Sin")(np.sin)


@gradient("Sin", needs="inputs")
def _sin_grad(op, grad):
    """d sin(x) = cos(x) dx."""
    return grad * cos(op.inputs[0])


@jvp("Sin")
def _sin_jvp(inputs, outputs, attrs, tangents):
    """d sin(x) = cos(x) dx."""
    return tangents[0] * cos(inputs[0])


kernel("Cos")(np.cos)


@gradient("Cos", needs="inputs")
def _cos_grad(op, grad):
    """d cos(x) = -sin(x) dx."""
    return -grad * sin(op.inputs[0])


@jvp("Cos")
def _cos_jvp(inputs, outputs, attrs, tangents):
    """d cos(x) = -sin(x) dx."""
    return -(tangents[0] * sin(inputs[0]))


kernel("Abs")(np.abs)


@gradient("Abs", needs="inputs")
def _abs_grad(op, grad):
    """d|x| = sign(x) dx (0 at x = 0, as PyTorch)."""
    return grad * sign(op.inputs[0])


@jvp("Abs")
def _abs_jvp(inputs, outputs, attrs, tangents):
    """d|x| = sign(x) dx."""
    return tangents[0] * sign(inputs[0])


kernel("Tanh")(np.tanh)


@gradient("Tanh", needs="outputs")
def _tanh_grad(op, grad):
    """d tanh(x) = (1 - tanh(x)^2) dx, computed by the TanhGrad op from the output."""
    return execute("TanhGrad", (op.outputs[0], grad))


@jvp("Tanh")
def _tanh_jvp(inputs, outputs, attrs, tangents):
    """d tanh(x) = (1 - tanh(x)^2) dx, TanhGrad's formula."""
    return execute("TanhGrad", (outputs[0], tangents[0]))


@kernel("TanhGrad")
def _tanh_grad_kernel(y, g):
    return g * (1 - y * y)


@gradient("TanhGrad", needs="inputs", jvp=TRANSPOSE)
def _tanh_grad_grad(op, grad):
    """TanhGrad(y, g) = g (1 - y^2): d/dy = -2 y g, d/dg = 1 - y^2."""
    y, g = op.inputs
    need_y, need_g = op.needs_input_grad
    return (grad * g * y * -2 if need_y else None), (execute("TanhGrad", (y, grad)) if need_g else None)


kernel("Sigmoid")(expit)


@gradient("Sigmoid", needs="outputs")
def _sigmoid_grad(op, grad):
    """d s(x) = s(x) (1 - s(x)) dx, computed by the SigmoidGrad op from the output."""
    return execute("SigmoidGrad", (op.outputs[0], grad))


@jvp("Sigmoid")
def _sigmoid_jvp(inputs, outputs, attrs, tangents):
    """d s(x) = s (1 - s) dx, SigmoidGrad's formula."""
    return execute("SigmoidGrad", (outputs[0], tangents[0]))


@kernel("SigmoidGrad")
def _sigmoid_grad_kernel(y, g):
    return g * y * (1 - y)


@gradient("SigmoidGrad", needs="inputs", jvp=TRANSPOSE)
def _sigmoid_grad_grad(op, grad):
    """SigmoidGrad(y, g) = g y (1 - y): d/dy = g (1 - 2y), d/dg = y (1 - y)."""
    y, g = op.inputs
    need_y, need_g = op.needs_input_grad
    return (grad * g * (1 - y * 2) if need_y else None), (execute("SigmoidGrad", (y, grad)) if need_g else None)


def _rowwise(op_name, ufunc_expression, *arrays):
    """ufunc_expression(*arrays, out=None): split by rows over the intra-op threads (parallel.py)
    when the first array is a big floating-point one and the others have its shape, else one call."""
    like = arrays[0]
    if (like.dtype.kind != "f" or like.ndim == 0 or any(a.shape != like.shape for a in arrays[1:])
            or parallel.split_threads(len(like), like.nbytes) == 1):
        return ufunc_expression(*arrays)
    out = np.empty_like(like)
    parallel.split(op_name, lambda first, last: ufunc_expression(*(a[first:last] for a in arrays), out=out[first:last]),
                   len(like), like.nbytes)
    return out


@kernel("Relu")
def _relu(x):
    return _rowwise("Relu", _positive_part, x)


# Below this many elements a kernel's one plain ufunc call beats the extra array its faster loop needs.
_FAST_LOOP_MIN_SIZE = 4096


def _positive_part(x, out=None):
    """max(x, 0), NaN kept. Against an array of zeros, not the scalar 0, when big: numpy's vectorised
    maximum loop wants two strided operands, and the zeros cost less than the slower loop (0.59 -> 0.42 ms on 6 MB)."""
    big = x.size >= _FAST_LOOP_MIN_SIZE and x.dtype.kind == "f"  # (0 and zeros of x's dtype differ for booleans)
    return np.maximum(x, np.zeros_like(x) if big else 0, out=out)


@gradient("Relu", needs="outputs")
def _relu_grad(op, grad):
    """d relu(x) = [x > 0] dx, computed by the ReluGrad op from the output."""
    return execute("ReluGrad", (grad, op.outputs[0]))


@jvp("Relu")
def _relu_jvp(inputs, outputs, attrs, tangents):
    """d relu(x) = [x > 0] dx, ReluGrad's formula."""
    return execute("ReluGrad", (tangents[0], outputs[0]))


@kernel("ReluGrad")
def _relu_grad_kernel(g, y):
    return _rowwise("ReluGrad", _times_positive, g, y)


def _times_positive(g, y, out=None):
    """g [y > 0], the comparison written as 1.0 or 0.0 straight into the result and multiplied there:
    no boolean mask, and both passes run numpy's same-type loops (measured 0.66 -> 0.51 ms on 6 MB)."""
    if g.size < _FAST_LOOP_MIN_SIZE or g.dtype.kind != "f":
        return np.multiply(g, y > 0, out=out)
    if out is None:  # in g's memory layout (empty_like) unless y broadcasts it
        out = np.empty_like(g) if g.shape == y.shape else np.empty(np.broadcast_shapes(g.shape, y.shape), g.dtype)
    np.greater(y, 0, out=out, casting="unsafe")
    out *= g
    return out


@gradient("ReluGrad", needs="inputs")
def _relu_grad_grad(op, grad):
    """ReluGrad(g, y) is linear in g with a mask that is flat in y."""
    return execute("ReluGrad", (grad, op.inputs[1])), None


@jvp("ReluGrad")
def _relu_grad_jvp(inputs, outputs, attrs, tangents):
    """ReluGrad(g, y) is linear in g; its mask is flat in y."""
    if tangents[0] is None:
        return None
    return fit(execute("ReluGrad", (tangents[0], inputs[1])), outputs[0])


kernel("Maximum")(np.maximum)


kernel("Minimum")(np.minimum)


def _minmax_grad(op, grad, pick_x):
    """The gradient goes to the chosen input; a tie splits it in half, as PyTorch does."""
    x, y = op.inputs
    share_x = cast(pick_x(x, y), grad.dtype) + cast(eq(x, y), grad.dtype) * 0.5
    need_x, need_y = op.needs_input_grad
    return (grad * share_x if need_x else None), (grad * (1 - share_x) if need_y else None)


@gradient("Maximum", needs="inputs", jvp=TRANSPOSE)
def _maximum_grad(op, grad):
    """d max(x, y) = [x > y] dx + [x < y] dy (ties: half each)."""
    return _minmax_grad(op, grad, gt)


@gradient("Minimum", needs="inputs", jvp=TRANSPOSE)
def _minimum_grad(op, grad):
    """d min(x, y) = [x < y] dx + [x > y] dy (ties: half each)."""
    return _minmax_grad(op, grad, lt)


kernel("SelectV2")(np.where)


@gradient("SelectV2", needs="inputs")
def _select_grad(op, grad):
    """d where(c, x, y) = where(c, dx, 0) + where(c, 0, dy)."""
    condition = op.inputs[0]
    zeros = zeros_like(grad)
    need_x, need_y = op.needs_input_grad[1:]
    return None, (where(condition, grad, zeros) if need_x else None), (where(condition, zeros, grad) if need_y else None)


@jvp("SelectV2")
def _select_jvp(inputs, outputs, attrs, tangents):
    """The tangent is picked like the value."""
    condition, x, y = inputs
    zero = Tensor._make(np.zeros((), outputs[0]._data.dtype))
    tx = zero if tangents[1] is None else tangents[1]
    ty = zero if tangents[2] is None else tangents[2]
    return execute("SelectV2", (condition, fit(tx, outputs[0]), fit(ty, outputs[0])))


@kernel("ClipByValue")
def _clip(x, low, high):
    return np.clip(x, low, high)


@gradient("ClipByValue", needs="inputs", jvp=TRANSPOSE)
def _clip_grad(op, grad):
    """d clamp(x) = [min <= x <= max] dx (ends included, as PyTorch)."""
    x = op.inputs[0]
    low, high = op.attrs["low"], op.attrs["high"]
    inside = ones_like(x, dtype=dtypes.bool_)
    if low is not None:
        inside = logical_and(inside, ge(x, low))
    if high is not None:
        inside = logical_and(inside, le(x, high))
    return where(inside, grad, zeros_like(grad))


@kernel("MatMul")
def _matmul(a, b, transpose_a=False, transpose_b=False):
    """Batched matrix product; the transposes are strided views, free for BLAS."""
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


@gradient("MatMul", needs="other inputs")
def _matmul_grad(op, grad):
    """C = op(A) op(B), op = optional transpose (TensorFlow's _MatMulGrad):
    for C = A B, dA = dC B^T and dB = A^T dC; the transposed cases follow.
    Batch dimensions that were broadcast are summed back by the tape."""
    a, b = op.inputs
    ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
    need_a, need_b = op.needs_input_grad
    if not ta and not tb:
        grad_a = _matmul_op(grad, b, False, True) if need_a else None
        grad_b = _matmul_op(a, grad, True, False) if need_b else None
    elif not ta and tb:
        grad_a = _matmul_op(grad, b, False, False) if need_a else None
        grad_b = _matmul_op(grad, a, True, False) if need_b else None
    elif ta and not tb:
        grad_a = _matmul_op(b, grad, False, True) if need_a else None
        grad_b = _matmul_op(a, grad, False, False) if need_b else None
    else:
        grad_a = _matmul_op(b, grad, True, True) if need_a else None
        grad_b = _matmul_op(grad, a, True, True) if need_b else None
    return grad_a, grad_b


@jvp("MatMul")
def _matmul_jvp(inputs, outputs, attrs, tangents):
    """d(AB) = dA B + A dB."""
    (a, b), (ta, tb) = inputs, tangents
    terms = [
        execute("MatMul", (ta, b), attrs) if ta is not None else None,
        execute("MatMul", (a, tb), attrs) if tb is not None else None,
    ]
    return sum_terms(terms, outputs[0])


_MATMUL_ATTRS = {
    (False, False): {},
    (True, False): {"transpose_a": True},
    (False, True): {"transpose_b": True},
    (True, True): {"transpose_a": True, "transpose_b": True},
}


def _matmul_op(a, b, transpose_a=False, transpose_b=False):
    return execute("MatMul", (a, b), _MATMUL_ATTRS[transpose_a, transpose_b])


# ----- ops without gradients -----

def integers_only(ufunc, name):
    """The kernel `ufunc`, refusing floating inputs with PyTorch's NotImplementedError (a RuntimeError)."""

    def checked(*arrays):
        floating = next((a.dtype for a in arrays if a.dtype.kind == "f"), None)
        if floating is not None:
            raise NotImplementedError(f'"{name}" not implemented for {dtypes.from_numpy_dtype(floating)} '
                                      "(integer and bool tensors only)")
        return ufunc(*arrays)

    checked.__name__ = checked.__qualname__ = f"_{name}"
    return checked


for _name, _fn in {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor,
                   "Invert": np.invert}.items():
    kernel(_name)(integers_only(_fn, _name))

for _name, _fn in {
    "Less": np.less, "LessEqual": np.less_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal,
    "Equal": np.equal, "NotEqual": np.not_equal, "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or,
    "LogicalXor": np.logical_xor, "LogicalNot": np.logical_not, "Floor": np.floor,
    "Ceil": np.ceil, "Round": np.round, "IsNan": np.isnan, "IsInf": np.isinf, "IsFinite": np.isfinite,
}.items():
    kernel(_name)(_fn)
not_differentiable(
    "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr",
    "LogicalXor", "LogicalNot", "IsNan", "IsInf", "IsFinite", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert",
)


@kernel("Sign")
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


def zero_gradient(op, grad):
    """d f(x) = 0 for the step functions (floor, ceil, round, trunc, sign) wherever they are
    differentiable. PyTorch gives these zeros too, so their results still require grad."""
    return zeros_like(grad)


def zero_jvp(inputs, outputs, attrs, tangents):
    """A step function's tangent is zero (None: no tangent)."""
    return None


for _name in ("Sign", "Floor", "Ceil", "Round"):
    gradient(_name, needs="nothing")(zero_gradient)
    jvp(_name)(zero_jvp)


def zero_gradients(op, grad):
    """d floor(x / y) = d trunc(x / y) = 0 for both operands wherever they are differentiable: PyTorch's
    div(rounding_mode="floor"/"trunc") gives these zeros, so its result requires grad when x does."""
    return zeros_like(grad), zeros_like(grad)


for _name in ("FloorDiv", "TruncateDiv"):
    gradient(_name, needs="nothing")(zero_gradients)
    jvp(_name)(zero_jvp)


def integer_division(divide, op_name):
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


kernel("FloorDiv")(integer_division(np.floor_divide, "FloorDiv"))
kernel("TruncateDiv")(integer_division(_truncate_divide, "TruncateDiv"))
kernel("FloorMod")(integer_division(np.remainder, "FloorMod"))


@gradient("FloorMod", needs="inputs", jvp=TRANSPOSE)
def _floor_mod_grad(op, grad):
    """x mod y = x - floor(x / y) y: d/dx = 1, d/dy = -floor(x / y)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad if need_x else None), (-grad * execute("FloorDiv", (x, y)) if need_y else None)


# ----- the functional API (mt.exp(t), t.exp(), operators) -----

add = _with_alpha("Add", "add", """a + alpha * b, elementwise with broadcasting. Runs the "Add" op.

    >>> mt.add(mt.tensor([1.0, 2.0]), mt.tensor([10.0, 20.0]), alpha=2)
    tensor([21., 42.])
    """)
sub = _with_alpha("Sub", "sub", """a - alpha * b, elementwise with broadcasting. Runs the "Sub" op.

    >>> mt.sub(mt.tensor([5.0, 5.0]), mt.tensor([1.0, 2.0]))
    tensor([4., 3.])
    """)
mul = binary_function("Mul", "mul", """a * b, elementwise with broadcasting. Runs the "Mul" op.

    >>> mt.mul(mt.tensor([1.0, 2.0]), 3)
    tensor([3., 6.])
    """)


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
            return execute("TruncateDiv", _coerce_pair(input, other))
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {rounding_mode!r}")
    if isinstance(input, Tensor) and isinstance(other, Tensor) and input._data.dtype is other._data.dtype and input._data.dtype.kind == "f":
        return execute("RealDiv", (input, other))
    return execute("RealDiv", _floating_pair(input, other))


def _floating_pair(a, b):
    """True division of integers gives floats (float32, as PyTorch)."""
    a, b = _coerce_pair(a, b)
    if a._data.dtype.kind != "f":
        a, b = cast(a, dtypes.default_float), cast(b, dtypes.default_float)
    return a, b


def pow(input, exponent):
    """input to the power exponent, elementwise with broadcasting. Runs the "Pow" op.

    >>> mt.pow(mt.tensor([2.0, 3.0]), 2)
    tensor([4., 9.])
    """
    if isinstance(input, Tensor) and isinstance(exponent, Tensor) and input._data.dtype is exponent._data.dtype:
        return execute("Pow", (input, exponent))
    return execute("Pow", _coerce_pair(input, exponent))


def neg(input):
    """-x. Runs the "Neg" op.

    >>> mt.neg(mt.tensor([1.0, -2.0]))
    tensor([-1., 2.])
    """
    return execute("Neg", (input,))


def _floating_unary(op_name, doc):
    def op(input):
        if input._data.dtype.kind != "f":
            input = cast(input, dtypes.default_float)
        return execute(op_name, (input,))

    op.__name__ = op.__qualname__ = op_name.lower()
    op.__doc__ = doc
    return op


exp = _floating_unary("Exp", """e to the power of each element. Runs the "Exp" op (integers are promoted to float32).

    >>> mt.exp(mt.tensor([0.0, 1.0]))
    tensor([1.0000, 2.7183])
    """)
log = _floating_unary("Log", """The natural logarithm of each element. Runs the "Log" op (integers are promoted to float32).

    >>> mt.log(mt.tensor([1.0, 4.0]))
    tensor([0.0000, 1.3863])
    """)
sqrt = _floating_unary("Sqrt", """The square root of each element. Runs the "Sqrt" op (integers are promoted to float32).

    >>> mt.sqrt(mt.tensor([4, 9]))
    tensor([2., 3.])
    """)
sin = _floating_unary("Sin", """The sine of each element (radians). Runs the "Sin" op (integers are promoted to float32).

    >>> mt.sin(mt.tensor([0.0, 1.5708]))
    tensor([0., 1.])
    """)
cos = _floating_unary("Cos", """The cosine of each element (radians). Runs the "Cos" op (integers are promoted to float32).

    >>> mt.cos(mt.tensor([0.0, 3.1416]))
    tensor([ 1., -1.])
    """)
tanh = _floating_unary("Tanh", """The hyperbolic tangent of each element. Runs the "Tanh" op (integers are promoted to float32).

    >>> mt.tanh(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7616])
    """)
sigmoid = _floating_unary("Sigmoid", """The logistic sigmoid 1 / (1 + e^-x) of each element. Runs the "Sigmoid" op (integers are promoted to float32).

    >>> mt.sigmoid(mt.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """)


def abs(input):
    """The absolute value of each element. Runs the "Abs" op.

    >>> mt.abs(mt.tensor([-1.5, 2.0]))
    tensor([1.5000, 2.0000])
    """
    return execute("Abs", (input,))


def relu(input):
    """max(x, 0) elementwise. Runs the "Relu" op.

    >>> mt.relu(mt.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
    """
    return execute("Relu", (input,))


def sign(input):
    """-1, 0 or 1 by the sign of each element (0 for NaN, as PyTorch). Runs the "Sign" op (its gradient is 0).

    >>> mt.sign(mt.tensor([-3.0, 0.0, 2.0]))
    tensor([-1., 0., 1.])
    """
    return execute("Sign", (input,))


def square(input):
    """x * x elementwise. Runs the "Mul" op.

    >>> mt.square(mt.tensor([-2.0, 3.0]))
    tensor([4., 9.])
    """
    return input * input


maximum = binary_function("Maximum", "maximum", """The larger of a and b, elementwise with broadcasting (ties split the gradient). Runs the "Maximum" op.

    >>> mt.maximum(mt.tensor([1.0, 5.0]), mt.tensor([3.0, 2.0]))
    tensor([3., 5.])
    """)
minimum = binary_function("Minimum", "minimum", """The smaller of a and b, elementwise with broadcasting (ties split the gradient). Runs the "Minimum" op.

    >>> mt.minimum(mt.tensor([1.0, 5.0]), mt.tensor([3.0, 2.0]))
    tensor([1., 2.])
    """)


def where(condition, input=None, other=None):
    """input where condition holds, else other (broadcasting all three). Runs the "SelectV2" op.
    `where(condition)` alone is `nonzero(condition, as_tuple=True)`, the indices where it holds.

    >>> x = mt.tensor([-1.0, 2.0, -3.0])
    >>> mt.where(x > 0, x, mt.zeros(3))
    tensor([0., 2., 0.])
    >>> mt.where(x > 0, 1.0, 0.0)
    tensor([0., 1., 0.])
    >>> mt.where(x < 0)
    (tensor([0, 2]),)
    """
    if input is None and other is None:
        indices = np.nonzero(np.atleast_1d(np.asarray(condition)))
        return tuple(Tensor._make(i.astype(np.int64)) for i in indices)
    if input is None or other is None:
        raise TypeError("where() takes condition alone, or condition, input and other")
    condition = as_operand(condition)
    if condition._data.dtype != np.bool_:
        condition = cast(condition, dtypes.bool_)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        # Two Python numbers: the result dtype is theirs (float -> the default float), as in PyTorch.
        input = as_operand(input)
    input, other = _coerce_pair(input, other)
    return execute("SelectV2", (condition, input, other))


def masked_fill(input, mask, value):
    """`x` with `value` where `mask` is True (the mask broadcasts to x; x keeps its dtype). Runs the "SelectV2" op.

    >>> mt.tensor([1.0, 2.0, 3.0]).masked_fill(mt.tensor([True, False, True]), 0.0)
    tensor([0., 2., 0.])
    """
    mask = as_operand(mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill only supports boolean masks, but got mask with dtype {mask.dtype}")
    return where(mask, cast(as_operand(value, like=input), input._data.dtype), input)


def clamp(input, min=None, max=None):
    """Each element limited to [min, max] (either may be None). Runs the "ClipByValue" op; `mt.clip` is the same function.

    Number bounds keep x's dtype unless x holds integers and a bound is a float (float32, as
    PyTorch). Tensor bounds broadcast and get their share of the gradient (where they win):
    then it runs "SelectV2" ops, min first, so max wins where min > max, as in PyTorch.

    >>> mt.clamp(mt.tensor([-2.0, 0.5, 3.0]), min=-1, max=1)
    tensor([-1.0000, 0.5000, 1.0000])
    >>> mt.clamp(mt.tensor([1, 5]), max=mt.tensor([3, 3]))
    tensor([1, 3])
    """
    if min is None and max is None:
        raise ValueError("clamp: at least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if min is not None:
            input = where(lt(input, min), min, input)
        if max is not None:
            input = where(gt(input, max), max, input)
        return input
    if input._data.dtype.kind != "f" and any(isinstance(bound, builtins.float) for bound in (min, max)):
        input = cast(input, dtypes.default_float)
    return execute("ClipByValue", (input,), {"low": min, "high": max})


def matmul(input, other, transpose_b=False):
    """Matrix product with numpy/PyTorch semantics (1-D operands, batch broadcasting). Runs the "MatMul" op.

    `transpose_b=True` multiplies by b's transpose without a Transpose op (nn.Linear's x W^T).

    >>> (mt.ones(2, 3) @ mt.ones(3, 4)).shape
    minitorch.Size([2, 4])
    >>> mt.matmul(mt.tensor([[1.0, 2.0]]), mt.tensor([[3.0], [4.0]]))
    tensor([[11.]])

    As in PyTorch, the operands are not promoted: their dtypes must be the same.
    """
    input, other = as_operand(input), as_operand(other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"MatMul: expected m1 and m2 to have the same dtype, but got: {input.dtype} != {other.dtype}")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"MatMul: both arguments need at least 1 dimension, got shapes {input.shape} and {other.shape}")
    if input.ndim == 1 and other.ndim == 1:
        if input.shape != other.shape:
            raise ShapeError(f"MatMul: inconsistent tensor size, shapes {input.shape} and {other.shape}")
        return execute("Sum", (input * other,), {"axis": None, "keepdims": False})
    if transpose_b and other.ndim >= 2:
        if input.ndim >= 2 and input.shape[-1] == other.shape[-1]:
            return _matmul_op(input, other, False, True)
        other = other.mT
    squeeze_a, squeeze_b = input.ndim == 1, other.ndim == 1
    if squeeze_a:
        input = input.reshape(1, -1)
    if squeeze_b:
        other = other.reshape(-1, 1)
    if input.shape[-1] != other.shape[-2]:
        raise ShapeError(
            f"MatMul: shapes {tuple(input.shape)} and {tuple(other.shape)} cannot be multiplied "
            f"({input.shape[-1]} columns vs {other.shape[-2]} rows)"
        )
    out = execute("MatMul", (input, other))
    if squeeze_a:
        out = out.squeeze(-2)
    if squeeze_b:
        out = out.squeeze(-1)
    return out


def add_n(tensors):
    """The elementwise sum of a list of same-shape tensors. Runs the "AddN" op (TensorFlow's tf.add_n).

    >>> mt.add_n([mt.ones(2), mt.ones(2), mt.tensor([1.0, 2.0])])
    tensor([3., 4.])
    """
    return execute("AddN", tuple(tensors))


lt = binary_function("Less", "lt", """a < b, elementwise (broadcasting). Runs the "Less" op; the result is a bool tensor.

    >>> mt.lt(mt.tensor([1, 2, 3]), 2)
    tensor([ True, False, False])
    """)
le = binary_function("LessEqual", "le", """a <= b, elementwise (broadcasting). Runs the "LessEqual" op; the result is a bool tensor.

    >>> mt.le(mt.tensor([1, 2, 3]), 2)
    tensor([ True,  True, False])
    """)
gt = binary_function("Greater", "gt", """a > b, elementwise (broadcasting). Runs the "Greater" op; the result is a bool tensor.

    >>> mt.gt(mt.tensor([1, 2, 3]), 2)
    tensor([False, False,  True])
    """)
ge = binary_function("GreaterEqual", "ge", """a >= b, elementwise (broadcasting). Runs the "GreaterEqual" op; the result is a bool tensor.

    >>> mt.ge(mt.tensor([1, 2, 3]), 2)
    tensor([False,  True,  True])
    """)
eq = binary_function("Equal", "eq", """a == b, elementwise (broadcasting). Runs the "Equal" op; the result is a bool tensor.

    >>> mt.eq(mt.tensor([1, 2, 3]), mt.tensor([1, 0, 3]))
    tensor([ True, False,  True])
    """)
ne = binary_function("NotEqual", "ne", """a != b, elementwise (broadcasting). Runs the "NotEqual" op; the result is a bool tensor.

    >>> mt.ne(mt.tensor([1, 2, 3]), mt.tensor([1, 0, 3]))
    tensor([False,  True, False])
    """)
logical_and = binary_function("LogicalAnd", "logical_and", """Elementwise logical AND of two bool tensors. Runs the "LogicalAnd" op; the result is a bool tensor.

    >>> mt.logical_and(mt.tensor([True, True, False]), mt.tensor([True, False, False]))
    tensor([ True, False, False])
    """)
logical_or = binary_function("LogicalOr", "logical_or", """Elementwise logical OR of two bool tensors. Runs the "LogicalOr" op; the result is a bool tensor.

    >>> mt.logical_or(mt.tensor([True, True, False]), mt.tensor([True, False, False]))
    tensor([ True,  True, False])
    """)
logical_xor = binary_function("LogicalXor", "logical_xor", """Elementwise logical XOR of two bool tensors. Runs the "LogicalXor" op; the result is a bool tensor.

    >>> mt.ops.math_ops.logical_xor(mt.tensor([True, True, False]), mt.tensor([True, False, False]))
    tensor([False,  True, False])
    """)


floor_divide = binary_function("FloorDiv", "floor_divide", """a // b, rounded toward minus infinity (Python's and PyTorch's `//`). Runs the "FloorDiv" op (not differentiable).

    >>> mt.floor_divide(mt.tensor([7, -7]), 2)
    tensor([ 3, -4])
    """)
remainder = binary_function("FloorMod", "remainder", """a % b with the sign of b (Python's and PyTorch's `%`). Runs the "FloorMod" op.

    >>> mt.remainder(mt.tensor([7.0, -7.0]), 3)
    tensor([1., 2.])
    """)
bitwise_and = binary_function("BitwiseAnd", "bitwise_and", """a & b, elementwise, for integer and bool tensors. Runs the "BitwiseAnd" op.

    >>> mt.bitwise_and(mt.tensor([12, 10]), 6), mt.tensor([True, False]) & mt.tensor([True, True])
    (tensor([4, 2]), tensor([ True, False]))
    """)
bitwise_or = binary_function("BitwiseOr", "bitwise_or", """a | b, elementwise, for integer and bool tensors. Runs the "BitwiseOr" op.

    >>> mt.bitwise_or(mt.tensor([12, 10]), 6)
    tensor([14, 14])
    """)
bitwise_xor = binary_function("BitwiseXor", "bitwise_xor", """a ^ b, elementwise, for integer and bool tensors. Runs the "BitwiseXor" op.

    >>> mt.bitwise_xor(mt.tensor([12, 10]), 6)
    tensor([10, 12])
    """)


def bitwise_not(input):
    """~x: NOT of a bool tensor, bitwise NOT of an integer one. Runs the "Invert" op.

    >>> mt.bitwise_not(mt.tensor([True, False])), ~mt.tensor([0, 5])
    (tensor([False,  True]), tensor([-1, -6]))
    """
    if input._data.dtype.kind == "f":
        raise TypeError(f"bitwise_not: not implemented for {input.dtype} (integer and bool tensors only)")
    return execute("Invert", (input,))


def logical_not(input):
    """Elementwise logical NOT of a bool tensor. Runs the "LogicalNot" op.

    >>> mt.logical_not(mt.tensor([True, False]))
    tensor([False,  True])
    """
    return execute("LogicalNot", (input,))


def isnan(input):
    """True where an element is NaN. Runs the "IsNan" op.

    >>> mt.isnan(mt.tensor([1.0, float("nan")]))
    tensor([False,  True])
    """
    return execute("IsNan", (input,))


def isinf(input):
    """True where an element is +inf or -inf. Runs the "IsInf" op.

    >>> mt.isinf(mt.tensor([1.0, float("inf"), -float("inf")]))
    tensor([False,  True,  True])
    """
    return execute("IsInf", (input,))


def isfinite(input):
    """True where an element is neither inf nor NaN. Runs the "IsFinite" op.

    >>> mt.isfinite(mt.tensor([1.0, float("inf"), float("nan")]))
    tensor([ True, False, False])
    """
    return execute("IsFinite", (input,))


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

