"""Special functions (scipy.special): each op's numpy kernel, then its gradient.

"Erf" is the error function behind the exact GELU; "Log1p" is log(1 + x)
without the rounding of 1 + x, which keeps BCEWithLogitsLoss accurate for
large logits. Both gradients are written with minitorch ops, so they are
differentiable again.
"""
import math

import numpy as np
from scipy import special

from .. import dtypes
from ..creation import as_operand
from ..engine.execute import execute
from ..engine.registry import TRANSPOSE, gradient, kernel
from .math_ops import cast

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@kernel("Erf")
def _erf(x):
    return special.erf(x).astype(x.dtype, copy=False)


@gradient("Erf", needs="inputs", jvp=TRANSPOSE)
def _erf_grad(op, grad):
    """d erf(x) = 2/sqrt(pi) exp(-x^2) dx."""
    x = op.inputs[0]
    return grad * (_TWO_OVER_SQRT_PI * (-(x * x)).exp())


@kernel("Log1p")
def _log1p(x):
    return np.log1p(x)


@gradient("Log1p", needs="inputs", jvp=TRANSPOSE)
def _log1p_grad(op, grad):
    """d log(1 + x) = dx / (1 + x)."""
    return grad / (1 + op.inputs[0])


# ----- the functional API -----

def _floating(x):
    x = as_operand(x)
    if x._data.dtype.kind != "f":
        x = cast(x, dtypes.default_float)
    return x


def erf(x):
    """The error function, elementwise (integer inputs are promoted to float32).

    >>> mt.ops.special_ops.erf(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8427])
    """
    return execute("Erf", (_floating(x),))


def log1p(x):
    """log(1 + x), elementwise, accurate for small x."""
    return execute("Log1p", (_floating(x),))

