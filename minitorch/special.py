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
from .ops.math_ops import round, sigmoid as expit
from .ops.pointwise_ops import exp2, expm1, logit, sinc
from .ops.reduction_ops import log_softmax, logsumexp, softmax
from .ops.special_ops import (
    airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, digamma, digamma as psi, entr, erf, erfc, erfcx, erfinv, i0,
    i0 as modified_bessel_i0, i0e, i1, i1 as modified_bessel_i1, i1e, igamma as gammainc, igammac as gammaincc,
    lgamma as gammaln, log1p, log_ndtr, modified_bessel_k0, modified_bessel_k1, mvlgamma as multigammaln, ndtr, ndtri,
    polygamma, scaled_modified_bessel_k0, scaled_modified_bessel_k1, spherical_bessel_j0, xlog1py, xlogy, zeta,
)

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv",
    "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr",
    "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta",
]
