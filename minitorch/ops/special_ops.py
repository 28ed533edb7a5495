"""Special functions (scipy.special): each op's kernel, gradient and forward rule, then its public function.

"Erf" is the error function behind the exact GELU. The gamma family (lgamma,
digamma, polygamma, igamma), the Bessel functions, the normal distribution's
functions, xlogy and entropy follow; then the functions PyTorch has without
gradients (torch.special's Bessel functions, Airy, zeta).
Every gradient is written with minitorch ops, so it is differentiable again
(digamma's gradient is polygamma(1, x), polygamma(n)'s is polygamma(n + 1)).
Kernels cast scipy's result back to the input's dtype: float32 stays float32.
"""
import math

import numpy as np
from scipy import special

from ..engine.execute import execute
from .coercion import cast, floating, floating_binary, floating_unary
from .comparison_ops import ne, where
from .exponential_ops import exp, log, log1p
from .rounding_ops import sign
from .rows import TRANSPOSE, elementwise, op

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_LOG_PI = math.log(math.pi)
_SQRT_TWO_PI = math.sqrt(2.0 * math.pi)
_ONE_OVER_SQRT_TWO_PI = 1.0 / _SQRT_TWO_PI


def _in_input_dtype(scipy_function):
    """A scipy ufunc as a kernel whose result has its (first floating) input's dtype."""

    def kernel_function(*arrays):
        return scipy_function(*arrays).astype(arrays[-1].dtype, copy=False)

    kernel_function.__name__ = kernel_function.__qualname__ = f"_{scipy_function.__name__}"
    return kernel_function


# ----- the error function -----

def _erf(x):
    return special.erf(x).astype(x.dtype, copy=False)


def _erf_grad(op, grad):
    """d erf(x) = 2/sqrt(pi) exp(-x^2) dx."""
    x = op.inputs[0]
    return grad * (_TWO_OVER_SQRT_PI * (-(x * x)).exp())


erf = floating_unary(op("Erf", _erf, _erf_grad, needs="inputs", jvp=TRANSPOSE), "erf", """The error function, elementwise (integer inputs are promoted to float32). Runs the "Erf" op.

    >>> mt.erf(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.8427])
    """)


def _erfc_grad(op, grad):
    """d erfc(x) = -2/sqrt(pi) exp(-x^2) dx."""
    x = op.inputs[0]
    return grad * (-_TWO_OVER_SQRT_PI * exp(-(x * x)))


erfc = floating_unary(op("Erfc", _in_input_dtype(special.erfc), _erfc_grad, needs="inputs", jvp=elementwise), "erfc", """The complementary error function 1 - erf(x), accurate where erf(x) is near 1. Runs the "Erfc" op.

    >>> mt.erfc(mt.tensor([0.0, 5.0], dtype=mt.float64))
    tensor([1.0000e+00, 1.5375e-12], dtype=minitorch.float64)
    """)


def _erfcx_grad(op, grad):
    """d (e^(x^2) erfc(x)) = (2 x erfcx(x) - 2/sqrt(pi)) dx."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (x * y * 2 - _TWO_OVER_SQRT_PI)


erfcx = floating_unary(op("Erfcx", _in_input_dtype(special.erfcx), _erfcx_grad, needs="both", jvp=elementwise), "erfcx", """The scaled complementary error function e^(x^2) erfc(x), without overflow. Runs the "Erfcx" op.

    >>> mt.special.erfcx(mt.tensor([0.0, 10.0, 100.0]))
    tensor([1.0000, 0.0561, 0.0056])
    """)


def _erfinv_grad(op, grad):
    """d erfinv(x) = sqrt(pi)/2 exp(erfinv(x)^2) dx."""
    y = op.outputs[0]
    return grad * (_SQRT_PI_OVER_TWO * exp(y * y))


erfinv = floating_unary(op("Erfinv", _in_input_dtype(special.erfinv), _erfinv_grad, needs="outputs", jvp=elementwise), "erfinv", """The inverse error function on (-1, 1) (+-inf at +-1, nan beyond). Runs the "Erfinv" op.

    >>> mt.erfinv(mt.tensor([0.0, 0.5, -0.9]))  # +-inf at +-1
    tensor([ 0.0000,  0.4769, -1.1631])
    """)


# ----- x log y -----

def _xlogy_grad(op, grad):
    """d (x log y) = xlogy([x != 0], y) dx + x / y dy (the first term is 0 where x = 0, as in PyTorch)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    grad_x = grad * execute("Xlogy", (cast(ne(x, 0), x._data.dtype), y)) if need_x else None
    return grad_x, (grad * x / y if need_y else None)


