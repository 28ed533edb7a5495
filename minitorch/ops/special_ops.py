"""Special functions (scipy.special): each op's kernel, then its gradient.

"Erf" is the error function behind the exact GELU; "Log1p" is log(1 + x)
without the rounding of 1 + x, which keeps BCEWithLogitsLoss accurate for
large logits. The gamma family (lgamma, digamma, polygamma, igamma), the
Bessel function i0 and xlogy follow, as rows of pointwise_ops' factories.
Every gradient is written with minitorch ops, so it is differentiable again
(digamma's gradient is polygamma(1, x), polygamma(n)'s is polygamma(n + 1)).
Kernels cast scipy's result back to the input's dtype: float32 stays float32.
"""
import math

import numpy as np
from scipy import special

from ..engine.execute import execute
from ..engine.registry import TRANSPOSE, gradient, jvp, kernel
from .in_place_ops import twin
from .math_ops import cast, exp, log, ne, where
from .pointwise_ops import diagonal_jvp, floating, floating_binary, floating_unary

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_LOG_PI = math.log(math.pi)


def _same_dtype(scipy_function):
    """A scipy ufunc as a kernel whose result has its (first floating) input's dtype."""

    def kernel_function(*arrays):
        return scipy_function(*arrays).astype(arrays[-1].dtype, copy=False)

    kernel_function.__name__ = kernel_function.__qualname__ = f"_{scipy_function.__name__}"
    return kernel_function


# ----- the error function -----

@kernel("Erf")
def _erf(x):
    return special.erf(x).astype(x.dtype, copy=False)


@gradient("Erf", needs="inputs", jvp=TRANSPOSE)
def _erf_grad(op, grad):
    """d erf(x) = 2/sqrt(pi) exp(-x^2) dx."""
    x = op.inputs[0]
    return grad * (_TWO_OVER_SQRT_PI * (-(x * x)).exp())


def erf(x):
    """The error function, elementwise (integer inputs are promoted to float32). Runs the "Erf" op.

    >>> mt.erf(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8427])
    """
    return execute("Erf", (floating(x),))


@gradient("Erfc", needs="inputs")
def _erfc_grad(op, grad):
    """d erfc(x) = -2/sqrt(pi) exp(-x^2) dx."""
    x = op.inputs[0]
    return grad * (-_TWO_OVER_SQRT_PI * exp(-(x * x)))


erfc = floating_unary("Erfc", _same_dtype(special.erfc), "erfc", """The complementary error function 1 - erf(x), accurate where erf(x) is near 1. Runs the "Erfc" op.

    >>> mt.erfc(mt.tensor([0.0, 5.0], dtype=mt.float64))
    tensor([1.0000e+00, 1.5375e-12], dtype=minitorch.float64)
    """)


@gradient("Erfinv", needs="outputs")
def _erfinv_grad(op, grad):
    """d erfinv(x) = sqrt(pi)/2 exp(erfinv(x)^2) dx."""
    y = op.outputs[0]
    return grad * (_SQRT_PI_OVER_TWO * exp(y * y))


erfinv = floating_unary("Erfinv", _same_dtype(special.erfinv), "erfinv", """The inverse error function on (-1, 1) (+-inf at +-1, nan beyond). Runs the "Erfinv" op.

    >>> mt.erfinv(mt.tensor([0.0, 0.5, 1.0]))
    tensor([0.0000, 0.4769,    inf])
    """)


# ----- logarithms -----

@kernel("Log1p")
def _log1p(x):
    return np.log1p(x)


@gradient("Log1p", needs="inputs", jvp=TRANSPOSE)
def _log1p_grad(op, grad):
    """d log(1 + x) = dx / (1 + x)."""
    return grad / (1 + op.inputs[0])


def log1p(x):
    """log(1 + x), elementwise, accurate for small x (integers are promoted to float32). Runs the "Log1p" op.

    >>> mt.log1p(mt.tensor([1e-10, 1.0], dtype=mt.float64))
    tensor([1.0000e-10, 6.9315e-01], dtype=minitorch.float64)
    """
    return execute("Log1p", (floating(x),))


