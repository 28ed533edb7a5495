"""`mt.special`: PyTorch's torch.special namespace.

Most names are the functions mt already has under another name (gammaln is
lgamma, expit is sigmoid, psi is digamma, ...); the rest are ops of
ops/special_ops.py, computed by scipy.special. As in PyTorch, the Bessel
functions of the second kind, the Airy function and zeta have no gradient.
PyTorch's orthogonal polynomials (chebyshev_polynomial_t and friends) are
not here.

>>> mt.special.gammaln(mt.tensor([5.0])), mt.special.expit(mt.tensor([0.0]))
(tensor([3.1781]), tensor([0.5000]))
"""
from .ops import reduction_ops, special_ops
from .ops.activation_ops import logit, sigmoid as expit
from .ops.exponential_ops import exp2, expm1, log1p
from .ops.reduction_ops import logsumexp, softmax
from .ops.rounding_ops import round
from .ops.special_ops import (
    bessel_j0, bessel_j1, bessel_y0, bessel_y1, digamma, digamma as psi, entr, erf, erfc, erfcx, erfinv, i0,
    i0 as modified_bessel_i0, i0e, i1, i1 as modified_bessel_i1, i1e, igamma as gammainc, igammac as gammaincc,
    lgamma as gammaln, log_ndtr, modified_bessel_k0, modified_bessel_k1, mvlgamma as multigammaln, ndtr, ndtri,
    polygamma, xlog1py, xlogy, zeta,
)
from .ops.trigonometric_ops import sinc
from .ops.writes import accepts_out


# torch.special's newer functions call their argument `x`
def airy_ai(x):
    """The Airy function Ai(x) (`special_ops.airy_ai`).

    >>> mt.special.airy_ai(x=mt.tensor([0.0]))
    tensor([0.3550])
    """
    return special_ops.airy_ai(x)


def scaled_modified_bessel_k0(x):
    """e^x k0(x) (`special_ops.scaled_modified_bessel_k0`)."""
    return special_ops.scaled_modified_bessel_k0(x)


def scaled_modified_bessel_k1(x):
    """e^x k1(x) (`special_ops.scaled_modified_bessel_k1`)."""
    return special_ops.scaled_modified_bessel_k1(x)


def spherical_bessel_j0(x):
    """sin(x) / x (`special_ops.spherical_bessel_j0`)."""
    return special_ops.spherical_bessel_j0(x)


def log_softmax(input, dim, *, dtype=None):
    """log(softmax(input)) along `dim` (`mt.log_softmax`, with torch.special's keyword-only dtype).

    >>> mt.special.log_softmax(mt.tensor([0.0, 0.0]), 0)
    tensor([-0.6931, -0.6931])
    """
    return reduction_ops.log_softmax(input, dim, dtype)


__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
    "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr",
    "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]

# PyTorch's `out=`, from one wrapper, for the functions whose PyTorch forms take it (all but the softmaxes).
for _name in __all__:
    if _name not in ("log_softmax", "softmax"):
        globals()[_name] = accepts_out(globals()[_name])
del _name