xlogy = floating_binary(op("Xlogy", _in_input_dtype(special.xlogy), _xlogy_grad, needs="inputs", jvp=elementwise), "xlogy", """x * log(y), elementwise with broadcasting, and 0 where x = 0 (unless y is nan). Runs the "Xlogy" op.

    >>> mt.xlogy(mt.tensor([0.0, 2.0, 0.0]), mt.tensor([0.0, 3.0, float("nan")]))
    tensor([0.0000, 2.1972,    nan])
    """)


# ----- the gamma function and its relatives -----

def _lgamma_grad(op, grad):
    """d log|gamma(x)| = digamma(x) dx."""
    return grad * digamma(op.inputs[0])


def _lgamma(x):
    """scipy's gammaln, with PyTorch's lgamma(-inf) = inf (scipy gives -inf)."""
    return np.where(np.isneginf(x), np.inf, special.gammaln(x)).astype(x.dtype, copy=False)


lgamma = floating_unary(op("Lgamma", _lgamma, _lgamma_grad, needs="inputs", jvp=elementwise), "lgamma", """log|gamma(x)|, elementwise (inf at 0 and the negative integers). Runs the "Lgamma" op.

    >>> mt.lgamma(mt.tensor([1.0, 5.0, 0.5]))
    tensor([0.0000, 3.1781, 0.5724])
    """)


def _digamma_grad(op, grad):
    """d digamma(x) = polygamma(1, x) dx."""
    return grad * polygamma(1, op.inputs[0])


digamma = floating_unary(op("Digamma", _in_input_dtype(special.psi), _digamma_grad, needs="inputs", jvp=elementwise), "digamma", """The digamma function, d/dx log gamma(x), elementwise (-inf at 0, nan at the negative integers).
    Runs the "Digamma" op.

    >>> mt.digamma(mt.tensor([1.0, 0.5]))
    tensor([-0.5772, -1.9635])
    """)


def _polygamma(x, n):
    return special.polygamma(n, x).astype(x.dtype, copy=False)


def _polygamma_grad(op, grad):
    """d polygamma(n, x) = polygamma(n + 1, x) dx."""
    return grad * polygamma(op.attrs["n"] + 1, op.inputs[0])


op("Polygamma", _polygamma, _polygamma_grad, needs="inputs", jvp=elementwise)




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


def _igamma_grad(op, grad):
    """d P(a, x) / dx = x^(a-1) e^(-x) / gamma(a); the derivative in a is not implemented (as in PyTorch)."""
    return _incomplete_gamma_grad(op, grad, 1.0)


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


igamma = floating_binary(op("Igamma", _in_input_dtype(special.gammainc), _igamma_grad, needs="inputs", jvp=elementwise), "igamma", """The regularized lower incomplete gamma function P(a, x), elementwise with broadcasting.
    Runs the "Igamma" op (scipy's gammainc). Differentiable in x only, as in PyTorch.

    >>> mt.igamma(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.0]))
    tensor([0.6321, 0.5940])
    """)
igammac = floating_binary(op("Igammac", _in_input_dtype(special.gammaincc), _igammac_grad, needs="inputs", jvp=elementwise), "igammac", """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), elementwise with broadcasting.
    Runs the "Igammac" op (scipy's gammaincc). Differentiable in x only, as in PyTorch.

    >>> mt.igammac(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 2.0]))
    tensor([0.3679, 0.4060])
    """)


# ----- modified Bessel functions -----

def _i0_grad(op, grad):
    """d i0(x) = i1(x) dx."""
    return grad * i1(op.inputs[0])


i0 = floating_unary(op("BesselI0", _in_input_dtype(special.i0), _i0_grad, needs="inputs", jvp=elementwise), "i0", """The modified Bessel function of the first kind of order 0, elementwise. Runs the "BesselI0" op.

    >>> mt.i0(mt.tensor([0.0, 1.0, 2.0]))
    tensor([1.0000, 1.2661, 2.2796])
    """)


def _i1_grad(op, grad):
    """d i1(x) = (i0(x) - i1(x) / x) dx, and dx / 2 at x = 0."""
    x, y = op.inputs[0], op.outputs[0]
    zero = x == 0
    safe_x = where(zero, 1.0, x)
    return grad * where(zero, 0.5, i0(x) - y / safe_x)


i1 = floating_unary(op("BesselI1", _in_input_dtype(special.i1), _i1_grad, needs="both", jvp=elementwise), "i1", """The modified Bessel function of the first kind of order 1, elementwise. Runs the "BesselI1" op.

    >>> mt.special.i1(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.5652])
    """)