@gradient("Xlogy", needs="inputs")
def _xlogy_grad(op, grad):
    """d (x log y) = xlogy([x != 0], y) dx + x / y dy (the first term is 0 where x = 0, as in PyTorch)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    grad_x = grad * execute("Xlogy", (cast(ne(x, 0), x._data.dtype), y)) if need_x else None
    return grad_x, (grad * x / y if need_y else None)


xlogy = floating_binary("Xlogy", _same_dtype(special.xlogy), "xlogy", """x * log(y), elementwise with broadcasting, and 0 where x = 0 (unless y is nan). Runs the "Xlogy" op.

    >>> mt.xlogy(mt.tensor([0.0, 2.0, 0.0]), mt.tensor([0.0, 3.0, float("nan")]))
    tensor([0.0000, 2.1972,    nan])
    """)


# ----- the gamma function and its relatives -----

@gradient("Lgamma", needs="inputs")
def _lgamma_grad(op, grad):
    """d log|gamma(x)| = digamma(x) dx."""
    return grad * digamma(op.inputs[0])


def _lgamma(x):
    """scipy's gammaln, with PyTorch's lgamma(-inf) = inf (scipy gives -inf)."""
    return np.where(np.isneginf(x), np.inf, special.gammaln(x)).astype(x.dtype, copy=False)


lgamma = floating_unary("Lgamma", _lgamma, "lgamma", """log|gamma(x)|, elementwise (inf at 0 and the negative integers). Runs the "Lgamma" op.

    >>> mt.lgamma(mt.tensor([1.0, 5.0, 0.5]))
    tensor([0.0000, 3.1781, 0.5724])
    """)


@gradient("Digamma", needs="inputs")
def _digamma_grad(op, grad):
    """d digamma(x) = polygamma(1, x) dx."""
    return grad * polygamma(1, op.inputs[0])


digamma = floating_unary("Digamma", _same_dtype(special.psi), "digamma", """The digamma function, d/dx log gamma(x), elementwise (-inf at 0, nan at the negative integers).
    Runs the "Digamma" op.

    >>> mt.digamma(mt.tensor([1.0, 0.5]))
    tensor([-0.5772, -1.9635])
    """)


@kernel("Polygamma")
def _polygamma(x, n):
    return special.polygamma(n, x).astype(x.dtype, copy=False)


@gradient("Polygamma", needs="inputs")
def _polygamma_grad(op, grad):
    """d polygamma(n, x) = polygamma(n + 1, x) dx."""
    return grad * polygamma(op.attrs["n"] + 1, op.inputs[0])


jvp("Polygamma")(diagonal_jvp("Polygamma"))


def polygamma(n, input):
    """The n-th derivative of the digamma function (n >= 0; polygamma(0, x) is digamma(x)). Runs the "Polygamma" op.

    >>> mt.polygamma(1, mt.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
    """
    if int(n) != n or n < 0:
        raise ValueError(f"polygamma(n, x) does not support negative or fractional n, got n = {n}")
    return execute("Polygamma", (floating(input),), {"n": int(n)})


def polygamma_method(self, n):
    """`x.polygamma(n)` is `mt.polygamma(n, x)` (the method takes n after self).

    >>> mt.tensor([1.0]).polygamma(1)
    tensor([1.6449])
    """
    return polygamma(n, self)


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension p:
    p (p - 1) / 4 log(pi) + sum_i lgamma(x - i / 2), i = 0 .. p - 1 (defined for x > (p - 1) / 2;
    like PyTorch 2, other values are not refused). Runs the "Lgamma" op p times.

    >>> mt.mvlgamma(mt.tensor([2.0, 3.0]), 3)
    tensor([1.5963, 2.6949])
    """
    x = floating(input)
    if p < 1:
        raise ValueError(f"mvlgamma: p has to be greater than or equal to 1, got {p}")
    total = lgamma(x)
    for i in range(1, p):
        total = total + lgamma(x - i / 2)
    return total + p * (p - 1) / 4 * _LOG_PI


@gradient("Igamma", needs="inputs")
def _igamma_grad(op, grad):
    """d P(a, x) / dx = x^(a-1) e^(-x) / gamma(a); the derivative in a is not implemented (as in PyTorch)."""
    return _incomplete_gamma_grad(op, grad, 1.0)


@gradient("Igammac", needs="inputs")
def _igammac_grad(op, grad):
    """d Q(a, x) / dx = -x^(a-1) e^(-x) / gamma(a); the derivative in a is not implemented (as in PyTorch)."""
    return _incomplete_gamma_grad(op, grad, -1.0)


def _incomplete_gamma_grad(op, grad, sign):
    a, x = op.inputs
    need_a, need_x = op.needs_input_grad
    if need_a:
        raise RuntimeError(f"the derivative of {op.op_name.lower()} with respect to its first argument (a) is not "
                           "implemented (as in PyTorch); detach a")
    density = exp((a - 1) * log(x) - x - lgamma(a))
    return None, grad * density * sign


igamma = floating_binary("Igamma", _same_dtype(special.gammainc), "igamma", """The regularized lower incomplete gamma function P(a, x), elementwise with broadcasting.
    Runs the "Igamma" op (scipy's gammainc). Differentiable in x only, as in PyTorch.

    >>> mt.igamma(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.0]))
    tensor([0.6321, 0.5940])
    """)
igammac = floating_binary("Igammac", _same_dtype(special.gammaincc), "igammac", """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), elementwise with broadcasting.
    Runs the "Igammac" op (scipy's gammaincc). Differentiable in x only, as in PyTorch.

    >>> mt.igammac(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.0]))
    tensor([0.3679, 0.4060])
    """)


# ----- modified Bessel functions -----

@gradient("BesselI0", needs="inputs")
def _i0_grad(op, grad):
    """d i0(x) = i1(x) dx."""
    return grad * i1(op.inputs[0])


i0 = floating_unary("BesselI0", _same_dtype(special.i0), "i0", """The modified Bessel function of the first kind of order 0, elementwise. Runs the "BesselI0" op.

    >>> mt.i0(mt.tensor([0.0, 1.0, 2.0]))
    tensor([1.0000, 1.2661, 2.2796])
    """)


@gradient("BesselI1", needs="both")
def _i1_grad(op, grad):
    """d i1(x) = (i0(x) - i1(x) / x) dx, and dx / 2 at x = 0."""
    x, y = op.inputs[0], op.outputs[0]
    zero = x == 0
    safe_x = where(zero, 1.0, x)
    return grad * where(zero, 0.5, i0(x) - y / safe_x)


i1 = floating_unary("BesselI1", _same_dtype(special.i1), "i1", """The modified Bessel function of the first kind of order 1, elementwise. Runs the "BesselI1" op.

    >>> mt.ops.special_ops.i1(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.5652])
    """)


# ----- in-place twins: `mt.erf_(x)` is `x.erf_()`; tensor_methods binds them as methods -----

erf_ = twin(erf, "erf_", "Erf")
erfc_ = twin(erfc, "erfc_", "Erfc")
erfinv_ = twin(erfinv, "erfinv_", "Erfinv")
log1p_ = twin(log1p, "log1p_", "Log1p")
xlogy_ = twin(xlogy, "xlogy_", "Xlogy")
lgamma_ = twin(lgamma, "lgamma_", "Lgamma")
digamma_ = twin(digamma, "digamma_", "Digamma")
polygamma_ = twin(polygamma_method, "polygamma_")
mvlgamma_ = twin(mvlgamma, "mvlgamma_")
igamma_ = twin(igamma, "igamma_", "Igamma")
igammac_ = twin(igammac, "igammac_", "Igammac")
i0_ = twin(i0, "i0_", "BesselI0")
