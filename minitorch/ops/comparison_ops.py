"""Comparisons, tests and the choices made by them: ==, <, ... (bool results), the logical
and/or/xor/not, isnan and its relatives, isclose, then maximum and minimum, fmax and fmin,
clamp, where and masked_fill, nan_to_num.

Comparisons and tests are not differentiable (their rows have no gradient). The choices are:
the gradient goes where the value came from ("SelectV2" for where, masked_fill and clamp by
tensors; "ClipByValue" for clamp by numbers; ties of maximum and minimum split it in half,
as PyTorch does).
"""
import numpy as np

from .. import dtypes
from ..creation import ones_like, zeros_like
from ..engine.execute import execute
from ..tensor import Tensor
from .coercion import as_operand, binary, cast, promote_pair, unary
from .rows import TRANSPOSE, elementwise, fit, op

# ----- comparisons and logic: bool results, no gradient -----

# name: (op, numpy function, what it computes, an example, its result)
_COMPARISONS = {
    "lt": ("Less", np.less, "a < b, elementwise (broadcasting)", "mt.lt(mt.tensor([1, 2, 3]), 2)",
           "tensor([ True, False, False])"),
    "le": ("LessEqual", np.less_equal, "a <= b, elementwise (broadcasting)", "mt.le(mt.tensor([1, 2, 3]), 2)",
           "tensor([ True,  True, False])"),
    "gt": ("Greater", np.greater, "a > b, elementwise (broadcasting)", "mt.gt(mt.tensor([1, 2, 3]), 2)",
           "tensor([False, False,  True])"),
    "ge": ("GreaterEqual", np.greater_equal, "a >= b, elementwise (broadcasting)", "mt.ge(mt.tensor([1, 2, 3]), 2)",
           "tensor([False,  True,  True])"),
    "eq": ("Equal", np.equal, "a == b, elementwise (broadcasting)", "mt.eq(mt.tensor([1, 2, 3]), mt.tensor([1, 0, 3]))",
           "tensor([ True, False,  True])"),
    "ne": ("NotEqual", np.not_equal, "a != b, elementwise (broadcasting)",
           "mt.ne(mt.tensor([1, 2, 3]), mt.tensor([1, 0, 3]))", "tensor([False,  True, False])"),
    "logical_and": ("LogicalAnd", np.logical_and, "Elementwise logical AND of two bool tensors",
                    "mt.logical_and(mt.tensor([True, True, False]), mt.tensor([True, False, False]))",
                    "tensor([ True, False, False])"),
    "logical_or": ("LogicalOr", np.logical_or, "Elementwise logical OR of two bool tensors",
                   "mt.logical_or(mt.tensor([True, True, False]), mt.tensor([True, False, False]))",
                   "tensor([ True,  True, False])"),
    "logical_xor": ("LogicalXor", np.logical_xor, "Elementwise logical XOR of two bool tensors",
                    "mt.logical_xor(mt.tensor([True, True, False]), mt.tensor([True, False, False]))",
                    "tensor([False,  True, False])"),
}


def _comparison(name, op_name, numpy_function, computes, example, result):
    doc = f"""{computes}. Runs the "{op_name}" op; the result is a bool tensor.

    >>> {example}
    {result}
    """
    return binary(op(op_name, numpy_function), name, doc)


lt, le, gt, ge, eq, ne, logical_and, logical_or, logical_xor = (
    _comparison(name, *row) for name, row in _COMPARISONS.items())
logical_not = unary(op("LogicalNot", np.logical_not), "logical_not", """Elementwise logical NOT of a bool tensor. Runs the "LogicalNot" op.

    >>> mt.logical_not(mt.tensor([True, False]))
    tensor([False,  True])
    """)


# ----- tests of each element -----

isnan = unary(op("IsNan", np.isnan), "isnan", """True where an element is NaN. Runs the "IsNan" op.

    >>> mt.isnan(mt.tensor([1.0, float("nan")]))
    tensor([False,  True])
    """)
isinf = unary(op("IsInf", np.isinf), "isinf", """True where an element is +inf or -inf. Runs the "IsInf" op.

    >>> mt.isinf(mt.tensor([1.0, float("inf"), -float("inf")]))
    tensor([False,  True,  True])
    """)
isfinite = unary(op("IsFinite", np.isfinite), "isfinite", """True where an element is neither inf nor NaN. Runs the "IsFinite" op.

    >>> mt.isfinite(mt.tensor([1.0, float("inf"), float("nan")]))
    tensor([ True, False, False])
    """)


def _isposinf(x):
    return np.isposinf(x) if x.dtype.kind == "f" else np.zeros(x.shape, np.bool_)


def _isneginf(x):
    return np.isneginf(x) if x.dtype.kind == "f" else np.zeros(x.shape, np.bool_)


isposinf = unary(op("IsPosInf", _isposinf), "isposinf", """True where an element is +inf. Runs the "IsPosInf" op.

    >>> mt.isposinf(mt.tensor([1.0, float("inf"), -float("inf")]))
    tensor([False,  True, False])
    """)
isneginf = unary(op("IsNegInf", _isneginf), "isneginf", """True where an element is -inf. Runs the "IsNegInf" op.

    >>> mt.isneginf(mt.tensor([1.0, float("inf"), -float("inf")]))
    tensor([False, False,  True])
    """)