def _i0e_grad(op, grad):
    """d (e^-|x| i0(x)) = (i1e(x) - sign(x) i0e(x)) dx."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (i1e(x) - sign(x) * y)


i0e = floating_unary(op("BesselI0e", _in_input_dtype(special.i0e), _i0e_grad, needs="both", jvp=elementwise), "i0e", """The exponentially scaled modified Bessel function of order 0, e^-|x| i0(x). Runs the "BesselI0e" op.

    >>> mt.special.i0e(mt.tensor([0.0, 1.0]))
    tensor([1.0000, 0.4658])
    """)


def _i1e_grad(op, grad):
    """d (e^-|x| i1(x)) = (i0e(x) - i1e(x) (sign(x) + 1 / x)) dx, and dx / 2 at x = 0."""
    x, y = op.inputs[0], op.outputs[0]
    zero = x == 0
    safe_x = where(zero, 1.0, x)
    return grad * where(zero, 0.5, i0e(x) - y * (sign(x) + 1 / safe_x))


i1e = floating_unary(op("BesselI1e", _in_input_dtype(special.i1e), _i1e_grad, needs="both", jvp=elementwise), "i1e", """The exponentially scaled modified Bessel function of order 1, e^-|x| i1(x). Runs the "BesselI1e" op.

    >>> mt.special.i1e(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2079])
    """)


# ----- the normal distribution and entropy -----

def _ndtr_grad(op, grad):
    """d Phi(x) = e^(-x^2 / 2) / sqrt(2 pi) dx."""
    x = op.inputs[0]
    return grad * (exp(x * x * -0.5) * _ONE_OVER_SQRT_TWO_PI)


ndtr = floating_unary(op("Ndtr", _in_input_dtype(special.ndtr), _ndtr_grad, needs="inputs", jvp=elementwise), "ndtr", """The standard normal cumulative distribution function Phi(x). Runs the "Ndtr" op.

    >>> mt.special.ndtr(mt.tensor([0.0, 1.0]))
    tensor([0.5000, 0.8413])
    """)


def _ndtri_grad(op, grad):
    """d Phi^-1(p) = sqrt(2 pi) e^(Phi^-1(p)^2 / 2) dp."""
    y = op.outputs[0]
    return grad * (exp(y * y * 0.5) * _SQRT_TWO_PI)


ndtri = floating_unary(op("Ndtri", _in_input_dtype(special.ndtri), _ndtri_grad, needs="outputs", jvp=elementwise), "ndtri", """The inverse of the standard normal cumulative distribution function. Runs the "Ndtri" op.

    >>> mt.special.ndtri(mt.tensor([0.5, 0.975]))
    tensor([0.0000, 1.9600])
    """)


def _log_ndtr_grad(op, grad):
    """d log Phi(x) = e^(-x^2 / 2 - log Phi(x)) / sqrt(2 pi) dx."""
    x, y = op.inputs[0], op.outputs[0]
    return grad * (exp(x * x * -0.5 - y) * _ONE_OVER_SQRT_TWO_PI)


log_ndtr = floating_unary(op("LogNdtr", _in_input_dtype(special.log_ndtr), _log_ndtr_grad, needs="both", jvp=elementwise), "log_ndtr", """log Phi(x), accurate far in the lower tail. Runs the "LogNdtr" op.

    >>> mt.special.log_ndtr(mt.tensor([0.0, -40.0], dtype=mt.float64))
    tensor([-6.9315e-01, -8.0461e+02], dtype=minitorch.float64)
    """)


def _entr_grad(op, grad):
    """d (-x log x) = -(log x + 1) dx."""
    return grad * -(log(op.inputs[0]) + 1)


entr = floating_unary(op("Entr", _in_input_dtype(special.entr), _entr_grad, needs="inputs", jvp=elementwise), "entr", """The elementwise entropy -x log(x): 0 at x = 0, -inf for x < 0. Runs the "Entr" op.

    >>> mt.special.entr(mt.tensor([0.0, 0.5, 1.0, -1.0]))
    tensor([0.0000, 0.3466, -0.0000,   -inf])
    """)


def _xlog1py_grad(op, grad):
    """d (x log(1 + y)) = log(1 + y) dx + x / (1 + y) dy (unlike xlogy's, the first term is not masked
    where x = 0: PyTorch's formula)."""
    x, y = op.inputs
    need_x, need_y = op.needs_input_grad
    return (grad * log1p(y) if need_x else None), (grad * x / (1 + y) if need_y else None)


xlog1py = floating_binary(op("Xlog1py", _in_input_dtype(special.xlog1py), _xlog1py_grad, needs="inputs", jvp=elementwise), "xlog1py", """x * log(1 + y), elementwise with broadcasting, and 0 where x = 0 (unless y is nan). Runs the "Xlog1py" op.

    >>> mt.special.xlog1py(mt.tensor([0.0, 2.0]), mt.tensor([-1.0, 1e-3]))
    tensor([0.0000, 0.0020])
    """)


# ----- functions PyTorch has without gradients (torch.special) -----

def _airy_ai(x):
    return special.airy(x)[0].astype(x.dtype, copy=False)


def _spherical_bessel_j0(x):
    return special.spherical_jn(0, x).astype(x.dtype, copy=False)


bessel_j0 = floating_unary(op("BesselJ0", _in_input_dtype(special.j0)), "bessel_j0", """The Bessel function of the first kind of order 0. Runs the "BesselJ0" op (not differentiable, as in PyTorch).

    >>> mt.special.bessel_j0(mt.tensor([0.0, 1.0]))
    tensor([1.0000, 0.7652])
    """)
bessel_j1 = floating_unary(op("BesselJ1", _in_input_dtype(special.j1)), "bessel_j1", """The Bessel function of the first kind of order 1. Runs the "BesselJ1" op (not differentiable, as in PyTorch).

    >>> mt.special.bessel_j1(mt.tensor([0.0, 1.0]))
    tensor([0.0000, 0.4401])
    """)
bessel_y0 = floating_unary(op("BesselY0", _in_input_dtype(special.y0)), "bessel_y0", """The Bessel function of the second kind of order 0. Runs the "BesselY0" op (not differentiable, as in PyTorch).

    >>> mt.special.bessel_y0(mt.tensor([0.0, 1.0]))
    tensor([  -inf, 0.0883])
    """)
bessel_y1 = floating_unary(op("BesselY1", _in_input_dtype(special.y1)), "bessel_y1", """The Bessel function of the second kind of order 1. Runs the "BesselY1" op (not differentiable, as in PyTorch).

    >>> mt.special.bessel_y1(mt.tensor([1.0, 2.0]))
    tensor([-0.7812, -0.1070])
    """)
modified_bessel_k0 = floating_unary(op("BesselK0", _in_input_dtype(special.k0)), "modified_bessel_k0", """The modified Bessel function of the second kind of order 0. Runs the "BesselK0" op (not differentiable, as in PyTorch).

    >>> mt.special.modified_bessel_k0(mt.tensor([0.5, 1.0]))
    tensor([0.9244, 0.4210])
    """)
modified_bessel_k1 = floating_unary(op("BesselK1", _in_input_dtype(special.k1)), "modified_bessel_k1", """The modified Bessel function of the second kind of order 1. Runs the "BesselK1" op (not differentiable, as in PyTorch).

    >>> mt.special.modified_bessel_k1(mt.tensor([0.5, 1.0]))
    tensor([1.6564, 0.6019])
    """)
scaled_modified_bessel_k0 = floating_unary(op("BesselK0e", _in_input_dtype(special.k0e)), "scaled_modified_bessel_k0", """e^x k0(x), the exponentially scaled modified Bessel function of the second kind of order 0.
    Runs the "BesselK0e" op (not differentiable, as in PyTorch).

    >>> mt.special.scaled_modified_bessel_k0(mt.tensor([1.0, 100.0]))
    tensor([1.1445, 0.1252])
    """)
scaled_modified_bessel_k1 = floating_unary(op("BesselK1e", _in_input_dtype(special.k1e)), "scaled_modified_bessel_k1", """e^x k1(x), the exponentially scaled modified Bessel function of the second kind of order 1.
    Runs the "BesselK1e" op (not differentiable, as in PyTorch).

    >>> mt.special.scaled_modified_bessel_k1(mt.tensor([1.0, 100.0]))
    tensor([1.6362, 0.1258])
    """)
spherical_bessel_j0 = floating_unary(op("SphericalBesselJ0", _spherical_bessel_j0), "spherical_bessel_j0", """The spherical Bessel function of the first kind of order 0, sin(x) / x. Runs the "SphericalBesselJ0" op
    (not differentiable, as in PyTorch).

    >>> mt.special.spherical_bessel_j0(mt.tensor([0.0, 3.1416]))
    tensor([ 1.0000e+00, -2.3046e-06])
    """)
airy_ai = floating_unary(op("AiryAi", _airy_ai), "airy_ai", """The Airy function Ai(x). Runs the "AiryAi" op (not differentiable, as in PyTorch).

    >>> mt.special.airy_ai(mt.tensor([0.0, 1.0]))
    tensor([0.3550, 0.1353])
    """)
zeta = floating_binary(op("Zeta", _in_input_dtype(special.zeta)), "zeta", """The Hurwitz zeta function, sum over k >= 0 of (k + q)^-x; zeta(x, 1) is Riemann's.
    Runs the "Zeta" op (not differentiable, as in PyTorch).

    >>> mt.special.zeta(mt.tensor([2.0, 4.0]), mt.tensor(1.0))
    tensor([1.6449, 1.0823])
    """)
