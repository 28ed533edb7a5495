"""The elementwise functions networks use as activations, as ops: relu, sigmoid and its inverse
logit, and the two PyTorch also has as Tensor methods, prelu and hardshrink. (The others are
compositions in nn/functional/activation.py.)

Dedicated gradient ops (SigmoidGrad, ReluGrad) follow TensorFlow: one kernel instead of three,
with gradients of their own. Relu and ReluGrad on big arrays split their rows over minitorch's
intra-op threads (parallel.py), and use numpy's fastest loops (measured, in their docstrings).
"""
import numpy as np
from scipy.special import expit

from .. import parallel
from ..creation import zeros_like
from ..engine.execute import execute
from ..errors import ShapeError
from .coercion import floating, floating_unary, require_floating
from .comparison_ops import ge, le, logical_and, where
from .rows import TRANSPOSE, elementwise, op

# ----- relu -----


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


def _relu(x):
    return _rowwise("Relu", _positive_part, x)


# Below this many elements a kernel's one plain ufunc call beats the extra array its faster loop needs.
_FAST_LOOP_MIN_SIZE = 4096


def _positive_part(x, out=None):
    """max(x, 0), NaN kept. Against an array of zeros, not the scalar 0, when big: numpy's vectorised
    maximum loop wants two strided operands, and the zeros cost less than the slower loop (0.59 -> 0.42 ms on 6 MB)."""
    big = x.size >= _FAST_LOOP_MIN_SIZE and x.dtype.kind == "f"  # (0 and zeros of x's dtype differ for booleans)
    return np.maximum(x, np.zeros_like(x) if big else 0, out=out)


def _relu_grad(op, grad):
    """d relu(x) = [x > 0] dx, computed by the ReluGrad op from the output."""
    return execute("ReluGrad", (grad, op.outputs[0]))


op("Relu", _relu, _relu_grad, needs="outputs", jvp=elementwise)


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


def _relu_grad_grad(op, grad):
    """ReluGrad(g, y) = g [y > 0] is linear in g, with a mask that is flat in y."""
    return execute("ReluGrad", (grad, op.inputs[1])), None


op("ReluGrad", _relu_grad_kernel, _relu_grad_grad, needs="inputs", jvp=elementwise)


def relu(input):
    """max(x, 0) elementwise. Runs the "Relu" op.

    >>> mt.relu(mt.tensor([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
    """
    return execute("Relu", (input,))


# ----- sigmoid and logit -----

def _sigmoid_grad(op, grad):
    """d s(x) = s(x) (1 - s(x)) dx, computed by the SigmoidGrad op from the output."""
    return execute("SigmoidGrad", (op.outputs[0], grad))


sigmoid = floating_unary(op("Sigmoid", expit, _sigmoid_grad, needs="outputs", jvp=elementwise), "sigmoid", """The logistic sigmoid 1 / (1 + e^-x) of each element. Runs the "Sigmoid" op (integers are promoted to float32).

    >>> mt.sigmoid(mt.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """)


def _sigmoid_grad_kernel(y, g):
    return g * y * (1 - y)


def _sigmoid_grad_grad(op, grad):
    """SigmoidGrad(y, g) = g y (1 - y): d/dy = g (1 - 2y), d/dg = y (1 - y)."""
    y, g = op.inputs
    need_y, need_g = op.needs_input_grad
    return (grad * g * (1 - y * 2) if need_y else None), (execute("SigmoidGrad", (y, grad)) if need_g else None)


op("SigmoidGrad", _sigmoid_grad_kernel, _sigmoid_grad_grad, needs="inputs", jvp=TRANSPOSE)


def _logit(p, eps):
    if eps is not None:
        p = np.clip(p, eps, 1 - eps)
    return np.log(p / (1 - p))


def _logit_grad(op, grad):
    """d log(p / (1 - p)) = dp / (p (1 - p)); with eps, 0 where p is outside [eps, 1 - eps]."""
    p, eps = op.inputs[0], op.attrs["eps"]
    slope = grad / (p * (1 - p))
    if eps is None:
        return slope
    inside = logical_and(ge(p, eps), le(p, 1 - eps))
    return where(inside, slope, zeros_like(slope))


op("Logit", _logit, _logit_grad, needs="inputs", jvp=elementwise)


def logit(input, eps=None):
    """log(p / (1 - p)), the inverse of the sigmoid. With `eps`, p is first clamped to
    [eps, 1 - eps] (and the gradient is 0 outside). Runs the "Logit" op.

    >>> mt.logit(mt.tensor([0.5, 0.75, 0.1]))  # +-inf at 1 and 0
    tensor([ 0.0000,  1.0986, -2.1972])
    >>> mt.logit(mt.tensor([0.0, 1.0]), eps=0.1)
    tensor([-2.1972,  2.1972])
    """
    return execute("Logit", (floating(input),), {"eps": eps})


# ----- activations that are Tensor methods too (F.prelu, F.hardshrink, x.prelu(w), x.hardshrink()) -----

def prelu(input, weight):
    """x where x > 0, else weight * x, with one learned slope per channel (dimension 1) or one for all.

    >>> mt.prelu(mt.tensor([[-2.0, 1.0], [4.0, -1.0]]), mt.tensor([0.5, 0.25])).tolist()
    [[-1.0, 1.0], [4.0, -0.25]]
    """
    require_floating(input, "prelu")
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
    return where(input > 0, input, weight * input)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0.

    >>> mt.hardshrink(mt.tensor([-1.0, 0.3, 0.6]))
    tensor([-1.0000, 0.0000, 0.6000])
    """
    require_floating(input, "hardshrink")
    return where((input >= -lambd) & (input <= lambd), 0.0, input)