def isreal(input):
    """True for every element: minitorch has no complex dtypes, so every value is real.

    >>> mt.isreal(mt.tensor([1.0, float("nan")]))
    tensor([True, True])
    """
    return ones_like(input, dtype=dtypes.bool_)


def _isclose(a, b, rtol, atol, equal_nan):
    if a.dtype == np.bool_:
        return np.equal(a, b)
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


op("IsClose", _isclose)


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


# ----- choosing: where, masked_fill -----

def _select_grad(op, grad):
    """d where(c, x, y) = where(c, dx, 0) + where(c, 0, dy)."""
    condition = op.inputs[0]
    zeros = zeros_like(grad)
    need_x, need_y = op.needs_input_grad[1:]
    return None, (where(condition, grad, zeros) if need_x else None), (where(condition, zeros, grad) if need_y else None)


def _select_jvp(inputs, outputs, attrs, tangents):
    """The tangent is picked like the value."""
    condition, x, y = inputs
    zero = Tensor._make(np.zeros((), outputs[0]._data.dtype))
    tx = zero if tangents[1] is None else tangents[1]
    ty = zero if tangents[2] is None else tangents[2]
    return execute("SelectV2", (condition, fit(tx, outputs[0]), fit(ty, outputs[0])))


op("SelectV2", np.where, _select_grad, needs="inputs", jvp=_select_jvp)


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
    input, other = promote_pair(input, other)
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


# ----- the larger or the smaller: maximum, minimum, fmax, fmin -----

def _minmax_grad(op, grad, pick_x):
    """The gradient goes to the chosen input; a tie splits it in half, as PyTorch does."""
    x, y = op.inputs
    share_x = cast(pick_x(x, y), grad.dtype) + cast(eq(x, y), grad.dtype) * 0.5
    need_x, need_y = op.needs_input_grad
    return (grad * share_x if need_x else None), (grad * (1 - share_x) if need_y else None)


def _maximum_grad(op, grad):
    """d max(x, y) = [x > y] dx + [x < y] dy (ties: half each)."""
    return _minmax_grad(op, grad, gt)


def _minimum_grad(op, grad):
    """d min(x, y) = [x < y] dx + [x > y] dy (ties: half each)."""
    return _minmax_grad(op, grad, lt)


maximum = binary(op("Maximum", np.maximum, _maximum_grad, needs="inputs", jvp=TRANSPOSE), "maximum", """The larger of a and b, elementwise with broadcasting (ties split the gradient). Runs the "Maximum" op.

    >>> mt.maximum(mt.tensor([1.0, 5.0]), mt.tensor([3.0, 2.0]))
    tensor([3., 5.])
    """)
minimum = binary(op("Minimum", np.minimum, _minimum_grad, needs="inputs", jvp=TRANSPOSE), "minimum", """The smaller of a and b, elementwise with broadcasting (ties split the gradient). Runs the "Minimum" op.

    >>> mt.minimum(mt.tensor([1.0, 5.0]), mt.tensor([3.0, 2.0]))
    tensor([1., 2.])
    """)


def _pick_grad(op, grad, x_wins):
    x, y = op.inputs
    picked_x = logical_or(x_wins(x, y), isnan(y))
    zeros = zeros_like(grad)
    need_x, need_y = op.needs_input_grad
    return (where(picked_x, grad, zeros) if need_x else None), (where(picked_x, zeros, grad) if need_y else None)


def _fmax_grad(op, grad):
    """d fmax(x, y) = [x >= y or y is nan] dx + [x < y or x is nan] dy (ties go to x, as PyTorch)."""
    return _pick_grad(op, grad, ge)


def _fmin_grad(op, grad):
    """d fmin(x, y) = [x <= y or y is nan] dx + [x > y or x is nan] dy (ties go to x, as PyTorch)."""
    return _pick_grad(op, grad, le)


fmax = binary(op("Fmax", np.fmax, _fmax_grad, needs="inputs", jvp=elementwise), "fmax", """The larger of input and other, elementwise, ignoring NaN (NaN only where both are). Runs the "Fmax" op.

    >>> mt.fmax(mt.tensor([1.0, float("nan"), 3.0]), mt.tensor([2.0, 0.0, float("nan")]))
    tensor([2., 0., 3.])
    """)
fmin = binary(op("Fmin", np.fmin, _fmin_grad, needs="inputs", jvp=elementwise), "fmin", """The smaller of input and other, elementwise, ignoring NaN (NaN only where both are). Runs the "Fmin" op.

    >>> mt.fmin(mt.tensor([1.0, float("nan"), 3.0]), mt.tensor([2.0, 0.0, float("nan")]))
    tensor([1., 0., 3.])
    """)


# ----- limits: clamp, nan_to_num -----

def _clip(x, low, high):
    return np.clip(x, low, high)


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


op("ClipByValue", _clip, _clip_grad, needs="inputs", jvp=TRANSPOSE)


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
    if input._data.dtype.kind != "f" and any(isinstance(bound, float) for bound in (min, max)):
        input = cast(input, dtypes.default_float)
    return execute("ClipByValue", (input,), {"low": min, "high": max})


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


def _nan_to_num(x, nan, posinf, neginf):
    return np.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)


def _nan_to_num_grad(op, grad):
    """d nan_to_num(x) = [x is finite] dx."""
    return where(isfinite(op.inputs[0]), grad, zeros_like(grad))


op("NanToNum", _nan_to_num, _nan_to_num_grad, needs="inputs", jvp=elementwise)


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
